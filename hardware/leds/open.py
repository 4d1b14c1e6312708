"""`open_strip(config)`: the configuration chooses the LED backend."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hardware.leds.pixels import NullStrip, PixelStrip, RecordingStrip, StripConfigError
from hardware.leds.scene import LedLayout

BACKENDS = ("fake", "neopixel_spi", "gpio", "none")


@dataclass(frozen=True)
class StripConfig:
    """backend: "fake" (RecordingStrip), "neopixel_spi" (WS2812B on SPI), "gpio" (gpiozero), "none".

    gpio: a list of {kind, pins, segment, pwm} for the gpio backend (see hardware.leds.gpio).
    """

    backend: str = "fake"
    count: int = 60
    brightness: float = 0.4
    gamma: float = 2.2
    pixel_order: str = "GRB"
    gpio: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)


def open_strip(
    config: StripConfig | Mapping[str, Any] | None = None,
    *,
    layout: LedLayout | None = None,
    pin_factory: Any = None,
) -> PixelStrip:
    """Open the strip `config` names; `layout` is needed by the gpio backend (default layout otherwise)."""
    if config is None:
        config = StripConfig()
    elif isinstance(config, Mapping):
        try:
            config = StripConfig(**config)
        except TypeError as exc:
            raise StripConfigError(f"bad LED configuration: {exc}") from exc
    if config.backend == "fake":
        return RecordingStrip(config.count, brightness=config.brightness, gamma=config.gamma)
    if config.backend == "none":
        return NullStrip(config.count)
    if config.backend == "neopixel_spi":
        from hardware.leds.neopixel import NeoPixelSpiStrip

        return NeoPixelSpiStrip(
            config.count,
            brightness=config.brightness,
            gamma=config.gamma,
            pixel_order=config.pixel_order,
        )
    if config.backend == "gpio":
        from hardware.leds.gpio import GpioLeds, devices_from_config

        layout = layout or LedLayout.default(config.count)
        devices = devices_from_config(config.gpio)
        return GpioLeds(layout, devices, brightness=config.brightness, pin_factory=pin_factory)
    raise StripConfigError(f"unknown LED backend {config.backend!r}; use one of {', '.join(BACKENDS)}")
