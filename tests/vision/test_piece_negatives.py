"""Hard negatives for the face classifier (vision.training.train.mine): with
--piece-negatives, a detector hit inside a labelled die but far smaller than its face (a
pip, a corner) is a "not a die" example, the die it is part of left in the crop. Needs
torch (the `train` extra); skipped without it."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from vision.detect import Candidate
from vision.training import data, train

# Two labelled dice (cx, cy, face side, value): a big 2 and a small 5 far from it.
LABELS = np.array([[200, 200, 120, 2], [500, 300, 40, 5]], np.float32)
HITS = [
    Candidate((201, 198), 110, 0.9),  # the big die itself
    Candidate((170, 170), 30, 0.4),   # one of its pips
    Candidate((500, 302), 38, 0.8),   # the small die
    Candidate((512, 310), 15, 0.2),   # a pip of the small die
    Candidate((350, 60), 40, 0.3),    # the felt
    Candidate((255, 150), 100, 0.2),  # half on the big die, the size of one: neither
]


class FakeDetector:
    def __init__(self, path, threshold=None):
        pass

    def detect(self, image):
        return HITS


def _mine(monkeypatch, pieces: bool):
    monkeypatch.setattr("vision.detect.DieDetector", FakeDetector)
    monkeypatch.setattr(train, "PIECES", [pieces])
    photo = data.Photo("a-set", "a.jpg", np.zeros((480, 640, 3), np.uint8), LABELS, False)
    return train.mine("unused.onnx", [photo])


def test_a_pip_of_a_die_is_a_negative_only_with_piece_negatives(monkeypatch):
    negatives, positives = _mine(monkeypatch, pieces=False)
    assert [(n[1], n[2]) for n in negatives] == [(350, 60)]
    assert train.PIECE_COUNT[0] == 0
    assert sorted(p[4] for p in positives) == [2, 2, 5, 5]  # pips counted as their die

    negatives, positives = _mine(monkeypatch, pieces=True)
    assert sorted((n[1], n[2]) for n in negatives) == [(170, 170), (350, 60), (512, 310)]
    assert train.PIECE_COUNT[0] == 2
    assert sorted(p[4] for p in positives) == [2, 5]
    by_place = {(n[1], n[2]): n for n in negatives}
    # the crop is the piece's own size; the die it is part of is not painted over it
    assert by_place[(170, 170)][3] == pytest.approx(30 * train.CROP_SCALE)
    assert by_place[(170, 170)][4].tolist() == LABELS[1:].tolist()
    assert by_place[(512, 310)][4].tolist() == LABELS[:1].tolist()
    assert by_place[(350, 60)][4].tolist() == LABELS.tolist()
    assert all(n[5] == "a-set" for n in negatives)
