"""The game engine: setup, refusals that change nothing, snapshots, legal steps, events, export."""
from __future__ import annotations

import json
from typing import Any

import pytest

from companion.records import export_record, replay_record, replay_steps
from companion.rules import (
    DragonFarkleError,
    Event,
    IllegalMove,
    SetupError,
    apply,
    checkpoint,
    legal_steps,
    new_game,
    snapshot,
)

CHECKPOINT_KEYS = {"player", "phase", "army", "turn_total", "dice_in_hand", "options", "farkle",
                   "damage", "in_keep", "items", "winner"}


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({}, "2 to 5 names"), ({"players": ["A"]}, "2 to 5 names"),
        ({"players": list("ABCDEF")}, "2 to 5 names"), ({"players": ["A", "A"]}, "same name"),
        ({"players": ["A", ""]}, "non-empty"), ({"players": ["A", "B"], "dragon_health": 6}, "Dragon of Legend"),
        ({"players": ["A", "B"], "table": "house"}, "no Soldier table"),
        ({"players": ["A", "B"], "armies": {"C": 100}}, "not in 'players'"),
        ({"players": ["A", "B"], "armies": {"A": 120}}, "multiple of 50"),
        ({"players": ["A", "B"], "armies": {"A": -50}}, "multiple of 50"),
        ({"players": ["A", "B"], "in_keep": ["Z"]}, "in_keep"),
        ({"players": ["A", "B"], "items": {"A": [3]}}, "Magic Item names"),
    ],
)
def test_bad_setups_are_refused(setup: dict[str, Any], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        new_game(setup)


def test_setup_extras_are_kept_untouched_and_copied() -> None:
    colors = {"A": "red", "B": "blue"}
    setup = {"players": ["A", "B"], "colors": colors, "table": "classic", "dragon_health": 5}
    state = new_game(setup)
    colors["A"] = "green"
    snap = snapshot(state)
    assert snap["setup"]["colors"] == {"A": "red", "B": "blue"}
    assert snap["table"] == "classic" and snap["dragon_health"] == 5


def test_inline_user_table_in_setup() -> None:
    state = new_game({"players": ["A", "B"], "table": {"name": "ours", "three_pairs": 750}})
    assert snapshot(state)["table"] == "ours"


def test_errors_are_value_errors() -> None:
    assert issubclass(IllegalMove, DragonFarkleError) and issubclass(IllegalMove, ValueError)


def test_checkpoint_has_every_transcripts_key() -> None:
    assert set(checkpoint(new_game({"players": ["A", "B"]}))) == CHECKPOINT_KEYS


def test_snapshot_is_json_and_has_what_a_ui_needs(play) -> None:
    state, _ = play({"players": ["Jane", "Joseph"], "armies": {"Jane": 1000}, "companions": {"Jane": "ugh"},
                     "items": {"Joseph": ["lucky_dragons_tooth"]}},
                    [{"action": "brawl", "target": "Joseph"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                     {"set_aside": [1, 5]}, {"action": "stop"}])
    snap = json.loads(json.dumps(snapshot(state)))
    assert CHECKPOINT_KEYS <= set(snap)
    assert snap["players"] == ["Jane", "Joseph"] and snap["current"] == "Jane"
    assert snap["player"] == "Joseph" and snap["phase"] == "roll" and snap["action"] == "brawl"
    assert snap["brawl"] == {"attacker": "Jane", "defender": "Joseph", "attacker_score": 150}
    assert snap["last_roll"] == [1, 2, 2, 4, 4, 5] and snap["last_event"] == "blank"
    assert snap["companions"] == {"Jane": "ugh", "Joseph": None}
    assert snap["items"] == {"Jane": 0, "Joseph": 1}
    assert snap["dragon_health"] == 3 and snap["table"] == "default"
    assert snap["prompt"] == "Joseph rolls 5 soldier dice and the Event die to defend against 150."
    assert {"use": "ugh", "player": "Jane", "needs": ["roll"]} in snap["legal_steps"]


def _sample_states() -> list[Any]:
    steps = [{"action": "recruit"}, {"roll": [2, 3, 4, 4, 4, 5], "event": "rally"}, {"set_aside": [5], "rally": "item"},
             {"roll": [1, 3, 6, 6, 2], "event": "dragon"}, {"action": "stop"},
             {"action": "final_battle"}, {"roll": [2, 2, 2, 3, 4, 6], "event": "dragon"}]
    setup = {"players": ["A", "B", "C"], "armies": {"B": 5000}, "companions": {"A": "tabby", "B": "sidia"}}
    state = new_game(setup)
    out = [state]
    for step in steps:
        state, _ = apply(state, step)
        out.append(state)
    return out


BAD_STEPS = [
    {"action": "roll"}, {"action": "stop"}, {"action": "recruit"}, {"action": "brawl", "target": "Q"},
    {"roll": [1, 2, 3], "event": "blank"}, {"roll": [9] * 6, "event": "blank"}, {"set_aside": [2, 3]},
    {"set_aside": [1], "rally": "double"}, {"keep": ["x"]}, {"new_companion": "ugh"}, {"use": "skree"},
    {"use": "hiccup", "die": 1, "roll": 2}, {"adjust": "soldiers", "card": "X", "player": "A", "amount": -99999},
    {"expect": {}}, {"nonsense": True}, "not a step", {"action": "final_battle", "target": "A"},
]


@pytest.mark.parametrize("index", range(8))
def test_refused_steps_change_nothing(index: int) -> None:
    state = _sample_states()[index]
    before = (checkpoint(state), snapshot(state), state)
    for step in BAD_STEPS:
        legal = step in legal_steps(state)
        try:
            apply(state, step)  # type: ignore[arg-type]
        except IllegalMove as exc:
            assert str(exc)[0].isupper() and str(exc).endswith((".", "!"))
        else:
            assert legal or isinstance(step, dict)
        assert (checkpoint(state), snapshot(state), state) == before


@pytest.mark.parametrize("index", range(8))
def test_every_listed_legal_step_is_accepted(index: int) -> None:
    state = _sample_states()[index]
    for step in legal_steps(state):
        if "needs" in step:
            continue
        apply(state, step)


def test_events_of_a_rally_and_a_bank(play) -> None:
    _, events = play({"players": ["A", "B"]}, [
        {"action": "recruit"}, {"roll": [1, 1, 1, 5, 5, 5], "event": "rally"},
        {"set_aside": [1, 1, 1, 5, 5, 5], "rally": "double"}, {"action": "stop"},
    ])
    kinds = [e.kind for e in events]
    assert kinds == ["set_aside", "rally_double", "hot_dice", "banked"]
    assert isinstance(events[0], Event) and events[-1].data == {"soldiers": 3000, "army": 3000}
    assert json.dumps([e.to_json() for e in events])


def test_export_replays_to_the_same_state() -> None:
    state = _sample_states()[-1]
    record = export_record(state, "exported")
    result = replay_record(json.loads(json.dumps(record)))
    assert result.ok, result.describe()
    assert checkpoint(result.state) == checkpoint(state)


def test_undo_by_replaying_all_steps_but_the_last() -> None:
    states = _sample_states()
    last = states[-1]
    assert checkpoint(replay_steps(last.setup, list(last.history[:-1]))) == checkpoint(states[-2])


def test_step_from_the_wrong_player_is_refused() -> None:
    state = new_game({"players": ["A", "B"]})
    with pytest.raises(IllegalMove, match="It is A's move now, not B's"):
        apply(state, {"action": "recruit", "player": "B"})
    state, _ = apply(state, {"action": "recruit", "player": "A"})
    assert checkpoint(state)["phase"] == "roll"


def test_roll_in_decide_phase_means_roll_again(play) -> None:
    state, _ = play({"players": ["A", "B"]}, [
        {"action": "recruit"}, {"roll": [1, 2, 3, 4, 6, 6], "event": "blank"}, {"set_aside": [1]},
        {"roll": [5, 2, 3, 4, 6], "event": "blank"},
    ])
    assert checkpoint(state)["phase"] == "set_aside"


def test_card_names_as_typed_become_ids() -> None:
    state = new_game({"players": ["A", "B"], "companions": {"A": "Ugh"}, "items": {"B": ["Lucky Dragon's Tooth"]}})
    assert state.seats[0].companion == "ugh" and state.seats[1].items == ("lucky_dragons_tooth",)


def test_adjustments_are_audited_with_the_name_as_typed(play) -> None:
    state, events = play({"players": ["A", "B"]}, [
        {"adjust": "soldiers", "card": "Grunk the Bard", "player": "B", "amount": 500},
    ])
    assert snapshot(state)["adjustments"] == [
        {"card": "Grunk the Bard", "kind": "soldiers", "player": "B", "amount": 500}]
    assert events[0].kind == "adjustment" and events[0].data["card"] == "Grunk the Bard"
    assert state.history[-1]["card"] == "Grunk the Bard"


def test_no_brawl_target_inside_the_keep_is_listed() -> None:
    state = new_game({"players": ["A", "B", "C"], "in_keep": ["B"]})
    targets = [s.get("target") for s in legal_steps(state) if s.get("action") == "brawl"]
    assert targets == ["C"]
    assert {"action": "final_battle"} not in legal_steps(state)


def test_game_over_refuses_everything(play) -> None:
    state, _ = play({"players": ["A", "B"], "armies": {"A": 5000}}, [
        {"action": "final_battle"}, {"roll": [2, 2, 3, 4, 6, 3], "event": "rally"},
        {"roll": [2, 2, 3, 4, 6, 3], "event": "rally"},
    ])
    assert checkpoint(state)["winner"] == "A" and legal_steps(state) == []
    assert snapshot(state)["prompt"] == "A has defeated the dragon and won the game."
    with pytest.raises(IllegalMove, match="game is over"):
        apply(state, {"adjust": "soldiers", "card": "X", "player": "B", "amount": 50})
