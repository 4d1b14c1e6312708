"""The camera thread: frames in, settled readings handed to the table.

Every collaborator is injected (camera, reader, settler, overlay, clock, sleep) so
tests drive it with fakes one `step()` at a time. A camera that fails never stops
the game: the table is switched to manual entry (the page says so) and the loop
keeps retrying, reopening the camera when it was given a way to, waiting twice as long
after each failure in a row (from `retry_after` up to `max_retry` seconds), so a missing
camera costs little while the table is played by hand.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.controller.table import Table

log = logging.getLogger(__name__)


class CameraLoop:
    """Reads the camera at a steady rate; on "settled" reads the dice and tells the table."""

    def __init__(
        self,
        table: Table,
        camera: Any,
        *,
        reader: Callable[[Any], Any],
        settler: Any,
        draw: Callable[[Any, Any], Any] | None = None,
        reopen: Callable[[], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        interval: float = 0.1,
        retry_after: float = 2.0,
        max_retry: float = 30.0,
    ) -> None:
        self.table = table
        self.camera = camera
        self.reader = reader
        self.settler = settler
        self.draw = draw
        self.reopen = reopen
        self.clock = clock
        self.sleep = sleep
        self.interval = interval
        self.retry_after = retry_after
        self.max_retry = max_retry
        self._retry = retry_after  # the next wait after a failure; doubles while they go on
        self.failed = False
        self.reader_failed = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self) -> str:
        """One frame: returns the settler state, or "failed" when the camera did not answer."""
        frame = self._read()
        if frame is None:
            return "failed"
        status = self.settler.update(frame, self.clock())
        state = getattr(status, "state", str(status))
        if state == "settled" and getattr(status, "frame", None) is not None:
            return self._read_dice(status.frame)
        else:
            if state in ("moving", "hand"):
                self.table.live.moving()
            self.table.live.show(frame)
        return state

    def _read(self) -> Any:
        try:
            if self.camera is None:
                self._reopen()
            frame = self.camera.read()
        except Exception as err:  # noqa: BLE001 - any device error: report, fall back to typing, retry later
            self._fail(err)
            return None
        self._retry = self.retry_after
        if self.failed:
            self.failed = False
            self.table.set_camera("camera", "Camera working: roll in the tray.")
        return frame

    def _reopen(self) -> None:
        if self.reopen is None:
            raise RuntimeError("no camera open")
        self.camera = self.reopen()

    def _fail(self, err: Exception) -> None:
        if not self.failed:
            log.warning("camera failed: %s", err)
        self.failed = True
        self.table.set_camera(
            "manual", f"Camera not working ({err}). Type each roll; retrying the camera."
        )
        if self.reopen is not None:  # drop the dead device; the next step opens a new one
            self._close()
            self.camera = None

    def _read_dice(self, frame: Any) -> str:
        try:
            reading = self.reader(frame)
        except Exception as err:
            log.exception("dice reader failed")
            self.table.live.show(frame)
            self.table.set_camera("manual", f"The dice reader failed ({err}). Type this roll.")
            self.reader_failed = True
            return "error"
        if self.reader_failed:
            self.reader_failed = False
            self.table.set_camera("camera", "Camera working: roll in the tray.")
        annotated = self.draw(frame, reading) if self.draw is not None else None
        self.table.live.show(annotated if annotated is not None else frame,
                             annotated=annotated is not None)
        verdict = self.table.handle_reading(reading, frame, annotated)
        log.info("settled dice: %s %s", verdict.kind, verdict.reason)
        return "settled"

    # ----- thread ----------------------------------------------------------------------------
    def start(self) -> None:
        """Run in a daemon thread until stop()."""
        self.table.set_camera("camera", "Camera working: roll in the tray.")
        self._thread = threading.Thread(target=self.run, name="camera-loop", daemon=True)
        self._thread.start()

    def run(self) -> None:
        while not self._stop.is_set():
            started = self.clock()
            try:
                state = self.step()
            except Exception:  # a reader bug must not kill the table: log and carry on
                log.exception("camera loop step failed")
                state = "error"
            pause = self._backoff() if state == "failed" else self.interval
            self._stop.wait(max(0.0, pause - (self.clock() - started)))

    def _backoff(self) -> float:
        """Seconds to wait after a failed read: doubled after each failure in a row."""
        pause = self._retry
        self._retry = min(self._retry * 2, self.max_retry)
        return pause

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close()

    def _close(self) -> None:
        close = getattr(self.camera, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # closing a dead device may fail; it is gone either way
                log.debug("camera close failed", exc_info=True)
