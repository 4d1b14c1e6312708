"""Raspberry Pi camera through Picamera2 (installed from apt, never from pip).

Dice colours must not drift while the game goes on, so after a settle period the
backend freezes exposure and white balance at the values auto-exposure found
(`capture_metadata()` -> `set_controls()`), as the upstream `controls_2.py`
example does. A calibration profile can instead supply locked values, which are
applied before the first frame.

Focus: a camera with autofocus (Camera Module 3) starts in libcamera's manual mode
with the lens at its default position, about the hyperfocal distance, so dice 30-50 cm
below it come out soft (blur costs the reader most on small, low-contrast pips:
README, "Light and camera"). So the backend runs one autofocus scan when the camera
starts (AfMode auto + AfTrigger start), and once the scan has ended holds the lens
where it stopped (AfMode manual + LensPosition): a hand reaching into the tray must
not make the lens hunt mid-roll, as continuous autofocus would. A profile's lens
position (kept with the locked exposure) is applied at once, without a scan. Cameras
without autofocus (Camera Module 2, HQ) have no AfMode control and are left alone.

Checked against the upstream source (raspberrypi/picamera2, picamera2/picamera2.py,
controls.py, job.py), whose behaviour tests/hardware/test_camera_devices.py's fake follows:
- With no camera, `Picamera2()` opens a pipe before `global_camera_info()[n]` raises
  IndexError, and `close()` returns early for a camera that never opened: the pipe leaks on
  every retry. So the camera list is read first (it opens nothing) and nothing is built
  when it is empty.
- `capture_array()` / `capture_metadata()` wait for ever by default (picamera2 issue 794);
  a stalled camera (a loose ribbon) would hang the camera thread. Each waits `CAPTURE_WAIT`.
- `set_controls()` raises for a control libcamera does not advertise: a mono sensor has no
  AwbEnable or ColourGains. Only advertised controls are sent.
- Controls take effect a few frames after they are sent, and auto exposure needs a few
  frames more: `settle_seconds` below `MIN_SETTLE` would lock values not yet settled.
"""
from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from hardware.camera.base import Camera, CameraError, CameraSpecError, check_frame

log = logging.getLogger(__name__)

SIZES = ((640, 480), (1280, 720))
LOCK_KEYS = ("ExposureTime", "AnalogueGain", "ColourGains")
FOCUS_KEY = "LensPosition"  # dioptres (1 / metres); held apart from the exposure lock
PROFILE_KEYS = ("exposure_us", "analogue_gain", "awb_gains", "lens_position")
# libcamera's autofocus control values (control_ids.yaml: AfMode, AfTrigger, AfState)
AF_MANUAL, AF_AUTO = 0, 1
AF_TRIGGER_START = 0
AF_SCANNING, AF_FOCUSED = 1, 2
FOCUS_WAIT = 5.0  # seconds past settling a focus scan may take before the lens is held as it is
CAPTURE_WAIT = 2.0  # seconds a frame may take (30 fps: 33 ms) before the camera counts as stalled
MIN_SETTLE = 0.5  # seconds of auto exposure before locking: controls apply frames later
VIRTUAL_CONTROLS = {"FrameRate": "FrameDurationLimits"}  # picamera2's controls.py
# Sensor names libcamera reports (global_camera_info()["Model"]) and the boards they are on.
MODELS = {
    "imx708": "Camera Module 3",
    "imx708_wide": "Camera Module 3 Wide",
    "imx708_noir": "Camera Module 3 NoIR",
    "imx219": "Camera Module 2",
    "imx477": "HQ Camera",
    "imx296": "Global Shutter Camera",
    "ov5647": "Camera Module 1",
    "imx500": "AI Camera",
}
_ALIASES = {
    "exposuretime": "ExposureTime",
    "exposure_time": "ExposureTime",
    "exposure_us": "ExposureTime",  # calibration.profile.CameraSettings names
    "awb_gains": "ColourGains",
    "analoguegain": "AnalogueGain",
    "analogue_gain": "AnalogueGain",
    "analog_gain": "AnalogueGain",
    "colourgains": "ColourGains",
    "colour_gains": "ColourGains",
    "color_gains": "ColourGains",
    "lensposition": "LensPosition",
    "lens_position": "LensPosition",
}


