"""Rendering a roll and making numbered frames of a training set.

`render_roll(scene, dice)` renders given dice on a given table (a demo game's replay
keeps the scene and changes the dice); `make_frame(kind, number)` draws table and
dice from the frame's number alone, so a frame is the same whoever renders it, in
whatever order, and any range of numbers can be rendered apart and merged.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from vision.training.render import labels as labelling
from vision.training.render import placement, post
from vision.training.render.scene import KINDS, DieSpec, SceneSpec, sample_scene

_STAGE: Any = None


@dataclass
class Roll:
    """A rendered roll: the picture (BGR uint8, as decoded from `jpeg`), the JPEG file's
    bytes, the labels, the ignore boxes, and a summary of the table."""

    image: np.ndarray
    jpeg: bytes
    dice: list[dict]
    ignore: list[dict]
    scene: dict


def stage(threads: int = 1) -> Any:
    """This process's Blender stage (made on first use; bpy allows one scene)."""
    global _STAGE
    if _STAGE is None:
        from vision.training.render.blender import Stage
        _STAGE = Stage(threads=threads)
    return _STAGE


def render_roll(scene: SceneSpec, dice: Sequence[DieSpec], *, seed: int = 0) -> Roll:
    """Render `dice` on `scene`; deterministic for the same arguments (`seed` drives
    Cycles' sampling and the sensor noise)."""
    raw, ids = stage().render(scene, dice, seed=seed)
    image, data = post.finish(raw, scene.post, np.random.default_rng([seed, 7]))
    found, ignore = labelling.die_labels(ids, dice, scene)
    return Roll(image, data, found, ignore, labelling.summary(scene, dice))


def table_rng(kind: str, table: int) -> np.random.Generator:
    return np.random.default_rng([KINDS.index(kind), table, 11])


def frame_scene(kind: str, number: int, *, per_table: int = 1, samples: int = 2
                ) -> tuple[SceneSpec, list[DieSpec]]:
    """The table and dice of frame `number` of a set of `kind`: frames
    `per_table` in a row share a table (tray, camera, light, colour sets)."""
    scene = sample_scene(table_rng(kind, number // per_table), kind=kind)
    scene = replace(scene, samples=samples)
    dice = placement.sample_dice(np.random.default_rng([KINDS.index(kind), number, 13]), scene)
    return scene, dice


def make_frame(kind: str, number: int, *, per_table: int = 1, samples: int = 2) -> Roll:
    """Frame `number` of a set of `kind`, rendered."""
    scene, dice = frame_scene(kind, number, per_table=per_table, samples=samples)
    return render_roll(scene, dice, seed=number)
