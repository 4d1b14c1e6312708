"""Pi camera and USB webcam backends against fakes of Picamera2 and cv2.VideoCapture."""
from __future__ import annotations

import os

import numpy as np
import pytest

from hardware.camera import CameraError, CameraSpecError, open_camera

pytestmark = pytest.mark.hardware

METADATA = {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}


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


def test_picamera_locks_a_mono_sensor_without_the_colour_controls_it_lacks(picam, clock):
    picam.mono = True  # libcamera advertises no AwbEnable or ColourGains: Picamera2 raises for them
    cam = open_camera("picamera", settle_seconds=0.5, picamera2_class=picam, clock=clock)
    cam.read()
    clock.advance(0.5)
    cam.read()
    assert cam.locked and not cam.closed
    controls = picam.instances[0].controls
    assert controls == {"AeEnable": False, "ExposureTime": 12000, "AnalogueGain": 2.5}
    assert cam.settings == {"ExposureTime": 12000, "AnalogueGain": 2.5}
    cam.unlock()  # re-measuring sends only what the sensor has, too
    assert picam.instances[0].controls["AeEnable"] is True and not cam.locked
    mono_profile = open_camera("picamera", settings={"exposure_us": 9000, "awb_gains": [1.5, 1.5]},
                               picamera2_class=picam, clock=clock)
    assert mono_profile.locked and "ColourGains" not in picam.instances[-1].calls[0][2]


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


def test_picamera_focuses_once_on_the_tray_and_holds_the_lens(picam, clock):
    picam.autofocus = True
    cam = open_camera("picamera", settle_seconds=1.0, picamera2_class=picam, clock=clock)
    fake = picam.instances[0]
    assert ("set_controls", {"AfMode": 1, "AfTrigger": 0}) in fake.calls  # one scan, at start
    cam.read()
    assert cam.focus is None  # still settling
    clock.advance(1.0)
    cam.read()  # the scan still runs (the fake scans for 2 metadata reads)
    assert cam.focus is None and fake.controls["AfMode"] == 1
    cam.read()
    cam.read()
    # the scan ended: the lens is held where it stopped, in manual mode
    assert cam.focus == pytest.approx(1.8)
    assert fake.controls["AfMode"] == 0 and fake.controls["LensPosition"] == pytest.approx(1.8)
    assert cam.settings["LensPosition"] == pytest.approx(1.8)
    assert cam.profile_settings["lens_position"] == pytest.approx(1.8)
    before = len(fake.calls)
    clock.advance(60)
    cam.read()  # no more scans, and no more focus calls, while the game goes on
    assert fake.calls[before:] == []


def test_picamera_holds_the_lens_even_when_autofocus_fails(picam, clock, caplog):
    picam.autofocus = True
    picam.scan_ends = 3  # failed
    cam = open_camera("picamera", settle_seconds=0.5, picamera2_class=picam, clock=clock)
    clock.advance(0.5)
    for _ in range(4):
        cam.read()
    assert cam.focus is not None and picam.instances[0].controls["AfMode"] == 0
    assert "autofocus did not find the tray" in caplog.text


def test_picamera_stops_waiting_for_a_scan_that_never_ends(picam, clock):
    picam.autofocus = True
    picam.scan_frames = 10_000
    cam = open_camera("picamera", settle_seconds=1.0, picamera2_class=picam, clock=clock)
    clock.advance(1.0)
    cam.read()
    assert cam.focus is None
    clock.advance(5.0)  # settle_seconds + FOCUS_WAIT after the scan began
    cam.read()
    assert cam.focus is not None and picam.instances[0].controls["AfMode"] == 0


def test_picamera_applies_a_profiles_lens_position_without_scanning(picam, clock):
    picam.autofocus = True
    settings = {"exposure_us": 8000, "lens_position": 2.5}
    cam = open_camera("picamera", settings=settings, picamera2_class=picam, clock=clock)
    fake = picam.instances[0]
    assert fake.calls[0][2]["AfMode"] == 0 and fake.calls[0][2]["LensPosition"] == 2.5
    assert not any(c[0] == "set_controls" and "AfTrigger" in c[1] for c in fake.calls)
    assert cam.focus == 2.5 and cam.locked
    # a lens position alone locks nothing else: auto exposure settles as without a profile
    only_focus = open_camera("picamera", settings={"lens_position": 2.5}, settle_seconds=1.0,
                             picamera2_class=picam, clock=clock)
    assert not only_focus.locked and only_focus.focus == 2.5
    # a camera without autofocus ignores the lens position
    picam.autofocus = False
    fixed = open_camera("picamera", settings=settings, picamera2_class=picam, clock=clock)
    assert "AfMode" not in picam.instances[-1].calls[0][2] and fixed.focus is None


