"""A Picamera2 stand-in that behaves as the upstream source does where the backend depends on it.

Follows raspberrypi/picamera2: picamera2/picamera2.py (`__init__` opens a pipe, then
`global_camera_info()[camera_num]` raises IndexError with no camera; `close()` returns at
once for a camera that never opened, leaving that pipe open; `capture_array()` and
`capture_metadata()` go through `dispatch_functions`, which waits for ever unless given
`wait=` seconds, then raises TimeoutError from `Job.get_result` (picamera2/job.py));
picamera2/controls.py (`set_controls` raises RuntimeError for a control libcamera does not
advertise; "FrameRate" is a virtual control for FrameDurationLimits). Controls take effect
`CONTROL_DELAY` frames after they are sent and auto exposure needs `AE_FRAMES` frames to
settle, as libcamera's pipeline handlers and AGC do. Frames come at 30 fps of the test's
clock. Autofocus scans advance one step per metadata read, as before.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

FPS = 30
CONTROL_DELAY = 2  # frames between set_controls() and the first frame taken with them
AE_FRAMES = 10  # frames auto exposure takes from its first guess to the settled values
START = {"ExposureTime": 33000, "AnalogueGain": 8.0, "ColourGains": (1.0, 1.0)}
SETTLED = {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4), "Lux": 300.0}
COLOUR_CONTROLS = {
    "AeEnable": (False, True, True), "AwbEnable": (False, True, True),
    "ExposureTime": (1, 66666, None), "AnalogueGain": (1.0, 16.0, None),
    "ColourGains": (0.0, 32.0, None), "FrameDurationLimits": (33333, 120000, None),
}
MONO_CONTROLS = {k: v for k, v in COLOUR_CONTROLS.items() if k not in ("AwbEnable", "ColourGains")}
AF_CONTROLS = {"AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0)}
VIRTUAL = {"FrameRate": "FrameDurationLimits"}


class WouldBlockForever(BaseException):
    """Raised where upstream Picamera2 would wait for ever (a stalled camera, no `wait=`).

    A BaseException, so a backend's `except Exception` cannot turn the hang into a pass."""


class FakePicamera2:
    """Class attributes are the test's knobs (the `picam` fixture resets them)."""

    instances: ClassVar[list[FakePicamera2]] = []
    pipes: ClassVar[list[tuple[Any, int]]] = []  # every (read file, write fd) ever opened
    cameras: ClassVar[list[dict[str, Any]]] = [{"Model": "imx219", "Num": 0, "Id": "/base/imx219@10"}]
    clock: ClassVar[Callable[[], float]] = staticmethod(lambda: 0.0)
    mono = False
    autofocus = False  # a Camera Module 3: AfMode among the controls
    stalled = False  # no frames arrive (a loose ribbon)
    scan_frames = 2  # metadata reads an autofocus scan reports "scanning" (AfState 1) for
    scan_ends = 2  # then: 2 focused, 3 failed

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return [dict(c) for c in cls.cameras]

    def __init__(self, camera_num: int = 0) -> None:
        self.notifyme_r, self.notifyme_w = os.pipe()
        self.notifymeread = os.fdopen(self.notifyme_r, "rb")
        FakePicamera2.pipes.append((self.notifymeread, self.notifyme_w))
        self.is_open = False
        camera_num = self.global_camera_info()[camera_num]["Num"]  # IndexError: no camera
        self.is_open = True
        self.camera_num = camera_num
        self.calls: list[tuple] = []
        self.controls: dict[str, Any] = {}  # every control sent
        self._queued: list[tuple[int, dict[str, Any]]] = []  # (first frame, controls)
        self.is_mono = FakePicamera2.mono
        controls = dict(MONO_CONTROLS if FakePicamera2.mono else COLOUR_CONTROLS)
        if FakePicamera2.autofocus:
            controls.update(AF_CONTROLS)
        self.camera_controls = controls
        self.lens = 1.0
        self.scanning = 0
        self.af_state = 0
        self._started = FakePicamera2.clock()
        FakePicamera2.instances.append(self)

    # ---- configuration and controls ----
    def _check(self, controls: dict[str, Any]) -> None:
        for name in controls:
            if VIRTUAL.get(name, name) not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")

    def create_video_configuration(self, main=None, controls=None):
        self.calls.append(("create_video_configuration", main, controls))
        return {"main": dict(main), "controls": dict(controls or {})}

    def configure(self, config):
        self._check(config["controls"])  # libcamera_controls, when the configuration is applied
        self.calls.append(("configure", config))
        self.config = config
        self._queued.append((0, dict(config["controls"])))

    def start(self):
        self.calls.append(("start",))

    def set_controls(self, controls):
        self._check(controls)
        self.calls.append(("set_controls", dict(controls)))
        self.controls.update(controls)
        self._queued.append((self.frame() + CONTROL_DELAY, dict(controls)))
        if controls.get("AfTrigger") == 0 and self.controls.get("AfMode") == 1:
            self.scanning, self.af_state = FakePicamera2.scan_frames, 1
        if "LensPosition" in controls:
            self.lens = controls["LensPosition"]

    # ---- frames ----
    def frame(self) -> int:
        return int((FakePicamera2.clock() - self._started) * FPS)

    def _applied(self, frame: int) -> dict[str, Any]:
        applied: dict[str, Any] = {}
        for first, controls in self._queued:
            if first <= frame:
                applied.update(controls)
        return applied

    def _wait(self, wait: Any) -> None:
        if not FakePicamera2.stalled:
            return
        if wait is None or wait is True:
            raise WouldBlockForever("Picamera2 would wait for ever for a frame (issue 794)")
        raise TimeoutError()  # concurrent.futures.TimeoutError, from Job.get_result(timeout)

    def capture_array(self, name="main", wait=None):
        self._wait(wait)
        width, height = self.config["main"]["size"]
        frame = np.zeros((height, width, 3), np.uint8)
        frame[..., 0] = 200  # B first: RGB888 gives BGR arrays
        return frame

    def capture_metadata(self, wait=None):
        self._wait(wait)
        n = self.frame()
        applied = self._applied(n)
        meta: dict[str, Any] = {"Lux": SETTLED["Lux"]}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            auto = applied.get("AwbEnable" if key == "ColourGains" else "AeEnable", True)
            if key in applied and not auto:
                meta[key] = applied[key]
            elif n >= AE_FRAMES:
                meta[key] = SETTLED[key]
            else:
                meta[key] = START[key]
        if self.is_mono:
            meta.pop("ColourGains")
        if FakePicamera2.autofocus:
            if self.scanning:
                self.scanning -= 1
                self.lens += 0.4  # the lens moves while it scans
                self.af_state = 1 if self.scanning else FakePicamera2.scan_ends
            meta.update({"AfState": self.af_state, "LensPosition": self.lens})
        return meta

    # ---- closing ----
    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        if not self.is_open:  # upstream: a camera that never opened keeps its pipe
            return
        self.calls.append(("close",))
        self.is_open = False
        self.notifymeread.close()
        os.close(self.notifyme_w)
