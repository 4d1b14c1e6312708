"""Moving found dice onto their top faces (vision/topface.py, vision.detect.on_top_faces)
and the examples its network learns from (vision/training/topface.py)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import topface
from vision.detect import Candidate, on_top_faces
from vision.training import topface as tt


class Constant:
    """A stand-in network: the same answer for every cut, and how many cuts it saw."""

    def __init__(self, answer) -> None:
        self.answer = np.asarray(answer, np.float32)
        self.seen = 0

    def run(self, blob: np.ndarray) -> np.ndarray:
        assert blob.shape[1:] == (3, topface.SIZE, topface.SIZE) and blob.dtype == np.float32
        self.seen += len(blob)
        return np.tile(self.answer, (len(blob), 1))


@pytest.fixture
def stand_in(monkeypatch, tmp_path):
    def use(answer) -> Constant:
        net = Constant(answer)
        file = tmp_path / "topface.onnx"
        file.write_bytes(b"stand-in")
        monkeypatch.setenv("DICE_TOPFACE", str(file))
        monkeypatch.setattr(topface, "load_net", lambda path: net)
        return net
    return use


def test_the_network_is_optional_and_a_named_file_must_be_there(monkeypatch, tmp_path):
    monkeypatch.setenv("DICE_MODELS", str(tmp_path))
    monkeypatch.delenv("DICE_TOPFACE", raising=False)
    assert topface.path() is None  # no network in the model folder: dice stay as found
    (tmp_path / topface.FILE).write_bytes(b"x")
    assert topface.path() == tmp_path / topface.FILE
    monkeypatch.setenv("DICE_TOPFACE", "0")
    assert topface.path() is None
    monkeypatch.setenv("DICE_TOPFACE", str(tmp_path / "missing.onnx"))
    with pytest.raises(FileNotFoundError, match="DICE_TOPFACE"):
        topface.path()


def test_without_a_network_candidates_are_left_as_found(monkeypatch, tmp_path):
    monkeypatch.setenv("DICE_TOPFACE", "0")
    cands = [Candidate((50.0, 50.0), 20.0, 0.9)]
    assert on_top_faces(np.zeros((100, 100, 3), np.uint8), cands, 0.4) == cands


def test_a_correction_moves_and_resizes_the_square_within_bounds(stand_in):
    frame = np.zeros((200, 200, 3), np.uint8)
    stand_in([0.1, -0.2, math.log(1.1)])
    (c,) = topface.refine(frame, [Candidate((100.0, 80.0), 30.0, 0.9)])
    assert c.center == pytest.approx((103.0, 74.0)) and c.side == pytest.approx(33.0)
    assert c.score == 0.9
    stand_in([2.0, -2.0, 3.0])  # a wild answer moves a square only so far
    (c,) = topface.refine(frame, [Candidate((100.0, 80.0), 30.0, 0.9)])
    assert c.center == pytest.approx((100 + 30 * topface.MAX_SHIFT, 80 - 30 * topface.MAX_SHIFT))
    assert c.side == pytest.approx(30 * topface.MAX_SCALE)


def test_weak_peaks_stay_and_squares_landing_on_one_die_are_merged(stand_in):
    net = stand_in([0.3, 0.0, 0.0])
    frame = np.zeros((200, 300, 3), np.uint8)
    found = [Candidate((100.0, 100.0), 20.0, 0.9),
             Candidate((94.0, 100.0), 20.0, 0.6),  # lands 0.3 side from the first: merged
             Candidate((200.0, 100.0), 20.0, 0.5),
             Candidate((40.0, 40.0), 20.0, 0.1)]  # weaker than the threshold: as found
    out = on_top_faces(frame, found, 0.4)
    assert np.allclose([c.center for c in out], [(106.0, 100.0), (206.0, 100.0), (40.0, 40.0)])
    assert net.seen == 3


def test_the_detector_moves_its_squares_unless_asked_for_its_own(stand_in, monkeypatch):
    """DieDetector.detect refines its candidates; top_faces=False (the trainer, which
    learns the detector's own errors) leaves them as the heatmap has them."""
    from vision.detect import DieDetector

    net = stand_in([0.25, 0.0, 0.0])
    out = np.full((4, 30, 40), -9.0, np.float32)
    out[0, 10, 20], out[1:, 10, 20] = 5.0, 0.0  # one peak, side 16 input px, no offset

    def heatmap(self, frame, scale=None):
        return out, 1.0, 1.0
    monkeypatch.setattr(DieDetector, "heatmap", heatmap)
    frame = np.zeros((120, 160, 3), np.uint8)
    (own,) = DieDetector("unused.onnx").detect(frame, top_faces=False)
    assert own.center == pytest.approx((80.0, 40.0)) and net.seen == 0
    (moved,) = DieDetector("unused.onnx").detect(frame)
    assert moved.center == pytest.approx((84.0, 40.0)) and net.seen == 1


@pytest.mark.parametrize("turn, flip", [(0, False), (90, False), (180, True), (270, True)])
def test_an_example_s_answer_points_at_the_face_in_its_cut(turn, flip):
    """Whatever the cut's turn and mirroring, the answer is where the face shows in it."""
    frame = np.full((240, 320, 3), 40, np.uint8)
    face, side = np.array([150.0, 110.0]), 30.0
    cv2.rectangle(frame, (135, 95), (165, 125), (230, 230, 230), -1)
    candidate, cand_side = face + np.array([7.0, -5.0]), 26.0
    m = topface.cut_matrix(candidate, cand_side, angle=turn, flip=flip)
    crop = cv2.warpAffine(frame, m, (topface.SIZE, topface.SIZE), flags=cv2.INTER_AREA)
    answer = tt.target(m, face, side, cand_side)
    ys, xs = np.nonzero(crop[:, :, 0] > 200)
    seen = (np.array([xs.mean(), ys.mean()]) - topface.SIZE / 2) * topface.WINDOW / topface.SIZE
    assert seen == pytest.approx(answer[:2], abs=0.03)
    assert answer[2] == pytest.approx(math.log(side / cand_side))


@pytest.mark.parametrize("turns", range(4))
@pytest.mark.parametrize("flip", [False, True])
def test_a_turned_training_batch_keeps_its_answers_on_the_face(turns, flip):
    """The trainer turns and mirrors whole batches; each answer must still be where the
    face shows, to a fraction of a pixel (a turn about the cut's centre moves it by one)."""
    torch = pytest.importorskip("torch")
    frame = np.full((240, 320, 3), 40, np.uint8)
    face, side = np.array([150.0, 110.0]), 9.0
    cv2.rectangle(frame, (146, 106), (154, 114), (230, 230, 230), -1)  # centre (150, 110)
    candidate, cand_side = face + np.array([7.0, -4.0]), 20.0
    m = topface.cut_matrix(candidate, cand_side)
    crop = cv2.warpAffine(frame, m, (topface.SIZE, topface.SIZE), flags=cv2.INTER_LINEAR)
    x = torch.from_numpy(crop).permute(2, 0, 1)[None].float()
    y = torch.from_numpy(tt.target(m, face, side, cand_side))[None]
    x, y = tt.turned(x, y, turns, flip)
    img = x[0, 0].numpy()
    ys, xs = np.nonzero(img > 41)
    w = img[ys, xs] - 40  # the face's light, weighted: its centroid is its centre
    seen = (np.array([(xs * w).sum(), (ys * w).sum()]) / w.sum() - topface.SIZE / 2) \
        * topface.WINDOW / topface.SIZE
    assert seen == pytest.approx(y[0, :2].numpy(), abs=0.008)
    assert float(y[0, 2]) == pytest.approx(math.log(side / cand_side))


def _rendered_folder(root: Path) -> Path:
    """Two frames laid out as the renderer writes them (images/, labels/), each with two
    bright squares labelled as top faces."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    rng = np.random.default_rng(0)
    for k in range(2):
        frame = np.full((240, 320, 3), (30, 90, 30), np.uint8)
        dice = []
        for _ in range(2):
            x, y, s = rng.uniform(40, 240), rng.uniform(40, 160), rng.uniform(24, 36)
            cv2.rectangle(frame, (int(x), int(y)), (int(x + s), int(y + s)), (220, 220, 230), -1)
            dice.append({"value": 3, "bbox": [x - 2, y - 2, s + 6, s + 6],
                         "top_bbox": [x, y, s, s], "kind": "soldier"})
        cv2.imwrite(str(root / "images" / f"f{k}.jpg"), frame)
        (root / "labels" / f"f{k}.json").write_text(json.dumps(
            {"file": f"images/f{k}.jpg", "dice": dice + [{"value": 2, "bbox": [0, 0, 5, 5]}]}))
    return root


def test_examples_come_from_every_labelled_top_face(tmp_path):
    frames = tt.labelled_frames(_rendered_folder(tmp_path / "set"))
    assert len(frames) == 2 and all(len(d) == 2 for _, d in frames)  # unlabelled top: left out
    data = tt.examples(frames, np.random.default_rng(1), jitters=3)
    n = len(data["cuts"])
    assert n >= 2 * 2 * 3 and data["cuts"].shape[1:] == (topface.SIZE, topface.SIZE, 3)
    assert data["answers"].shape == (n, 3) and data["real"].shape == (n,)
    # random squares lie round the face, within MAX_OFF face sides and SIDES in size
    random = data["answers"][~data["real"]]
    assert (tt.errors(random) <= tt.MAX_OFF * math.sqrt(2) + 1e-3).all()
    ratio = np.exp(random[:, 2])
    assert ((ratio >= 1 / tt.SIDES[1] - 1e-3) & (ratio <= 1 / tt.SIDES[0] + 1e-3)).all()
    corrected = tt.errors(data["answers"], data["answers"])
    assert np.allclose(corrected, 0)