def test_picamera_remeasuring_focuses_again(picam, clock):
    picam.autofocus = True
    cam = open_camera("picamera", settings={"lens_position": 2.5}, settle_seconds=0.5,
                      picamera2_class=picam, clock=clock)
    cam.unlock()  # the calibration's "re-measure": the camera may have moved
    assert cam.focus is None and picam.instances[0].controls["AfTrigger"] == 0
    clock.advance(0.5)
    for _ in range(4):
        cam.read()
    assert cam.focus is not None and cam.focus != 2.5


@pytest.mark.parametrize(
    ("opts", "message"),
    [
        ({"size": (800, 600)}, "size must be one of"),
        ({"settings": {"shutter": 5}}, "unknown camera setting"),
        ({"settings": {"AnalogueGain": 0.1}}, "bad value"),
        ({"settings": {"ColourGains": [1.0]}}, "bad value"),
        ({"settings": {"lens_position": -1}}, "bad value"),
        ({"settle_seconds": 0}, "at least 0.5"),  # would lock before controls and AE settle
        ({"settle_seconds": 0.2}, "at least 0.5"),
    ],
)
def test_picamera_bad_options_are_input_errors(picam, opts, message):
    with pytest.raises(CameraSpecError, match=message):
        open_camera("picamera", picamera2_class=picam, **opts)


def test_picamera_with_no_camera_opens_nothing_and_leaks_no_pipe(picam, clock):
    picam.cameras = []  # Picamera2() would open a pipe, then raise IndexError and keep it
    for _ in range(20):  # the camera loop retries
        with pytest.raises(CameraError, match="no camera found.*ribbon cable"):
            open_camera("picamera", picamera2_class=picam, clock=clock)
    for read, write in picam.pipes:
        assert read.closed
        with pytest.raises(OSError):
            os.fstat(write)  # closed
    picam.cameras = [{"Model": "imx708", "Num": 0, "Id": "/base/imx708@1a"}]
    cam = open_camera("picamera", picamera2_class=picam, clock=clock)
    assert cam.model == "imx708"
    cam.close()
    assert all(read.closed for read, _ in picam.pipes)


def test_picamera_a_stalled_camera_is_a_camera_error_not_a_hang(picam, clock):
    cam = open_camera("picamera", settle_seconds=0.5, picamera2_class=picam, clock=clock)
    assert cam.read().shape == (480, 640, 3)
    picam.stalled = True  # a loose ribbon: no more frames, and no error from libcamera
    with pytest.raises(CameraError, match="no frame for 2 s"):
        cam.read()
    clock.advance(1.0)  # the exposure lock waits for metadata the same way
    with pytest.raises(CameraError, match="no frame for 2 s"):
        cam.lock()


def test_picamera_locks_the_values_auto_exposure_settled_on(picam, clock):
    cam = open_camera("picamera", settle_seconds=0.5, picamera2_class=picam, clock=clock)
    fake = picam.instances[0]
    assert fake.capture_metadata()["ExposureTime"] == 33000  # its first guess, frames 0-9
    for _ in range(3):  # at 0, 0.25 and 0.5 s: frames 0, 7 and 15
        cam.read()
        clock.advance(0.25)
    assert cam.locked and cam.settings["ExposureTime"] == 12000
    # AeEnable off and the values apply two frames after they were sent
    assert fake.capture_metadata()["ExposureTime"] == 12000


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
    assert cam.profile_settings == {"exposure_us": 9000, "analogue_gain": 1.2, "awb_gains": (1.9, 1.5),
                                    "lens_position": None}  # no autofocus: no lens to hold
    auto = open_camera("picamera", settings=CameraSettings(), settle_seconds=1.0,
                       picamera2_class=picam, clock=clock)
    assert not auto.locked  # all automatic: settle first, then lock what was found
    clock.advance(1.0)
    auto.read()
    assert auto.profile_settings == {"exposure_us": 12000, "analogue_gain": 2.5, "awb_gains": (1.8, 1.4),
                                     "lens_position": None}
