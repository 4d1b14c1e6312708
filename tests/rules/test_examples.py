"""Every game record replays: the rulebook's examples (shared folder) and the bundled records."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion import records_examples
from companion.records import load_record, replay_record

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
