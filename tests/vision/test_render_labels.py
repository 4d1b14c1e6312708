"""Labels from the object-index picture, and the lens warp that both picture and labels get."""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.training.render import geometry, labels, post
from vision.training.render.frames import frame_scene
from vision.training.render.scene import PostSpec


def _ids(scene, dice, shape) -> np.ndarray:
    """An object-index picture drawn from the geometry: each die's projected hull."""
    ids = np.zeros(shape, np.int32)
    for k, d in enumerate(dice):
        uv = labels.project(scene, geometry.die_corners(d.matrix()))
        cv2.fillConvexPoly(ids, cv2.convexHull(np.round(uv - 0.5).astype(np.int32)), k + 1)
    return ids


def _scene_with_dice():
    for number in range(50):
        scene, dice = frame_scene("dragon-farkle", number)
        if len(dice) >= 6:
            return scene, dice
    raise AssertionError("no roll of six dice")


def test_boxes_come_from_the_index_picture_and_faces_from_the_dice():
    scene, dice = _scene_with_dice()
    ids = _ids(scene, dice, (scene.height, scene.width))
    found, _ = labels.die_labels(ids, dice, scene)
    by_face = {(d["value"], d["set"]) for d in found}
    assert by_face <= {(d.face, d.set) for d in dice}
    for d in found:
        x, y, w, h = d["bbox"]
        tx, ty, tw, th = d["top_bbox"]
        assert tx >= x - 1 and ty >= y - 1 and tx + tw <= x + w + 1 and ty + th <= y + h + 1
        assert 0.5 < tw / w <= 1.05 and d["kind"] in ("soldier", "event")
    event = [d for d in found if d["kind"] == "event"]
    assert all(d["value"] in ("blank", "dragon", "rally") and d["colour"] for d in event)


def test_a_die_hidden_behind_something_is_an_ignore_box_and_an_unseen_one_nothing():
    scene, dice = _scene_with_dice()
    ids = _ids(scene, dice, (scene.height, scene.width))
    found, ignore = labels.die_labels(ids, dice, scene)
    n = len(found)
    ids[ids == 1] = 0  # die 0 unseen
    ys, xs = np.nonzero(ids == 2)
    ids[ys[: int(len(ys) * 0.7)], xs[: int(len(xs) * 0.7)]] = 0  # most of die 1 covered
    found2, ignore2 = labels.die_labels(ids, dice, scene)
    assert len(found2) == n - 2 and len(ignore2) == len(ignore) + 1


def test_a_wide_lens_renders_wider_and_needs_no_more_than_the_overscan():
    scene, _ = frame_scene("mixed", 3)
    flat = replace(scene, camera=replace(scene.camera, k1=0.0))
    assert post.render_size(flat) == (scene.width, scene.height, flat.focal())
    wide = replace(scene, camera=replace(scene.camera, hfov=102.0, k1=-0.12))
    wr, hr, fr = post.render_size(wide)
    assert wr > scene.width and hr > scene.height and fr <= wide.focal()
    assert wr <= scene.width * post.MAX_OVERSCAN + 4


@pytest.mark.parametrize("k1", [0.0, -0.04, -0.12])
def test_the_lens_warp_moves_the_picture_where_the_labels_project(k1):
    """A bright dot at a world point in the pinhole render ends up, after the warp,
    exactly where `labels.project` (the labels' projection) puts that point."""
    scene, _ = frame_scene("mixed", 3)
    scene = replace(scene, camera=replace(scene.camera, hfov=90.0, k1=k1, tilt=3.0))
    wr, hr, fr = post.render_size(scene)
    foot = geometry.floor_footprint(scene.camera.matrix(), scene.width, scene.height,
                                    scene.focal(), k1=k1)
    for t in (0.05, 0.3, 0.5, 0.8):
        point = np.append(foot.mean(axis=0) * (1 - t) + foot[5] * t * 0.9, 0.0)[None]
        pin = geometry.to_pixels(geometry.to_camera(point, scene.camera.matrix()), wr, hr, fr)
        yy, xx = np.mgrid[0:hr, 0:wr] + 0.5  # pixel centres
        dot = np.exp(-((xx - pin[0, 0]) ** 2 + (yy - pin[0, 1]) ** 2) / (2 * 2.0 ** 2))
        render = np.repeat(dot[..., None], 3, axis=2).astype(np.float32)
        ids = np.zeros((hr, wr), np.int32)
        ids[int(pin[0, 1]), int(pin[0, 0])] = 1
        image, out_ids = post.distort_frame(render, ids, scene)
        assert image.shape[:2] == (scene.height, scene.width)
        m = cv2.moments(image[..., 0])
        expect = labels.project(scene, point)[0]
        assert np.hypot(m["m10"] / m["m00"] + 0.5 - expect[0],
                        m["m01"] / m["m00"] + 0.5 - expect[1]) < 0.1
        ys, xs = np.nonzero(out_ids)  # the index picture goes the same way
        assert len(xs) and np.all(np.hypot(xs + 0.5 - expect[0], ys + 0.5 - expect[1]) < 2)


def test_finishing_returns_the_picture_its_jpeg_decodes_to():
    rng = np.random.default_rng(0)
    raw = rng.uniform(0, 1, (48, 64, 3)).astype(np.float32)
    spec = PostSpec(vignette=0.3, blur=1.0, motion=3.0, noise=4.0, jpeg=70)
    image, data = post.finish(raw, spec, np.random.default_rng(1))
    assert np.array_equal(image, cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))
    again, _ = post.finish(raw, spec, np.random.default_rng(1))
    assert np.array_equal(image, again)


def test_auto_exposure_brings_a_dark_table_up_to_mid_grey_within_the_camera_s_gain():
    dark = np.full((10, 10, 3), 0.2, np.float32)
    out, gain = post.auto_expose(dark, 0.0)
    assert out.mean() == pytest.approx(0.46, abs=0.01) and 5 < gain < 6
    black = np.full((10, 10, 3), 0.01, np.float32)
    assert post.auto_expose(black, 0.0)[1] == 16.0
    brighter, _ = post.auto_expose(dark, 1.0)
    assert brighter.mean() > out.mean()
