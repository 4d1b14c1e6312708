"""The demo game's table and its frames' dice (pure: no Blender needed)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vision.training.render import geometry
from vision.training.render.demo import (
    EVENT_APART,
    EVENT_SHOTS,
    EVENT_WALL,
    colour_dice,
    demo_scene,
    event_dice,
    left_after,
    roll_dice,
)
from vision.training.render.labels import project
from vision.training.render.placement import depth_inside, view_polygon


def _pixels(scene, die) -> np.ndarray:
    """Where the die's top face lies in the picture."""
    return project(scene, geometry.top_corners(die.matrix()))


def test_the_table_is_pinned():
    assert demo_scene() == demo_scene()
    scene = demo_scene()
    assert dict(scene.sets).keys() == {"red", "blue"} and scene.event is not None
    assert (scene.width, scene.height) == (640, 480)


@pytest.mark.parametrize("number", [1, 9, 21])
def test_a_roll_lies_in_view_the_same_every_time(number):
    scene = demo_scene()
    dice = roll_dice(scene, [1, 2, 3, 4, 5, 6], "dragon", "red", number, stray=("blue", 2))
    assert dice == roll_dice(scene, [1, 2, 3, 4, 5, 6], "dragon", "red", number,
                             stray=("blue", 2))
    assert dice != roll_dice(scene, [1, 2, 3, 4, 5, 6], "dragon", "red", number + 1)
    assert Counter((d.set, d.face) for d in dice) == Counter(
        [("red", f) for f in range(1, 7)] + [("event", "dragon"), ("blue", 2)])
    for die in dice:  # every die wholly in the picture
        uv = _pixels(scene, die)
        assert uv.min() >= 0 and uv[:, 0].max() < 640 and uv[:, 1].max() < 480
    assert len(view_polygon(scene)) >= 4
    event = next(d for d in dice if d.kind == "event")  # in the light, apart: findable
    assert depth_inside(scene.tray.polygon(), event.x, event.y) >= EVENT_WALL * event.look.size
    assert all(np.hypot(d.x - event.x, d.y - event.y) >= EVENT_APART * event.look.size
               for d in dice if d is not event)


def test_the_set_aside_is_taken_out_and_the_rest_stays_where_it_lay():
    scene = demo_scene()
    dice = roll_dice(scene, [1, 4, 4, 4, 2, 6], "blank", "red", 1, stray=("blue", 5))
    left = left_after(dice, [1, 4, 4, 4], "red")
    assert sorted(str(d.face) for d in left) == ["2", "6", "blank"]
    assert all(d in dice for d in left)  # not moved


def test_the_calibration_pictures_show_what_the_procedures_need():
    scene = demo_scene()
    for colour in ("red", "blue"):
        dice = colour_dice(scene, colour)
        assert sorted(d.face for d in dice) == [1, 2, 3, 4, 5, 6]
        assert {d.set for d in dice} == {colour}
    shots = event_dice(scene)
    assert set(shots) == {"blank", "dragon", "rally"}
    for face, pictures in shots.items():
        assert len(pictures) == EVENT_SHOTS
        assert all(len(p) == 1 and p[0].face == face and p[0].kind == "event" for p in pictures)
