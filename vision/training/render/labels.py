"""Labels of a rendered roll: each visible die's box, top-face box, face, kind, set.

The whole die's box comes from the object-index picture (what is really seen of it:
cut by the frame, a wall or another die); the top face's box is its outline (a square
with the die's rounded corners) projected through the same camera and lens. A die too hidden to read (less than
`MIN_TOP` of its top face seen) is not a label but an "ignore" box: a trainer should
neither learn it as a die nor as background. Pure (numpy/OpenCV).
"""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.training.render import geometry
from vision.training.render.scene import DieSpec, SceneSpec

MIN_TOP = 0.6  # share of the top face that must be seen for a die to be labelled
MIN_PIXELS = 12


def project(scene: SceneSpec, points: np.ndarray) -> np.ndarray:
    """(n, 3) world points -> (n, 2) pixel coordinates in the scene's (distorted) frame."""
    xy = geometry.to_camera(points, scene.camera.matrix())
    xy = geometry.distort(xy, scene.camera.k1)
    return geometry.to_pixels(xy, scene.width, scene.height, scene.focal())


def _poly_mask(uv: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    pts = np.round((uv - 0.5) * 16).astype(np.int32)  # pixel centres, 4 bits of subpixel
    cv2.fillConvexPoly(mask, cv2.convexHull(pts), 1, cv2.LINE_8, 4)
    return mask.astype(bool)


def die_labels(ids: np.ndarray, dice: Sequence[DieSpec], scene: SceneSpec
               ) -> tuple[list[dict], list[dict]]:
    """(labels, ignore boxes) of the dice whose object index is their position + 1."""
    shape = ids.shape[:2]
    labels, ignore = [], []
    for k, die in enumerate(dice):
        mask = ids == k + 1
        count = int(mask.sum())
        if count == 0:
            continue
        ys, xs = np.nonzero(mask)
        box = [float(xs.min()), float(ys.min()), float(xs.max() + 1 - xs.min()),
               float(ys.max() + 1 - ys.min())]
        top_uv = project(scene, geometry.top_outline(die.matrix(), die.look.bevel))
        top = _poly_mask(top_uv, shape)
        whole = _poly_mask(project(scene, geometry.die_corners(die.matrix())), shape)
        top_area = max(1.0, float(top.sum()))
        seen_top = float((top & mask).sum()) / top_area
        top_box = geometry.box_of(top_uv, scene.width, scene.height)
        if seen_top < MIN_TOP or count < MIN_PIXELS or top_box is None:
            ignore.append({"bbox": box})
            continue
        label = {"value": die.face, "bbox": box, "top_bbox": top_box, "kind": die.kind,
                 "set": die.set,
                 "visible": round(min(1.0, count / max(1, int(whole.sum()))), 2)}
        if die.kind == "event":
            label["colour"] = scene.event_colour
        labels.append(label)
    return labels, ignore


def summary(scene: SceneSpec, dice: Sequence[DieSpec]) -> dict:
    """A few numbers about the table, kept with each picture (for slicing results)."""
    sides = [float(np.linalg.norm(np.diff(project(scene, geometry.top_corners(d.matrix()))[:2],
                                          axis=0))) for d in dice]
    return {"tray": scene.tray.shape, "floor": scene.tray.floor.kind, "lens": scene.camera.lens,
            "camera_height_m": round(scene.camera.height, 3),
            "tilt_deg": round(scene.camera.tilt, 1), "lamps": len(scene.lights),
            "die_px": round(float(np.median(sides)), 1) if sides else None}
