"""The table: steps checked by the engine, stored per step, resumed and undone by replay."""
from __future__ import annotations

import json
import sqlite3

import pytest

from companion.controller import GameStore, Table, TableError
from companion.records import replay_record
from companion.rules import IllegalMove

JANE = [
    {"action": "brawl", "target": "Joseph"},
    {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
    {"set_aside": [1, 5]},
    {"action": "roll"},
    {"roll": [1, 1, 3, 4], "event": "rally"},
    {"set_aside": [1, 1], "rally": "double"},
]


def test_steps_are_stored_and_a_new_table_resumes_exactly(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    table = Table(store)
    table.new_game({"players": ["Jane", "Joseph"], "armies": {"Jane": 1000, "Joseph": 300}})
    for step in JANE:
        table.apply_step(step)
    before = {k: v for k, v in table.state().items() if k not in ("boot", "version")}
    store.close()
    again = Table(GameStore(tmp_path / "g.sqlite3"))
    after = {k: v for k, v in again.state().items() if k not in ("boot", "version")}
    assert after == before
    assert after["turn_total"] == 550 and after["dice_in_hand"] == 2


def test_the_database_is_wal_with_one_row_per_step(tmp_path, table):
    table.apply_step({"action": "recruit"})
    db = sqlite3.connect(table.store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    rows = db.execute("SELECT seq, step FROM steps ORDER BY seq").fetchall()
    assert rows == [(0, json.dumps({"action": "recruit"}))]


def test_illegal_step_changes_nothing_anywhere(table):
    table.apply_step({"action": "recruit"})
    position, history = table.position(), list(table.history)
    with pytest.raises(IllegalMove):
        table.apply_step({"roll": [1, 2, 3], "event": "blank"})  # 6 dice are in hand
    with pytest.raises(IllegalMove):
        table.apply_steps([{"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}, {"set_aside": [2]}])
    assert table.position() == position and table.history == history
    assert len(table.store.current().steps) == 1


@pytest.mark.parametrize("step, words", [
    ("stop", "must be a JSON object"),
    ({"fly": True}, "Unknown step"),
    ({"expect": {"phase": "roll"}}, "checkpoint"),
    ({"action": "stop", "illegal": True}, "records only"),
])
def test_bad_step_shapes_are_refused_in_words(table, step, words):
    with pytest.raises(TableError, match=words):
        table.apply_step(step)


def test_undo_replays_all_but_the_last_step(table):
    states = [table.state()["turn_total"]]
    for step in [{"action": "recruit"}, {"roll": [1, 1, 1, 2, 3, 4], "event": "blank"}, {"set_aside": [1, 1, 1]}]:
        table.apply_step(step)
    assert table.state()["turn_total"] == 1000
    table.undo()
    assert table.state()["phase"] == "set_aside" and table.state()["turn_total"] == 0
    table.undo()
    table.undo()
    assert table.state()["phase"] == "choose_action" and states == [0]
    with pytest.raises(TableError, match="Nothing to undo"):
        table.undo()


def test_no_game_yet_is_a_clear_error(store):
    table = Table(store)
    assert table.state()["phase"] == "no_game"
    with pytest.raises(TableError, match="No game yet"):
        table.apply_step({"action": "recruit"})
    with pytest.raises(ValueError):
        table.new_game({"players": ["Solo"]})
    assert store.current() is None


def test_stale_taps_are_refused(table):
    seen = table.position()
    table.apply_step({"action": "recruit"}, seen=seen)
    with pytest.raises(TableError, match="moved on"):
        table.apply_step({"action": "stop"}, seen=seen)


def test_exported_record_replays_in_the_engine(table):
    for step in [{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                 {"set_aside": [1, 5]}, {"action": "stop"}]:
        table.apply_step(step)
    record = table.record()
    result = replay_record(record)
    assert getattr(result, "ok", True)
    assert table.state()["army"] == {"Jane": 150, "Joseph": 0}


def test_history_and_statistics(table):
    for step in [{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                 {"set_aside": [1, 5]}, {"action": "stop"}]:
        table.apply_step(step)
    state = table.state()
    assert [h["text"] for h in state["history"]] == [
        "Jane chose Recruit", "Jane rolled 1 2 2 4 4 5 + blank", "Jane set aside 1 5", "Jane stops"]
    assert "banked" in " ".join(state["history"][-1]["events"])
    assert state["stats"]["armies"][0] == {"Jane": 0, "Joseph": 0}
    assert state["stats"]["armies"][-1] == {"Jane": 150, "Joseph": 0}
    faces = state["stats"]["faces"]["Jane"]
    assert (faces["1"], faces["2"], faces["4"], faces["blank"], faces["6"]) == (1, 2, 2, 1, 0)


def test_listeners_hear_every_change(table):
    heard = []
    table.subscribe(lambda s: heard.append(s["version"]))
    table.apply_step({"action": "recruit"})
    table.undo()
    table.set_camera("manual", "unplugged")
    assert heard == sorted(heard) and len(heard) == 3


def test_history_lines_for_cards_and_adjustments(table):
    table.apply_step({"adjust": "soldiers", "card": "Royal Decree", "player": "Joseph", "amount": 300})
    line = table.state()["history"][-1]["text"]
    assert line.startswith("Table adjustment for Royal Decree: soldiers") and "amount 300" in line
    assert table.state()["army"]["Joseph"] == 300


def test_a_stored_step_the_engine_now_refuses_is_dropped_with_a_notice(tmp_path):
    store = GameStore(tmp_path / "g.sqlite3")
    table = Table(store)
    table.new_game({"players": ["Jane", "Joseph"]})
    table.apply_step({"action": "recruit"})
    # as if an older engine had accepted these: the second is illegal now (7 dice)
    store.append_step(table.game.id, 1, {"roll": [1, 1, 2, 3, 4, 6, 6], "event": "blank"})
    store.append_step(table.game.id, 2, {"set_aside": [1, 1]})
    again = Table(GameStore(tmp_path / "g.sqlite3"))
    state = again.state()
    assert state["phase"] == "roll" and len(state["history"]) == 1
    assert state["notice"].startswith("Step 2 of the stored game no longer replays")
    aside = list((tmp_path / "set-aside").glob("game-1-from-step-2-*.json"))
    assert len(aside) == 1 and str(aside[0]) in state["notice"]
    moved = json.loads(aside[0].read_text())
    assert moved["kept"] == 1 and moved["steps"][1:] == [
        {"roll": [1, 1, 2, 3, 4, 6, 6], "event": "blank"}, {"set_aside": [1, 1]}]
    assert len(again.store.current().steps) == 1
    again.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})  # the game goes on
