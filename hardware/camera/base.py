"""The camera seam: every source returns BGR uint8 frames and closes idempotently.

Backends translate their library's failures into `CameraError`, so the caller
(usually a `CameraSupervisor`) handles one exception type for every device.
"""
from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self

import numpy as np


class CameraError(RuntimeError):
    """The camera could not be opened or stopped delivering frames (unplugged, busy, broken)."""


class CameraSpecError(CameraError, ValueError):
    """The camera was asked for with a bad spec or option (bad input, not a device failure)."""


class Camera(ABC):
    """A source of BGR frames. `read()` blocks until a frame is ready (at most one frame time)."""

    name: str = "camera"

    def __init__(self) -> None:
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> np.ndarray:
        """Return the next frame as an HxWx3 BGR uint8 array; raise CameraError on failure."""
        if self._closed:
            raise CameraError(f"{self.name}: the camera is closed")
        return self._read()

    def close(self) -> None:
        """Release the device. Safe to call any number of times."""
        if self._closed:
            return
        self._closed = True
        self._release()

    @abstractmethod
    def _read(self) -> np.ndarray: ...

    def _release(self) -> None:
        """Free the device; called once by `close()`."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finaliser
            self.close()


def check_frame(frame: object, source: str) -> np.ndarray:
    """Make sure a backend gave an HxWx3 uint8 array; anything else is a device failure."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", None)
        raise CameraError(f"{source}: expected an HxWx3 colour frame, got {shape!r}")
    if frame.dtype != np.uint8:
        frame = frame.astype(np.uint8)
    return frame
