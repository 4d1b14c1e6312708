"""The made-up Event dice the learned face comparison trains on (vision/training/event_faces.py).

No torch here: the drawing and the examples are numpy and OpenCV, and must be readable
by the reader's own matcher, or the network would learn from noise.
"""
from __future__ import annotations

import numpy as np

from vision import event
from vision.training import event_faces as ef


def test_each_die_has_its_own_emblems_and_each_face_its_own() -> None:
    a, b = ef.emblem("dragon", 1), ef.emblem("rally", 1)
    assert np.array_equal(a, ef.emblem("dragon", 1))  # a die's emblem is fixed by its seed
    assert a.max() > 0.9 and b.max() > 0.9
    assert np.abs(a - b).mean() > 0.02
    assert np.abs(a - ef.emblem("dragon", 2)).mean() > 0.02


def test_a_drawn_die_lies_in_its_box() -> None:
    rng = np.random.default_rng(3)
    look = ef.sample_look(rng)
    frame, (x, y, w, h) = ef.draw(look, "blank", rng, side=40.0, tray=(40, 120, 40))
    assert frame.dtype == np.uint8 and frame.shape[0] == frame.shape[1] == 160
    cx, cy = x + w / 2, y + h / 2
    assert abs(cx - 80) < 8 and abs(cy - 80) < 8
    # the die's top face, not the tray, is in the middle of the box
    mid = frame[int(cy) - 3:int(cy) + 4, int(cx) - 3:int(cx) + 4].reshape(-1, 3).mean(axis=0)
    assert np.abs(mid - np.array([40, 120, 40])).max() > 10


def test_examples_are_readable_by_the_reader_s_matcher() -> None:
    data = ef.dataset(ef.made_up(30, seed=5), ink=True)
    turns = len(event._turns(4))
    assert data["views"].shape == (30, 6 * turns, 3 * event.WIN ** 2)
    assert data["queries"].shape == (30, ef.QUERIES, 3 * event.WIN ** 2)
    assert set(data["face"].tolist()) <= {0, 1, 2}
    right = sum(int(ef.face_distances(q, v).argmin() == f)
                for q, v, f in zip(data["ink_queries"], data["ink_views"], data["face"]))
    assert right >= 20, right  # most, not all: glints and dim light make it hard
