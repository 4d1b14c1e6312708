"""The JSON API through Flask's test client, including every kind of bad input."""
from __future__ import annotations

import io

import pytest

from companion.rules import checkpoint, new_game

CHECKPOINT_KEYS = set(checkpoint(new_game({"players": ["A", "B"]})))
PIN = "2468"


def strip(state):
    return {k: v for k, v in state.items() if k not in ("version", "joined")}


def test_state_before_any_game(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    assert r.json["game"] is None and r.json["phase"] == "no_game" and r.json["joined"] is False


def test_a_turn_through_the_api_has_every_checkpoint_key(game):
    for step in [{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}]:
        r = game.post("/api/steps", json=step)
        assert r.status_code == 200, r.json
    state = game.get("/api/state").json
    assert CHECKPOINT_KEYS <= set(state)
    assert state["phase"] == "set_aside" and state["player"] == "Jane"
    assert sorted(map(tuple, state["options"])) == [(1,), (1, 5), (5,)]
    assert {"set_aside": [1, 5]} in state["legal"]
    r = game.post("/api/steps", json={"set_aside": [1, 5]})
    assert r.json["turn_total"] == 150 and r.json["dice_in_hand"] == 4 and r.json["joined"] is True


def test_new_game_takes_a_records_setup(player):
    setup = {"players": ["Ivan", "Mila"], "armies": {"Ivan": 5000}, "dragon_health": 4,
             "table": "classic", "companions": {"Mila": "ugh"}}
    state = player.post("/api/games", json=setup).json
    assert state["army"] == {"Ivan": 5000, "Mila": 0}
    assert state["dragon_health"] == 4 and state["table"] == "classic"
    assert {"action": "final_battle"} in state["legal"]


@pytest.mark.parametrize("path", ["/api/games", "/api/steps", "/api/undo", "/api/pending/dismiss",
                                  "/api/settings", "/api/dice/learn", "/api/pending/mark",
                                  "/api/teach", "/api/teach/keep", "/api/dispute"])
def test_every_post_but_join_needs_the_code(client, path):
    r = client.post(path, json={"action": "recruit"})
    assert r.status_code == 403
    assert "table code" in r.json["error"]


def test_wrong_code_is_refused_and_does_not_admit(app, client):
    r = client.post("/api/join", json={"pin": "0000"})
    assert r.status_code == 403 and "not the table code" in r.json["error"]
    assert client.post("/api/games", json={"players": ["A", "B"]}).status_code == 403
    assert client.post("/api/join", json={"nope": 1}).status_code == 403
    assert client.post("/api/join", json=[PIN]).status_code == 403
    r = client.post("/api/join", json={"pin": "24🐉8"})  # not ASCII: a wrong code, no crash
    assert r.status_code == 403 and "not the table code" in r.json["error"]
    for pin in ("٢٤٦٨", "２４６８"):  # another script's digits, from a phone's keyboard
        assert app.test_client().post("/api/join", json={"pin": pin}).status_code == 200


def test_watchers_see_the_game_but_cannot_act(app, game):
    watcher = app.test_client()
    assert watcher.get("/api/state").json["phase"] == "choose_action"
    assert watcher.post("/api/steps", json={"action": "recruit"}).status_code == 403
    assert watcher.get("/api/code").status_code == 403
    assert watcher.get("/qr.svg").status_code == 403
    assert game.get("/api/state").json["phase"] == "choose_action"


@pytest.mark.parametrize("kwargs, words", [
    ({"data": "{not json", "content_type": "application/json"}, "must be JSON"),
    ({"data": "action=recruit", "content_type": "application/x-www-form-urlencoded"}, "must be JSON"),
    ({"json": "recruit"}, "must be a JSON object"),
    ({"json": [1, 2]}, "must be a JSON object"),
    ({"json": {}}, "Unknown step"),
    ({"json": {"jump": "high"}}, "Unknown step"),
    ({"json": {"expect": {"phase": "roll"}}}, "checkpoint"),
    ({"json": {"action": "fly"}}, "not an action"),
    ({"json": {"action": "stop"}}, ""),                    # no action chosen yet
    ({"json": {"roll": [1, 2, 3], "event": "blank"}}, ""),  # no roll before an action
    ({"json": {"set_aside": [1]}}, "nothing to set aside"),
    ({"json": {"action": "brawl", "target": "Nobody"}}, "opponent"),
    ({"json": {"action": "recruit", "bogus": 1}}, "does not know"),
])
def test_bad_steps_answer_400_and_change_nothing(game, kwargs, words):
    before = strip(game.get("/api/state").json)
    r = game.post("/api/steps", **kwargs)
    assert r.status_code == 400
    assert isinstance(r.json["error"], str) and len(r.json["error"]) > 10
    assert words.lower() in r.json["error"].lower()
    assert strip(game.get("/api/state").json) == before


def test_illegal_moves_mid_turn_change_nothing(game):
    game.post("/api/steps", json={"action": "recruit"})
    game.post("/api/steps", json={"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    before = strip(game.get("/api/state").json)
    for bad in [{"set_aside": [2, 2]}, {"set_aside": [1, 5], "rally": "double"}, {"action": "roll"},
                {"roll": [1, 2, 3, 4, 5, 6], "event": "blank"}, {"roll": [1, 1], "event": "purple"}]:
        r = game.post("/api/steps", json=bad)
        assert r.status_code == 400, bad
    assert strip(game.get("/api/state").json) == before


@pytest.mark.parametrize("setup", [
    {"players": ["Solo"]}, {"players": []}, {}, {"players": ["A", "A"]},
    {"players": ["A", "B"], "dragon_health": 9}, {"players": ["A", "B"], "table": "nope"},
    ["A", "B"], "A,B",
])
def test_bad_setups_answer_400_and_keep_the_game(game, setup):
    before = strip(game.get("/api/state").json)
    r = game.post("/api/games", json=setup)
    assert r.status_code == 400 and r.json["error"]
    assert strip(game.get("/api/state").json) == before


def test_undo(game):
    r = game.post("/api/undo", json={})
    assert r.status_code == 400 and "Nothing to undo" in r.json["error"]
    game.post("/api/steps", json={"action": "recruit"})
    r = game.post("/api/undo", json={})
    assert r.status_code == 200 and r.json["phase"] == "choose_action" and r.json["history"] == []


def test_undo_without_a_game(player):
    r = player.post("/api/undo", json={})
    assert r.status_code == 400 and "No game yet" in r.json["error"]
    r = player.post("/api/steps", json={"action": "recruit"})
    assert r.status_code == 400 and "No game yet" in r.json["error"]


def test_a_tap_on_an_old_state_is_409(game):
    seen = game.get("/api/state").json["game"]["position"]
    assert game.post("/api/steps", json={"action": "recruit"},
                     headers={"X-Game-Position": seen}).status_code == 200
    r = game.post("/api/steps", json={"action": "brawl", "target": "Joseph"},
                  headers={"X-Game-Position": seen})
    assert r.status_code == 409 and "moved on" in r.json["error"]
    r = game.post("/api/undo", json={}, headers={"X-Game-Position": seen})
    assert r.status_code == 409


def test_unknown_api_paths_answer_json(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "error" in r.json
    assert client.get("/api/steps").status_code == 405


def test_record_export_and_evidence(game):
    game.post("/api/steps", json={"action": "recruit"})
    record = game.get("/api/record").json
    assert record["setup"]["players"] == ["Jane", "Joseph"] and record["steps"] == [{"action": "recruit"}]
    assert game.get("/api/evidence/0.jpg").status_code == 404
    assert game.get("/api/evidence/pending.jpg").status_code == 404


def test_code_and_qr_for_joined_phones(game):
    code = game.get("/api/code").json
    assert code["pin"] == PIN and code["link"].endswith(f"/?code={PIN}")
    assert code["wifi"] is None  # no Wi-Fi network of its own
    r = game.get("/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert game.get("/wifi.svg").status_code == 404


def test_the_tables_own_wifi_is_shown_as_a_qr_code_to_joined_phones(app, player, tmp_path):
    import json

    import segno.helpers

    (tmp_path / "wifi.json").write_text(json.dumps({"name": "Our table", "password": "dragons!"}))
    assert player.get("/api/code").json["wifi"] == "Our table"
    r = player.get("/wifi.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    # the very QR code a phone's camera reads as "join Our table with dragons!"
    want = segno.helpers.make_wifi(ssid="Our table", password="dragons!", security="WPA")
    out = io.BytesIO()
    want.save(out, kind="svg", scale=6, border=2, dark="#1b1430")
    assert r.data == out.getvalue()
    assert app.test_client().get("/wifi.svg").status_code == 403  # watchers: no password
    (tmp_path / "wifi.json").write_text(json.dumps({"name": "Our table", "password": "short"}))
    assert player.get("/api/code").json["wifi"] is None  # not a WPA2 password: not shown
    assert player.get("/wifi.svg").status_code == 404


def test_the_page_and_its_assets_are_local(client):
    html = client.get("/").get_data(as_text=True)
    assert "<script src=\"/static/app.js\"" in html
    for asset in ("/static/app.js", "/static/calib.js", "/static/app.css", "/static/dragon.svg"):
        r = client.get(asset)
        assert r.status_code == 200
        text = r.get_data(as_text=True)
        assert "https://" not in text and "http://" not in text.replace("http://www.w3.org", "")
    assert "https://" not in html


def test_the_game_survives_a_new_app_on_the_same_folder(tmp_path, game, app):
    from web import create_app

    game.post("/api/steps", json={"action": "recruit"})
    before = strip(game.get("/api/state").json)
    again = create_app({"TESTING": True, "DATA_DIR": app.config["DATA_DIR"], "TABLE_PIN": PIN,
                        "ADVISOR_CACHE": app.config["ADVISOR_CACHE"]})
    assert again.extensions["dragon_farkle"].table.advisor.wait(60)
    after = strip(again.test_client().get("/api/state").json)
    before.pop("boot"), after.pop("boot")
    assert after == before


def test_config_from_environment(monkeypatch, tmp_path):
    from web import create_app

    monkeypatch.setenv("DRAGON_FARKLE_TABLE_PIN", "97531")
    monkeypatch.setenv("DRAGON_FARKLE_DATA_DIR", str(tmp_path / "envdata"))
    app = create_app({"TESTING": True})
    assert app.extensions["dragon_farkle"].pin == "97531"
    assert (tmp_path / "envdata" / "games.sqlite3").exists()


def test_a_generated_code_is_kept_across_restarts(tmp_path):
    from web import create_app

    first = create_app({"DATA_DIR": str(tmp_path)}).extensions["dragon_farkle"].pin
    second = create_app({"DATA_DIR": str(tmp_path)}).extensions["dragon_farkle"].pin
    assert first == second and len(first) == 4 and first.isdigit()


def test_camera_question_and_evidence_through_the_api(app, game):
    import numpy as np

    from vision.types import Die, Reading

    table = app.extensions["dragon_farkle"].table
    game.post("/api/steps", json={"action": "recruit"})
    frame = np.full((480, 640, 3), 80, np.uint8)
    dice = tuple(Die("soldier", f, (50 + 60 * i, 50), (40 + 60 * i, 40, 20, 20), 0.99)
                 for i, f in enumerate([1, 2, 2, 4, 4, 5]))
    table.handle_reading(Reading(dice=dice, warnings=()), frame)  # no Event die: ask
    state = game.get("/api/state").json
    assert "No Event die seen." in state["pending"]["reason"]
    assert game.get("/api/evidence/pending.jpg").status_code == 200
    assert game.post("/api/pending/dismiss", json={}).json["pending"] is None
    table.handle_reading(Reading(dice=(*dice, Die("event", "rally", (500, 400), (490, 390, 20, 20), 0.9)),
                                 warnings=()), frame)
    state = game.get("/api/state").json
    assert state["phase"] == "set_aside" and state["history"][-1]["source"] == "camera"
    r = game.get(f"/api/evidence/{state['history'][-1]['seq']}.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"


def test_marks_on_the_camera_photo_through_the_api(app, game, tmp_path):
    import numpy as np

    from vision.photolog import PhotoLog
    from vision.types import Die, Reading

    table = app.extensions["dragon_farkle"].table
    game.post("/api/steps", json={"action": "recruit"})
    r = game.post("/api/pending/mark", json={"x": 0.5, "y": 0.5, "face": 5})
    assert r.status_code == 400 and "no photo" in r.json["error"]
    table.photos = PhotoLog(tmp_path / "dice-photos")
    dice = tuple(Die("soldier", f, (50 + 60 * i, 50), (40 + 60 * i, 40, 20, 20), 0.99)
                 for i, f in enumerate([1, 2, 2, 4, 4]))
    table.handle_reading(Reading(dice=dice, warnings=()), np.full((480, 640, 3), 80, np.uint8))
    r = game.post("/api/pending/mark", json={"x": 0.5, "y": 0.5, "face": 5})
    assert r.status_code == 200 and r.json["said"] == "Marked: a die the camera missed, showing 5."
    assert r.json["pending"]["marks"] == [{"kind": "missed", "face": 5, "x": 0.5, "y": 0.5}]
    assert r.json["pending"]["photo_roll"] == {"roll": [1, 2, 2, 4, 4, 5], "event": None}
    r = game.post("/api/pending/mark", json={"x": "left", "y": 0.5, "face": 5})
    assert r.status_code == 400 and "between 0 and 1" in r.json["error"]
    assert len(game.get("/api/state").json["pending"]["marks"]) == 1


def test_a_disputed_read_through_the_api(app, game):
    import numpy as np

    from vision.types import Die, Reading

    table = app.extensions["dragon_farkle"].table
    game.post("/api/steps", json={"action": "recruit"})
    r = game.post("/api/dispute", json={})
    assert r.status_code == 400 and "not a roll the camera read" in r.json["error"]
    dice = tuple(Die("soldier", f, (50 + 60 * i, 50), (40 + 60 * i, 40, 20, 20), 0.99)
                 for i, f in enumerate([1, 2, 2, 4, 4, 5]))
    event = Die("event", "blank", (500, 400), (490, 390, 20, 20), 0.99)
    table.handle_reading(Reading(dice=(*dice, event), warnings=()),
                         np.full((480, 640, 3), 80, np.uint8))
    position = game.get("/api/state").json["game"]["position"]
    r = game.post("/api/dispute", json={}, headers={"X-Game-Position": "1:0"})
    assert r.status_code == 409  # a tap on an old state
    r = game.post("/api/dispute", json={}, headers={"X-Game-Position": position})
    assert r.status_code == 200 and r.json["history"][-1]["step"] == {"action": "recruit"}


def test_teaching_the_camera_through_the_api(app, player, tmp_path):
    import numpy as np

    from vision.photolog import PhotoLog
    from vision.types import Die, Reading

    table = app.extensions["dragon_farkle"].table
    r = player.post("/api/teach", json={"on": True})
    assert r.status_code == 400 and "keeps no photos" in r.json["error"]
    table.photos = PhotoLog(tmp_path / "dice-photos")
    assert player.post("/api/teach", json={"on": "please"}).status_code == 400
    assert player.post("/api/teach", json={"on": True}).json["teaching"] is True
    r = player.post("/api/teach/keep", json={})
    assert r.status_code == 400 and "no photo to keep" in r.json["error"]
    dice = (Die("soldier", 2, (100, 100), (90, 90, 20, 20), 0.9),)
    table.handle_reading(Reading(dice=dice, warnings=()), np.full((480, 640, 3), 80, np.uint8))
    assert player.get("/api/state").json["pending"]["kind"] == "teach"
    r = player.post("/api/teach/keep", json={})
    assert r.status_code == 200 and r.json["said"] == "Kept: 1 photo of your dice."
    assert len(table.photos) == 1
    assert player.post("/api/teach", json={"on": False}).json["teaching"] is False


def test_learning_the_dice_is_started_from_the_page(app, player, tmp_path):
    from types import SimpleNamespace

    from companion.controller.learning import DiceLearning
    from vision.photolog import PhotoLog

    r = player.post("/api/dice/learn", json={})
    assert r.status_code == 400 and "keeps no photos" in r.json["error"]  # no camera here
    table = app.extensions["dragon_farkle"].table
    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.learning = DiceLearning(
        table.photos.folder, tmp_path / "our-dice", base=tmp_path, current=lambda: tmp_path,
        profile=lambda: None, use_new=False, on_change=table.refresh,
        learn=lambda *a, **k: SimpleNamespace(installed=False, lines=["Not installed."]))
    r = player.post("/api/dice/learn", json={})
    assert r.status_code == 200 and r.json["photos"]["learning"] is not None
    table.learning.join(10)
    learning = player.get("/api/state").json["photos"]["learning"]
    assert learning == {"running": False, "installed": False, "lines": ["Not installed."]}
