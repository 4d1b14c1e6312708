"""Event die: faces learned from synthetic frames, read from other synthetic frames.

The Event die has no public photos: every frame here is made by vision.synthetic
(perspective, shading, noise, random rotation, light and position).
"""
from __future__ import annotations

import numpy as np
import pytest

from calibration.procedures import learn_event
from calibration.profile import Profile, default_profile
from vision.event import event_face
from vision.synthetic import SynthDie, procedural_background, random_event_frame, render_frame

FACES = ("blank", "dragon", "rally")


@pytest.fixture(scope="module")
def learned() -> Profile:
    rng = np.random.default_rng(11)
    frames = {f: [random_event_frame(f, rng, background=procedural_background((360, 480), rng))[0]
                  for _ in range(3)] for f in FACES}
    return Profile(event=learn_event(frames))


def test_reads_faces_at_new_rotations_lighting_and_positions(learned: Profile) -> None:
    rng = np.random.default_rng(12)
    right = wrong_sure = unsure_or_none = 0
    for i in range(60):
        face = FACES[i % 3]
        frame, box = random_event_frame(face, rng, background=procedural_background((360, 480), rng),
                                        others=2)
        got = event_face(frame, box, profile=learned)
        if got is None:
            unsure_or_none += 1
        elif got[0] == face:
            right += 1
        elif got[1] >= 0.9:
            wrong_sure += 1
    print(f"Event die: {right}/60 right, {unsure_or_none} not recognised, {wrong_sure} wrong+sure")
    assert right >= 54 and wrong_sure == 0


def test_none_without_an_event_die_in_the_profile() -> None:
    rng = np.random.default_rng(1)
    frame, box = random_event_frame("dragon", rng, background=procedural_background((240, 320), rng))
    assert event_face(frame, box, profile=default_profile()) is None
    assert event_face(frame, box, profile=None) is None


def test_none_for_dice_of_another_colour(learned: Profile) -> None:
    rng = np.random.default_rng(2)
    bg = procedural_background((240, 320), rng)
    for colour in [(240, 240, 240), (200, 80, 30), (30, 160, 40), (20, 20, 20)]:
        frame, boxes = render_frame([SynthDie(5, (160, 120), 48, 20, colour, (10, 10, 10))],
                                    background=bg, rng=rng)
        assert event_face(frame, boxes[0], profile=learned) is None


def test_does_not_change_the_frame(learned: Profile) -> None:
    rng = np.random.default_rng(3)
    frame, box = random_event_frame("rally", rng, background=procedural_background((240, 320), rng))
    before = frame.copy()
    event_face(frame, box, profile=learned)
    assert np.array_equal(frame, before)
