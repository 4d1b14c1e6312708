"""Any JSON at all, sent to every action of the API, is answered with a refusal the page
can show (4xx and {"error": "..."}) or done: never a server error."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.jsonfuzz import json_documents

PIN = "2468"
KEYS = ["pin", "players", "action", "roll", "event", "set_aside", "x", "y", "face", "on",
        "advisor", "points", "rotation", "name", "use", "target", "colors", "table", "keep",
        "adjust", "rally", "die", "predict"]
SCALARS = (st.none() | st.booleans() | st.integers(-10, 5000) | st.floats(allow_nan=True)
           | st.sampled_from(["", "Ann", "blank", "dragon", "rally", "recruit", "roll", "stop",
                              "none", "clear", "red", "x" * 300]))
JSON = json_documents(KEYS, scalars=SCALARS, list_size=8, key_size=5, max_leaves=20)
ACTIONS = ["/api/join", "/api/games", "/api/steps", "/api/undo", "/api/dispute",
           "/api/settings", "/api/dice/learn", "/api/pending/dismiss", "/api/pending/mark",
           "/api/teach", "/api/teach/keep", "/api/calibration/tray",
           "/api/calibration/find_tray", "/api/calibration/color", "/api/calibration/event",
           "/api/calibration/event/restart", "/api/calibration/event/forget",
           "/api/calibration/lock", "/api/calibration/leds"]


@settings(max_examples=300, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ACTIONS), body=JSON, raw=st.booleans())
def test_any_json_to_any_action_is_refused_or_done_never_a_server_error(app, path, body, raw):
    import json

    from web.joinlimit import JoinLimiter

    # Wrong codes cost time (tests/web/test_join_limit.py): here every code is tested.
    app.extensions["dragon_farkle"].joins = JoinLimiter(free=10**9, burst=10**9)
    client = app.test_client()
    assert client.post("/api/join", json={"pin": PIN}).status_code == 200
    table = app.extensions["dragon_farkle"].table
    if table.game is None:
        table.new_game({"players": ["Ann", "Bo"]})
    data = json.dumps(body, allow_nan=True)[:2000] if not raw else str(body)[:2000]
    r = client.post(path, data=data, content_type="application/json")
    assert r.status_code < 500, (path, data, r.get_data(as_text=True)[:300])
    if r.status_code >= 400:
        error = (r.get_json(silent=True) or {}).get("error")
        assert isinstance(error, str) and error.strip(), (path, data, r.get_data(as_text=True)[:300])
    assert client.get("/api/state").status_code == 200
