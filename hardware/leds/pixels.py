"""The pixel buffer: brightness and gamma in one place, the transport a single method.

Shaped after Adafruit's PixelBuf: every strip backend subclasses `PixelStrip` and
only implements `_write(pixels)` (already corrected) and `_release()`. `close()`
turns the LEDs off first and is idempotent, so a crash or SIGINT leaves a dark strip.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from types import TracebackType
from typing import Self

RGB = tuple[int, int, int]


class StripError(RuntimeError):
    """The LED device failed (SPI gone, GPIO busy)."""


class StripConfigError(StripError, ValueError):
    """A bad LED option: count, brightness, gamma, pins."""


class PixelBuffer:
    """Applies brightness (0..1) and gamma to full-scale colours through one lookup table."""

    def __init__(self, count: int, *, brightness: float = 1.0, gamma: float = 1.0) -> None:
        if not isinstance(count, int) or count <= 0:
            raise StripConfigError(f"the LED count must be a positive integer, got {count!r}")
        if not 0.0 <= brightness <= 1.0:
            raise StripConfigError(f"brightness must be between 0 and 1, got {brightness}")
        if not 0.2 <= gamma <= 5.0:
            raise StripConfigError(f"gamma must be between 0.2 and 5, got {gamma}")
        self.count = count
        self.brightness = float(brightness)
        self.gamma = float(gamma)
        self._lut = [round(255 * ((v / 255) ** self.gamma) * self.brightness) for v in range(256)]

    def correct(self, pixels: Sequence[Sequence[int]]) -> list[RGB]:
        """`count` corrected colours: shorter input is padded with off, longer is an error."""
        if len(pixels) > self.count:
            raise StripConfigError(f"{len(pixels)} colours for a strip of {self.count} LEDs")
        lut = self._lut
        out = [(lut[_byte(r)], lut[_byte(g)], lut[_byte(b)]) for r, g, b in pixels]
        out.extend([(0, 0, 0)] * (self.count - len(out)))
        return out


def _byte(value: int) -> int:
    return 0 if value < 0 else 255 if value > 255 else int(value)


class PixelStrip(ABC):
    """An output for rendered frames: `show(pixels)`, `off()`, `close()`."""

    name = "strip"

    def __init__(self, count: int, *, brightness: float = 1.0, gamma: float = 1.0) -> None:
        self.buffer = PixelBuffer(count, brightness=brightness, gamma=gamma)
        self.closed = False

    @property
    def count(self) -> int:
        return self.buffer.count

    def show(self, pixels: Sequence[Sequence[int]]) -> None:
        """Display one frame of full-scale (r, g, b) colours."""
        if self.closed:
            raise StripError(f"{self.name}: the strip is closed")
        self._write(self.buffer.correct(pixels))

    def off(self) -> None:
        if not self.closed:
            self._write([(0, 0, 0)] * self.count)

    def close(self) -> None:
        """Turn every LED off and release the device; safe to call again."""
        if self.closed:
            return
        try:
            self.off()
        finally:
            self.closed = True
            self._release()

    @abstractmethod
    def _write(self, pixels: list[RGB]) -> None: ...

    def _release(self) -> None:
        """Free the device; called once by `close()` after the LEDs went dark."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class RecordingStrip(PixelStrip):
    """The fake strip: keeps every frame it was shown (after brightness/gamma) in `frames`."""

    name = "recording"

    def __init__(self, count: int, *, brightness: float = 1.0, gamma: float = 1.0) -> None:
        super().__init__(count, brightness=brightness, gamma=gamma)
        self.frames: list[tuple[RGB, ...]] = []

    @property
    def last(self) -> tuple[RGB, ...] | None:
        return self.frames[-1] if self.frames else None

    def _write(self, pixels: list[RGB]) -> None:
        self.frames.append(tuple(pixels))


class NullStrip(PixelStrip):
    """No LEDs attached: frames are accepted and dropped."""

    name = "none"

    def _write(self, pixels: list[RGB]) -> None:
        return None
