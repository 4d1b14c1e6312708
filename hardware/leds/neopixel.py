"""WS2812B strip through `adafruit-circuitpython-neopixel-spi` (SPI0 MOSI = GPIO10, pin 19).

The same code runs on a Pi 4 and a Pi 5 without root (the `spi` group). The library
is imported only here. Two limits of the stack below it are checked here, because the
library itself says nothing when they bite:

- One frame must go out in one SPI transfer. neopixel_spi sends 24 bytes per LED between
  two 64-byte resets (80 us at 6.4 MHz), and Adafruit_PureIO splits any write longer than
  its chunk (4096 bytes, or $SPI_BUFSIZE) into several transfers; the pause between them
  can latch the strip mid-frame. The kernel's spidev refuses a transfer longer than its
  `bufsiz` parameter. So the chunk is set to the kernel's bufsiz and the LED count is
  refused past what fits: 165 LEDs with the default 4096 bytes.
- The colour order is handed over as a string: PixelBuf parses any order ("BGR" too),
  while the module defines constants for only RGB, GRB, RGBW and GRBW.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from hardware.leds.pixels import RGB, PixelStrip, StripConfigError, StripError

ORDERS = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR")
SPI_HZ = 6_400_000  # the library's default: 8 SPI bits per LED bit at 800 kHz
RESET_BYTES = round(SPI_HZ * 80e-6 / 8)  # zero bytes the library sends before and after a frame
BYTES_PER_LED = 24  # 3 colours x 8 bits, one SPI byte per LED bit
DEFAULT_BUFSIZ = 4096  # spidev's default bufsiz, and Adafruit_PureIO's default chunk
BUFSIZ_PARAM = Path("/sys/module/spidev/parameters/bufsiz")
BIG_BUFSIZ = 32768  # what the README suggests for longer strips
# Blinka's platform modules, and where Raspberry Pi OS has them (a venv with system site packages).
APT_PACKAGES = {"RPi": "python3-rpi-lgpio", "gpiod": "python3-libgpiod", "lgpio": "python3-lgpio"}


def frame_bytes(count: int) -> int:
    """Bytes neopixel_spi writes for one frame of `count` RGB LEDs."""
    return BYTES_PER_LED * count + 2 * RESET_BYTES


def kernel_bufsiz(param: Path | None = None) -> int:
    """The largest SPI transfer the kernel's spidev accepts (its `bufsiz` parameter)."""
    try:
        return int((param or BUFSIZ_PARAM).read_text().strip())
    except (OSError, ValueError):
        return DEFAULT_BUFSIZ


def transfer_limit(environ: Mapping[str, str] | None = None, param: Path | None = None) -> int:
    """The most bytes one SPI write sends as one transfer: PureIO's chunk ($SPI_BUFSIZE, which
    `_load` sets to the kernel's bufsiz when unset), but never more than the kernel takes."""
    environ = os.environ if environ is None else environ
    kernel = kernel_bufsiz(param)
    try:
        chunk = int(environ.get("SPI_BUFSIZE", kernel))
    except ValueError:
        chunk = DEFAULT_BUFSIZ  # PureIO ignores a bad value the same way
    return min(chunk, kernel)


def max_leds(environ: Mapping[str, str] | None = None, param: Path | None = None) -> int:
    """How many LEDs fit one transfer (165 with the default 4096 bytes)."""
    return (transfer_limit(environ, param) - 2 * RESET_BYTES) // BYTES_PER_LED


def _load() -> tuple[Any, ModuleType]:
    # In a terminal, Blinka 10 offers to pip-install "missing" platform packages it cannot
    # see in apt's copies (python3-libgpiod has no pip metadata) and waits for an answer.
    os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
    # Adafruit_PureIO reads its chunk size when board.SPI() opens the bus.
    os.environ.setdefault("SPI_BUFSIZE", str(kernel_bufsiz()))
    try:
        import board  # type: ignore[import-not-found]
        import neopixel_spi  # type: ignore[import-not-found]
    except Exception as exc:
        raise StripError(f"neopixel_spi: the LED library does not load here ({exc}); "
                         f"{_install_hint(exc)}") from exc
    if not hasattr(board, "SPI"):
        raise StripError(f"neopixel_spi: this board ({getattr(board, 'board_id', None)}) has no "
                         "SPI bus the LED library knows; the strip needs a Raspberry Pi")
    try:
        spi = board.SPI()
    except Exception as exc:
        raise StripError(f"neopixel_spi: SPI is not available ({exc}); enable it with "
                         "sudo raspi-config nonint do_spi 0, then reboot") from exc
    return spi, neopixel_spi


def _install_hint(exc: Exception) -> str:
    missing = getattr(exc, "name", None) or ""
    package = APT_PACKAGES.get(missing.split(".")[0])
    package = package or next((p for m, p in APT_PACKAGES.items() if f"'{m}" in str(exc)), None)
    if package:
        return f"install it with: sudo apt install {package}"
    return "on the Pi: run scripts/install-pi again (it installs the pi extra and its apt packages)"


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
        order = str(pixel_order).upper()
        if order not in ORDERS:
            raise StripConfigError(f"pixel_order must be one of {', '.join(ORDERS)}, got {pixel_order!r}")
        limit = max_leds()
        if count > limit:
            raise StripConfigError(
                f"neopixel_spi: {count} LEDs need {frame_bytes(count)} bytes in one SPI transfer, "
                f"but this Pi sends at most {transfer_limit()} at once (the strip would flicker "
                f"mid-frame): use at most {limit} LEDs, or add spidev.bufsiz={BIG_BUFSIZ} to "
                "/boot/firmware/cmdline.txt and reboot"
            )
        if module is None or spi is None:
            spi, module = _load()
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
