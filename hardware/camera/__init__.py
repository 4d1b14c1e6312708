"""Camera sources: Pi camera (Picamera2), USB webcam (OpenCV) and photo replay.

    camera = open_camera("usb:0", size=(640, 480))
    frame = camera.read()        # BGR uint8, raises CameraError when the device fails
    camera.close()               # idempotent

Wrap a camera in `CameraSupervisor(lambda: open_camera(spec))` to survive unplugging.
"""
from __future__ import annotations

from hardware.camera.base import Camera, CameraError, CameraSpecError
from hardware.camera.open import open_camera, parse_spec
from hardware.camera.replay import ReplayCamera, bundled_samples
from hardware.camera.supervisor import CameraSupervisor

__all__ = [
    "Camera",
    "CameraError",
    "CameraSpecError",
    "CameraSupervisor",
    "ReplayCamera",
    "bundled_samples",
    "open_camera",
    "parse_spec",
]
