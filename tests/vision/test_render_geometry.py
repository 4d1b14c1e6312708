"""The renderer's geometry: which face is up, the camera's projection, the lens, overlaps."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision.training.render import geometry


@pytest.mark.parametrize("slot", range(6))
@pytest.mark.parametrize("yaw", [0.0, 37.0, 90.0, 200.0])
def test_die_matrix_puts_the_slot_up_and_rests_on_the_floor(slot, yaw):
    m = geometry.die_matrix(0.1, -0.2, 0.016, yaw, slot)
    assert geometry.up_slot(m) == slot
    corners = geometry.die_corners(m)
    assert corners[:, 2].min() == pytest.approx(0.0, abs=1e-12)
    assert corners[:, 2].max() == pytest.approx(0.016)


def test_face_texture_axes_are_not_mirrored():
    for n, (right, up) in zip(geometry.SLOT_NORMALS, geometry.SLOT_AXES):
        assert np.allclose(np.cross(right, up), n)


def test_a_point_below_a_level_camera_is_at_the_centre_and_sizes_scale_with_distance():
    cam = geometry.camera_matrix(0.05, 0.02, 0.5, yaw=33)
    f = geometry.focal_px(640, 66)
    uv = geometry.to_pixels(geometry.to_camera(np.array([[0.05, 0.02, 0.0]]), cam), 640, 480, f)
    assert np.allclose(uv, [[320, 240]])
    edge = geometry.to_camera(np.array([[0.05, 0.02, 0.0], [0.05 + 0.016, 0.02, 0.0]]), cam)
    assert np.linalg.norm(edge[1] - edge[0]) * f == pytest.approx(f * 0.016 / 0.5)


def test_horizontal_field_of_view_reaches_the_frame_edges():
    f = geometry.focal_px(640, 66)
    cam = geometry.camera_matrix(0, 0, 1.0)
    x = math.tan(math.radians(33))
    uv = geometry.to_pixels(geometry.to_camera(np.array([[x, 0, 0], [-x, 0, 0]]), cam),
                            640, 480, f)
    assert np.allclose(uv[:, 0], [640, 0])


def test_image_up_is_world_y_for_an_unturned_camera():
    cam = geometry.camera_matrix(0, 0, 1.0)
    f = geometry.focal_px(640, 66)
    uv = geometry.to_pixels(geometry.to_camera(np.array([[0, 0.1, 0]]), cam), 640, 480, f)
    assert uv[0, 1] < 240 and uv[0, 0] == pytest.approx(320)


def test_a_tilted_camera_moves_the_point_below_it_off_centre():
    cam = geometry.camera_matrix(0, 0, 0.5, tilt=5, tilt_dir=0)
    f = geometry.focal_px(640, 66)
    uv = geometry.to_pixels(geometry.to_camera(np.array([[0.0, 0.0, 0.0]]), cam), 640, 480, f)
    assert abs(uv[0, 1] - 240) == pytest.approx(f * math.tan(math.radians(5)), rel=1e-6)


def test_points_behind_the_camera_are_refused():
    with pytest.raises(ValueError):
        geometry.to_camera(np.array([[0, 0, 2.0]]), geometry.camera_matrix(0, 0, 1.0))


@pytest.mark.parametrize("k1", [-0.15, -0.05, 0.0, 0.01])
def test_distortion_round_trips_and_a_barrel_pulls_points_in(k1):
    xy = np.random.default_rng(0).uniform(-1.5, 1.5, (200, 2))
    assert np.allclose(geometry.undistort(geometry.distort(xy, k1), k1), xy)
    r0, r1 = np.linalg.norm(xy, axis=1), np.linalg.norm(geometry.distort(xy, k1), axis=1)
    if k1 < 0:
        assert np.all(r1 < r0)
    elif k1 == 0:
        assert np.allclose(r1, r0)


def test_squares_may_touch_but_not_overlap():
    a = (0.0, 0.0, 0.016, 0.0)
    assert geometry.squares_overlap(a, (0.0159, 0.0, 0.016, 0.0))
    assert not geometry.squares_overlap(a, (0.0161, 0.0, 0.016, 0.0))
    # turned 45 degrees, the corner reaches half the diagonal
    reach = 0.008 + 0.016 / math.sqrt(2)
    assert geometry.squares_overlap(a, (reach - 1e-4, 0.0, 0.016, 45.0))
    assert not geometry.squares_overlap(a, (reach + 1e-4, 0.0, 0.016, 45.0))
    assert geometry.squares_overlap(a, (0.0165, 0.0, 0.016, 0.0), gap=0.001)


def test_footprint_holds_the_point_below_and_grows_with_height():
    f = geometry.focal_px(640, 66)
    low = geometry.floor_footprint(geometry.camera_matrix(0, 0, 0.3), 640, 480, f)
    high = geometry.floor_footprint(geometry.camera_matrix(0, 0, 0.6), 640, 480, f)
    def area(p: np.ndarray) -> float:
        return 0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], 1)) - np.dot(p[:, 1], np.roll(p[:, 0], 1)))
    assert area(high) == pytest.approx(4 * area(low), rel=1e-6)
    assert np.abs(low[:, 0]).max() == pytest.approx(0.3 * math.tan(math.radians(33)))


def test_top_outline_without_rounding_is_the_top_face():
    m = geometry.die_matrix(0.0, 0.0, 0.02, 20.0, 3)
    outline = geometry.top_outline(m, 0.0)
    corners = geometry.top_corners(m)
    assert np.allclose(outline[:, 2], 0.02)
    for c in corners:
        assert np.min(np.linalg.norm(outline - c, axis=1)) < 1e-9
    rounded = geometry.top_outline(m, 0.2)
    assert np.max(np.linalg.norm(rounded[:, :2], axis=1)) < np.max(np.linalg.norm(
        corners[:, :2], axis=1))
