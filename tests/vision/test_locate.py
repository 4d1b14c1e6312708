"""Finding the die a player tapped on a photo (a die the camera missed)."""
from __future__ import annotations

import numpy as np
import pytest

from vision import read_dice
from vision.locate import GUESS_SHARE, die_near, expected_side, mark_box
from vision.types import Die


def _centre(lab):
    x, y, w, h = lab["bbox"]
    return np.array([x + w / 2, y + h / 2]), max(w, h)


@pytest.mark.parametrize("name", ["byler-2019-12-08", "matteop65-train"])
def test_a_tap_beside_a_die_finds_its_centre(samples, name):
    rng = np.random.default_rng(3)
    errors, taps = [], []
    for _, image, labels in samples[name][:3]:
        side = expected_side(read_dice(image).dice, None, image.shape)  # as the table does
        for lab in labels[:4]:
            centre, _ = _centre(lab)  # (matteop65's boxes hold only the pips)
            off = rng.uniform(-0.45, 0.45, 2) * side  # a finger lands this far off
            found = die_near(image, tuple(centre + off), side)
            taps.append(np.hypot(*off) / side)
            if found is None:  # matteop65's train_five_1 labels a second die that is not there
                continue
            errors.append(np.hypot(*(np.array(found[0]) - centre)) / side)
    assert len(errors) >= len(taps) - 1
    assert np.median(errors) < 0.15 < np.median(taps), (errors, taps)


def test_dice_already_read_are_not_the_one_tapped(samples):
    _, image, labels = samples["byler-2019-12-08"][0]
    centre, side = _centre(labels[0])
    found = die_near(image, tuple(centre), side)
    assert np.hypot(*(np.array(found[0]) - centre)) < 0.25 * side
    again = die_near(image, tuple(centre), side, taken=[tuple(found[0])])
    assert again is None or np.hypot(*(np.array(again[0]) - centre)) > 0.5 * side


def test_nothing_there_gives_a_box_of_the_expected_size_at_the_tap():
    blank = np.full((480, 640, 3), 90, np.uint8)
    assert die_near(blank, (320, 240), 40) is None
    assert mark_box(blank, (320, 240)) == (300, 220, 40, 40)  # 480 / 12
    dice = [Die("soldier", 3, (100.0, 100.0), (80, 80, 40, 30), 0.9),
            Die("soldier", 5, (200.0, 100.0), (180, 80, 50, 50), 0.9)]
    assert expected_side(dice, None, blank.shape) == 45
    assert expected_side([], None, blank.shape) == GUESS_SHARE * 480
    with pytest.raises(ValueError, match="positive"):
        die_near(blank, (320, 240), 0)


def test_a_turned_camera_is_tapped_in_its_own_pixels(samples):
    import cv2

    from calibration.profile import Profile
    from vision.reader import _to_raw

    _, image, labels = samples["byler-2019-12-08"][1]
    raw = cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)  # the profile turns it upright
    profile = Profile(rotation=90)
    side = expected_side(read_dice(raw, profile=profile).dice, profile, raw.shape)
    for lab in labels[:4]:
        centre, _ = _centre(lab)
        tap = _to_raw(np.array([centre + 0.3 * side]), 90, raw.shape)[0]  # the phone shows raw
        want = _to_raw(np.array([centre]), 90, raw.shape)[0]
        box = mark_box(raw, tuple(tap), read_dice(raw, profile=profile).dice, profile=profile)
        got = np.array([box[0] + box[2] / 2, box[1] + box[3] / 2])
        assert np.hypot(*(got - want)) < 0.25 * side, (got, want)


def test_a_failing_detector_still_marks_a_square_at_the_tap(tmp_path):
    (tmp_path / "detector.onnx").write_bytes(b"not a network")
    blank = np.full((480, 640, 3), 90, np.uint8)
    assert mark_box(blank, (100, 100), models=tmp_path) == (80, 80, 40, 40)
