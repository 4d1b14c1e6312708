"""Face crops: neighbouring dice are painted out of each die's crop before it is read."""
from __future__ import annotations

from pathlib import Path

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


class _ScriptedNet:
    """Reads a light crop as `face` with logit `sure` (a plain grey crop as not a die),
    whatever its turn. Counts the crops of every run."""

    def __init__(self, face: int, sure: float) -> None:
        self.face, self.sure = face, sure
        self.runs: list[int] = []

    def run(self, blob: np.ndarray) -> np.ndarray:
        from vision.faces import NOT_DIE

        self.runs.append(len(blob))
        z = np.zeros((len(blob), 8), np.float32)
        for i, crop in enumerate(blob):
            z[i, NOT_DIE if crop.mean(axis=0).max() < 0.1 else self.face - 1] = self.sure
        return z


def _cascade_reader(monkeypatch, tmp_path, nets: dict[str, _ScriptedNet], first: set[str]):
    from vision import faces

    monkeypatch.setattr(faces, "load_net", lambda path: nets[Path(path).name])
    return FaceReader(tmp_path, [{"file": name, "temperature": 1.0, "first": name in first}
                                 for name in nets])


def _die_and_tray() -> tuple[np.ndarray, list[tuple[float, float]], list[float]]:
    frame = np.full((200, 300, 3), 128, np.uint8)
    frame[80:120, 80:120] = 255  # a white die; a grey patch of tray at (220, 100)
    return frame, [(100.0, 100.0), (220.0, 100.0)], [40.0, 40.0]


def test_the_first_members_settle_a_die_they_read_surely(monkeypatch, tmp_path):
    from vision import faces

    nets = {"e.onnx": _ScriptedNet(5, 12.0), "f.onnx": _ScriptedNet(5, 12.0),
            "other.onnx": _ScriptedNet(3, 12.0)}
    reader = _cascade_reader(monkeypatch, tmp_path, nets, {"e.onnx", "f.onnx"})
    frame, centers, sides = _die_and_tray()
    die, tray = reader.read(frame, centers, sides)
    # Both first members read the die as 5 in both views, at 0.99996: it is read so, and
    # the third member, which would have read it as 3, never sees it.
    assert die.label == 5 and die.agree and die.confidence >= faces.FIRST_SURE
    assert tray.label == "none"
    assert nets["e.onnx"].runs == nets["f.onnx"].runs == [4]  # two candidates, two views
    assert nets["other.onnx"].runs == [2]  # the tray alone, in two views
    # Without the mark every member reads the die, and the dissent caps it: asked.
    plain = _cascade_reader(monkeypatch, tmp_path, nets, set())
    die, _ = plain.read(frame, centers, sides)
    assert not die.agree and die.confidence <= faces.DISAGREE_CAP


def test_a_die_the_first_members_are_not_sure_enough_of_is_read_by_all(monkeypatch, tmp_path):
    from vision import faces

    # Logit 6 against seven zeros: 0.98, under FIRST_SURE.
    nets = {"e.onnx": _ScriptedNet(5, 6.0), "f.onnx": _ScriptedNet(5, 6.0),
            "other.onnx": _ScriptedNet(3, 12.0)}
    frame, centers, sides = _die_and_tray()
    cascade = _cascade_reader(monkeypatch, tmp_path, nets, {"e.onnx", "f.onnx"})
    got = cascade.read(frame, centers, sides)
    assert nets["other.onnx"].runs == [4]  # the die and the tray, two views each
    assert not got[0].agree and got[0].confidence <= faces.DISAGREE_CAP
    for net in nets.values():
        net.runs.clear()
    want = _cascade_reader(monkeypatch, tmp_path, nets, set()).read(frame, centers, sides)
    assert got == want  # the same reads as with no member marked first


def test_every_member_marked_first_is_no_cascade(monkeypatch, tmp_path):
    nets = {"e.onnx": _ScriptedNet(5, 12.0), "other.onnx": _ScriptedNet(3, 12.0)}
    frame, centers, sides = _die_and_tray()
    marked = _cascade_reader(monkeypatch, tmp_path, nets, {"e.onnx", "other.onnx"})
    plain = _cascade_reader(monkeypatch, tmp_path, nets, set())
    assert marked.read(frame, centers, sides) == plain.read(frame, centers, sides)


def test_the_bundled_wide_members_are_read_first():
    import json

    from vision.onnxnets import MODEL_DIR

    members = json.loads((MODEL_DIR / "faces.json").read_text())["members"]
    assert [m["file"] for m in members if m.get("first")] == ["faces_e.onnx", "faces_f.onnx"]


def test_the_calibration_reads_with_every_member(monkeypatch):
    """What the calibration takes for a die it learns, from a few pictures: each of its
    readers lets every member read every candidate (no member settles a die alone)."""
    from calibration.event_die import die_likeness
    from calibration.finding import detector_die_side
    from vision import faces
    from vision.detect import detect_dice

    made: list[bool] = []

    class Recording(faces.FaceReader):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(bool(self.first))

    monkeypatch.setattr(faces, "FaceReader", Recording)
    frame, _, _ = _die_and_tray()
    die_likeness(frame, [(80, 80, 40, 40)])
    detect_dice(frame)
    detector_die_side(frame)
    assert len(made) >= 3 and not any(made)
    assert faces.FaceReader().first == [4, 5]  # the reader at play lets the wide pair settle
