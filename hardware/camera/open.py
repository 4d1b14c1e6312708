"""`open_camera(spec)`: one string in the configuration chooses the camera backend."""
from __future__ import annotations

from typing import Any

from hardware.camera.base import Camera, CameraSpecError

SPEC_HELP = '"picamera", "usb:N", "replay" (the demo game), "replay:DIR" or "replay:FILE,FILE..."'


def parse_spec(spec: str) -> tuple[str, Any]:
    """Split a camera spec into (kind, argument); raise CameraSpecError for anything else."""
    text = str(spec).strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    if kind == "picamera" and not arg:
        return "picamera", None
    if kind == "usb":
        try:
            index = int(arg or "0")
        except ValueError:
            index = -1
        if index < 0:
            raise CameraSpecError(f"camera spec {spec!r}: usb needs a device number, e.g. usb:0")
        return "usb", index
    if kind == "replay":
        paths = [p.strip() for p in arg.split(",") if p.strip()] if arg else None
        return "replay", paths
    raise CameraSpecError(f"unknown camera spec {spec!r}; use {SPEC_HELP}")


def open_camera(spec: str, **opts: Any) -> Camera:
    """Open the camera named by `spec`; options go to the backend.

    picamera: size=(w, h), settings={ExposureTime, AnalogueGain, ColourGains, LensPosition},
              settle_seconds, camera_num, picamera2_class, clock
    usb:N:    size=(w, h) or None, capture_factory
    replay:   paths (overrides the spec's; none: the bundled sample photos, while the table's
              configuration gives the demo game's frames), hold, transition, size, loop, clock
    """
    kind, arg = parse_spec(spec)
    if kind == "picamera":
        from hardware.camera.picamera import PiCamera

        return PiCamera(**opts)
    if kind == "usb":
        from hardware.camera.usb import UsbCamera

        return UsbCamera(arg, **opts)
    from hardware.camera.replay import ReplayCamera

    paths = opts.pop("paths", arg)
    return ReplayCamera(paths, **opts)
