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


class _MarkReadingNet:
    """Reads a light crop as 5, or as 6 when its darkest pixel lies in the crop's lower
    right quarter; a plain grey crop as not a die. Counts the crops of every run."""

    def __init__(self) -> None:
        self.runs: list[int] = []

    def run(self, blob: np.ndarray) -> np.ndarray:
        from vision.faces import NOT_DIE

        self.runs.append(len(blob))
        z = np.zeros((len(blob), 8), np.float32)
        for i, crop in enumerate(blob):
            grey = crop.mean(axis=0)
            if grey.max() < 0.1:
                z[i, NOT_DIE] = 8.0
                continue
            y, x = np.unravel_index(int(grey.argmin()), grey.shape)
            z[i, 5 if y > grey.shape[0] / 2 and x > grey.shape[1] / 2 else 4] = 8.0
        return z


def test_a_die_is_read_in_all_four_quarter_turns_the_tray_in_two(monkeypatch, tmp_path):
    from vision import faces

    net = _MarkReadingNet()
    monkeypatch.setattr(faces, "load_net", lambda path: net)
    reader = FaceReader(tmp_path, [{"file": "scripted.onnx", "temperature": 1.0}])
    frame = np.full((200, 300, 3), 128, np.uint8)
    frame[80:120, 80:120] = 255  # a white die; a grey patch of tray at (220, 100)
    centers, sides = [(100.0, 100.0), (220.0, 100.0)], [40.0, 40.0]
    die, tray = reader.read(frame, centers, sides)
    assert (die.label, tray.label) == (5, "none") and die.agree and die.confidence > 0.99
    assert net.runs == [4, 2]  # both candidates in two views, then the die in two more
    # A mark near the die's upper left corner: only the half turn puts it lower right,
    # so the two views every candidate gets agree, the other two do not: asked about.
    frame[83:89, 83:89] = 0
    die, _ = reader.read(frame, centers, sides)
    assert die.label == 5 and not die.agree and die.confidence <= faces.DISAGREE_CAP
    # Near its lower right corner: the first two views disagree already, so the read is
    # capped whatever the other turns say, and they are not looked at.
    frame[80:120, 80:120] = 255
    frame[111:117, 111:117] = 0
    net.runs.clear()
    die, _ = reader.read(frame, centers, sides)
    assert not die.agree and die.confidence <= faces.DISAGREE_CAP
    assert net.runs == [4]
