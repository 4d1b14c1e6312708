"""The LEDs follow the table: every new state becomes a Scene for the LED driver.

The scene comes from `companion.ledview.scene_from_snapshot`; the driver (owned here,
ticked by one thread) renders it every frame so flashes animate without the table's
help. Flashes start only when the game moved (a new step or an undo), never on a
camera-status change.
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any


def settable_positions(
    state: dict[str, Any], *, leds: Sequence[Any] = (), tray: Any = None
) -> tuple[float, ...]:
    """Where along the tray edge (0..1) the dice that may be set aside lie.

    Uses the last camera reading: a die is lit when its face is in any legal option. With
    the calibration's LED positions (`leds`: index, x, y in the frame) and the layout's tray
    segment, each die gets the tray LED nearest to it; without them the die's horizontal
    place in the frame stands in for its place along the edge.
    """
    read = state.get("last_read") or {}
    width = read.get("width")
    if state.get("phase") != "set_aside" or not width:
        return ()
    faces = {f for option in state.get("options") or () for f in option}
    order = list(tray.indices()) if tray is not None else []
    points = [p for p in leds if p.index in order]
    out = []
    for die in read.get("dice", ()):
        center = die.get("center")
        if die.get("kind") != "soldier" or die.get("value") not in faces or not center:
            continue
        if points and len(order) > 1:
            near = min(points, key=lambda p: math.dist((p.x, p.y), center))
            out.append(order.index(near.index) / (len(order) - 1))
        else:
            out.append(max(0.0, min(1.0, float(center[0]) / float(width))))
    return tuple(sorted(out))


class TableLights:
    """Subscribes to the table and keeps the LED driver's scene current."""

    def __init__(
        self,
        driver: Any,
        *,
        scene_from_snapshot: Callable[..., Any],
        clock: Callable[[], float] = time.monotonic,
        fps: float = 30.0,
        leds: Sequence[Any] = (),
    ) -> None:
        self.driver = driver
        self.leds = tuple(leds)  # calibrated LED positions in the camera frame
        self.scene_from_snapshot = scene_from_snapshot
        self.clock = clock
        self.fps = fps
        self._position: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, state: dict[str, Any]) -> None:
        """Table listener: build the scene for a new state (cheap; runs on every change)."""
        if state.get("game") is None:
            return
        position = state["game"].get("position")
        moved = position != self._position
        self._position = position
        history = state.get("history") or []
        last = history[-1] if moved and history else {}
        colors = (state["game"].get("setup") or {}).get("colors") or {}
        self.driver.scene = self.scene_from_snapshot(
            state, colors=colors, events=last.get("kinds", []), step=last.get("step"),
            now=self.clock(),
            settable=settable_positions(state, leds=self.leds, tray=self.driver.layout.tray),
        )

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self.driver.run, args=(self._stop,), kwargs={"fps": self.fps, "clock": self.clock},
            name="leds", daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop ticking and turn the LEDs off."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.driver.close()
