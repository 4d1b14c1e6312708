"""Keeps a camera running: a failure is reported and the camera reopened with backoff.

The caller's frame loop calls `read()` every tick; it gets a frame or None, never an
exception, so an unplugged webcam shows as a status on the phone page instead of
stopping the table. Time is injected; nothing here sleeps (`retry_in()` says how
long the caller may wait).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Self

import numpy as np

from hardware.camera.base import Camera

log = logging.getLogger(__name__)

STATUSES = ("ok", "lost", "retrying", "closed")


class CameraSupervisor:
    """Wraps `opener` (a callable returning an open Camera) and owns the camera it opens.

    status: "ok" (frames flowing), "lost" (the camera just failed), "retrying" (reopen
    attempts failing), "closed". `on_status(status, error)` is called on every change.
    """

    def __init__(
        self,
        opener: Callable[[], Camera],
        *,
        clock: Callable[[], float] = time.monotonic,
        first_delay: float = 0.5,
        max_delay: float = 30.0,
        on_status: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self._opener = opener
        self._clock = clock
        self._first_delay = first_delay
        self._max_delay = max_delay
        self._on_status = on_status
        self._camera: Camera | None = None
        self._delay = first_delay
        self._next_try = clock()
        self.status = "retrying"
        self.error: str | None = None
        self.failures = 0
        self.opens = 0

    @property
    def camera(self) -> Camera | None:
        """The open camera, or None while lost."""
        return self._camera

    def read(self) -> np.ndarray | None:
        """The next frame, or None when no camera is working (a reopen is tried when due)."""
        if self.status == "closed":
            return None
        if self._camera is None and not self._try_open():
            return None
        assert self._camera is not None
        try:
            frame = self._camera.read()
        except Exception as exc:  # noqa: BLE001 - never crash the caller's loop
            self._lose(exc)
            return None
        self._delay = self._first_delay
        self._set_status("ok", None)
        return frame

    def retry_in(self) -> float:
        """Seconds until the next reopen attempt (0 when a camera is open)."""
        if self._camera is not None or self.status == "closed":
            return 0.0
        return max(0.0, self._next_try - self._clock())

    def _try_open(self) -> bool:
        now = self._clock()
        if now < self._next_try:
            return False
        try:
            self._camera = self._opener()
        except Exception as exc:  # noqa: BLE001 - reported through the status
            self._schedule(now)
            log.warning("camera: open failed (%s); next try in %.1f s", exc, self._next_try - now)
            self._set_status("retrying", str(exc))
            return False
        self.opens += 1
        log.info("camera: opened %s", getattr(self._camera, "name", "camera"))
        return True

    def _schedule(self, now: float) -> None:
        self._next_try = now + self._delay
        self._delay = min(self._delay * 2, self._max_delay)

    def _lose(self, exc: Exception) -> None:
        self.failures += 1
        log.warning("camera: lost (%s)", exc)
        self._drop_camera()
        self._delay = self._first_delay
        self._schedule(self._clock())
        self._set_status("lost", str(exc))

    def _drop_camera(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.close()
            except Exception:
                log.debug("camera: close after failure raised", exc_info=True)

    def _set_status(self, status: str, error: str | None) -> None:
        changed = status != self.status or error != self.error
        self.status, self.error = status, error
        if changed and self._on_status is not None:
            try:
                self._on_status(status, error)
            except Exception:
                log.exception("camera: status listener failed")

    def close(self) -> None:
        """Close the camera; idempotent. Reads return None afterwards."""
        if self.status == "closed":
            return
        self._drop_camera()
        self._set_status("closed", None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
