"""LEDs: what the table shows (`Scene`), where (`LedLayout`), as colours (`render_scene`), on
which device (`open_strip`: WS2812B over SPI, gpiozero LEDs, or the `RecordingStrip` fake).

    strip = open_strip(StripConfig(backend="fake", count=60))
    strip.show(render_scene(scene, time.monotonic(), layout))
    strip.close()   # LEDs off; idempotent
"""
from __future__ import annotations

from hardware.leds.driver import LedDriver
from hardware.leds.open import BACKENDS, StripConfig, open_strip
from hardware.leds.pixels import (
    NullStrip,
    PixelBuffer,
    PixelStrip,
    RecordingStrip,
    StripConfigError,
    StripError,
)
from hardware.leds.render import FLASH_SECONDS, flash_active, render_scene
from hardware.leds.scene import ARMY_GOAL, FLASHES, LayoutError, LedLayout, Scene, Segment

__all__ = [
    "ARMY_GOAL",
    "BACKENDS",
    "FLASHES",
    "FLASH_SECONDS",
    "LayoutError",
    "LedDriver",
    "LedLayout",
    "NullStrip",
    "PixelBuffer",
    "PixelStrip",
    "RecordingStrip",
    "Scene",
    "Segment",
    "StripConfig",
    "StripConfigError",
    "StripError",
    "flash_active",
    "open_strip",
    "render_scene",
]
