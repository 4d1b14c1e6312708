"""Event-die pictures with the die near the edge of the camera's view (calibration.event_die)."""
from __future__ import annotations

import numpy as np

from calibration.event_die import EDGE_BAND, away_from_edges, near_edge


def test_near_the_edge_is_the_outer_band_of_either_side() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    side = 40.0

    def box(cx: float, cy: float) -> tuple[float, float, float, float]:
        return (cx - side / 2, cy - side / 2, side, side)

    assert not near_edge(frame, box(320, 240))
    assert not near_edge(frame, box(320 + 0.75 * 320, 240 - 0.75 * 240))
    assert near_edge(frame, box(320 + EDGE_BAND * 320 + 1, 240))
    assert near_edge(frame, box(320, 240 - EDGE_BAND * 240 - 1))  # the top band too


def test_a_picture_near_the_edge_is_left_out_while_its_face_has_another() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    edge, middle = (600.0, 220.0, 40.0, 40.0), (300.0, 220.0, 40.0, 40.0)
    frames = {"blank": [frame, frame], "dragon": [frame, frame], "rally": [frame]}
    boxes = {"blank": [edge, middle], "dragon": [edge, edge], "rally": [None]}
    notes: list[str] = []
    kept = away_from_edges(frames, boxes, notes)
    assert kept == {"blank": [None, middle], "dragon": [edge, edge], "rally": [None]}
    assert len(notes) == 1 and "blank frame 1" in notes[0] and "nearer the middle" in notes[0]
