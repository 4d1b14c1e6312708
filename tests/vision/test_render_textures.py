"""The rendered dice's face textures: pips counted right, Event-die emblems varied."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.training.render import looks, textures


def test_every_pip_face_shows_its_value():
    rng = np.random.default_rng(0)
    rims = 0
    for _ in range(30):
        look = looks.sample_look(rng)
        rims += look.rim is not None
        ink, height = textures.atlas(look, cell=96)
        for slot, value in enumerate(look.faces):
            assert textures.ink_count(ink, slot) == value
        assert height.max() <= 0 and height.min() < -0.5  # pips are recesses for the bump
    assert rims >= 3  # pips with rims were among them


def test_pips_take_the_ink_colour_and_rims_their_own():
    look = replace(looks.sample_look(np.random.default_rng(1)), ink=(1.0, 1.0, 0.0),
                   rim=(0.0, 0.0, 1.0), bevel=0.08, pip_radius=0.08, pip_offset=0.25)
    ink, _ = textures.atlas(look, cell=128)
    centre = ink[64, 64]  # the 1 face (slot 0): one pip in the middle
    assert np.allclose(centre, (1, 1, 0, 1), atol=0.02)
    ring = ink[64, 64 + int(0.08 * 128 * 1.2)]
    assert np.allclose(ring, (0, 0, 1, 1), atol=0.02)
    assert ink[5, 5, 3] == 0  # the body shows at the corner


def test_event_die_has_four_blank_faces_and_two_emblems():
    look, _ = looks.event_look(np.random.default_rng(2))
    ink, _ = textures.atlas(look, cell=96)
    cell = 96
    for slot, face in enumerate(look.faces):
        area = ink[(slot // 3) * cell:(slot // 3 + 1) * cell,
                   (slot % 3) * cell:(slot % 3 + 1) * cell, 3].sum()
        assert (area > 20) == (face in ("dragon", "rally")), face


def test_emblems_are_fixed_by_their_seed_and_differ_between_seeds_and_faces():
    a = textures.emblem(96, "dragon", 5)
    assert np.array_equal(a, textures.emblem(96, "dragon", 5))
    others = [textures.emblem(96, "rally", 5)] + [textures.emblem(96, "dragon", s)
                                                   for s in range(6, 14)]
    assert all(np.abs(a - o).mean() > 0.01 for o in others)


def test_emblems_stay_inside_the_flat_face():
    for seed in range(40):
        e = textures.emblem(128, "dragon" if seed % 2 else "rally", seed, inner=0.5)
        ys, xs = np.nonzero(e > 0.05)
        assert len(xs) > 0
        assert xs.min() >= 128 * 0.1 and xs.max() <= 128 * 0.9
        assert ys.min() >= 128 * 0.1 and ys.max() <= 128 * 0.9
