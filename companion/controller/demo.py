"""The demo camera follows the game: it shows the frame of the roll the game awaits.

The default `dragon-farkle serve` plays the bundled demo game (companion.demo) on a
replay camera that holds each frame until told. `DemoDirector` listens to the table:
when the game waits for a roll and no question is open, the camera shows that roll's
frame (after a pause, the time a player takes to throw); once a set-aside is made, the
tray without it. The camera loop then reads the frame like any other, and the table
plays the read or asks about it.

Which frame is worked out from the game's record alone (`roll_frame`, `left_frame`),
so a restarted table picks up where it was. On script, the n-th roll of the game is the
demo's n-th. Off script (a roll answered otherwise, another set-aside, an early stop),
the next frame with as many dice as the player throws, in their colour, is shown
instead, so the camera keeps playing legal rolls.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from companion.demo import DemoGame, DemoRoll

log = logging.getLogger(__name__)
THROW_SECONDS = 1.5  # from the tap to the dice coming to rest in the tray
TAKE_SECONDS = 0.5  # from the set-aside tapped to its dice out of the tray
ASKING = ("roll", "teach")  # open questions about the frame in the tray: it stays


def _rolls(steps: Sequence[dict[str, Any]]) -> list[int]:
    return [i for i, step in enumerate(steps) if "roll" in step]


def roll_frame(demo: DemoGame, steps: Sequence[dict[str, Any]], dice: int,
               color: str | None) -> DemoRoll:
    """The demo roll to show for the next roll of a game that played `steps`, whose
    player throws `dice` dice of `color`: the demo's roll of the same number when it fits,
    else the next one that does (as many dice, the same colour if any is), round the end."""
    start = len(_rolls(steps)) % len(demo.rolls)
    order = demo.rolls[start:] + demo.rolls[:start]
    for fits in (lambda r: len(r.roll) == dice and r.color == color,
                 lambda r: len(r.roll) == dice):
        found = next((r for r in order if fits(r)), None)
        if found is not None:
            return found
    return order[0]


def left_frame(demo: DemoGame, steps: Sequence[dict[str, Any]], dice: int,
               color: str | None) -> DemoRoll | None:
    """The demo roll whose "left in the tray" frame shows the game now (the player
    deciding, `dice` in hand), or None: only where the last roll is the one its frame
    showed and what went from it is what the demo took (a set-aside, or the Dragon's)."""
    rolls = _rolls(steps)
    if not rolls:
        return None
    at = rolls[-1]
    played = steps[at]
    shown = roll_frame(demo, steps[:at], len(played["roll"]), color)
    if (shown.left is None or len(shown.left) != dice
            or sorted(played["roll"]) != sorted(shown.roll) or played.get("event") != shown.event):
        return None
    after = list(steps[at + 1:])
    if shown.set_aside is None:
        return shown if not after else None
    if len(after) == 1 and sorted(after[0].get("set_aside") or ()) == sorted(shown.set_aside):
        return shown
    return None


class DemoDirector:
    """Moves the demo camera as the game goes; a table listener (`update(state)`).

    camera: returns the camera loop's camera now (a ReplayCamera of `demo.frames()`).
    """

    def __init__(self, demo: DemoGame, table: Any, camera: Callable[[], Any], *,
                 throw: float = THROW_SECONDS) -> None:
        self.demo = demo
        self.table = table
        self.camera = camera
        self.throw = throw
        self._served: set[tuple[int, int]] = set()  # (game, steps) a frame was shown for

    def update(self, state: dict[str, Any]) -> None:
        """A change at the table: show the frame the game now calls for, once per position
        (an undo back to a position keeps the tray as it is, as at a real table)."""
        game = state.get("game")
        if not game or (state.get("pending") or {}).get("kind") in ASKING or self.table.game is None:
            return
        key = (int(game["id"]), int(game["steps"]))
        if key in self._served:
            return
        wanted = self.frame_for(state)
        camera = self.camera()
        if wanted is None or camera is None or not callable(getattr(camera, "show", None)):
            return
        self._served.add(key)
        frame, pause = wanted
        log.info("demo: showing %s", frame)
        camera.show(self.demo.index(frame), after=pause)

    def frame_for(self, state: dict[str, Any]) -> tuple[str, float] | None:
        """The frame the game calls for now and the seconds before it comes to rest in the
        tray, or None (keep the tray as it is)."""
        steps = list(self.table.game.steps)
        colors = self.table.game.setup.get("colors") or {}
        color = colors.get(state.get("player")) if isinstance(colors, dict) else None
        dice = int(state.get("dice_in_hand") or 0)
        if state.get("phase") == "roll":
            return roll_frame(self.demo, steps, dice, color).frame, self.throw
        if state.get("phase") == "decide":
            left = left_frame(self.demo, steps, dice, color)
            if left is not None and left.left_frame is not None:
                return left.left_frame, TAKE_SECONDS
        return None
