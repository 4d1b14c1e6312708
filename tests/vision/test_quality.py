"""Frame warnings on darkened, glaring and hand-in-tray frames, and none on good ones."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

import vision
from calibration.profile import Profile
from vision.quality import frame_warnings
from vision.synthetic import SynthDie, render_frame

SAMPLES = Path(vision.__file__).resolve().parent / "samples"


def _scene(seed: int = 0) -> tuple[np.ndarray, list]:
    rng = np.random.default_rng(seed)
    bg = np.full((480, 640, 3), 180, np.uint8)
    dice = [SynthDie(4, (200 + 90 * i, 240), 44, 20 * i, (40, 40, 200), (240, 240, 240))
            for i in range(3)]
    return render_frame(dice, background=bg, rng=rng)


def _codes(frame, boxes, profile=None) -> list[str]:
    return [w.code for w in frame_warnings(frame, boxes, profile=profile)]


def test_good_synthetic_and_real_frames_have_no_warnings() -> None:
    frame, boxes = _scene()
    assert _codes(frame, boxes) == []
    for folder in SAMPLES.iterdir():
        manifest = json.loads((folder / "manifest.json").read_text())
        for entry in manifest["images"]:
            img = cv2.imread(str(folder / entry["file"]))
            boxes = [(x - w, y - h, 3 * w, 3 * h) for x, y, w, h in
                     (d["bbox"] for d in entry["dice"])]
            assert _codes(img, boxes) == [], entry["file"]


def test_dark_frame() -> None:
    frame, boxes = _scene()
    warnings = frame_warnings((frame * 0.2).astype(np.uint8), boxes)
    assert [w.code for w in warnings] == ["dark"]
    assert "light" in warnings[0].message


def test_glare_on_a_die() -> None:
    frame, boxes = _scene()
    x, y, w, h = boxes[1]
    cv2.circle(frame, (x + w // 2, y + h // 2), w // 3, (255, 255, 255), -1)
    warnings = frame_warnings(frame, boxes)
    assert [w.code for w in warnings] == ["glare"] and warnings[0].box == tuple(boxes[1])


def test_hand_in_the_tray() -> None:
    frame, boxes = _scene()
    cv2.ellipse(frame, (520, 380), (110, 70), 30, 0, 360, (120, 155, 205), -1)
    assert _codes(frame, boxes) == ["hand"]


def test_object_in_a_calibrated_tray() -> None:
    frame, boxes = _scene()
    cv2.rectangle(frame, (420, 320), (600, 460), (140, 60, 20), -1)  # a blue phone case
    tray = Profile(tray=((0, 0), (640, 0), (640, 480), (0, 480)))
    assert _codes(frame, boxes, tray) == ["object"]
    assert _codes(frame, boxes) == []  # uncalibrated: only skin-coloured blobs count


def test_frame_is_not_changed() -> None:
    frame, boxes = _scene(1)
    before = frame.copy()
    frame_warnings(frame, boxes)
    assert np.array_equal(before, frame)


def _walled_tray(seed: int = 0) -> tuple[np.ndarray, np.ndarray, list]:
    """A blue-purple felt floor inside brown walls 70 px wide (a dice tray seen from
    above), empty and with three dice on the floor."""
    empty = np.full((480, 640, 3), (60, 95, 130), np.uint8)  # the walls
    empty[70:410, 70:570] = (205, 80, 105)  # the felt
    dice = [SynthDie(4, (220 + 90 * i, 240), 44, 20 * i, (40, 40, 200), (240, 240, 240))
            for i in range(3)]
    frame, boxes = render_frame(dice, background=empty.copy(), rng=np.random.default_rng(seed))
    return empty, frame, boxes


def test_a_tray_whose_walls_are_not_its_felt_is_no_object_once_calibrated() -> None:
    from calibration.procedures import learn_tray_colors

    empty, frame, boxes = _walled_tray()
    tray = ((0.0, 0.0), (640.0, 0.0), (640.0, 480.0), (0.0, 480.0))
    colors = learn_tray_colors(empty, tray)
    assert len(colors) == 2  # the felt and the walls
    # Dice left in the tray are too few to count among its colours.
    red = cv2.cvtColor(np.uint8([[[40, 40, 200]]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    assert all(np.linalg.norm(np.subtract(c, red)) > 40 for c in learn_tray_colors(frame, tray))
    learned = Profile(tray=tray, tray_colors=colors)
    assert _codes(frame, boxes, learned) == []
    # Knowing only the polygon, the brown walls were a hand on every roll.
    assert _codes(frame, boxes, Profile(tray=tray)) == ["hand"]
    # A real hand or object is still seen.
    hand = frame.copy()
    cv2.ellipse(hand, (320, 330), (110, 60), 0, 0, 360, (120, 155, 205), -1)
    assert _codes(hand, boxes, learned) == ["hand"]
    phone = frame.copy()
    cv2.rectangle(phone, (380, 290), (560, 400), (140, 160, 20), -1)
    assert _codes(phone, boxes, learned) == ["object"]


def test_a_dark_felt_under_a_good_light_is_not_too_dark() -> None:
    felt = np.full((480, 640, 3), (60, 20, 40), np.uint8)  # dark purple felt
    frame, boxes = render_frame([SynthDie(3, (320, 240), 48, 10, (235, 235, 235), (30, 30, 30))],
                                background=felt, rng=np.random.default_rng(0))
    assert _codes(frame, boxes) == []  # the white die is lit: the felt is just dark
    assert _codes((frame * 0.35).astype(np.uint8), boxes) == ["dark"]  # the light is weak
    assert _codes(felt, []) == ["dark"]  # nothing lit in the tray: the light cannot be told


def test_glare_off_the_dice_warns_only_when_it_could_hide_a_die() -> None:
    frame, boxes = _scene()
    glint = frame.copy()
    for x in (60, 120, 180, 240, 300):  # a lamp's glints on the felt, each far under a die
        cv2.circle(glint, (x, 420), 12, (255, 255, 255), -1)
    assert _codes(glint, boxes) == []
    patch = frame.copy()
    cv2.circle(patch, (80, 400), 30, (255, 255, 255), -1)  # a patch a die could vanish in
    warnings = frame_warnings(patch, boxes)
    assert [w.code for w in warnings] == ["glare"]
    x, y, w, h = warnings[0].box
    assert x < 80 < x + w and y < 400 < y + h  # the box shows where
    assert _codes(glint, []) == ["glare"]  # no dice found: a die's size is unknown
