"""The table's input checks: strict about shape, never about the game. Every bundled
record plays through the table; every field's check agrees with what the engine reads."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from companion import records_examples
from companion.controller import GameStore, Table, TableError
from companion.controller.checks import (
    ADJUST_FIELDS,
    COMMON,
    KIND_FIELDS,
    STEP_KINDS,
    USE_FIELDS,
    check_setup,
    check_step,
    same_name,
)
from companion.records import load_record
from companion.rules import engine
from companion.rules.adjust import ADJUSTMENTS
from companion.rules.cards import CARD_USES
from tests.jsonfuzz import json_documents


def test_the_checks_know_the_same_steps_as_the_engine():
    assert STEP_KINDS == tuple(engine.FIELDS)
    assert KIND_FIELDS == {k: frozenset(v) for k, v in engine.FIELDS.items()}
    assert COMMON == engine.COMMON - {"illegal"}
    assert set(ADJUST_FIELDS) == set(ADJUSTMENTS)
    assert set(USE_FIELDS) <= set(CARD_USES)
    for fields in [*ADJUST_FIELDS.values(), *USE_FIELDS.values()]:
        assert fields <= KIND_FIELDS["adjust"] | KIND_FIELDS["use"]


@pytest.mark.parametrize("path", records_examples.paths(), ids=lambda p: p.name)
def test_every_bundled_record_plays_through_the_table(tmp_path, path):
    # the checks refuse nothing a real game holds: every legal step of every record
    record = load_record(path)
    table = Table(GameStore(tmp_path / "g.sqlite3"))
    table.new_game(record.setup)
    for step in record.steps:
        if "expect" in step:
            continue
        if step.get("illegal"):
            with pytest.raises(ValueError):
                table.apply_step({k: v for k, v in step.items() if k != "illegal"})
        else:
            table.apply_step(step)
    assert len(table.game.steps) == sum(1 for s in record.steps
                                        if "expect" not in s and not s.get("illegal"))


@pytest.mark.parametrize("names", [["Ann", "ann"], ["Mary Ann", "Mary  Ann"], ["Zoë", "Zoe\u0308"],
                                   ["Ann", "Ann"]])
def test_names_that_look_the_same_are_refused(names):
    with pytest.raises(TableError, match="different name"):
        check_setup({"players": names})


def test_same_name_ignores_case_width_spacing_and_emoji_variation():
    assert same_name("Mary\u00a0\uff21nn") == same_name("mary ann")
    assert same_name("\u2764\ufe0f Bo") == same_name("\u2764 bo")
    assert same_name("Ann") != same_name("Anne")


@pytest.mark.parametrize("step", [{"action": "recruit", "illegal": False}, {"expect": {}},
                                  {"use": "ugh", "roll": 6, "predict": 3},
                                  {"use": "tabby", "roll": 6}, {"adjust": "soldiers", "card": "X",
                                                                "player": "Ann", "amount": True},
                                  {"set_aside": []}, {"roll": [1] * 7, "event": "blank"}])
def test_steps_that_mean_nothing_are_refused(step):
    with pytest.raises(TableError):
        check_step(step)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_documents([*KIND_FIELDS, *COMMON, "adjust", "amount", "item", "card", "die"]))
def test_any_json_is_a_checked_step_or_a_table_error(doc):
    import json

    try:
        step = check_step(doc)
    except TableError as err:
        assert str(err).strip()
        return
    json.dumps(step, allow_nan=False)  # what passes can be stored as JSON
