"""Random table sessions: camera reads (sure, unsure, miscounted, wrong), taps, marks on the
photo, undo, "Wrong read? Fix it" and restarts, in any order. The table never fails with
anything but a refusal a player can read, a refusal changes nothing, and a table started
again on the same database (a crash or power cut) shows the same game."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.controller import GameStore, Table
from vision.photolog import PhotoLog
from vision.types import DiceWarning, Die, Reading

COLORS = {"Ann": "red", "Bo": "blue"}
FACES = [1, 2, 3, 4, 5, 6, None]
EVENTS = ["blank", "blank", "blank", "dragon", "rally", None]
# What a restarted table must show as it was: the game, not the open question.
GAME_KEYS = ("game", "phase", "player", "history", "legal", "prompt", "army", "turn_total",
             "dice_in_hand", "options", "farkle", "damage", "in_keep", "items", "winner",
             "last_roll", "last_event", "steps", "can_undo")


def _game(state: dict[str, Any]) -> str:
    return json.dumps({k: state.get(k) for k in GAME_KEYS}, sort_keys=True, default=str)


def _all(state: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in state.items() if k != "boot"}, sort_keys=True, default=str)


@st.composite
def readings(draw: st.DrawFn, in_hand: int, color: str | None) -> Reading:
    """What the camera might report: a sure read of the dice in hand, one die unsure, a
    die too many or too few, or anything at all."""
    mode = draw(st.sampled_from(["sure", "sure", "unsure", "miscount", "anything"]))
    n = in_hand + (draw(st.sampled_from([-1, 1, -in_hand])) if mode == "miscount" else 0)
    if mode == "anything":
        n = draw(st.integers(0, 8))
    dice = []
    for i in range(max(0, n)):
        face = draw(st.sampled_from(FACES if mode == "anything" else FACES[:6]))
        conf = draw(st.sampled_from([0.3, 0.55, 0.7, 0.95])) if mode == "anything" else 0.95
        if mode == "unsure" and i == 0:
            conf = 0.5
        choices = (face, *draw(st.lists(st.integers(1, 6), max_size=2))) if face else ()
        x = 60.0 + 80 * (i % 7)
        y = 100.0 + 120 * (i // 7)
        die_color = draw(st.sampled_from([None, "red", "blue"])) if mode == "anything" else color
        dice.append(Die("soldier", face, (x, y), (int(x) - 12, int(y) - 12, 24, 24), conf,
                        die_color, tuple(dict.fromkeys(choices))))
    event = draw(st.sampled_from(EVENTS if mode == "anything" else EVENTS[:5]))
    if event is not None or draw(st.booleans()):
        dice.append(Die("event", event, (580.0, 400.0), (568, 388, 24, 24),
                        0.0 if event is None else 0.95))
    warnings = draw(st.sampled_from([(), (), (DiceWarning("hand", "A hand is in the tray."),)])
                    ) if mode == "anything" else ()
    return Reading(tuple(dice), warnings)


def _random_step(draw: st.DrawFn, state: dict[str, Any]) -> dict[str, Any]:
    legal = [s for s in state.get("legal") or [] if "needs" not in s]
    kind = draw(st.sampled_from(["legal", "legal", "legal", "roll", "set_aside", "junk"]))
    if kind == "legal" and legal:
        return draw(st.sampled_from(legal))
    if kind in ("legal", "roll"):
        n = state.get("dice_in_hand") or 6
        n = max(0, n + draw(st.sampled_from([0, 0, 0, 1, -1])))
        return {"roll": draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)),
                "event": draw(st.sampled_from(["blank", "dragon", "rally"]))}
    if kind == "set_aside":
        options = state.get("options") or [[1]]
        pick = draw(st.sampled_from(options)) if draw(st.booleans()) else [draw(st.integers(1, 6))]
        return {"set_aside": list(pick)}
    return draw(st.sampled_from([{"action": "fly"}, {"roll": "six"}, {"set_aside": []},
                                 {"action": "stop", "extra": 1}, {}]))


ACTIONS = ["read", "read", "read", "step", "step", "step", "mark", "play_marked", "dismiss",
           "undo", "dispute", "restart"]
ASKED = ["mark", "mark", "mark", "play_marked", "play_marked", "dismiss", "step", "read",
         "undo", "restart"]  # while the camera asks about a roll


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_sessions_refuse_cleanly_and_resume_exactly(tmp_path_factory, data):
    folder: Path = tmp_path_factory.mktemp("table")
    path = folder / "games.sqlite3"
    photos = PhotoLog(folder / "dice-photos", limit=20)
    stores = [GameStore(path)]
    table = Table(stores[0], photos=photos, clock=lambda: 1_700_000_000.0)
    table.new_game({"players": ["Ann", "Bo"], "colors": COLORS})
    frame = np.full((480, 640, 3), 90, np.uint8)
    try:
        for _ in range(data.draw(st.integers(10, 40), label="actions")):
            state = table.state()
            before = _all(state)
            pending = state.get("pending") or {}
            asked = ACTIONS if pending.get("kind") != "roll" else ASKED
            action = data.draw(st.sampled_from(asked), label="action")
            try:
                if action == "read":
                    player = state.get("player")
                    reading = data.draw(readings(state.get("dice_in_hand") or 6,
                                                 COLORS.get(player)), label="reading")
                    table.handle_reading(reading, frame)
                elif action == "step":
                    table.apply_step(_random_step(data.draw, state))
                elif action == "mark":
                    dice = pending.get("dice") or []  # on a read die, or anywhere
                    at = data.draw(st.sampled_from(dice), label="die") if dice and data.draw(
                        st.booleans()) else {"x": data.draw(st.floats(-0.1, 1.1), label="x"),
                                             "y": data.draw(st.floats(-0.1, 1.1), label="y")}
                    tap = {"x": at["x"], "y": at["y"],
                           "face": data.draw(st.sampled_from(
                               [1, 2, 3, 4, 5, 6, "blank", "dragon", "rally", "none", "clear",
                                7, "x", None]), label="face")}
                    table.mark_pending(tap)
                elif action == "play_marked":
                    shown = pending.get("photo_roll")
                    table.apply_step(shown if shown else {"roll": [], "event": "blank"})
                elif action == "dismiss":
                    table.dismiss()
                elif action == "undo":
                    table.undo()
                elif action == "dispute":
                    table.dispute()
                else:  # a crash or power cut: a new table on the same database
                    stores.append(GameStore(path))
                    table = Table(stores[-1], photos=photos, clock=lambda: 1_700_000_000.0)
                    assert _game(table.state()) == _game(state)
            except ValueError as err:  # TableError, IllegalMove, StaleState: a refusal
                message = str(err)
                assert message.strip() and message.rstrip()[-1] in ".?!)", message  # a sentence
                assert _all(table.state()) == before, f"{action} refused but changed the table"
            # Whatever happened, the database holds exactly the game shown.
            again = Table(GameStore(path), photos=photos)
            assert _game(again.state()) == _game(table.state())
            again.store.close()
    finally:
        for store in stores:
            store.close()
