"""Scene and dice sampling of the renderer (pure: no Blender needed)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from vision.training.render import geometry, looks, placement
from vision.training.render.frames import frame_scene
from vision.training.render.scene import KINDS, LightSpec, PostSpec, sample_scene

SEEDS = range(40)


def _px(scene, die) -> float:
    """The die's top-face side in pixels, through the scene's camera and lens."""
    from vision.training.render.labels import project
    uv = project(scene, geometry.top_corners(die.matrix()))
    return float(np.mean(np.linalg.norm(uv - np.roll(uv, 1, axis=0), axis=1)))


@pytest.mark.parametrize("kind", KINDS)
def test_a_frame_depends_on_its_number_only(kind):
    a = frame_scene(kind, 17)
    assert a == frame_scene(kind, 17)
    assert a != frame_scene(kind, 18)


def test_frames_of_one_table_share_everything_but_the_dice():
    a, da = frame_scene("dragon-farkle", 20, per_table=5)
    b, db = frame_scene("dragon-farkle", 24, per_table=5)
    c, _ = frame_scene("dragon-farkle", 25, per_table=5)
    assert a == b and a != c and da != db


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        sample_scene(np.random.default_rng(0), kind="poker")


@pytest.mark.parametrize("kind", KINDS)
def test_dice_never_pass_into_each_other_or_the_walls(kind):
    touching = 0
    for seed in SEEDS:
        scene, dice = frame_scene(kind, seed)
        tray = scene.tray.polygon()
        for d in dice:
            corners = geometry.die_corners(d.matrix())[:, :2]
            assert all(placement.depth_inside(tray, x, y) > 0 for x, y in corners)
        for a, b in combinations(dice, 2):
            sa, sb = (a.x, a.y, a.look.size, a.yaw), (b.x, b.y, b.look.size, b.yaw)
            assert not geometry.squares_overlap(sa, sb)
            touching += geometry.squares_overlap(sa, sb, gap=0.0005)
    assert touching >= 5  # some dice lie against each other


def test_mixed_sets_span_small_to_big_dice_and_every_tray():
    sizes, trays, lenses, styles = [], Counter(), Counter(), Counter()
    for seed in range(120):
        scene, dice = frame_scene("mixed", seed)
        sizes += [_px(scene, d) for d in dice]
        trays[scene.tray.shape] += 1
        lenses[scene.camera.lens] += 1
        styles.update(d.look.style for d in dice)
    assert min(sizes) < 20 and max(sizes) > 180
    assert 12 < np.median(sizes) < 120
    assert set(trays) == {"square", "hex", "table"}
    assert set(lenses) == {"normal", "wide", "other"}
    assert set(styles) == set(looks.STYLES)


def test_dragon_farkle_rolls_are_two_players_and_the_event_die_under_a_pi_camera():
    own_colour = 0
    for seed in SEEDS:
        scene, dice = frame_scene("dragon-farkle", seed)
        assert scene.camera.lens in ("normal", "wide")
        assert scene.tray.shape in ("square", "hex") and scene.tray.floor.kind == "felt"
        names = [n for n, _ in scene.sets]
        assert len(names) == 2 and len(set(names)) == 2
        assert all(n in looks.COLOUR_SETS or n in looks.PLAIN_BODIES for n in names)
        counts = Counter(d.set for d in dice)
        assert counts["event"] == 1
        assert all(counts[n] <= 6 for n in names)
        event = next(d for d in dice if d.kind == "event")
        assert event.face in looks.EVENT_NAMES
        own_colour += scene.event_colour in names
        assert all(20 <= _px(scene, d) <= 90 for d in dice)
    assert own_colour >= 3  # Soldier dice of the Event die's own colour


def test_low_angle_cameras_are_tipped_and_aimed_at_the_tray():
    from vision.training.render.labels import project
    from vision.training.render.scene import LOW_TILT
    for seed in SEEDS:
        scene, dice = frame_scene("low-angle", seed)
        cam = scene.camera
        assert LOW_TILT[0] <= cam.tilt <= LOW_TILT[1] and cam.lens != "wide"
        # the point it looks at lies within the tray, near the picture's centre
        aim = cam.matrix()[:3, :3] @ np.array([0.0, 0.0, -1.0])
        spot = cam.matrix()[:3, 3] + aim * (cam.height / -aim[2])
        assert placement.depth_inside(scene.tray.polygon(), spot[0], spot[1]) > 0
        u, v = project(scene, spot[None, :])[0]
        assert abs(u - scene.width / 2) < 2 and abs(v - scene.height / 2) < 2
        assert dice and all(5 <= _px(scene, d) <= 300 for d in dice)  # far dice smaller
    straight = [frame_scene("mixed", seed)[0].camera.tilt for seed in SEEDS]
    assert max(straight) <= 15.0


def test_event_die_shows_blank_four_times_in_six():
    rng = np.random.default_rng(3)
    look, _ = looks.event_look(rng)
    faces = Counter(placement.random_face(rng, look) for _ in range(6000))
    assert faces["blank"] / 6000 == pytest.approx(4 / 6, abs=0.03)
    assert faces["dragon"] / 6000 == pytest.approx(1 / 6, abs=0.02)


def test_event_die_bodies_include_black_white_and_set_colours():
    rng = np.random.default_rng(5)
    names = Counter(looks.event_look(rng)[1] for _ in range(300))
    assert {"black", "white", "other"} <= set(names)
    assert set(names) & set(looks.COLOUR_SETS)


def test_pips_stay_off_the_rounded_edge_and_apart():
    rng = np.random.default_rng(9)
    for _ in range(500):
        look = looks.sample_look(rng)
        k = 1.45 if look.rim else 1.0
        assert look.pip_offset - look.pip_radius * k >= look.bevel + 0.03 - 1e-9
        assert 0.5 - look.pip_offset >= 2.2 * look.pip_radius * k - 1e-9


def test_explicit_dice_for_a_pinned_table():
    scene, _ = frame_scene("dragon-farkle", 3)
    name = scene.sets[0][0]
    d = placement.die(scene, name, 5, 0.01, 0.02, yaw=30)
    assert (d.face, d.x, d.y, d.yaw, d.kind, d.set) == (5, 0.01, 0.02, 30.0, "soldier", name)
    e = placement.die(scene, "event", "dragon", 0.0, 0.0)
    assert e.kind == "event" and geometry.up_slot(e.matrix()) == e.look.faces.index("dragon")
    with pytest.raises(ValueError, match="no face 7"):
        placement.die(scene, name, 7, 0, 0)
    with pytest.raises(ValueError, match="no face 'rally'"):
        placement.die(scene, name, "rally", 0, 0)
    with pytest.raises(ValueError, match="no colour set 'pink'"):
        placement.die(scene, "pink", 1, 0, 0)
    with pytest.raises(ValueError, match="no Event die"):
        placement.die(replace(scene, event=None), "event", "blank", 0, 0)


def test_full_white_balance_takes_the_lamps_tint_out():
    scene, _ = frame_scene("mixed", 1)
    lamps = (LightSpec(0.1, 0, 1, 0.2, 10, 2700), LightSpec(-0.3, 0.2, 0.8, 0.2, 4, 6000))
    balanced = replace(scene, lights=lamps, post=PostSpec(white_balance=1.0))
    colours, _ = balanced.light_colours()
    w = [lamp.power * lamp.z / (lamp.x ** 2 + lamp.y ** 2 + lamp.z ** 2) ** 1.5 for lamp in lamps]
    mean = sum(wi * np.array(c) for wi, c in zip(w, colours)) / sum(w)
    assert np.allclose(mean, mean[1])
    raw, _ = replace(balanced, post=PostSpec(white_balance=0.0)).light_colours()
    assert raw[0][0] > raw[0][2]  # a 2,700 K lamp unbalanced is orange
