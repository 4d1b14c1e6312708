"""CameraSupervisor: an unplugged camera is reported and reopened with backoff, never a crash."""
from __future__ import annotations

import numpy as np
import pytest

from hardware.camera import Camera, CameraError, CameraSupervisor

pytestmark = pytest.mark.hardware


class Socket:
    """A USB socket: the camera works while plugged; opening fails while unplugged."""

    def __init__(self) -> None:
        self.plugged = True
        self.opened: list[PluggedCamera] = []

    def open(self) -> Camera:
        if not self.plugged:
            raise CameraError("usb:0: no webcam found at /dev/video0")
        self.opened.append(PluggedCamera(self))
        return self.opened[-1]


class PluggedCamera(Camera):
    name = "usb:0"

    def __init__(self, socket: Socket) -> None:
        super().__init__()
        self.socket = socket

    def _read(self) -> np.ndarray:
        if not self.socket.plugged:
            raise CameraError("usb:0: the webcam stopped sending frames (unplugged?)")
        return np.zeros((4, 4, 3), np.uint8)


def test_unplug_is_reported_and_the_camera_comes_back(clock):
    socket = Socket()
    changes = []
    sup = CameraSupervisor(socket.open, clock=clock, first_delay=0.5, max_delay=4.0,
                           on_status=lambda s, e: changes.append(s))
    assert sup.read() is not None and sup.status == "ok"
    socket.plugged = False
    assert sup.read() is None
    assert sup.status == "lost" and "unplugged" in sup.error
    assert socket.opened[0].closed  # the failed device was released
    assert sup.read() is None and sup.status == "lost"  # no retry before the delay
    delays = []
    for _ in range(5):
        clock.advance(sup.retry_in())
        assert sup.read() is None
        assert sup.status == "retrying"
        delays.append(sup.retry_in())
    assert delays == [1.0, 2.0, 4.0, 4.0, 4.0]  # doubling up to max_delay
    socket.plugged = True
    clock.advance(sup.retry_in())
    assert sup.read() is not None
    assert sup.status == "ok" and sup.error is None
    assert changes == ["ok", "lost", "retrying", "ok"]
    assert sup.failures == 1 and sup.opens == 2


def test_a_camera_missing_at_start_is_retried(clock):
    socket = Socket()
    socket.plugged = False
    sup = CameraSupervisor(socket.open, clock=clock)
    assert sup.read() is None and sup.status == "retrying"
    socket.plugged = True
    clock.advance(0.5)
    assert sup.read() is not None and sup.status == "ok"


def test_unexpected_exceptions_do_not_escape(clock):
    def opener():
        raise OSError("device busy")

    sup = CameraSupervisor(opener, clock=clock)
    assert sup.read() is None
    assert sup.status == "retrying" and "busy" in sup.error


def test_a_failing_status_listener_does_not_stop_the_loop(clock):
    socket = Socket()

    def listener(status, error):
        raise RuntimeError("listener bug")

    sup = CameraSupervisor(socket.open, clock=clock, on_status=listener)
    assert sup.read() is not None


def test_close_is_idempotent_and_closes_the_camera(clock):
    socket = Socket()
    sup = CameraSupervisor(socket.open, clock=clock)
    sup.read()
    sup.close()
    sup.close()
    assert socket.opened[0].closed and sup.status == "closed"
    assert sup.read() is None and sup.camera is None