def _load_picamera2() -> type:
    """Import Picamera2 only when a Pi camera is asked for (apt package, Pi only)."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]
    except (ImportError, ValueError) as exc:  # ValueError: numpy ABI clash with apt's simplejpeg
        raise CameraError(
            "picamera: the picamera2 library is not available "
            f"({exc}); on a Raspberry Pi run scripts/install-pi (apt install python3-picamera2)"
        ) from exc
    return Picamera2


def camera_list(cls: Any) -> list[dict[str, Any]]:
    """The cameras libcamera sees ({"Model": "imx708", "Id": ...} each), opening none."""
    info = getattr(cls, "global_camera_info", None)
    if info is None:  # a Picamera2 older than its camera list: construct and see
        return [{}]
    try:
        return list(info())
    except Exception as exc:
        raise CameraError(f"picamera: libcamera cannot list the cameras ({exc})") from exc


def describe_model(model: str | None) -> str:
    """A sensor's name for people, e.g. "Camera Module 3 (imx708)"; unknown ones keep theirs."""
    if not model:
        return "a camera"
    board = MODELS.get(str(model))
    return f"{board} ({model})" if board else str(model)


def normalise_settings(settings: Any) -> dict[str, Any]:
    """Camera settings -> Picamera2 control names with checked values; None values mean
    "automatic" and are left out.

    Accepts a mapping (Picamera2 names, snake_case, or the profile's exposure_us /
    analogue_gain / awb_gains / lens_position) or a `calibration.profile.CameraSettings`-like
    object.
    """
    if not isinstance(settings, Mapping):
        settings = {k: getattr(settings, k) for k in PROFILE_KEYS if hasattr(settings, k)}
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if value is None:
            continue
        name = _ALIASES.get(key.lower().replace("-", "_"), key)
        if name not in (*LOCK_KEYS, FOCUS_KEY):
            raise CameraSpecError(f"picamera: unknown camera setting {key!r} "
                                  f"(known: {', '.join((*LOCK_KEYS, FOCUS_KEY))})")
        out[name] = _check_setting(name, value)
    return out


def _check_setting(name: str, value: Any) -> Any:
    result: Any = None
    try:
        if name == "ExposureTime":
            result = int(value)
            ok = result > 0
        elif name == "AnalogueGain":
            result = float(value)
            ok = result >= 1.0
        elif name == FOCUS_KEY:
            result = float(value)
            ok = 0.0 <= result < 100.0  # 0 = infinity; 100 dioptres = 1 cm
        else:
            red, blue = (float(v) for v in value)
            result = (red, blue)
            ok = red > 0 and blue > 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise CameraSpecError(f"picamera: camera setting {name} has a bad value {value!r}")
    return result


