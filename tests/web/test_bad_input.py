"""Issue 22's findings about the table's data, each through the API: a bad request is a
400 that stores nothing, a listener that fails never fails a saved change, the limits
on names, comments and numbers hold, disk trouble is a sentence (503 or a notice at
start-up), and a table always starts again on its own data."""
from __future__ import annotations

import json
import sqlite3

import pytest

from companion.controller import GameStore, Table
from companion.controller.lights import TableLights
from companion.ledview import scene_from_snapshot
from hardware.leds import LedLayout, RecordingStrip
from hardware.leds.driver import LedDriver
from web import create_app

PIN = "2468"
GAME = {"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}}
VOLATILE = ("version", "boot", "advice", "joined")


def make_app(data, *, leds=True):
    """The web app over a table with a recording LED strip listening, like `serve`."""
    table = Table(GameStore(data / "games.sqlite3"))
    if leds:
        driver = LedDriver(RecordingStrip(60), LedLayout.default(60))
        table.subscribe(TableLights(driver, scene_from_snapshot=scene_from_snapshot).update)
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "TABLE_PIN": PIN, "TABLE": table})
    client = app.test_client()
    assert client.post("/api/join", json={"pin": PIN}).status_code == 200
    return app, client


def shown(client):
    return {k: v for k, v in client.get("/api/state").json.items() if k not in VOLATILE}


def restarted(data):
    """What a table started again on this data folder shows (the old one is not closed:
    as after kill -9)."""
    return shown(make_app(data)[1])


@pytest.fixture
def playing(tmp_path):
    app, client = make_app(tmp_path)
    assert client.post("/api/games", json=GAME).status_code == 200
    assert client.post("/api/steps", json={"action": "recruit"}).status_code == 200
    return tmp_path, app, client


# ----- 1: one request bricked the table ---------------------------------------------------------
@pytest.mark.parametrize("step", [
    {"adjust": "gain_item", "card": "X", "roll": None},  # the finding: 500, yet saved
    {"adjust": "gain_item", "card": "X", "roll": [1]},
    {"adjust": []},
    {"adjust": {"a": 1}, "card": "X"},
    {"use": ["ugh"], "roll": 6},
    {"keep": [[]]},
    {"set_aside": [[1]]},
    {"roll": [1, 2, 3, 4, 5, {}], "event": "blank"},
    {"action": "brawl", "target": ["Joseph"]},
    {"adjust": "soldiers", "card": "X", "player": "Jane", "amount": 10**30},
])
def test_a_malformed_step_is_a_400_that_stores_nothing_and_the_table_restarts(playing, step):
    data, _, client = playing
    before = shown(client)
    r = client.post("/api/steps", json=step)
    assert r.status_code == 400 and r.json["error"].strip()
    assert shown(client) == before
    assert restarted(data) == before


def test_cards_that_roll_one_die_are_shown_and_replayed(tmp_path):
    # {"use": "ugh", "roll": 6} is legal, yet its history line took "roll" for a roll of
    # the dice: a 500 after saving, and no restart ever again.
    _, client = make_app(tmp_path)
    client.post("/api/games", json={"players": ["Jane", "Joseph"], "companions": {"Jane": "Ugh"}})
    r = client.post("/api/steps", json={"use": "ugh", "roll": 6})
    assert r.status_code == 200, r.json
    assert r.json["army"]["Jane"] == 100 and r.json["history"][-1]["text"] == "Jane used Ugh (roll 6)"
    # one card die is not a roll of the dice
    assert client.get("/api/history").json["stats"]["faces"] == {}
    assert restarted(tmp_path) == shown(client)


# ----- 2: a refused game was saved; a failing listener failed a saved change --------------------
def test_a_colour_the_leds_do_not_know_refuses_the_game_and_stores_nothing(playing):
    data, _, client = playing
    before = shown(client)
    for colour in ["mauve", "<img src=x onerror=alert(1)>", "#12345", [300, 0, 0], 7]:
        r = client.post("/api/games", json={"players": ["Ann", "Bo"], "colors": {"Ann": colour}})
        assert r.status_code == 400 and "colour" in r.json["error"], (colour, r.json)
    assert shown(client) == before
    assert restarted(data) == before


