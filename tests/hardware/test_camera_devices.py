"""Pi camera and USB webcam backends against fakes of Picamera2 and cv2.VideoCapture."""
from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest

from hardware.camera import CameraError, CameraSpecError, open_camera

pytestmark = pytest.mark.hardware

METADATA = {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4), "Lux": 300.0}


class FakePicamera2:
    """The slice of Picamera2's API the backend uses, recording every call."""

    instances: ClassVar[list[FakePicamera2]] = []
    fail_open = False
    mono = False

    def __init__(self, camera_num: int = 0) -> None:
        if FakePicamera2.fail_open:
            raise IndexError("list index out of range")  # what Picamera2() raises with no camera
        self.camera_num = camera_num
        self.calls: list[tuple] = []
        self.controls: dict = {}
        self.is_mono = FakePicamera2.mono
        self.broken = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main=None, controls=None):
        self.calls.append(("create_video_configuration", main, controls))
        return {"main": dict(main), "controls": dict(controls or {})}

    def configure(self, config):
        self.calls.append(("configure", config))
        self.config = config

    def start(self):
        self.calls.append(("start",))

    def capture_array(self, name="main"):
        if self.broken:
            raise RuntimeError("Camera frontend has timed out!")
        width, height = self.config["main"]["size"]
        frame = np.zeros((height, width, 3), np.uint8)
        frame[..., 0] = 200  # B first: RGB888 gives BGR arrays
        return frame

    def capture_metadata(self):
        return dict(METADATA)

    def set_controls(self, controls):
        self.calls.append(("set_controls", dict(controls)))
        self.controls.update(controls)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def picam(monkeypatch):
    monkeypatch.setattr(FakePicamera2, "instances", [])
    monkeypatch.setattr(FakePicamera2, "fail_open", False)
    monkeypatch.setattr(FakePicamera2, "mono", False)
    return FakePicamera2


def test_picamera_configures_rgb888_video_and_locks_after_settling(picam, clock):
    cam = open_camera("picamera", size=(1280, 720), settle_seconds=1.0, picamera2_class=picam, clock=clock)
    fake = picam.instances[0]
    create = fake.calls[0]
    assert create[0] == "create_video_configuration"
    assert create[1] == {"size": (1280, 720), "format": "RGB888"}
    assert [c[0] for c in fake.calls[1:3]] == ["configure", "start"]
    frame = cam.read()
    assert frame.shape == (720, 1280, 3) and frame[0, 0, 0] == 200
    assert not cam.locked  # still settling: auto exposure running
    clock.advance(1.0)
    cam.read()
    assert cam.locked
    assert fake.controls == {
        "AeEnable": False,
        "AwbEnable": False,
        "ExposureTime": 12000,
        "AnalogueGain": 2.5,
        "ColourGains": (1.8, 1.4),
    }
    assert cam.settings == {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": [1.8, 1.4]}


def test_picamera_applies_profile_settings_before_the_first_frame(picam, clock):
    settings = {"exposure_time": 8000, "analogue_gain": 1.5, "colour_gains": [2.0, 1.2]}
    cam = open_camera("picamera", settings=settings, picamera2_class=picam, clock=clock)
    fake = picam.instances[0]
    assert fake.calls[0][2]["ExposureTime"] == 8000
    assert cam.locked and fake.controls["AeEnable"] is False
    assert fake.controls["ColourGains"] == (2.0, 1.2)


def test_picamera_skips_colour_gains_on_a_mono_sensor(picam, clock):
    picam.mono = True
    cam = open_camera("picamera", settle_seconds=0, picamera2_class=picam, clock=clock)
    cam.read()
    assert "ColourGains" not in picam.instances[0].controls


def test_picamera_unlock_lets_auto_exposure_measure_again(picam, clock):
    cam = open_camera("picamera", settle_seconds=0.5, picamera2_class=picam, clock=clock)
    cam.lock()
    cam.unlock()
    assert not cam.locked and picam.instances[0].controls["AeEnable"] is True
    cam.read()
    assert not cam.locked
    clock.advance(0.5)
    cam.read()
    assert cam.locked


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"size": (800, 600)}, "size must be one of"),
        ({"settings": {"shutter": 5}}, "unknown camera setting"),
        ({"settings": {"AnalogueGain": 0.1}}, "bad value"),
        ({"settings": {"ColourGains": [1.0]}}, "bad value"),
    ],
)
def test_picamera_bad_options_are_input_errors(picam, opts, message):
    with pytest.raises(CameraSpecError, match=message):
        open_camera("picamera", picamera2_class=picam, **opts)


