"""Every game record replays: the rulebook's examples (shared folder) and the bundled records."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import records_examples
from companion.records import RecordError, load_record, replay_record
from tests.jsonfuzz import json_documents

SHARED = Path(__file__).resolve().parents[2].parent / "shared/rules/examples"
SHARED_FILES = sorted(SHARED.glob("*.json")) if SHARED.is_dir() else []
BUNDLED = records_examples.paths()


@pytest.mark.skipif(not SHARED_FILES, reason=f"the shared rulebook examples folder {SHARED} is absent")
@pytest.mark.parametrize("path", SHARED_FILES, ids=lambda p: p.name)
def test_shared_example_replays(path: Path) -> None:
    result = replay_record(path)
    assert result.ok, result.describe()


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_bundled_record_replays(path: Path) -> None:
    result = replay_record(path)
    assert result.ok, result.describe()


def test_rulebook_examples_are_bundled() -> None:
    names = {p.name for p in BUNDLED}
    assert {"brawling-jane.json", "final-battle-ivan.json", "recruiting-boble.json"} <= names


@pytest.mark.skipif(not SHARED_FILES, reason=f"the shared rulebook examples folder {SHARED} is absent")
def test_bundled_copies_match_the_shared_examples() -> None:
    bundled = {p.name: p for p in BUNDLED}
    for path in SHARED_FILES:
        assert load_record(bundled[path.name]) == load_record(path)


def test_a_wrong_checkpoint_fails_with_the_step_and_reason() -> None:
    record = load_record(BUNDLED[0]).to_json()
    record = {**record, "steps": [{"expect": {"player": "Nobody"}}, *record["steps"]]}
    result = replay_record(record)
    assert not result.ok and result.failed_step == 0
    assert "player: expected 'Nobody'" in result.describe()


def test_an_accepted_illegal_step_fails() -> None:
    record = {"setup": {"players": ["A", "B"]}, "steps": [{"action": "recruit", "illegal": True}]}
    result = replay_record(record)
    assert not result.ok and "should have been refused" in result.reason


_KEYS = ["setup", "steps", "players", "action", "roll", "event", "set_aside", "checkpoint",
         "expect", "table", "armies", "dragon_health", "use", "target", "title"]
_JSON = json_documents(_KEYS)


@settings(max_examples=200, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(doc=_JSON, over_a_good_one=st.booleans())
def test_any_record_file_replays_fails_at_a_step_or_is_refused(tmp_path: Path, doc,
                                                              over_a_good_one) -> None:
    # `dragon-farkle replay` on a file edited by hand: PASS, the step that fails and why, or
    # a RecordError saying what is wrong with the file; never another exception.
    if over_a_good_one:
        good = {"setup": {"players": ["A", "B"]},
                "steps": [{"action": "recruit"}, {"roll": [1, 2, 3, 4, 5, 6], "event": "blank"}]}
        doc = good | doc if isinstance(doc, dict) else good
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "game.json"
    path.write_text(json.dumps(doc, allow_nan=True))
    try:
        result = replay_record(path)
    except RecordError as err:
        assert str(err).strip()
    else:
        assert result.ok or result.describe().startswith("FAIL")
