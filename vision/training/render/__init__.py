"""Photoreal synthetic dice for training: Blender (Cycles, CPU) as a Python module.

Rolls of bevelled dice at rest in trays or on tables, seen from above as a Pi camera
over a tray sees them, each written with its labels: per visible die the whole die's
box, its top face's box, the face up, kind (soldier or the Event die) and colour set.

    python -m vision.training.render --out DIR --count N --seed S [--kind dragon-farkle]

A fixed table with dice given explicitly (a demo game's replay):

    scene = sample_scene(np.random.default_rng(4), kind="dragon-farkle")
    dice = [die(scene, scene.sets[0][0], 5, 0.02, -0.01, yaw=30),
            die(scene, "event", "dragon", -0.03, 0.02)]
    roll = render_roll(scene, dice)  # roll.image (BGR), roll.dice (labels)

Everything but the rendering (scene and dice sampling, textures, projection, labels,
the set on disk) is pure numpy/OpenCV and works without Blender; `render_roll` needs
the `render` extra (bpy 4.5, Python 3.11).
"""
from __future__ import annotations

from vision.training.render.frames import Roll, frame_scene, make_frame, render_roll
from vision.training.render.looks import COLOUR_SETS, DieLook
from vision.training.render.placement import die, place, sample_dice
from vision.training.render.scene import (
    CameraSpec,
    DieSpec,
    LightSpec,
    PostSpec,
    SceneSpec,
    SurfaceSpec,
    TraySpec,
    sample_scene,
)

__all__ = [
    "COLOUR_SETS", "CameraSpec", "DieLook", "DieSpec", "LightSpec", "PostSpec", "Roll",
    "SceneSpec", "SurfaceSpec", "TraySpec", "die", "frame_scene", "make_frame", "place",
    "render_roll", "sample_dice", "sample_scene",
]
