"""Plain LEDs through gpiozero: an RGB LED, a bar graph, a board of single LEDs.

Each device shows one segment of the same rendered frame a strip would show, so the
scene logic stays in one place:
  rgbled   (RGBLED)      the colour of the segment's first LED (e.g. "turn")
  bargraph (LEDBarGraph) how much of the segment is lit (e.g. an army's progress)
  board    (LEDBoard)    one LED per position along the segment (e.g. dragon damage)
The pin factory is injectable (gpiozero's MockFactory in tests).
"""
from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.leds.pixels import RGB, PixelStrip, StripConfigError, StripError
from hardware.leds.scene import LedLayout, Segment

KINDS = ("rgbled", "bargraph", "board")
BAR_LIT = 0.2  # a pixel counts as lit on a bar graph above this level (army bars keep a dim tail)
BOARD_LIT = 0.5  # an on/off LED lights above this level


@dataclass(frozen=True)
class GpioDevice:
    """One gpiozero device: `kind`, its GPIO `pins` (BCM numbers) and the `segment` it shows."""

    kind: str
    pins: tuple[int, ...]
    segment: str
    pwm: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise StripConfigError(f"gpio LED kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "rgbled" and len(self.pins) != 3:
            raise StripConfigError(f"an rgbled needs 3 pins (red, green, blue), got {list(self.pins)}")
        if not self.pins:
            raise StripConfigError(f"a {self.kind} needs at least one pin")


def _level(pixel: RGB) -> float:
    return max(pixel) / 255.0


class GpioLeds(PixelStrip):
    """Drives `devices` from frames rendered for `layout` (a virtual strip of layout.count LEDs)."""

    name = "gpio"

    def __init__(
        self,
        layout: LedLayout,
        devices: Sequence[GpioDevice],
        *,
        brightness: float = 1.0,
        pin_factory: Any = None,
    ) -> None:
        # Thresholds need full-scale colours: brightness is applied to PWM outputs only.
        super().__init__(layout.count, brightness=1.0, gamma=1.0)
        if not 0.0 <= brightness <= 1.0:
            raise StripConfigError(f"brightness must be between 0 and 1, got {brightness}")
        self.level = brightness
        segments = device_segments(layout, devices)
        self._outputs: list[tuple[GpioDevice, Segment, Any]] = []
        try:
            for device, seg in zip(devices, segments):
                self._outputs.append((device, seg, _make(device, pin_factory)))
        except Exception:
            self._release()
            self.closed = True
            raise

    def _write(self, pixels: list[RGB]) -> None:
        try:
            for device, seg, gpio in self._outputs:
                _SHOW[device.kind](self, device, seg, gpio, pixels)
        except Exception as exc:
            raise StripError(f"gpio: could not set the LEDs ({exc})") from exc

    def _show_rgb(self, device: GpioDevice, seg: Segment, gpio: Any, pixels: list[RGB]) -> None:
        channels = [c / 255 for c in pixels[seg.indices()[0]]]
        if device.pwm:
            gpio.color = tuple(c * self.level for c in channels)
        else:
            gpio.color = tuple(float(c >= BOARD_LIT) for c in channels)

    def _show_bar(self, device: GpioDevice, seg: Segment, gpio: Any, pixels: list[RGB]) -> None:
        levels = [_level(pixels[i]) for i in seg.indices()]
        lit = sum(v for v in levels if v >= BAR_LIT) / seg.length
        count = len(device.pins)
        gpio.value = round(lit * count) / count

    def _show_board(self, device: GpioDevice, seg: Segment, gpio: Any, pixels: list[RGB]) -> None:
        order = seg.indices()
        count = len(device.pins)
        values = []
        for k in range(count):
            n = round(k * (seg.length - 1) / (count - 1)) if count > 1 else 0
            level = _level(pixels[order[n]])
            values.append(level * self.level if device.pwm else float(level >= BOARD_LIT))
        gpio.value = tuple(values)

    def _release(self) -> None:
        for _, _, gpio in self._outputs:
            with contextlib.suppress(Exception):  # closing must not raise
                gpio.off()
                gpio.close()
        self._outputs = []


_SHOW = {
    "rgbled": GpioLeds._show_rgb,
    "bargraph": GpioLeds._show_bar,
    "board": GpioLeds._show_board,
}


def device_segments(layout: LedLayout, devices: Sequence[GpioDevice]) -> list[Segment]:
    """The layout segment each device shows; StripConfigError names a missing one."""
    segments = dict(layout.named_segments())
    found = []
    for device in devices:
        seg = segments.get(device.segment)
        if seg is None:
            known = ", ".join(segments) or "none"
            raise StripConfigError(
                f"gpio {device.kind} shows segment {device.segment!r}, "
                f"which the LED layout does not have (it has: {known})"
            )
        found.append(seg)
    return found


def _make(device: GpioDevice, pin_factory: Any) -> Any:
    from gpiozero import RGBLED, LEDBarGraph, LEDBoard
    from gpiozero.exc import GPIOZeroError

    try:
        if device.kind == "rgbled":
            return RGBLED(*device.pins, pwm=device.pwm, pin_factory=pin_factory)
        if device.kind == "bargraph":
            return LEDBarGraph(*device.pins, pwm=False, pin_factory=pin_factory)
        return LEDBoard(*device.pins, pwm=device.pwm, pin_factory=pin_factory)
    except GPIOZeroError as exc:
        raise StripError(f"gpio {device.kind} on pins {list(device.pins)}: {exc}") from exc


def devices_from_config(items: Sequence[Mapping[str, Any]]) -> list[GpioDevice]:
    """[{kind, pins, segment, pwm?}, ...] from the configuration file -> GpioDevice list."""
    devices = []
    for n, item in enumerate(items):
        pins = item.get("pins")
        if not isinstance(pins, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in pins):
            raise StripConfigError(f"leds.gpio[{n}].pins must be a list of GPIO numbers, got {pins!r}")
        devices.append(
            GpioDevice(
                kind=str(item.get("kind", "")),
                pins=tuple(pins),
                segment=str(item.get("segment", "")),
                pwm=bool(item.get("pwm", True)),
            )
        )
    return devices
