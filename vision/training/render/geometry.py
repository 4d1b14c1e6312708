"""Pure geometry of a rendered roll: die poses, the camera, projection to pixels, boxes.

One source of truth for both sides: the Blender scene is built from these 4x4 matrices
and the labels are projected with the same numbers, so a label can never disagree with
the picture. Units are metres; the tray floor's top is z = 0, z points up.

A die's mesh is a unit cube centred on its origin. Its six face slots, in the order
`SLOT_NORMALS`, carry the labels of `DieSpec.faces` (a Soldier die: 1 opposite 6,
2 opposite 5, 3 opposite 4).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

SLOT_NORMALS = np.array([(0, 0, 1), (0, 0, -1), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)],
                        np.float64)
# Face slot -> the rotation that turns that slot's normal to +z (the face up).
_ROT_UP = {
    0: ("x", 0.0), 1: ("x", 180.0), 2: ("y", -90.0), 3: ("y", 90.0), 4: ("x", 90.0),
    5: ("x", -90.0),
}
# Per slot: the texture's right and up directions on that face, seen from outside
# (right x up = normal, so nothing is mirrored).
SLOT_AXES = np.array([
    [(1, 0, 0), (0, 1, 0)], [(-1, 0, 0), (0, 1, 0)], [(0, 1, 0), (0, 0, 1)],
    [(0, -1, 0), (0, 0, 1)], [(-1, 0, 0), (0, 0, 1)], [(1, 0, 0), (0, 0, 1)],
], np.float64)


def rotation(axis: str, degrees: float) -> np.ndarray:
    """3x3 right-handed rotation about the x, y or z axis."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    if axis == "z":
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    raise ValueError(f"axis must be x, y or z, got {axis!r}")


def axis_rotation(axis: Sequence[float], degrees: float) -> np.ndarray:
    """3x3 rotation by `degrees` about the unit vector `axis` (Rodrigues)."""
    k = np.asarray(axis, np.float64)
    k = k / np.linalg.norm(k)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    a = math.radians(degrees)
    return np.eye(3) + math.sin(a) * kx + (1 - math.cos(a)) * kx @ kx


def die_matrix(x: float, y: float, side: float, yaw: float, slot: int) -> np.ndarray:
    """4x4 world matrix of a die of edge `side` resting flat on the floor at (x, y), face
    slot `slot` up, turned `yaw` degrees about the vertical."""
    axis, deg = _ROT_UP[slot]
    r = rotation("z", yaw) @ rotation(axis, deg)
    m = np.eye(4)
    m[:3, :3] = r * side
    m[:3, 3] = (x, y, side / 2)
    return m


def die_corners(matrix: np.ndarray) -> np.ndarray:
    """(8, 3) world corners of the die's cube."""
    unit = np.array([(sx, sy, sz) for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)])
    return unit @ matrix[:3, :3].T + matrix[:3, 3]


def top_corners(matrix: np.ndarray) -> np.ndarray:
    """(4, 3) world corners of the die's upward face, in order round the face."""
    corners = die_corners(matrix)
    top = corners[np.argsort(-corners[:, 2])[:4]]
    centre = top.mean(axis=0)
    order = np.argsort(np.arctan2(top[:, 1] - centre[1], top[:, 0] - centre[0]))
    return top[order]


def top_outline(matrix: np.ndarray, bevel: float, *, steps: int = 4) -> np.ndarray:
    """(4 (steps + 1), 3) world points round the upward face of a die whose edges are
    rounded with radius `bevel` (share of the edge): a rounded square at the height
    where the rounding starts to fall away (what a camera sees as the top face)."""
    side = float(np.linalg.norm(matrix[:3, 0]))
    axes = [matrix[:3, k] / side for k in range(3)]
    flat = sorted(axes, key=lambda a: abs(a[2]))[:2]  # the two axes lying in the floor
    r = bevel * side
    h = side / 2 - r
    centre = matrix[:3, 3] + np.array([0.0, 0.0, side / 2 - r * (1 - math.sqrt(0.5))])
    pts = []
    for k, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
        for t in np.linspace(0, math.pi / 2, steps + 1) + k * math.pi / 2:
            u, v = sx * h + r * math.cos(t), sy * h + r * math.sin(t)
            pts.append(centre + u * flat[0] + v * flat[1])
    return np.array(pts)


def up_slot(matrix: np.ndarray) -> int:
    """The face slot whose normal points most nearly up under `matrix`."""
    normals = SLOT_NORMALS @ matrix[:3, :3].T
    return int(np.argmax(normals[:, 2] / np.linalg.norm(normals, axis=1)))


def camera_matrix(x: float, y: float, height: float, *, yaw: float = 0.0, tilt: float = 0.0,
                  tilt_dir: float = 0.0) -> np.ndarray:
    """4x4 world matrix of a camera at (x, y, height) looking straight down (Blender's
    camera looks along its local -z, image up = local +y), turned `yaw` degrees about
    the vertical, then tipped `tilt` degrees about the horizontal direction `tilt_dir`."""
    r = rotation("z", yaw)
    if tilt:
        d = math.radians(tilt_dir)
        r = axis_rotation((math.cos(d), math.sin(d), 0.0), tilt) @ r
    m = np.eye(4)
    m[:3, :3] = r
    m[:3, 3] = (x, y, height)
    return m


