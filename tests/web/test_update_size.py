"""Updates stay small however long the game (issue 22): phones get the state without
the whole history and statistics, which the History and Stats tabs fetch."""
from __future__ import annotations

import json
import random

PLAYERS = ["Jane", "Joseph", "Anna", "Bert"]
LIMIT = 20 * 1024


def random_step(st: dict, rng: random.Random) -> dict:
    """A legal step: a random roll, or a random choice among the plain legal steps."""
    if st["phase"] == "roll":
        return {"roll": [rng.randint(1, 6) for _ in range(st["dice_in_hand"])],
                "event": rng.choice(["blank"] * 4 + ["dragon", "rally"])}
    return rng.choice([s for s in st["legal"] if not s.get("needs") and "use" not in s and "adjust" not in s])


def play_random(table, steps: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        table.apply_step(random_step(table.state(), rng))


def test_a_hundred_step_game_sends_updates_under_20_kb(app, game):
    table = app.extensions["dragon_farkle"].table
    broadcaster = app.extensions["dragon_farkle"].broadcaster
    table.new_game({"players": PLAYERS, "colors": dict(zip(PLAYERS, ["red", "blue", "green", "yellow"]))})
    play_random(table, 100)
    assert len(table.state()["history"]) == 100 and table.state()["phase"] != "game_over"
    assert len(broadcaster.last_message.encode()) < LIMIT  # each live update
    answer = game.post("/api/steps", json=random_step(table.state(), random.Random(2)))
    assert answer.status_code == 200 and len(answer.data) < LIMIT  # a tap's answer
    assert len(game.get("/api/state").data) < LIMIT
    state = game.get("/api/state").json
    assert state["history_length"] == 101 and len(state["history"]) == 1
    assert state["history"][-1] == json.loads(json.dumps(table.state()["history"][-1]))
    assert "stats" not in state


def test_the_history_tab_fetches_the_whole_history_and_statistics(app, game):
    table = app.extensions["dragon_farkle"].table
    play_random(table, 12)
    full = game.get("/api/history").json
    assert full["version"] == table.version and full["boot"] == table.boot
    assert [e["seq"] for e in full["history"]] == list(range(12))
    assert len(full["stats"]["armies"]) == 13 and set(full["stats"]["faces"]) <= {"Jane", "Joseph"}


def test_the_slim_state_keeps_what_the_play_tab_needs():
    from web.broadcast import for_phones

    state = {"version": 3, "history": [{"seq": 0}, {"seq": 1}], "stats": {"armies": []}, "phase": "roll"}
    assert for_phones(state) == {"version": 3, "history": [{"seq": 1}], "history_length": 2, "phase": "roll"}
    assert for_phones({"version": 1, "history": []})["history"] == []
