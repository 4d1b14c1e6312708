"""LedDriver: holds the current Scene and pushes a rendered frame to the strip every tick.

The app swaps scenes from any thread (`driver.scene = ...`); a single LED thread calls
`tick(now)` (or `run(stop)`), so the strip is only ever written from one place.
Unchanged frames are not resent, which keeps SPI traffic low while nothing moves.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hardware.leds.pixels import RGB, PixelStrip, StripError
from hardware.leds.render import render_scene
from hardware.leds.scene import LedLayout, Scene

log = logging.getLogger(__name__)


class LedDriver:
    def __init__(self, strip: PixelStrip, layout: LedLayout, scene: Scene | None = None) -> None:
        if layout.count != strip.count:
            raise StripError(f"the LED layout has {layout.count} LEDs but the strip {strip.count}")
        self.strip = strip
        self.layout = layout
        self._scene = scene or Scene()
        self._lock = threading.Lock()
        self._last: list[RGB] | None = None
        self._failing: str | None = None  # the error being retried, logged once
        self.errors = 0

    @property
    def scene(self) -> Scene:
        return self._scene

    @scene.setter
    def scene(self, scene: Scene) -> None:
        with self._lock:
            self._scene = scene

    def tick(self, now: float) -> bool:
        """Render the scene at `now` and show it if it changed; True when a frame was sent."""
        with self._lock:
            scene = self._scene
        pixels = render_scene(scene, now, self.layout)
        if pixels == self._last:
            return False
        try:
            self.strip.show(pixels)
        except StripError as exc:
            self.errors += 1  # a flaky strip must not stop the game; try again next tick
            if str(exc) != self._failing:  # once, not 30 lines a second into the journal
                log.warning("leds: %s (retrying every frame)", exc)
                self._failing = str(exc)
            return False
        if self._failing is not None:
            log.info("leds: working again after %d failed frames", self.errors)
            self._failing = None
        self._last = pixels
        return True

    def run(
        self,
        stop: threading.Event,
        *,
        fps: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Tick at `fps` until `stop` is set, then close the strip (LEDs off)."""
        try:
            while not stop.is_set():
                self.tick(clock())
                stop.wait(1.0 / fps)
        finally:
            self.close()

    def close(self) -> None:
        """Turn the LEDs off and release the strip; idempotent."""
        self.strip.close()
