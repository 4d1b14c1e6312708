"""A rendered table as plain data: tray, camera, lamps, finishing, and the dice on it.

`sample_scene` draws everything a table can change; `SceneSpec` can also be written by
hand and kept fixed (a demo game's replay: the same tray, camera and light in every
frame, only the dice change). Placing the dice is `placement.py`. Pure (numpy only).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from vision.training.render import geometry
from vision.training.render.looks import (
    COLOUR_SETS,
    RGB,
    DieLook,
    event_look,
    hsv,
    kelvin_rgb,
    sample_look,
    set_look,
    srgb_to_linear,
)

KINDS = ("mixed", "dragon-farkle", "low-angle")
# The low-angle kind: a camera tipped this many degrees from straight down (a camera at
# the side of the table, or one mounted askew), its side faces in view.
LOW_TILT = (20.0, 40.0)
# Raspberry Pi Camera Module 3: normal ~66 degrees across, wide ~102 (barrel distortion).
# Irradiance (Blender's W/m^2) the lamps together give the tray centre: a mid-grey
# floor then renders mid-grey before PostSpec.exposure.
IRRADIANCE = 2.5
LENSES = {"normal": (66.0, (-0.03, 0.0)), "wide": (102.0, (-0.12, -0.05))}


@dataclass(frozen=True)
class CameraSpec:
    """A camera above the tray: position (metres), yaw/tilt (degrees), horizontal field of
    view (degrees, at the image centre's scale) and radial distortion k1."""

    x: float = 0.0
    y: float = 0.0
    height: float = 0.45
    yaw: float = 0.0
    tilt: float = 0.0
    tilt_dir: float = 0.0
    hfov: float = 66.0
    k1: float = 0.0
    lens: str = "normal"

    def matrix(self) -> np.ndarray:
        return geometry.camera_matrix(self.x, self.y, self.height, yaw=self.yaw,
                                      tilt=self.tilt, tilt_dir=self.tilt_dir)


@dataclass(frozen=True)
class LightSpec:
    """A square area lamp facing down (tipped towards the tray centre)."""

    x: float
    y: float
    z: float
    size: float  # edge, metres
    power: float  # watts (Blender's units)
    kelvin: float


@dataclass(frozen=True)
class SurfaceSpec:
    """A material for floor, walls or table: felt, wood, plain (paint, laminate,
    paper) or leather."""

    kind: str = "felt"
    colour: RGB = (0.1, 0.35, 0.2)
    colour2: RGB = (0.05, 0.2, 0.1)  # wood grain, felt fibres
    roughness: float = 0.9
    scale: float = 0.002  # feature size in metres (felt fibres, wood grain spacing)
    bump: float = 0.3


@dataclass(frozen=True)
class TraySpec:
    """A tray (square or hexagonal, with walls) on a table, or the bare table ("table").
    `half` is the inner half-width (the hexagon's inner radius), `depth_ratio` the
    square tray's depth over its width."""

    shape: str = "square"
    half: float = 0.15
    depth_ratio: float = 1.0
    yaw: float = 0.0
    wall_height: float = 0.03
    wall_thickness: float = 0.015
    floor_thickness: float = 0.005
    floor: SurfaceSpec = field(default_factory=SurfaceSpec)
    wall: SurfaceSpec = field(default_factory=lambda: SurfaceSpec("wood", (0.45, 0.28, 0.15)))
    table: SurfaceSpec = field(default_factory=lambda: SurfaceSpec("plain", (0.7, 0.7, 0.68)))

    def polygon(self) -> np.ndarray:
        """(n, 2) inner floor outline in world x, y (a large square for a bare table)."""
        if self.shape == "hex":
            r = self.half / math.cos(math.pi / 6)
            ang = np.radians(self.yaw + 30 + 60 * np.arange(6))
            return np.stack([r * np.cos(ang), r * np.sin(ang)], 1)
        w, d = (self.half, self.half * self.depth_ratio) if self.shape == "square" else (5, 5)
        local = np.array([(-w, -d), (w, -d), (w, d), (-w, d)])
        c, s = math.cos(math.radians(self.yaw)), math.sin(math.radians(self.yaw))
        return local @ np.array([[c, s], [-s, c]])


@dataclass(frozen=True)
class PostSpec:
    """What the camera does after the light: exposure (stops off its auto-exposure),
    white balance (share of the lamps' tint taken out), vignetting, blur, motion,
    noise, JPEG quality."""

    exposure: float = 0.0
    white_balance: float = 0.8
    vignette: float = 0.0
    blur: float = 0.0  # Gaussian sigma, pixels
    motion: float = 0.0  # motion blur length, pixels
    motion_angle: float = 0.0
    noise: float = 2.0  # sensor noise sigma at mid grey (0-255 scale)
    jpeg: int = 90


@dataclass(frozen=True)
class DieSpec:
    """One die on the floor: centre (x, y), yaw in degrees, the face up (1-6, or
    "blank"/"dragon"/"rally" for the Event die), how it looks and its colour set."""

    face: int | str
    x: float
    y: float
    yaw: float
    look: DieLook
    set: str = "random"
    kind: str = "soldier"

    def slot(self) -> int:
        """The face slot that shows `face` (the first slot carrying it)."""
        try:
            return self.look.faces.index(self.face)
        except ValueError:
            raise ValueError(f"this die has no face {self.face!r}") from None

    def matrix(self, slot: int | None = None) -> np.ndarray:
        return geometry.die_matrix(self.x, self.y, self.look.size, self.yaw,
                                   self.slot() if slot is None else slot)


@dataclass(frozen=True)
class SceneSpec:
    """A whole table: frame size, camera, lamps, tray, finishing, the colour sets in play
    (name -> look) and the Event die, and Cycles' samples per pixel."""

    width: int = 640
    height: int = 480
    camera: CameraSpec = field(default_factory=CameraSpec)
    lights: tuple[LightSpec, ...] = (LightSpec(0.2, 0.1, 0.9, 0.3, 30.0, 4000.0),)
    ambient: float = 0.05  # world light, relative
    ambient_kelvin: float = 6000.0
    tray: TraySpec = field(default_factory=TraySpec)
    post: PostSpec = field(default_factory=PostSpec)
    sets: tuple[tuple[str, DieLook], ...] = ()
    event: DieLook | None = None
    event_colour: str = ""
    samples: int = 2
    kind: str = "mixed"

    def focal(self) -> float:
        return geometry.focal_px(self.width, self.camera.hfov)

    def light_colours(self) -> tuple[list[RGB], RGB]:
        """Linear RGB of each lamp and of the ambient light, the camera's white balance
        applied: `post.white_balance` of the lamps' mean tint (weighted by what each
        gives the tray centre) taken out."""
        lamps = [np.array(srgb_to_linear(kelvin_rgb(lamp.kelvin))) for lamp in self.lights]
        weights = [lamp.power * lamp.z / (lamp.x ** 2 + lamp.y ** 2 + lamp.z ** 2) ** 1.5
                   for lamp in self.lights]
        tint = sum(w * c for w, c in zip(weights, lamps)) / max(sum(weights), 1e-9)
        gains = (tint[1] / np.maximum(tint, 1e-6)) ** self.post.white_balance
        def fix(c: np.ndarray) -> RGB:
            return tuple(float(v) for v in c * gains)  # type: ignore[return-value]
        ambient = np.array(srgb_to_linear(kelvin_rgb(self.ambient_kelvin)))
        return [fix(c) for c in lamps], fix(ambient)

    def look(self, name: str) -> DieLook:
        """The look of the colour set `name` in this scene."""
        for n, look in self.sets:
            if n == name:
                return look
        raise ValueError(f"no colour set {name!r} in this scene (have "
                         f"{', '.join(n for n, _ in self.sets) or 'none'})")


def _surface(rng: np.random.Generator, kind: str) -> SurfaceSpec:
    if kind == "felt":
        c = hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.9), rng.uniform(0.05, 0.8))
        return SurfaceSpec("felt", c, tuple(v * rng.uniform(0.6, 0.9) for v in c),
                           float(rng.uniform(0.85, 1.0)), float(rng.uniform(0.0007, 0.003)),
                           float(rng.uniform(0.1, 0.6)))
    if kind == "wood":
        c = hsv(rng.uniform(18, 42), rng.uniform(0.3, 0.75), rng.uniform(0.2, 0.85))
        grain = tuple(v * rng.uniform(0.6, 0.9) for v in c)
        return SurfaceSpec("wood", c, grain,
                           float(rng.uniform(0.3, 0.8)), float(rng.uniform(0.002, 0.008)),
                           float(rng.uniform(0.0, 0.2)))
    if kind == "leather":
        c = hsv(rng.uniform(0, 40), rng.uniform(0.2, 0.8), rng.uniform(0.05, 0.4))
        return SurfaceSpec("leather", c, c, float(rng.uniform(0.4, 0.7)), 0.001, 0.2)
    c = hsv(rng.uniform(0, 360), rng.uniform(0, 0.5) * (rng.random() < 0.5),
            rng.uniform(0.1, 0.95))
    return SurfaceSpec("plain", c, c, float(rng.uniform(0.2, 0.9)), 0.003,
                       float(rng.uniform(0.0, 0.1)))


