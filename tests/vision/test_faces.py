"""Face crops: neighbouring dice are painted out of each die's crop before it is read."""
from __future__ import annotations

import numpy as np

from vision.faces import CROP, CROP_SCALE, FaceReader, face_matrix, paint_neighbours, warp

GREY = (128.0, 128.0, 128.0)


def _frame() -> np.ndarray:
    """A grey tray, a white die at (100, 100) and, touching it, a light die with four black
    pips at (136, 100), both 40 px wide (the detector's squares of touching dice overlap)."""
    frame = np.full((200, 240, 3), 128, np.uint8)
    frame[80:120, 80:120] = 255
    frame[80:120, 120:156] = 200
    for x in (124, 148):
        for y in (90, 110):
            frame[y - 3:y + 3, x - 3:x + 3] = 0
    return frame


def test_neighbour_is_painted_over_and_the_die_itself_is_kept():
    frame = _frame()
    m = face_matrix((100, 100), 40 * CROP_SCALE)
    crop = warp(frame, m, CROP)
    assert (crop == 0).all(axis=2).sum() >= 8  # the neighbour's pips show in the plain crop
    out = paint_neighbours(crop, m, (100, 100, 40), np.array([[136, 100, 40]]), GREY)
    k = CROP / (40 * CROP_SCALE)
    own = slice(int(CROP / 2 - 20 * k) + 1, int(CROP / 2 + 20 * k) - 1)
    assert np.array_equal(out[own, own], crop[own, own])  # the die's face is untouched
    assert not (out == 0).all(axis=2).any()  # the neighbour's pips are painted over
    assert (crop == 0).all(axis=2).sum() >= 8  # the crop given is not changed


def test_far_dice_and_no_dice_leave_the_crop_as_it_is():
    frame = _frame()
    m = face_matrix((100, 100), 40 * CROP_SCALE)
    crop = warp(frame, m, CROP)
    assert paint_neighbours(crop, m, (100, 100, 40), np.zeros((0, 3)), GREY) is crop
    far = paint_neighbours(crop, m, (100, 100, 40), np.array([[230, 190, 20]]), GREY)
    assert np.array_equal(far, crop)


def test_reader_input_paints_the_other_candidates():
    frame = _frame()
    centers, sides = [(100.0, 100.0), (136.0, 100.0)], [40.0, 40.0]
    blob = FaceReader.blob(frame, centers, sides, CROP)  # (2 dice x 2 views, 3, CROP, CROP)
    assert blob.shape == (4, 3, CROP, CROP)
    white_view = blob[0]  # the white die, unturned: no black pixel of its neighbour left
    assert white_view.min() > -0.45  # black would be (0 - 127.5) / 255 = -0.5
    pips_view = blob[2]  # the other die keeps its own pips
    assert pips_view.min() < -0.49
    alone = FaceReader.blob(frame, centers[:1], sides[:1], CROP)  # nothing else was found
    assert alone[0].min() < -0.49


def _read(label, probs):
    from vision.faces import FaceRead

    return FaceRead(label, max(probs), tuple(probs), True)


def test_choices_offer_the_read_face_first_then_the_likeliest_others():
    # faces 1-6, no pips, not a die: read 3, then 6 and 5 hold enough of the pip faces
    read = _read(3, [0.0, 0.01, 0.5, 0.0, 0.12, 0.3, 0.05, 0.02])
    assert read.choices() == (3, 6, 5)
    assert read.choices(most=2) == (3, 6)
    assert read.choices(share=0.2) == (3, 6)  # 5 holds 0.12 of 0.93: too little


def test_choices_of_a_capped_read_keep_its_label_first():
    # two views disagreed: the label is the averaged argmax, always offered first
    read = _read(2, [0.0, 0.45, 0.44, 0.0, 0.0, 0.0, 0.0, 0.11])
    assert read.choices() == (2, 3)


def test_choices_of_a_face_without_pips_are_the_pip_faces_alone():
    read = _read("nopips", [0.05, 0.0, 0.0, 0.0, 0.0, 0.0, 0.95, 0.0])
    assert read.choices() == (1,)
    assert _read("none", [0.0] * 7 + [1.0]).choices() == ()
