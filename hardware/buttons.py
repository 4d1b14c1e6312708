"""Table buttons through gpiozero: roll again, stop, undo (a long press on undo = "undo_long").

Each press becomes a name passed to the app's callback: "roll", "stop", "undo" or
"undo_long" (the page then asks the table to confirm). "undo_long" fires as soon as
undo has been held `long_press` seconds (gpiozero's `when_held`); a shorter press
gives "undo" on release. The release also measures the press with an injected clock,
so a long press is never lost and tests need no waiting.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Self

log = logging.getLogger(__name__)

ACTIONS = ("roll", "stop", "undo")
EVENTS = ("roll", "stop", "undo", "undo_long")


class ButtonConfigError(ValueError):
    """A bad button option (pin numbers, long-press time)."""


class Buttons:
    """gpiozero Buttons on `pins` ({"roll": 5, "stop": 6, "undo": 13}; missing = no button).

    on_press(name) is called on gpiozero's thread; `pull_up=True` means each button
    connects its GPIO to ground. `pin_factory` is injectable (MockFactory in tests).
    """

    def __init__(
        self,
        pins: Mapping[str, int | None],
        on_press: Callable[[str], None],
        *,
        long_press: float = 1.5,
        pull_up: bool = True,
        bounce_time: float | None = 0.05,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_pins(pins, long_press)
        from gpiozero import Button

        self.long_press = long_press
        self._on_press = on_press
        self._clock = clock
        self._lock = threading.Lock()
        self._undo_down: float | None = None
        self._buttons: dict[str, Any] = {}
        self.closed = False
        try:
            for action, pin in pins.items():
                if pin is None:
                    continue
                button = Button(pin, pull_up=pull_up, bounce_time=bounce_time,
                                hold_time=long_press, pin_factory=pin_factory)
                self._buttons[action] = button
                self._wire(action, button)
        except Exception:
            self.close()
            raise

    def _wire(self, action: str, button: Any) -> None:
        if action == "undo":
            button.when_pressed = self._undo_pressed
            button.when_held = self._undo_held
            button.when_released = self._undo_released
        else:
            button.when_pressed = lambda: self._emit(action)

    def _undo_pressed(self) -> None:
        with self._lock:
            self._undo_down = self._clock()

    def _undo_held(self) -> None:
        with self._lock:
            down, self._undo_down = self._undo_down, None  # the release then says nothing
        if down is not None:
            self._emit("undo_long")

    def _undo_released(self) -> None:
        with self._lock:
            down, self._undo_down = self._undo_down, None
        if down is None:
            return
        held = self._clock() - down
        self._emit("undo_long" if held >= self.long_press else "undo")

    def _emit(self, name: str) -> None:
        try:
            self._on_press(name)
        except Exception:
            log.exception("buttons: the %s handler failed", name)

    def is_pressed(self, action: str) -> bool:
        button = self._buttons.get(action)
        return bool(button is not None and button.is_pressed)

    def close(self) -> None:
        """Release the GPIO pins; safe to call again."""
        if self.closed:
            return
        self.closed = True
        for button in self._buttons.values():
            with contextlib.suppress(Exception):
                button.close()
        self._buttons.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_pins(pins: Mapping[str, int | None], long_press: float) -> None:
    """Raise ButtonConfigError for unknown buttons, bad or shared pins, a bad long-press time."""
    unknown = sorted(set(pins) - set(ACTIONS))
    if unknown:
        raise ButtonConfigError(f"unknown button {unknown[0]!r}; buttons are {', '.join(ACTIONS)}")
    used = [p for p in pins.values() if p is not None]
    for pin in used:
        if not isinstance(pin, int) or isinstance(pin, bool) or not 0 <= pin <= 27:
            raise ButtonConfigError(f"button pins are GPIO numbers 0-27, got {pin!r}")
    if len(set(used)) != len(used):
        raise ButtonConfigError(f"two buttons share a pin: {used}")
    if not long_press > 0:
        raise ButtonConfigError(f"the long-press time must be positive seconds, got {long_press}")
