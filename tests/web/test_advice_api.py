"""The advisor through the API: in GET /api/state and the live stream, as advise() says, switchable."""
from __future__ import annotations

import json

import pytest

from companion.advisor import advise
from companion.controller.advisor import for_page

PIN = "2468"


def table_of(app):
    return app.extensions["dragon_farkle"].table


def direct(app) -> dict:
    """advise() asked directly for the table's state, in the page's form."""
    table = table_of(app)
    state = table.state_obj
    return for_page(advise(state, table=state.rules.table, folder=table.advisor.folder))


def rolled(game, faces, event="blank", action=None):
    game.post("/api/steps", json=action or {"action": "recruit"})
    r = game.post("/api/steps", json={"roll": faces, "event": event})
    assert r.status_code == 200, r.json
    return r.json


def test_state_carries_the_advice_for_the_roll(app, game):
    answer = rolled(game, [1, 1, 2, 3, 5, 6])
    state = game.get("/api/state").json
    assert state["advice"] == answer["advice"] == json.loads(json.dumps(direct(app)))
    assert state["settings"] == {"advisor": True}
    rows = state["advice"]["display"]
    legal = [s["set_aside"] for s in state["legal"] if "set_aside" in s]
    assert sorted(r["step"]["set_aside"] for r in rows) == sorted(legal)
    best = advise(table_of(app).state_obj)
    assert [r["step"]["set_aside"] for r in rows if r["best"]] == [
        best["options"][best["best"]]["dice"]]


def test_brawl_advice_is_the_chance_of_beating_the_score(app, game):
    rolled(game, [1, 5, 2, 3, 4, 4], action={"action": "brawl", "target": "Joseph"})
    game.post("/api/steps", json={"set_aside": [1]})
    rows = game.get("/api/state").json["advice"]["display"]
    assert {r["step"]["action"] for r in rows} == {"stop", "roll"}
    assert all(r["figure"].endswith("% win") and 0 <= r["fraction"] <= 1 for r in rows)
    assert rows == direct(app)["display"]


def test_the_stream_sends_the_same_advice(app, game):
    q = app.extensions["dragon_farkle"].broadcaster.subscribe()
    rolled(game, [1, 1, 2, 3, 5, 6])
    messages = []
    while not q.empty():
        messages.append(q.get_nowait())
    data = json.loads(messages[-1].split("data: ", 1)[1])
    assert data["advice"] == game.get("/api/state").json["advice"]
    assert data["advice"]["display"]


def test_switched_off_there_is_no_advice_and_it_survives_a_restart(app, game):
    from web import create_app

    state = game.post("/api/settings", json={"advisor": False}).json
    assert state["settings"] == {"advisor": False} and state["advice"] is None
    assert rolled(game, [1, 1, 2, 3, 5, 6])["advice"] is None
    again = create_app({"TESTING": True, "DATA_DIR": app.config["DATA_DIR"], "TABLE_PIN": PIN,
                        "ADVISOR_CACHE": app.config["ADVISOR_CACHE"]})
    state = again.test_client().get("/api/state").json
    assert state["settings"] == {"advisor": False} and state["advice"] is None
    state = game.post("/api/settings", json={"advisor": True}).json
    assert state["advice"]["display"]


@pytest.mark.parametrize("body", [{"advisor": "off"}, {"leds": True}, ["advisor"], {}])
def test_bad_settings_answer_400_and_change_nothing(game, body):
    before = game.get("/api/state").json
    r = game.post("/api/settings", json=body)
    assert r.status_code == 400 and len(r.json["error"]) > 10
    after = game.get("/api/state").json
    assert after["settings"] == before["settings"] and after["version"] == before["version"]


def test_watchers_cannot_switch_the_advisor(app, game):
    assert app.test_client().post("/api/settings", json={"advisor": False}).status_code == 403
    assert game.get("/api/state").json["settings"] == {"advisor": True}