class PiCamera(Camera):
    """Picamera2 backend: a video configuration with an RGB888 main stream (BGR arrays).

    `settings`: locked camera values (a profile's CameraSettings, or a mapping of names);
    without them auto exposure runs for `settle_seconds`, then the found values are locked.
    A lens position among them holds the focus there; without one, a camera with
    autofocus scans once and holds the lens where the scan ends (module docstring).
    `picamera2_class` and `clock` are injectable so tests run without a Pi.
    """

    name = "picamera"

    def __init__(
        self,
        *,
        size: tuple[int, int] = (640, 480),
        settings: Any = None,
        settle_seconds: float = 1.0,
        camera_num: int = 0,
        picamera2_class: type | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        size = (int(size[0]), int(size[1]))
        if size not in SIZES:
            raise CameraSpecError(f"picamera: size must be one of {SIZES}, got {size}")
        values = normalise_settings(settings) if settings is not None else {}
        focus = values.pop(FOCUS_KEY, None)
        locked = values or None  # every exposure value automatic: settle, then lock
        if not float(settle_seconds) >= MIN_SETTLE:
            raise CameraSpecError(f"picamera: settle_seconds must be at least {MIN_SETTLE} (controls "
                                  f"take a few frames to apply), got {settle_seconds}")
        self.size = size
        self._clock = clock
        self._settle = float(settle_seconds)
        self._locked: dict[str, Any] | None = None
        self._focus: float | None = None  # the lens position held, once known
        self._focusing = False  # an autofocus scan runs; the lens is held once it ends
        self._focus_started = 0.0
        self._closed = True  # until the camera is open: close() has nothing to release
        cls = picamera2_class or _load_picamera2()
        cameras = camera_list(cls)
        if not 0 <= camera_num < len(cameras):
            raise CameraError("picamera: no camera found (libcamera lists "
                              f"{len(cameras)}): check the ribbon cable at both ends, then reboot")
        self.model = cameras[camera_num].get("Model")
        try:
            self._cam = cls(camera_num)
        except Exception as exc:
            raise CameraError(f"picamera: no camera found or it is busy ({exc})") from exc
        self._closed = False
        try:
            self._configure(locked, focus)
        except Exception as exc:
            self._closed = True
            self._safe_close()
            raise CameraError(f"picamera: could not start the camera ({exc})") from exc
        self._started_at = clock()

    @property
    def has_autofocus(self) -> bool:
        """Whether the lens can move (Picamera2 lists an AfMode control: Camera Module 3)."""
        return "AfMode" in (getattr(self._cam, "camera_controls", None) or {})

    def _configure(self, locked: dict[str, Any] | None, focus: float | None) -> None:
        controls: dict[str, Any] = {"FrameRate": 30}
        if locked:
            controls.update(locked)
        controls = self._supported(controls)
        held = self.has_autofocus and focus is not None
        if held:
            controls.update({"AfMode": AF_MANUAL, FOCUS_KEY: focus})
        config = self._cam.create_video_configuration(
            main={"size": self.size, "format": "RGB888"}, controls=controls
        )
        self._cam.configure(config)
        self._cam.start()
        if locked:
            self._cam.set_controls(self._supported({"AeEnable": False, "AwbEnable": False,
                                                    **controls}))
            self._locked = self._supported(locked)
        if held:
            self._focus = float(focus)
        elif self.has_autofocus:
            self._start_focus()

    def _start_focus(self) -> None:
        """One autofocus scan; _read holds the lens where it ends."""
        self._cam.set_controls({"AfMode": AF_AUTO, "AfTrigger": AF_TRIGGER_START})
        self._focus = None
        self._focusing = True
        self._focus_started = self._clock()

    def _check_focus(self, now: float) -> None:
        """Once the scan has ended (or taken too long), hold the lens where it is."""
        try:
            meta = self._metadata()
        except CameraError:
            raise
        except Exception as exc:
            raise CameraError(f"picamera: could not read the focus ({exc})") from exc
        state = meta.get("AfState")
        if state == AF_SCANNING and now - self._focus_started < self._settle + FOCUS_WAIT:
            return
        if state != AF_FOCUSED:
            log.warning("picamera: autofocus did not find the tray (state %s); the lens stays at "
                        "%s dioptres. Check that the camera looks at the tray from at least 10 cm.",
                        state, meta.get(FOCUS_KEY))
        self._focusing = False
        position = meta.get(FOCUS_KEY)
        if position is None:
            return
        try:
            self._cam.set_controls({"AfMode": AF_MANUAL, FOCUS_KEY: float(position)})
        except Exception as exc:
            raise CameraError(f"picamera: could not hold the focus ({exc})") from exc
        self._focus = float(position)

    def _supported(self, controls: dict[str, Any]) -> dict[str, Any]:
        """The controls libcamera advertises for this sensor (a mono one has no AwbEnable or
        ColourGains); Picamera2 raises for any other."""
        advertised = getattr(self._cam, "camera_controls", None)
        if not advertised:  # not known: send them all, as before
            return dict(controls)
        return {k: v for k, v in controls.items()
                if VIRTUAL_CONTROLS.get(k, k) in advertised}

    def _metadata(self) -> dict[str, Any]:
        """The next frame's metadata, waiting at most CAPTURE_WAIT."""
        try:
            return self._cam.capture_metadata(wait=CAPTURE_WAIT)
        except TimeoutError as exc:
            raise CameraError(self._stalled()) from exc

    def _stalled(self) -> str:
        return (f"picamera: no frame for {CAPTURE_WAIT:g} s, the camera stopped (a loose ribbon "
                "cable?); reopening it")

    @property
    def locked(self) -> bool:
        return self._locked is not None

    @property
    def settle_seconds(self) -> float:
        """How long auto exposure runs before it is locked (and before a focus scan is checked)."""
        return self._settle

    @property
    def focus(self) -> float | None:
        """The lens position held (dioptres), or None: no autofocus, or its scan still runs."""
        return self._focus

    @property
    def settings(self) -> dict[str, Any] | None:
        """The locked values (JSON-friendly) to store in a calibration profile, or None yet;
        with the lens position held, if any."""
        if self._locked is None:
            return None
        out = dict(self._locked)
        if "ColourGains" in out:
            out["ColourGains"] = list(out["ColourGains"])
        if self._focus is not None:
            out[FOCUS_KEY] = self._focus
        return out

    @property
    def profile_settings(self) -> dict[str, Any] | None:
        """The locked values in the calibration profile's names (CameraSettings(**this))."""
        if self._locked is None:
            return None
        gains = self._locked.get("ColourGains")
        return {
            "exposure_us": self._locked.get("ExposureTime"),
            "analogue_gain": self._locked.get("AnalogueGain"),
            "awb_gains": None if gains is None else (float(gains[0]), float(gains[1])),
            "lens_position": self._focus,
        }

    def lock(self) -> dict[str, Any]:
        """Freeze exposure and white balance at the values auto exposure reached now."""
        try:
            meta = self._metadata()
            found = {k: meta[k] for k in LOCK_KEYS if k in meta}
            values = self._supported(normalise_settings(found))
            self._cam.set_controls(self._supported({"AeEnable": False, "AwbEnable": False,
                                                    **values}))
        except CameraError:
            raise
        except Exception as exc:
            raise CameraError(f"picamera: could not lock exposure ({exc})") from exc
        self._locked = values
        return self.settings or {}

    def unlock(self) -> None:
        """Return to auto exposure / white balance (the calibration wizard's "re-measure"),
        and focus again (the camera may have been moved)."""
        try:
            self._cam.set_controls(self._supported({"AeEnable": True, "AwbEnable": True}))
            if self.has_autofocus:
                self._start_focus()
        except Exception as exc:
            raise CameraError(f"picamera: could not unlock exposure ({exc})") from exc
        self._locked = None
        self._started_at = self._clock()

    def _read(self) -> np.ndarray:
        try:
            frame = self._cam.capture_array("main", wait=CAPTURE_WAIT)
        except TimeoutError as exc:
            raise CameraError(self._stalled()) from exc
        except Exception as exc:
            raise CameraError(f"picamera: capture failed ({exc})") from exc
        frame = check_frame(frame, self.name)
        now = self._clock()
        if self._focusing and now - self._focus_started >= self._settle:
            self._check_focus(now)
        if self._locked is None and now - self._started_at >= self._settle:
            self.lock()
        return frame

    def _safe_close(self) -> None:
        for method in ("stop", "close"):
            with contextlib.suppress(Exception):  # closing a failed camera must not raise
                getattr(self._cam, method)()

    def _release(self) -> None:
        self._safe_close()
