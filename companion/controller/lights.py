"""The LEDs follow the table: every new state becomes a Scene for the LED driver.

The scene comes from `companion.ledview.scene_from_snapshot`; the driver (owned here,
ticked by one thread) renders it every frame so flashes animate without the table's
help. Flashes start only when the game moved (a new step or an undo); any other change
(the camera's status, the advisor becoming ready) keeps the flash that is playing, with
its start time, so it is neither cut short nor restarted. With `hint=True` the tray LED
next to the set-aside the advisor recommends pulses (`hint_position`).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any


def die_positions(
    state: dict[str, Any], *, leds: Sequence[Any] = (), tray: Any = None
) -> list[tuple[Any, float]]:
    """(face, place along the tray edge 0..1) of each soldier die of the last camera reading.

    With the calibration's LED positions (`leds`: index, x, y in the frame) and the
    layout's tray segment, each die gets the tray LED nearest to it; without them the
    die's horizontal place in the frame stands in for its place along the edge.
    """
    read = state.get("last_read") or {}
    width = read.get("width")
    if state.get("phase") != "set_aside" or not width:
        return []
    along = _edge(leds, tray)
    return [(die.get("value"), along(die["center"], width)) for die in read.get("dice", ())
            if die.get("kind") == "soldier" and die.get("center")]


def asked_positions(
    state: dict[str, Any], *, leds: Sequence[Any] = (), tray: Any = None
) -> tuple[float, ...]:
    """Where along the tray edge (0..1) the dice lie that the camera asks the phones about
    and the players have not marked yet (the state's pending.unsure)."""
    pending = state.get("pending") or {}
    size = pending.get("photo_size")
    if not size:
        return ()
    along = _edge(leds, tray)
    return tuple(sorted(along((u["x"] * size[0], u["y"] * size[1]), size[0])
                        for u in pending.get("unsure") or () if u.get("marked") is None))


def _edge(leds: Sequence[Any], tray: Any) -> Callable[[Sequence[float], float], float]:
    """A point of the frame (x, y) -> its place along the tray edge (0..1): the nearest
    calibrated tray LED's place, or without them the point's horizontal place in the
    frame (`width` px wide)."""
    order = list(tray.indices()) if tray is not None else []
    points = [p for p in leds if p.index in order]

    def along(center: Sequence[float], width: float) -> float:
        if points and len(order) > 1:
            near = min(points, key=lambda p: math.dist((p.x, p.y), center))
            return order.index(near.index) / (len(order) - 1)
        return max(0.0, min(1.0, float(center[0]) / float(width)))

    return along


def settable_positions(
    state: dict[str, Any], *, leds: Sequence[Any] = (), tray: Any = None
) -> tuple[float, ...]:
    """Where along the tray edge (0..1) the dice that may be set aside lie: a die is lit
    when its face is in any legal option (see `die_positions`)."""
    faces = {f for option in state.get("options") or () for f in option}
    return tuple(sorted(p for face, p in die_positions(state, leds=leds, tray=tray) if face in faces))


def hint_position(
    state: dict[str, Any], *, leds: Sequence[Any] = (), tray: Any = None
) -> float | None:
    """Where the advisor's recommended set-aside lies along the tray edge, or None.

    The hint names faces (`advice.hint.dice`); the dice of the last reading showing them
    are matched face by face, and the middle one of those stands for the set-aside.
    """
    hint = (state.get("advice") or {}).get("hint") or {}
    wanted = list(hint.get("dice") or [])
    if not wanted or hint.get("card"):
        return None
    chosen = []
    for face, place in sorted(die_positions(state, leds=leds, tray=tray), key=lambda fp: fp[1]):
        if face in wanted:
            wanted.remove(face)
            chosen.append(place)
    if wanted:  # the reading does not show the recommended dice (typed roll, moved dice)
        return None
    return chosen[len(chosen) // 2]


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
        hint: bool = False,
    ) -> None:
        self.driver = driver
        self.hint = hint  # show the advisor's hint on the tray LEDs (leds.hint in the config)
        self.leds = tuple(leds)  # calibrated LED positions in the camera frame
        self.scene_from_snapshot = scene_from_snapshot
        self.clock = clock
        self.fps = fps
        self._position: str | None = None
        self._flash: tuple[list[str], Any, float] = ([], None, 0.0)  # events, step, start
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, state: dict[str, Any]) -> None:
        """Table listener: build the scene for a new state (cheap; runs on every change)."""
        if state.get("game") is None:
            return
        position = state["game"].get("position")
        if position != self._position:  # the game moved: this step's flash starts now
            self._position = position
            history = state.get("history") or []
            last = history[-1] if history else {}
            self._flash = (list(last.get("kinds", [])), last.get("step"), self.clock())
        events, step, started = self._flash
        colors = (state["game"].get("setup") or {}).get("colors") or {}
        tray = self.driver.layout.tray
        self.driver.scene = self.scene_from_snapshot(
            state, colors=colors, events=events, step=step, now=started,
            settable=settable_positions(state, leds=self.leds, tray=tray),
            hint=hint_position(state, leds=self.leds, tray=tray) if self.hint else None,
            asked=asked_positions(state, leds=self.leds, tray=tray),
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
