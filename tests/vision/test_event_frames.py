"""The Event die has no public photos: frames rendered by vision.synthetic stand in.

With the default profile (no Event die calibrated) a die without pips must still be
found and reported as the Event die with an unknown face, never as a soldier die.
"""
from __future__ import annotations

import numpy as np
import pytest

from vision import read_dice
from vision.synthetic import SynthDie, procedural_background, render_frame


@pytest.mark.parametrize("seed", range(4))
def test_blank_face_is_found_as_the_event_die(seed):
    rng = np.random.default_rng(seed)
    bg = procedural_background((480, 640), rng)
    center = (float(rng.uniform(150, 490)), float(rng.uniform(150, 330)))
    frame, _ = render_frame([SynthDie("blank", center, 48.0, float(rng.uniform(0, 90)))],
                                background=bg, rng=rng)
    reading = read_dice(frame)
    near = [d for d in reading.dice if np.hypot(d.center[0] - center[0],
                                                d.center[1] - center[1]) < 30]
    assert len(near) == 1, reading
    assert near[0].kind == "event" and near[0].value is None


def test_pip_dice_rendered_alike_are_soldiers():
    rng = np.random.default_rng(7)
    bg = procedural_background((480, 640), rng)
    dice = [SynthDie(v, (100.0 + 90 * v, 240.0), 50.0, 10.0 * v, (235, 235, 235), (20, 20, 20))
            for v in range(1, 6)]
    frame, _ = render_frame(dice, background=bg, rng=rng)
    reading = read_dice(frame)
    assert all(d.kind == "soldier" for d in reading.dice)
    assert sum(1 for d in reading.dice if d.value is not None) >= 4
