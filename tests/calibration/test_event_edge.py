"""Event-die pictures with the die near the edge of the camera's view (calibration.event_die)."""
from __future__ import annotations

import numpy as np

from calibration.event_die import EDGE_BAND, edge_pictures, near_edge


def test_near_the_edge_is_the_outer_band_of_either_side() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    side = 40.0

    def box(cx: float, cy: float) -> tuple[float, float, float, float]:
        return (cx - side / 2, cy - side / 2, side, side)

    assert not near_edge(frame, box(320, 240))
    assert not near_edge(frame, box(320 + 0.75 * 320, 240 - 0.75 * 240))
    assert near_edge(frame, box(320 + EDGE_BAND * 320 + 1, 240))
    assert near_edge(frame, box(320, 240 - EDGE_BAND * 240 - 1))  # the top band too


def test_a_picture_near_the_edge_is_said_and_still_learned_from() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    edge, middle = (600.0, 220.0, 40.0, 40.0), (300.0, 220.0, 40.0, 40.0)
    frames = {"blank": [frame, frame], "dragon": [frame], "rally": [frame]}
    boxes = {"blank": [middle, edge], "dragon": [middle], "rally": [None]}
    notes = edge_pictures(frames, boxes)
    assert len(notes) == 1 and "blank frame 2" in notes[0] and "nearer the middle" in notes[0]
    assert boxes["blank"] == [middle, edge]  # nothing is left out
