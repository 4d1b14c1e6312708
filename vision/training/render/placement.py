"""Dice lying at rest on the tray floor: where they go, which faces are up.

Flat on the floor with a random yaw, never passing into each other or a wall, some
touching (a die pushed up against another), mostly inside the camera's view. Pure.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.training.render import geometry
from vision.training.render.looks import DieLook
from vision.training.render.scene import DieSpec, SceneSpec

TOUCH_SHARE = 0.25  # of the dice placed against one already down
GAP = 1e-4  # metres between touching dice (coplanar faces render badly)


def view_polygon(scene: SceneSpec) -> np.ndarray:
    """(n, 2) the floor the camera sees (world x, y)."""
    return geometry.floor_footprint(scene.camera.matrix(), scene.width, scene.height,
                                    scene.focal(), k1=scene.camera.k1)


def depth_inside(poly: np.ndarray, x: float, y: float) -> float:
    """Signed distance of (x, y) inside the polygon (negative outside)."""
    return cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (x, y), True)


def _square(d: DieSpec) -> tuple[float, float, float, float]:
    return (d.x, d.y, d.look.size, d.yaw)


def _fits(tray: np.ndarray, die: DieSpec, placed: Sequence[DieSpec]) -> bool:
    if depth_inside(tray, die.x, die.y) < die.look.size * 0.72:  # the half diagonal, and a bit
        return False
    return not any(geometry.squares_overlap(_square(die), _square(o)) for o in placed)


def _against(rng: np.random.Generator, die: DieSpec, other: DieSpec) -> DieSpec:
    """`die` moved to touch `other` from a random direction (bisection on the distance)."""
    ang = rng.uniform(0, 2 * np.pi)
    ux, uy = math.cos(ang), math.sin(ang)
    lo, hi = 0.0, (die.look.size + other.look.size) * 0.75
    for _ in range(24):
        mid = (lo + hi) / 2
        moved = DieSpec(die.face, other.x + ux * mid, other.y + uy * mid, die.yaw, die.look,
                        die.set, die.kind)
        if geometry.squares_overlap(_square(moved), _square(other), gap=GAP):
            lo = mid
        else:
            hi = mid
    return DieSpec(die.face, other.x + ux * hi, other.y + uy * hi, die.yaw, die.look,
                   die.set, die.kind)


def place(rng: np.random.Generator, scene: SceneSpec,
          items: Sequence[tuple[int | str, DieLook, str, str]], *,
          touch: float = TOUCH_SHARE, in_view: float = 0.95, tries: int = 300
          ) -> list[DieSpec]:
    """Dice for `items` (face, look, set name, kind) at random places on the floor; a die
    that finds no room is left out. `in_view`: share of dice kept inside the view."""
    tray = scene.tray.polygon()
    view = view_polygon(scene)
    lo, hi = view.min(axis=0), view.max(axis=0)
    wide = (lo - 0.15 * (hi - lo), hi + 0.15 * (hi - lo))  # dice cut by the frame's edge
    placed: list[DieSpec] = []
    for face, look, set_name, kind in items:
        for _ in range(tries):
            keep_in = rng.random() < in_view
            die = DieSpec(face, 0.0, 0.0, float(rng.uniform(0, 360)), look, set_name, kind)
            if placed and rng.random() < touch:
                other = placed[int(rng.integers(len(placed)))]
                if rng.random() < 0.5:
                    die = DieSpec(face, 0, 0, other.yaw + float(rng.choice([0, 90])), look,
                                  set_name, kind)
                die = _against(rng, die, other)
            else:
                x, y = rng.uniform(lo, hi) if keep_in else rng.uniform(*wide)
                die = DieSpec(face, float(x), float(y), die.yaw, look, set_name, kind)
            if keep_in and depth_inside(view, die.x, die.y) < look.size * 0.3:
                continue
            if _fits(tray, die, placed):
                placed.append(die)
                break
    return placed


def random_face(rng: np.random.Generator, look: DieLook) -> int | str:
    """A face of the die as a fair roll shows it (the Event die: blank 4 times in 6)."""
    return look.faces[int(rng.integers(6))]


def _count(rng: np.random.Generator) -> int:
    """Dice of one player in a roll: often all six."""
    return int(rng.choice([1, 2, 3, 4, 5, 6], p=[0.1, 0.1, 0.12, 0.13, 0.15, 0.4]))


def sample_dice(rng: np.random.Generator, scene: SceneSpec) -> list[DieSpec]:
    """A roll for the scene: the game (two players' Soldier dice and the Event die) or
    any number of dice of its random sets, as many as the visible floor holds."""
    items: list[tuple[int | str, DieLook, str, str]] = []
    if scene.kind == "dragon-farkle":
        for name, look in scene.sets:
            items += [(random_face(rng, look), look, name, "soldier") for _ in range(_count(rng))]
    else:
        area = cv2.contourArea(view_polygon(scene).astype(np.float32))
        size = max(look.size for _, look in scene.sets)
        most = int(np.clip(0.2 * area / size ** 2, 1, 25))
        for _ in range(int(rng.integers(1, most + 1))):
            name, look = scene.sets[int(rng.integers(len(scene.sets)))]
            items.append((random_face(rng, look), look, name, "soldier"))
    if scene.event is not None:
        items.append((random_face(rng, scene.event), scene.event, "event", "event"))
    order = rng.permutation(len(items))
    return place(rng, scene, [items[i] for i in order])


def die(scene: SceneSpec, set_name: str, face: int | str, x: float, y: float,
        yaw: float = 0.0) -> DieSpec:
    """One die of the scene's colour set `set_name` ("event": the Event die) showing
    `face`, centred at (x, y) metres from the tray's centre: for rolls given
    explicitly (a demo game's replay)."""
    if set_name == "event":
        if scene.event is None:
            raise ValueError("this scene has no Event die")
        look, kind = scene.event, "event"
    else:
        look, kind = scene.look(set_name), "soldier"
    if face not in look.faces:
        names = "1-6" if kind == "soldier" else "blank, dragon or rally"
        raise ValueError(f"a {kind} die has no face {face!r} (faces: {names})")
    return DieSpec(face, float(x), float(y), float(yaw), look, set_name, kind)
