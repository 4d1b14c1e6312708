"""The restart invariant (issue 22): after any sequence of requests, good or bad, a table
stopped without any cleanup (as by kill -9: the old objects are dropped, never closed)
and started again on its data shows the same state, and every answer was a 2xx or 4xx."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.jsonfuzz import json_documents
from web import create_app

PIN = "2468"
VOLATILE = ("version", "boot", "advice", "joined")
NAMES = ["Jane", "Joseph", "Ann", "Zoë"]
BAD_NAMES = ["ann", "J" * 25, "Ja\u200bne", "", " Cy", 7]
COLOURS = ["red", "blue", "#00ff00", [1, 2, 3], "mauve", "<b>x</b>", None, "#12345"]
STEP_KEYS = ["action", "roll", "event", "set_aside", "rally", "card", "use", "adjust", "amount",
             "player", "target", "from", "to", "item", "keep", "new_companion", "die", "predict",
             "comment", "expect", "illegal"]
SCALARS = (st.none() | st.booleans() | st.integers(-100, 100) | st.sampled_from(
    [10**30, 50, 1.5, "", "Jane", "Joseph", "recruit", "stop", "roll", "blank", "rally", "ugh",
     "gain_item", "soldiers", "double", "x" * 300, "\u200b"]))
JUNK = json_documents(STEP_KEYS + ["players", "armies", "colors", "advisor"], scalars=SCALARS,
                      max_leaves=12)


def start(data: Path) -> Any:
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "TABLE_PIN": PIN})
    client = app.test_client()
    assert client.post("/api/join", json={"pin": PIN}).status_code == 200
    return client


def shown(client: Any) -> str:
    state = client.get("/api/state")
    assert state.status_code == 200
    return json.dumps({k: v for k, v in state.json.items() if k not in VOLATILE}, sort_keys=True)


@st.composite
def setups(draw: st.DrawFn, *, good: bool = False) -> Any:
    """A game's setup: mostly one that starts a game, else one with a flaw, or junk."""
    flaw = "none" if good else draw(st.sampled_from(["none", "none", "name", "colour", "junk"]))
    if flaw == "junk":
        return draw(JUNK)
    players = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True))
    if flaw == "name":
        players[draw(st.integers(0, len(players) - 1))] = draw(st.sampled_from(BAD_NAMES))
    setup: dict[str, Any] = {"players": players}
    if flaw == "colour" or draw(st.booleans()):
        palette = COLOURS if flaw == "colour" else COLOURS[:4]
        setup["colors"] = {p: draw(st.sampled_from(palette)) for p in players if isinstance(p, str)}
    if draw(st.booleans()):
        setup["companions"] = {p: draw(st.sampled_from(["Ugh", "Sidia", "Hiccup", "Tabby", None]))
                               for p in players if isinstance(p, str)}
    if draw(st.booleans()):
        armies = [0, 50, 4950, 5000] + ([] if flaw == "none" else [60_000, -50, 10**30])
        setup["armies"] = {p: draw(st.sampled_from(armies)) for p in players if isinstance(p, str)}
    return setup


def step_for(draw: st.DrawFn, state: dict[str, Any]) -> Any:
    """Mostly steps that fit the game (its legal ones, a roll of the dice in hand), else junk."""
    legal = state.get("legal") or []
    kind = draw(st.sampled_from(["legal", "legal", "roll", "adjust", "junk"]))
    if kind == "legal" and legal:
        step = dict(draw(st.sampled_from(legal)))
        for need in step.pop("needs", []):  # a card's die, as the page asks for it
            step[need] = draw(st.sampled_from([1, 3, 6, "event", "rally", "Tabby"]))
        return step
    if kind == "adjust":  # an adjustment, its fields right or wrong
        names = list(state.get("army") or {}) or ["Jane"]
        step = {"adjust": draw(st.sampled_from(["soldiers", "gain_item", "reroll_die", "ignore_farkle"])),
                "card": "Skree", "player": draw(st.sampled_from(names))}
        for key in draw(st.lists(st.sampled_from(["amount", "item", "roll", "die"]), max_size=2)):
            step[key] = draw(st.sampled_from([None, 50, 3, "event", [1], "x" * 50]))
        return step
    if kind in ("legal", "roll"):
        n = state.get("dice_in_hand") or 6
        return {"roll": draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)),
                "event": draw(st.sampled_from(["blank", "blank", "dragon", "rally"]))}
    return draw(JUNK)


PATHS = {"step": "/api/steps", "game": "/api/games", "settings": "/api/settings",
         "undo": "/api/undo", "dismiss": "/api/pending/dismiss", "dispute": "/api/dispute"}


def request(draw: st.DrawFn, what: str, state: dict[str, Any]) -> tuple[str, Any]:
    """One request of this kind (its path and JSON body) for a table showing `state`."""
    if what == "step":
        return PATHS[what], step_for(draw, state)
    if what == "game":
        return PATHS[what], draw(setups())
    if what == "settings":
        return PATHS[what], draw(st.sampled_from([{"advisor": False}, {"advisor": 1}, {"x": True}, []]))
    return PATHS[what], {}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_requests_then_kill_and_restart_show_the_same_state(data):
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder) / "data"
        client = start(where)
        # the advisor's answers are not part of the game (and slow this test tenfold)
        assert client.post("/api/settings", json={"advisor": False}).status_code == 200
        assert client.post("/api/games", json=data.draw(setups(good=True))).status_code == 200
        for _ in range(data.draw(st.integers(1, 12), label="requests")):
            what = data.draw(st.sampled_from(["step"] * 6 + ["game", "undo", "settings",
                                                             "dismiss", "dispute", "restart"]))
            if what == "restart":  # kill -9 mid-game: the table is dropped without closing
                before = shown(client)
                client = start(where)
                assert shown(client) == before
                continue
            path, body = request(data.draw, what, client.get("/api/state").json)
            r = client.post(path, data=json.dumps(body), content_type="application/json")
            assert r.status_code < 500, (path, body, r.get_data(as_text=True)[:300])
            if r.status_code >= 400:
                assert r.json["error"].strip()
        before = shown(client)
        assert shown(start(where)) == before
