"""What a calibration profile holds: the `Profile` and its parts, each checked when made.

The parts are a dice body's colour (`ColorModel`), the Event die's face pictures
(`FaceTemplate`, `EventDie`), the LEDs' places in the frame (`LedPosition`) and the
locked camera controls (`CameraSettings`). A value that cannot be right raises
`ProfileError`, so a `Profile` in hand is always a usable one. Reading and writing a
profile folder is calibration.profile's job. This module imports nothing from `vision`,
so `vision.reader` can import it without a cycle.

Colours are in OpenCV's 8-bit Lab space (L scaled to 0-255, a and b offset by 128),
which is what `cv2.cvtColor(img, cv2.COLOR_BGR2LAB)` gives for uint8 images.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PROFILE_VERSION = 3  # 2 added die_side, 3 tray_colors; older files still load
DIE_SIDE_RANGE = (4.0, 1000.0)  # a die's side in frame pixels a profile may hold
EVENT_FACES = ("blank", "dragon", "rally")
ROTATIONS = (0, 90, 180, 270)
MAX_NAME = 32
MAX_TRAY_COLORS = 4  # colours an empty tray may show (its floor, walls, rim)


class ProfileError(ValueError):
    """A profile file or value is invalid; the message names the file and the field."""


@dataclass(frozen=True)
class ColorModel:
    """Colour of a die body: Lab mean and 3x3 covariance over body pixels (pips excluded)."""

    mean: tuple[float, float, float]
    cov: tuple[tuple[float, float, float], ...]

    def __post_init__(self) -> None:
        _check_vector(self.mean, 3, "mean")
        if len(self.cov) != 3:
            raise ProfileError(f"cov must be 3x3, got {len(self.cov)} rows")
        for row in self.cov:
            _check_vector(row, 3, "cov row")

    @classmethod
    def from_pixels(cls, lab: np.ndarray) -> ColorModel:
        """Fit a model to Lab pixels of shape (N, 3); needs at least 10 pixels."""
        pts = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        if len(pts) < 10:
            raise ValueError(f"need at least 10 body pixels to learn a colour, got {len(pts)}")
        mean = pts.mean(axis=0)
        cov = np.cov(pts, rowvar=False)
        return cls(tuple(float(v) for v in mean), tuple(tuple(float(v) for v in r) for r in cov))

    def mean_array(self) -> np.ndarray:
        return np.array(self.mean, dtype=np.float64)

    def cov_array(self) -> np.ndarray:
        return np.array(self.cov, dtype=np.float64)


@dataclass(frozen=True, eq=False)
class FaceTemplate:
    """One learned view of an Event-die face: a small BGR crop of the die (uint8, HxWx3)."""

    face: str
    image: np.ndarray

    def __post_init__(self) -> None:
        if self.face not in EVENT_FACES:
            raise ProfileError(f"face must be one of {', '.join(EVENT_FACES)}, got {self.face!r}")
        img = self.image
        if not isinstance(img, np.ndarray) or img.dtype != np.uint8 or img.ndim != 3 \
                or img.shape[2] != 3 or min(img.shape[:2]) < 8:
            raise ProfileError(f"template for {self.face!r} must be a BGR uint8 image of at least "
                               f"8x8 pixels")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FaceTemplate):
            return NotImplemented
        return self.face == other.face and np.array_equal(self.image, other.image)

    def __hash__(self) -> int:
        return hash((self.face, self.image.shape, self.image.tobytes()[:4096]))


@dataclass(frozen=True)
class EventDie:
    """The Event die: its body colour and a few learned views of each face."""

    body: ColorModel
    templates: tuple[FaceTemplate, ...]

    def __post_init__(self) -> None:
        missing = [f for f in EVENT_FACES if not any(t.face == f for t in self.templates)]
        if missing:
            raise ProfileError(f"Event die needs at least one template of each face; "
                               f"missing: {', '.join(missing)}")

    def faces(self, face: str) -> tuple[FaceTemplate, ...]:
        return tuple(t for t in self.templates if t.face == face)


@dataclass(frozen=True)
class LedPosition:
    """Where LED number `index` of the strip sits in the camera frame (pixels)."""

    index: int
    x: float
    y: float


@dataclass(frozen=True)
class CameraSettings:
    """Camera controls locked by the wizard so colours stay stable; None = automatic."""

    exposure_us: int | None = None
    analogue_gain: float | None = None
    awb_gains: tuple[float, float] | None = None  # (red, blue) colour gains
    lens_position: float | None = None  # where an autofocus camera holds its lens (dioptres)

    def __post_init__(self) -> None:
        # Camera libraries report numbers of several types; store plain int/float.
        if self.exposure_us is not None:
            object.__setattr__(self, "exposure_us", round(float(self.exposure_us)))
        if self.analogue_gain is not None:
            object.__setattr__(self, "analogue_gain", float(self.analogue_gain))
        if self.awb_gains is not None:
            red, blue = self.awb_gains
            object.__setattr__(self, "awb_gains", (float(red), float(blue)))
        if self.lens_position is not None:
            object.__setattr__(self, "lens_position", float(self.lens_position))


@dataclass(frozen=True)
class Profile:
    """Everything calibration learned about one table. Immutable; use dataclasses.replace.

    tray: polygon [(x, y), ...] in raw frame pixels, or None for the whole frame.
    rotation: clockwise degrees (0/90/180/270) that turn the raw frame upright.
    colors: player dice colours by name; empty = generic colour names.
    event: the Event die, or None when it was not calibrated.
    leds: LED positions along the tray edge (filled by the Pi wizard).
    die_side: a die's face side in raw frame pixels, measured on the players' dice, or
        None; the reader scales frames by it so dice look the size its detector knows.
    tray_colors: the colours (Lab) the empty tray shows inside its polygon, learned with
        it (floor, walls): a patch of them is the tray, not a hand or an object.
    """

    version: int = PROFILE_VERSION
    tray: tuple[tuple[float, float], ...] | None = None
    rotation: int = 0
    colors: Mapping[str, ColorModel] = field(default_factory=dict)
    event: EventDie | None = None
    leds: tuple[LedPosition, ...] = ()
    camera: CameraSettings = field(default_factory=CameraSettings)
    die_side: float | None = None
    tray_colors: tuple[tuple[float, float, float], ...] = ()

    def __post_init__(self) -> None:
        if self.version != PROFILE_VERSION:
            raise ProfileError(f"version must be {PROFILE_VERSION}, got {self.version!r}")
        if self.rotation not in ROTATIONS:
            raise ProfileError(f"rotation must be one of 0, 90, 180, 270, got {self.rotation!r}")
        if self.tray is not None and len(self.tray) < 3:
            raise ProfileError(f"tray must be a polygon of at least 3 points, got {len(self.tray)}")
        for name in self.colors:
            _check_name(name)
        if self.die_side is not None:
            if not is_die_side(self.die_side):
                raise ProfileError(f"die_side must be 4-1000 pixels, got {self.die_side!r}")
            object.__setattr__(self, "die_side", float(self.die_side))
        if len(self.tray_colors) > MAX_TRAY_COLORS:
            raise ProfileError(f"tray_colors holds at most {MAX_TRAY_COLORS} colours, got "
                               f"{len(self.tray_colors)}")
        for c in self.tray_colors:
            _check_vector(c, 3, "tray colour")
            if not all(0 <= v <= 255 for v in c):
                raise ProfileError(f"a tray colour is 3 Lab values 0-255, got {c!r}")
        object.__setattr__(self, "tray_colors",
                           tuple(tuple(float(v) for v in c) for c in self.tray_colors))

    def in_tray(self, point: Sequence[float]) -> bool:
        """True when the frame point (x, y) is inside the tray (always, with no tray set)."""
        if self.tray is None:
            return True
        return _point_in_polygon(float(point[0]), float(point[1]), self.tray)


def default_profile() -> Profile:
    """The profile used without calibration: whole frame, generic colours, no Event die."""
    return Profile()


# ---------------------------------------------------------------- small helpers

def is_number(v: Any) -> bool:
    """A finite int or float (not a bool): what every number in a profile must be."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def is_die_side(value: Any) -> bool:
    """A number a profile may hold as a die's side in frame pixels (DIE_SIDE_RANGE)."""
    return is_number(value) and DIE_SIDE_RANGE[0] <= float(value) <= DIE_SIDE_RANGE[1]


def _check_vector(v: Sequence[float], n: int, what: str) -> None:
    if len(v) != n or not all(is_number(x) for x in v):
        raise ProfileError(f"{what} must be {n} finite numbers, got {v!r}")


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise ProfileError(f"colour name must be 1-{MAX_NAME} characters, got {name!r}")


def _point_in_polygon(x: float, y: float, poly: Sequence[tuple[float, float]]) -> bool:
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside

