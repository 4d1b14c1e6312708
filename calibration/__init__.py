"""Calibration procedures (tray, colours, Event-die faces, LED positions) and the profile format."""
from __future__ import annotations

from calibration.profile import (
    PROFILE_VERSION,
    CameraSettings,
    ColorModel,
    EventDie,
    FaceTemplate,
    LedPosition,
    Profile,
    ProfileError,
    default_profile,
    load_profile,
    save_profile,
)

__all__ = [
    "PROFILE_VERSION", "CameraSettings", "ColorModel", "EventDie", "FaceTemplate", "LedPosition",
    "Profile", "ProfileError", "default_profile", "load_profile", "save_profile",
]
