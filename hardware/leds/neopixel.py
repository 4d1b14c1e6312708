"""WS2812B strip through `adafruit-circuitpython-neopixel-spi` (SPI0 MOSI = GPIO10, pin 19).

The same code runs on a Pi 4 and a Pi 5 without root (the `spi` group). The library
is imported only here; tests inject a fake module with the same API.
"""
from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

from hardware.leds.pixels import RGB, PixelStrip, StripConfigError, StripError

MAX_PIXELS = 170  # Adafruit_PureIO writes 4096-byte chunks, 24 SPI bytes per pixel
ORDERS = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR")


def _load() -> tuple[Any, ModuleType]:
    try:
        import board  # type: ignore[import-not-found]
        import neopixel_spi  # type: ignore[import-not-found]
    except (ImportError, NotImplementedError, RuntimeError) as exc:
        raise StripError(
            "neopixel_spi: adafruit-circuitpython-neopixel-spi is not usable here "
            f"({exc}); on the Pi: pip install '.[pi]' and enable SPI (raspi-config nonint do_spi 0)"
        ) from exc
    try:
        spi = board.SPI()
    except Exception as exc:
        raise StripError(f"neopixel_spi: SPI is not available ({exc}); enable it and reboot") from exc
    return spi, neopixel_spi


class NeoPixelSpiStrip(PixelStrip):
    """`count` WS281x LEDs on SPI; colours are corrected here, so the library's brightness is 1."""

    name = "neopixel_spi"

    def __init__(
        self,
        count: int,
        *,
        brightness: float = 0.4,
        gamma: float = 2.2,
        pixel_order: str = "GRB",
        spi: Any = None,
        module: ModuleType | None = None,
    ) -> None:
        super().__init__(count, brightness=brightness, gamma=gamma)
        if count > MAX_PIXELS:
            raise StripConfigError(
                f"neopixel_spi: {count} LEDs is more than {MAX_PIXELS} (one SPI transfer); "
                "raise spidev.bufsiz and SPI_BUFSIZE first (see README)"
            )
        if pixel_order.upper() not in ORDERS:
            raise StripConfigError(f"pixel_order must be one of {', '.join(ORDERS)}, got {pixel_order!r}")
        if module is None or spi is None:
            spi, module = _load()
        order = getattr(module, pixel_order.upper())
        try:
            self._pixels = module.NeoPixel_SPI(
                spi, count, pixel_order=order, brightness=1.0, auto_write=False
            )
        except Exception as exc:
            self.closed = True
            raise StripError(f"neopixel_spi: could not open the strip ({exc})") from exc

    def _write(self, pixels: list[RGB]) -> None:
        try:
            self._pixels[0 : len(pixels)] = pixels
            self._pixels.show()
        except Exception as exc:
            raise StripError(f"neopixel_spi: write failed ({exc})") from exc

    def _release(self) -> None:
        with contextlib.suppress(Exception):  # closing must not raise
            self._pixels.deinit()
