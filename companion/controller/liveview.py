"""The camera picture the phones see, and the small evidence JPEGs kept with each roll."""
from __future__ import annotations

import threading
from typing import Any

import cv2
import numpy as np

VIEW_WIDTH = 640
THUMB_WIDTH = 360


def encode_jpeg(frame: np.ndarray, *, width: int = THUMB_WIDTH, quality: int = 75) -> bytes:
    """A BGR frame scaled down to `width` pixels (never up) as JPEG bytes."""
    h, w = frame.shape[:2]
    if w > width:
        frame = cv2.resize(frame, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV only fails here on invalid arrays
        raise ValueError("could not encode the camera frame as JPEG")
    return buf.tobytes()


class LiveView:
    """Latest camera frame (or, once the dice settle, the frame with the read dice drawn).

    Frames are encoded lazily, once per new frame, whatever the number of phones asking.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frame: np.ndarray | None = None
        self._counter = 0
        self._cached: tuple[int, bytes] | None = None
        self._raw: np.ndarray | None = None
        self.annotated = False

    def show(self, frame: np.ndarray, *, annotated: bool = False) -> None:
        """Hand in a new picture to show (raw while dice move, annotated when read)."""
        with self._lock:
            if not annotated:
                self._raw = frame
            if self.annotated and not annotated and self._frame is not None:
                return  # keep the drawn reading on screen until the dice move again
            self._frame = frame
            self.annotated = annotated
            self._counter += 1

    def moving(self) -> None:
        """The dice moved: the next raw frame replaces the drawn reading."""
        with self._lock:
            self.annotated = False

    def jpeg(self) -> tuple[int, bytes] | None:
        """(frame number, JPEG bytes) of the current picture, or None before the first frame."""
        with self._lock:
            if self._frame is None:
                return None
            if self._cached is None or self._cached[0] != self._counter:
                self._cached = (self._counter, encode_jpeg(self._frame, width=VIEW_WIDTH, quality=70))
            return self._cached

    def raw(self) -> np.ndarray | None:
        """The newest camera frame as it came (no drawing), for calibration."""
        with self._lock:
            return self._raw

    def size(self) -> tuple[int, int] | None:
        """(width, height) of the camera picture, or None before the first frame."""
        with self._lock:
            return None if self._frame is None else (self._frame.shape[1], self._frame.shape[0])

    def info(self) -> dict[str, Any]:
        with self._lock:
            return {"frame": self._counter, "annotated": self.annotated}
