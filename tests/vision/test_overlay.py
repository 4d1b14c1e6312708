"""Overlay: a new image with boxes, faces and warnings; the input is never changed."""
from __future__ import annotations

import numpy as np

from vision.overlay import draw_reading, label
from vision.types import DiceWarning, Die, Reading


def test_draws_on_a_copy() -> None:
    frame = np.full((240, 320, 3), 128, np.uint8)
    before = frame.copy()
    reading = Reading((Die("soldier", 5, (60, 60), (40, 40, 40, 40), 0.97, "red"),
                       Die("event", "dragon", (160, 60), (140, 40, 40, 40), 0.4),
                       Die("soldier", None, (260, 160), (240, 140, 40, 40), 0.1)),
                      (DiceWarning("glare", "Glare on the dice.", (10, 150, 30, 30)),))
    out = draw_reading(frame, reading)
    assert np.array_equal(frame, before) and out is not frame and out.shape == frame.shape
    for x, y, w, h in ((40, 40, 40, 40), (140, 40, 40, 40), (240, 140, 40, 40)):
        assert (out[y:y + h, x] != 128).any()
    assert (out[:30] != 128).any()  # the warning text


def test_grey_frames_and_labels() -> None:
    out = draw_reading(np.zeros((50, 50), np.uint8), Reading())
    assert out.shape == (50, 50, 3)
    assert label(Die("soldier", 3, (0, 0), (0, 0, 5, 5), 0.3, "blue")) == "3? blue 0.30"
    assert label(Die("soldier", None, (0, 0), (0, 0, 5, 5), 0.0)) == "? 0.00"
    assert label(Die("soldier", 3, (0, 0), (0, 0, 5, 5), 0.5, None, (3, 6, 5))) == "3/6/5? 0.50"
    assert label(Die("soldier", 3, (0, 0), (0, 0, 5, 5), 0.95, None, (3, 6))) == "3 0.95"  # sure