def _lights(rng: np.random.Generator, *, low: float) -> tuple[LightSpec, ...]:
    """One to three lamps, the first at least `low` degrees above the horizon seen from
    the tray centre (a lamp low at the side leaves a walled tray in shadow); together
    they light the tray centre evenly from one frame to the next."""
    out = []
    n = int(rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2]))
    share = np.sort(rng.uniform(0.15, 1.0, n))[::-1]
    share[0] = 1.0
    for k in range(n):
        ang = rng.uniform(0, 2 * np.pi)
        z = float(rng.uniform(0.3, 2.0))
        elevation = rng.uniform(low if k == 0 else 20.0, 90.0)
        r = float(z / math.tan(math.radians(elevation)))
        size = float(np.exp(rng.uniform(np.log(0.03), np.log(1.5))))
        dist2 = r * r + z * z
        # irradiance at the tray centre E = P cos / (pi d^2) for a lamp aimed at it
        cos = max(z / math.sqrt(dist2), 0.2)
        power = IRRADIANCE * share[k] / share.sum() * math.pi * dist2 / cos
        out.append(LightSpec(r * math.cos(ang), r * math.sin(ang), z, size, power,
                             float(rng.uniform(2600, 6800))))
    return tuple(out)


def sample_scene(rng: np.random.Generator, *, kind: str = "mixed",
                 size: tuple[int, int] | None = None) -> SceneSpec:
    """A random table of the given kind ("mixed": any dice, any table, any camera;
    "dragon-farkle": the game's colour sets and Event die, a felt tray, a Pi camera;
    "low-angle": any dice and table, seen by a camera tipped LOW_TILT degrees, aimed at
    the tray)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    game = kind == "dragon-farkle"
    low = kind == "low-angle"
    if size is None:
        size = (640, 480) if game or rng.random() < 0.5 else (640, 640)
    width, height = size
    lens = str(rng.choice(["normal", "wide", "other"], p=[0.6, 0.4, 0.0] if game
                          else [0.7, 0.0, 0.3] if low else [0.55, 0.3, 0.15]))
    if lens == "other":  # a phone or webcam
        hfov, k1 = float(rng.uniform(45, 80)), float(rng.uniform(-0.05, 0.01))
    else:
        hfov = LENSES[lens][0] + float(rng.normal(0, 1.5))
        k1 = float(rng.uniform(*LENSES[lens][1]))
    die = float(rng.uniform(0.015, 0.017)) if game else float(rng.uniform(0.012, 0.022))
    # dice size in the frame: a Pi camera over a whole tray sees dice of 20-70 px
    px = math.exp(rng.uniform(math.log(22), math.log(70))) if game else \
        math.exp(rng.uniform(math.log(20), math.log(120))) if low else \
        math.exp(rng.uniform(math.log(15), math.log(250)))
    f = geometry.focal_px(width, hfov)
    cam_h = f * die / px + die
    view_half = cam_h * width / 2 / f
    shape = str(rng.choice(["square", "hex", "table"], p=[0.5, 0.5, 0.0] if game
                           else [0.4, 0.3, 0.3]))
    half = max(view_half * (rng.uniform(0.6, 1.0) if game else rng.uniform(0.55, 1.4)),
               0.06 if game else 0.03)
    floor_kind = "felt" if game or shape != "table" and rng.random() < 0.75 else \
        str(rng.choice(["wood", "plain", "leather", "felt"]))
    tray = TraySpec(
        shape=shape, half=half, depth_ratio=float(rng.uniform(0.7, 1.0)),
        yaw=float(rng.uniform(0, 360)), wall_height=float(rng.uniform(0.015, 0.05)),
        wall_thickness=float(rng.uniform(0.008, 0.03)),
        floor_thickness=float(rng.uniform(0.003, 0.012)),
        floor=_surface(rng, floor_kind),
        wall=_surface(rng, str(rng.choice(["wood", "felt", "leather", "plain"]))),
        table=_surface(rng, str(rng.choice(["wood", "plain"]))))
    off = rng.uniform(-0.35, 0.35, 2) * half
    tilt = float(rng.uniform(*LOW_TILT)) if low else min(abs(rng.normal(0, 4 if game else 6)), 15.0)
    camera = CameraSpec(float(off[0]), float(off[1]), cam_h, float(rng.uniform(0, 360)),
                        tilt, float(rng.uniform(0, 360)), hfov, k1, lens)
    if low:  # as far from the point it looks at as it would be straight above it
        axis = camera.matrix()[:3, :3] @ np.array([0.0, 0.0, -1.0])
        x, y, z = np.array([off[0], off[1], die]) - (cam_h - die) * axis
        camera = replace(camera, x=float(x), y=float(y), height=float(z))
    post = PostSpec(
        exposure=float(rng.normal(0, 0.35)), white_balance=float(rng.uniform(0.3, 1.0)),
        vignette=float(rng.uniform(0, 0.45 if lens == "wide" else 0.25)),
        blur=float(rng.uniform(0, 0.6) if rng.random() < 0.7 else rng.uniform(0.6, 1.6)),
        motion=float(rng.uniform(1, 4)) if rng.random() < 0.1 else 0.0,
        motion_angle=float(rng.uniform(0, 180)), noise=float(rng.uniform(0.5, 6.0)),
        jpeg=int(rng.integers(55, 96)))
    sets, event, event_colour = _dice_sets(rng, game, die)
    return SceneSpec(width, height, camera, _lights(rng, low=50.0 if game else 35.0), float(rng.uniform(0.02, 0.3)),
                     float(rng.uniform(4000, 9000)), tray, post, sets, event, event_colour,
                     kind=kind)


def _dice_sets(rng: np.random.Generator, game: bool, die: float
               ) -> tuple[tuple[tuple[str, DieLook], ...], DieLook | None, str]:
    """The colour sets in play: the game's (two players' sets, sometimes one of the
    Event die's colour) or a few random sets of any look and size."""
    if game:
        event, colour = event_look(rng, size=die * float(rng.uniform(1.0, 1.2)))
        names = [str(n) for n in rng.choice(list(COLOUR_SETS), 2, replace=False)]
        if rng.random() < 0.3 and colour != "other" and colour not in names:
            names[1] = colour  # Soldier dice of the Event die's own colour
        looks = [set_look(rng, n, size=die) for n in names]
        return tuple(zip(names, looks)), event, colour
    n = int(rng.choice([1, 2, 3, 4], p=[0.35, 0.3, 0.2, 0.15]))
    sets = tuple((f"random{k}", sample_look(rng, size=die * float(rng.uniform(0.85, 1.15))))
                 for k in range(n))
    if rng.random() < 0.3:
        event, colour = event_look(rng, size=die * float(rng.uniform(0.95, 1.2)))
        return sets, event, colour
    return sets, None, ""