def focal_px(width: int, hfov: float) -> float:
    """Focal length in pixels of a camera `width` pixels wide with horizontal field `hfov`
    degrees (Blender's sensor fit "HORIZONTAL")."""
    return width / 2 / math.tan(math.radians(hfov) / 2)


def to_camera(points: np.ndarray, cam: np.ndarray) -> np.ndarray:
    """(n, 3) world points -> (n, 2) normalised image coordinates (x right, y up) of an
    ideal pinhole camera with world matrix `cam`; depth must be positive."""
    local = (np.asarray(points, np.float64) - cam[:3, 3]) @ cam[:3, :3]
    depth = -local[:, 2]
    if np.any(depth <= 1e-9):
        raise ValueError("a point lies behind the camera")
    return local[:, :2] / depth[:, None]


def distort(xy: np.ndarray, k1: float) -> np.ndarray:
    """Undistorted -> distorted normalised coordinates of a lens with the one-parameter
    division model (r_u = r_d / (1 + k1 r_d^2)); k1 < 0 is the barrel of a wide lens."""
    xy = np.asarray(xy, np.float64)
    r2 = np.sum(xy * xy, axis=1, keepdims=True)
    return xy * 2 / (1 + np.sqrt(np.clip(1 - 4 * k1 * r2, 0, None)))


def undistort(xy: np.ndarray, k1: float) -> np.ndarray:
    """Distorted -> undistorted normalised coordinates (inverse of `distort`)."""
    xy = np.asarray(xy, np.float64)
    return xy / (1 + k1 * np.sum(xy * xy, axis=1, keepdims=True))


def to_pixels(xy: np.ndarray, width: int, height: int, f: float) -> np.ndarray:
    """Normalised coordinates -> pixel coordinates (x right, y down, 0 at the top-left
    corner of the top-left pixel)."""
    return np.stack([width / 2 + f * xy[:, 0], height / 2 - f * xy[:, 1]], axis=1)


def from_pixels(uv: np.ndarray, width: int, height: int, f: float) -> np.ndarray:
    """Inverse of `to_pixels`."""
    return np.stack([(uv[:, 0] - width / 2) / f, (height / 2 - uv[:, 1]) / f], axis=1)


def box_of(uv: np.ndarray, width: int, height: int) -> list[float] | None:
    """[x, y, w, h] of the points' bounding box clipped to the image; None if outside."""
    x0, y0 = np.clip(uv.min(axis=0), 0, (width, height))
    x1, y1 = np.clip(uv.max(axis=0), 0, (width, height))
    if x1 - x0 <= 0 or y1 - y0 <= 0:
        return None
    return [round(float(x0), 1), round(float(y0), 1), round(float(x1 - x0), 1),
            round(float(y1 - y0), 1)]


def squares_overlap(a: Sequence[float], b: Sequence[float], *, gap: float = 0.0) -> bool:
    """Whether two squares (x, y, side, yaw degrees) on the floor come closer than `gap`
    (separating-axis test): dice may touch, never pass into each other."""
    def corners(s: Sequence[float]) -> np.ndarray:
        h = s[2] / 2 + gap / 2
        c, n = math.cos(math.radians(s[3])), math.sin(math.radians(s[3]))
        local = np.array([(-h, -h), (h, -h), (h, h), (-h, h)])
        return local @ np.array([[c, n], [-n, c]]) + (s[0], s[1])
    ca, cb = corners(a), corners(b)
    for yaw in (a[3], b[3]):
        for ang in (yaw, yaw + 90):
            ax = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
            pa, pb = ca @ ax, cb @ ax
            if pa.max() <= pb.min() + 1e-12 or pb.max() <= pa.min() + 1e-12:
                return False
    return True


def floor_footprint(cam: np.ndarray, width: int, height: int, f: float, *, z: float = 0.0,
                    k1: float = 0.0) -> np.ndarray:
    """(n, 2) polygon of the floor plane z that the image sees (its border cast down)."""
    t = np.linspace(0, 1, 9)[:-1]
    border = np.concatenate([
        np.stack([t * width, np.zeros_like(t)], 1),
        np.stack([np.full_like(t, width), t * height], 1),
        np.stack([(1 - t) * width, np.full_like(t, height)], 1),
        np.stack([np.zeros_like(t), (1 - t) * height], 1)])
    xy = undistort(from_pixels(border, width, height, f), k1)
    rays = np.concatenate([xy, -np.ones((len(xy), 1))], axis=1) @ cam[:3, :3].T
    if np.any(rays[:, 2] >= -1e-6):
        raise ValueError("the camera sees above the horizon")
    s = (z - cam[2, 3]) / rays[:, 2]
    return (cam[:3, 3] + rays * s[:, None])[:, :2]
