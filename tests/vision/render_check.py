"""Checks of real Blender renders, run as a script in its own process (bpy holds one
global scene and prints from C): python render_check.py -> one JSON line on stdout.

Independent of the renderer's own bookkeeping: the camera is checked against Blender's
own projection (bpy_extras.world_to_camera_view), the face up is read off the
evaluated mesh (the polygon facing up, its texture cell), and the labels' boxes against
the dice's projected outlines.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace

import numpy as np


def _cell_up(obj: object, depsgraph: object) -> int:
    """The atlas cell (face slot) of the biggest polygon facing up after the bevel."""
    ev = obj.evaluated_get(depsgraph)  # type: ignore[attr-defined]
    mesh = ev.to_mesh()
    rot = np.array(ev.matrix_world)[:3, :3]
    uv = mesh.uv_layers.active.data
    best, area = -1, 0.0
    for poly in mesh.polygons:
        n = rot @ np.array(poly.normal)
        if n[2] / np.linalg.norm(n) > 0.999 and poly.area > area:
            u, v = np.mean([uv[i].uv for i in poly.loop_indices], axis=0)
            best, area = int((1 - v) * 2) * 3 + int(u * 3), poly.area
    ev.to_mesh_clear()
    return best


def main() -> None:
    import bpy  # first: it puts Blender's own modules (bpy_extras) on the path
    from bpy_extras.object_utils import world_to_camera_view
    from mathutils import Vector

    from vision.training.render import frames, geometry, labels, post
    from vision.training.render.frames import frame_scene, render_roll

    out: dict = {"projection_px": 0.0, "faces": [], "iou": [], "inside": [], "visible": []}
    for kind, number in (("dragon-farkle", 3), ("mixed", 8)):
        scene, dice = frame_scene(kind, number, samples=1)
        if kind == "mixed":  # a wide lens and a tilt: the hardest projection
            scene = replace(scene, camera=replace(scene.camera, hfov=100.0, k1=-0.1, tilt=6))
        roll = render_roll(scene, dice, seed=number)
        sc = bpy.context.scene
        cam = sc.camera
        wr, hr, fr = post.render_size(scene)
        pts = np.concatenate([geometry.die_corners(d.matrix()) for d in dice])
        ours = geometry.to_pixels(geometry.to_camera(pts, scene.camera.matrix()), wr, hr, fr)
        theirs = np.array([[c.x * wr, (1 - c.y) * hr] for c in
                           (world_to_camera_view(sc, cam, Vector(p)) for p in pts)])
        out["projection_px"] = max(out["projection_px"], float(np.abs(ours - theirs).max()))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        objects = {o.pass_index: o for o in sc.objects if o.name.startswith("die")}
        for k, d in enumerate(dice):
            slot = _cell_up(objects[k + 1], depsgraph)
            out["faces"].append([str(d.face), str(d.look.faces[slot])])
        for lab in roll.dice:
            k = next(i for i, d in enumerate(dice) if d.face == lab["value"]
                     and d.set == lab["set"] and _near(scene, d, lab["bbox"]))
            hull = geometry.box_of(labels.project(scene, geometry.die_corners(dice[k].matrix())),
                                   scene.width, scene.height)
            if lab["visible"] >= 0.8:  # whole in view, not hidden behind another die
                out["iou"].append(_iou(hull, lab["bbox"]))
            out["visible"].append(lab["visible"])
            x, y, w, h = lab["bbox"]
            tx, ty, tw, th = lab["top_bbox"]
            out["inside"].append(bool(tx >= x - 2 and ty >= y - 2 and tx + tw <= x + w + 2
                                      and ty + th <= y + h + 2))
        if kind == "dragon-farkle":
            again = render_roll(scene, dice, seed=number)
            out["same_labels"] = again.dice == roll.dice and again.ignore == roll.ignore
            out["same_image"] = float(np.abs(again.image.astype(int) - roll.image).mean())
            out["n_dice"] = len(roll.dice)
    # a pinned table (a demo replay): new dice, same tray, camera and light, no rebuild
    from vision.training.render import placement
    scene, _ = frame_scene("dragon-farkle", 3, samples=1)
    name = scene.sets[0][0]
    for k, face in enumerate((1, 6)):
        builds = frames.stage().builds
        roll = render_roll(scene, [placement.die(scene, name, face, 0.0, 0.0, yaw=10.0 * k),
                                   placement.die(scene, "event", "rally", 0.03, 0.0)], seed=k)
        out.setdefault("pinned", []).append(sorted(str(d["value"]) for d in roll.dice))
    out["pinned_builds"] = frames.stage().builds - builds  # the second roll's
    frames.stage().close()
    print(json.dumps(out))


def _near(scene: object, die: object, box: list[float]) -> bool:
    from vision.training.render import geometry, labels
    c = labels.project(scene, geometry.die_corners(die.matrix())).mean(axis=0)  # type: ignore
    x, y, w, h = box
    return bool(x - 5 <= c[0] <= x + w + 5 and y - 5 <= c[1] <= y + h + 5)


def _iou(a: list[float] | None, b: list[float]) -> float:
    if a is None:
        return 0.0
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


if __name__ == "__main__":
    sys.exit(main())