def test_picamera_missing_camera_and_capture_failure_raise_camera_error(picam, clock):
    picam.fail_open = True
    with pytest.raises(CameraError, match="no camera found"):
        open_camera("picamera", picamera2_class=picam)
    picam.fail_open = False
    cam = open_camera("picamera", picamera2_class=picam, clock=clock)
    picam.instances[-1].broken = True
    with pytest.raises(CameraError, match="capture failed"):
        cam.read()


def test_picamera_close_is_idempotent(picam, clock):
    cam = open_camera("picamera", picamera2_class=picam, clock=clock)
    cam.close()
    cam.close()
    assert [c[0] for c in picam.instances[0].calls].count("close") == 1
    assert ("stop",) in picam.instances[0].calls


def test_picamera_without_the_library_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_picamera2(name, *args, **kwargs):
        if name == "picamera2":
            raise ModuleNotFoundError("No module named 'libcamera'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_picamera2)
    with pytest.raises(CameraError, match="install-pi"):
        open_camera("picamera")


class FakeVideoCapture:
    """cv2.VideoCapture's read/isOpened/set/release, with a plug to pull."""

    def __init__(self, index: int, opened: bool = True) -> None:
        self.index = index
        self.opened = opened
        self.plugged = True
        self.released = 0
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self):
        if not self.plugged:
            return False, None
        return True, np.full((48, 64, 3), 7, np.uint8)

    def release(self) -> None:
        self.released += 1


def test_usb_reads_frames_and_requests_the_size():
    import cv2

    made = []

    def factory(index):
        made.append(FakeVideoCapture(index))
        return made[-1]

    cam = open_camera("usb:1", size=(1280, 720), capture_factory=factory)
    assert made[0].index == 1
    assert made[0].props[cv2.CAP_PROP_FRAME_WIDTH] == 1280
    assert cam.read().shape == (48, 64, 3)
    made[0].plugged = False
    with pytest.raises(CameraError, match="unplugged"):
        cam.read()
    cam.close()
    cam.close()
    assert made[0].released == 1


def test_usb_missing_device_is_a_camera_error():
    with pytest.raises(CameraError, match="no webcam found"):
        open_camera("usb:3", capture_factory=lambda i: FakeVideoCapture(i, opened=False))


def test_picamera_takes_a_calibration_profiles_camera_settings(picam, clock):
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class CameraSettings:  # the shape of calibration.profile.CameraSettings
        exposure_us: int | None = None
        analogue_gain: float | None = None
        awb_gains: tuple[float, float] | None = None

    cam = open_camera("picamera", settings=CameraSettings(9000, 1.2, (1.9, 1.5)),
                      picamera2_class=picam, clock=clock)
    assert cam.locked and picam.instances[0].controls["ExposureTime"] == 9000
    assert cam.profile_settings == {"exposure_us": 9000, "analogue_gain": 1.2, "awb_gains": (1.9, 1.5)}
    auto = open_camera("picamera", settings=CameraSettings(), settle_seconds=1.0,
                       picamera2_class=picam, clock=clock)
    assert not auto.locked  # all automatic: settle first, then lock what was found
    clock.advance(1.0)
    auto.read()
    assert auto.profile_settings == {"exposure_us": 12000, "analogue_gain": 2.5, "awb_gains": (1.8, 1.4)}
