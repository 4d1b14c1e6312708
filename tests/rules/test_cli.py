"""The rules subcommands: options, replay, simulate, play."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion import records_examples
from companion.cli import main
from companion.cli.play import PlaySession, play


def test_options_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["options", "2", "3", "4", "4", "4", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["5            50 soldiers", "4 4 4       400 soldiers", "4 4 4 5     450 soldiers"]


def test_options_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["options", "2", "2", "3", "3", "6", "6", "--table", "classic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"dice": [2, 2, 3, 3, 6, 6], "soldiers": 1500}]


def test_options_user_table_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mat.json"
    path.write_text(json.dumps({"single": {"1": 150, "5": 50}}))
    assert main(["options", "1", "--table", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"dice": [1], "soldiers": 150}]


@pytest.mark.parametrize("args", [["options", "7"], ["options", "x"], ["options", "1", "--table", "nope"]])
def test_options_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert "dragon-farkle options:" in capsys.readouterr().err


def test_options_farkle(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["options", "2", "3"]) == 0
    assert "Farkle" in capsys.readouterr().out


def test_replay_bundled_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--examples"]) == 0
    out = capsys.readouterr().out
    assert f"{len(records_examples.paths())} passed, 0 failed" in out


def test_replay_reports_the_failing_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = records_examples.paths()[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"setup": {"players": ["A", "B"]},
                               "steps": [{"action": "recruit"}, {"expect": {"phase": "decide"}}]}))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert main(["replay", str(good), str(bad), str(broken)]) == 1
    out = capsys.readouterr().out
    assert "PASS" in out and "FAIL at step 2: phase: expected 'decide', got 'roll'" in out
    assert "not readable JSON" in out and "1 passed, 2 failed" in out


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "final-battle", "--army", "5000", "--runs", "2000", "--seed", "1", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["runs"] == 2000
    assert {"win_rate", "farkle_rate", "wiped_rate", "mean_soldiers_lost_in_wins"} <= set(stats)
    assert 0.2 < stats["win_rate"] < 0.6


def test_simulate_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "final-battle", "--army", "5000", "--health", "4", "--runs", "1000"]) == 0
    assert "dragon health 4" in capsys.readouterr().out


def test_play_a_recruit_turn_with_undo_and_save(tmp_path: Path) -> None:
    out = io.StringIO()
    save = tmp_path / "game.json"
    lines = ["help", "recruit", "1 2 2 4 4 5 b", "opt 3", "c", "1134 rally", "aside 1 1 double", "undo",
             "aside 1 1 item", "a 1 1", "stop", f"save {save}", "quit"]
    assert play(lines, {"players": ["Jane", "Joseph"]}, out) == 0
    text = out.getvalue()
    assert "3) 1 5 = 150" in text and "Undone." in text and "Not allowed:" in text
    assert "banked (soldiers 350, army 350)" in text
    record = json.loads(save.read_text())
    assert record["steps"][-1]["expect"]["army"] == {"Jane": 350, "Joseph": 0}


def test_play_parses_cards_adjustments_and_json() -> None:
    session = PlaySession({"players": ["A", "B"], "companions": {"A": "sidia"}})
    assert session.parse("use sidia predict=3 roll=3") == {"use": "sidia", "predict": 3, "roll": 3}
    assert session.parse('adjust soldiers card="Grunk the Bard" amount=-100 player=B') == {
        "adjust": "soldiers", "card": "Grunk the Bard", "amount": -100, "player": "B"}
    assert session.parse('{"action": "recruit"}') == {"action": "recruit"}
    assert session.parse("brawl B") == {"action": "brawl", "target": "B"}
    assert session.parse("companion Tabby the Cat") == {"new_companion": "Tabby the Cat"}
    assert session.handle("123")[0].startswith("Not allowed: add the Event die")
    assert session.handle("use sidia predict=3 roll=3")[0].startswith("- A: card used")


def test_console_script_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "companion", "options", "1", "5", "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)[-1] == {"dice": [1, 5], "soldiers": 150}


def test_play_command_reads_the_rolls_from_stdin() -> None:
    lines = "recruit\n1 2 3 4 6 6 blank\naside 1\nstop\nquit\n"
    done = subprocess.run([sys.executable, "-m", "companion", "play", "Ann", "Bo", "--table", "gude"],
                          input=lines, capture_output=True, text=True, check=True)
    assert "banked (soldiers 100, army 100)" in done.stdout
    assert done.stdout.rstrip().endswith("Bo chooses this turn's action: Recruit, Brawl or Final Battle.")


def test_play_refuses_a_bad_setup() -> None:
    done = subprocess.run([sys.executable, "-m", "companion", "play", "Solo"],
                          input="", capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "2 to 5 names" in done.stderr
