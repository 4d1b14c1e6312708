"""USB webcam through OpenCV's `VideoCapture` (V4L2 on Linux)."""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import numpy as np

from hardware.camera.base import Camera, CameraError, check_frame


def _video_capture(index: int) -> Any:
    import cv2

    return cv2.VideoCapture(index)


class UsbCamera(Camera):
    """Webcam number `index` (/dev/videoN). `capture_factory` is injectable for tests."""

    def __init__(
        self,
        index: int = 0,
        *,
        size: tuple[int, int] | None = (640, 480),
        capture_factory: Callable[[int], Any] = _video_capture,
    ) -> None:
        super().__init__()
        self.name = f"usb:{index}"
        self.size = size
        try:
            self._cap = capture_factory(index)
            opened = bool(self._cap.isOpened())
        except Exception as exc:
            self._closed = True
            raise CameraError(f"{self.name}: could not open the webcam ({exc})") from exc
        if not opened:
            self._closed = True
            self._safe_release()
            raise CameraError(f"{self.name}: no webcam found at /dev/video{index} (is it plugged in?)")
        if size is not None:
            self._request_size(size)

    def _request_size(self, size: tuple[int, int]) -> None:
        import cv2

        # A request, not a promise: webcams pick their nearest mode.
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, int(size[0]))
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, int(size[1]))

    def _read(self) -> np.ndarray:
        try:
            ok, frame = self._cap.read()
        except Exception as exc:
            raise CameraError(f"{self.name}: read failed ({exc})") from exc
        if not ok or frame is None:
            raise CameraError(f"{self.name}: the webcam stopped sending frames (unplugged?)")
        return check_frame(frame, self.name)

    def _safe_release(self) -> None:
        with contextlib.suppress(Exception):
            self._cap.release()

    def _release(self) -> None:
        self._safe_release()