def test_a_listener_that_fails_is_logged_and_the_saved_change_stands(playing, caplog):
    data, app, client = playing

    def broken(state):
        raise RuntimeError("LED strip unplugged")

    app.extensions["dragon_farkle"].table.subscribe(broken)
    r = client.post("/api/steps", json={"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert r.status_code == 200 and r.json["phase"] == "set_aside"
    assert "LED strip unplugged" in caplog.text and "the change itself is saved" in caplog.text
    assert restarted(data) == shown(client)


# ----- 7: limits on sizes and names ------------------------------------------------------------
@pytest.mark.parametrize("setup, words", [
    ({"players": ["J" * 25, "Joseph"]}, "at most 24 characters"),
    ({"players": ["x" * 60_000, "Joseph"]}, "at most 24 characters"),  # a body under 64 KB
    ({"players": ["Ja\u200bne", "Joseph"]}, "U+200B"),
    ({"players": ["Jane\x07", "Joseph"]}, "control character"),
    ({"players": ["Jane\u202e", "Joseph"]}, "U+202E"),
    ({"players": ["\u3164", "Joseph"]}, "U+3164"),
    ({"players": ["Jane ", "Joseph"]}, "starts or ends with a space"),
    ({"players": ["Jane", "JANE"]}, "look the same"),
    ({"players": ["Jane", "\uff2aane"]}, "look the same"),  # a full-width J
    ({"players": ["Mary Ann", "Mary\u00a0Ann"]}, "look the same"),
    ({"players": ["Jane", "Joseph"], "armies": {"Jane": 10**30}}, "up to 50,000"),
    ({"players": ["Jane", "Joseph"], "armies": {"Jane": 1.5}}, "multiple of 50"),
    ({"players": ["Jane", "Joseph"], "companions": {"Jane": "c" * 41}}, "at most 40"),
    ({"players": ["Jane", "Joseph"], "items": {"Jane": ["x"] * 7}}, "at most 6"),
    ({"players": ["Jane", "Joseph"], "table": {"straight": 10**40}}, "0 to 50,000"),
    ({"players": ["Jane", "Joseph"], "table": "t" * 25}, "at most 24"),
    ({"players": ["Jane", "Joseph"], "title": "x"}, "does not know: 'title'"),
    ({"players": ["Jane", "Joseph"], "colors": {"Bob": "red"}}, "not in 'players'"),
])
def test_a_setup_out_of_limits_is_refused_and_stores_nothing(playing, setup, words):
    data, _, client = playing
    before = shown(client)
    r = client.post("/api/games", json=setup)
    assert r.status_code == 400 and words in r.json["error"], r.json
    assert shown(client) == before
    assert restarted(data) == before


@pytest.mark.parametrize("step, words", [
    ({"roll": [1, 2, 2, 4, 4, 5], "event": "blank", "comment": "c" * 201}, "at most 200"),
    ({"roll": [1, 2, 2, 4, 4, 5], "event": "blank", "comment": "x" * 60_000}, "at most 200"),
    ({"roll": [1, 2, 2, 4, 4, 5], "event": "blank", "player": "J" * 100}, "at most 24"),
    ({"adjust": "soldiers", "card": "X", "player": "Jane", "amount": 50_050}, "50,000"),
    ({"adjust": "gain_item", "card": "X", "player": "Jane", "item": "i" * 41}, "at most 40"),
    ({"adjust": "gain_item", "card": "Card\u200b", "player": "Jane"}, "invisible"),
    ({"adjust": "ignore_farkle", "card": "X", "amount": 50}, "does not know: 'amount'"),
])
def test_a_step_out_of_limits_is_refused_and_stores_nothing(playing, step, words):
    data, _, client = playing
    before = shown(client)
    r = client.post("/api/steps", json=step)
    assert r.status_code == 400 and words in r.json["error"], r.json
    assert shown(client) == before
    assert restarted(data) == before


def test_names_at_the_limits_are_welcome(tmp_path):
    _, client = make_app(tmp_path)
    names = ["J" * 24, "Zoë", "李小龍", "Ann-Marie O'Neil"]
    r = client.post("/api/games", json={"players": names, "armies": {"Zoë": 50_000}})
    assert r.status_code == 200, r.json
    r = client.post("/api/steps", json={"action": "recruit", "comment": "c" * 200})
    assert r.status_code == 200, r.json


# ----- 9: disk trouble is a sentence ------------------------------------------------------------
def damaged_page(path):
    """A real game database with one of its pages overwritten (a bad sector)."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE filler (x)")
    db.executemany("INSERT INTO filler VALUES (?)", [("x" * 900,)] * 50)
    db.commit()
    db.close()
    with open(path, "r+b") as f:
        f.seek(4096 * 3 + 10)
        f.write(b"\xde\xad" * 300)


@pytest.mark.parametrize("spoil", [
    lambda p: p.write_bytes(b"this is not a database" * 200),
    damaged_page,
])
def test_a_damaged_database_is_kept_aside_and_a_fresh_one_started(tmp_path, spoil, caplog):
    path = tmp_path / "games.sqlite3"
    spoil(path)
    damaged = path.read_bytes()
    _, client = make_app(tmp_path)
    notice = client.get("/api/state").json["notice"]
    kept = list(tmp_path.glob("games.sqlite3.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == damaged
    assert str(path) in notice and str(kept[0]) in notice and ".recover" in notice
    assert notice in caplog.text
    assert client.post("/api/games", json=GAME).status_code == 200  # the table plays on
    again = restarted(tmp_path)
    assert again["notice"] is None and again["game"]["setup"] == GAME


def test_a_database_that_cannot_be_written_answers_503_and_changes_nothing(playing):
    data, app, client = playing
    before = shown(client)
    # as on a card mounted read-only (chmod cannot stop root, who runs CI)
    app.extensions["dragon_farkle"].table.store._db.execute("PRAGMA query_only = ON")
    for path, body in [("/api/steps", {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}),
                       ("/api/undo", {}), ("/api/games", GAME), ("/api/settings", {"advisor": False})]:
        r = client.post(path, json=body)
        assert r.status_code == 503, (path, r.json)
        assert r.json["error"].startswith("The table cannot save: its game database")
        assert "read-only" in r.json["error"]
    assert shown(client) == before
    assert restarted(data) == before


# ----- 11: an evidence number past SQLite's integer range --------------------------------------
@pytest.mark.parametrize("seq", [2**63, 10**30, 5])
def test_evidence_of_a_step_that_cannot_exist_is_a_404(playing, seq):
    _, _, client = playing
    r = client.get(f"/api/evidence/{seq}.jpg")
    assert r.status_code == 404 and r.json["error"]


# ----- start-up: any stored step that does not replay is set aside ----------------------------
def test_a_stored_step_that_breaks_replay_in_any_way_is_set_aside(tmp_path):
    # What the old code saved for finding 1 (a TypeError at every start since) is shown
    # now; a step that still raises anything at all (here a TypeError inside the engine,
    # as a file from an older version or a spoiled row could hold) is set aside with the
    # steps after it, and the table starts from the step before it.
    store = GameStore(tmp_path / "games.sqlite3")
    game = store.new_game({"players": ["Jane", "Joseph"]})
    saved = {"adjust": "gain_item", "card": "X", "roll": None}
    bad = {"adjust": []}
    steps = [{"action": "recruit"}, saved, bad, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}]
    for seq, step in enumerate(steps):
        store.append_step(game, seq, step)
    state = restarted(tmp_path)
    assert state["phase"] == "roll" and state["history_length"] == 2
    assert state["history"][-1]["text"].startswith("Table adjustment for X: gain item")
    files = list((tmp_path / "set-aside").glob("game-1-from-step-3-*.json"))
    assert len(files) == 1 and str(files[0]) in state["notice"] and "TypeError" in state["notice"]
    record = json.loads(files[0].read_text())
    assert record["kept"] == 2 and record["steps"] == steps
    assert restarted(tmp_path) == state | {"notice": None}  # set aside once, not at every start


def test_a_stored_game_whose_setup_no_longer_starts_is_set_aside(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    store.new_game({"players": ["Jane", "Joseph"]})
    store.new_game({"players": ["Jane"]})  # one player: no game
    state = restarted(tmp_path)
    assert state["game"]["setup"] == {"players": ["Jane", "Joseph"]}  # the one before it
    assert "cannot be started again" in state["notice"]
    assert len(list((tmp_path / "set-aside").glob("game-2-*.json"))) == 1


def test_each_table_starts_again_on_its_own_data(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    _, a = make_app(one)
    _, b = make_app(two)
    a.post("/api/games", json=GAME)
    b.post("/api/games", json={"players": ["Ann", "Bo", "Cy"]})
    a.post("/api/steps", json={"action": "recruit"})
    assert restarted(one)["game"]["setup"] == GAME and restarted(one)["phase"] == "roll"
    assert restarted(two)["game"]["setup"]["players"] == ["Ann", "Bo", "Cy"]
    assert restarted(two)["phase"] == "choose_action"
