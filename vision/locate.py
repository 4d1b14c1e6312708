"""Find the die a player tapped on a photo: where the camera missed one.

A finger on a phone lands within about half a die's side of the die it means (a 640 px
frame shown 360 px wide). `die_near` runs the detector on a window around the tap, at
the scale it reads best for the expected die size and with a far lower threshold than
the reader's, and returns the centre and box of its peak nearest the tap, so the
photo log keeps the die with a box that fits it (vision/photolog.py). Faces are not
read here: the players give them.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detect import DET_SIDE, Candidate, DieDetector
from vision.onnxnets import model_dir
from vision.reader import _ROTATE, _check_frame, _to_raw, _to_upright, even_light

log = logging.getLogger(__name__)
REACH = 0.9  # a peak this many die sides from the tap, or closer, may be the die tapped
STRONG = 0.3  # ... of those at least this share of the strongest peak's score, the nearest
LOW = 0.05  # the detector's peaks down to this score count (the reader keeps 0.4 and up)
SIZES = (0.5, 2.0)  # a peak's face side must be within these times the expected side
WINDOW = 2.75  # the detector looks this many die sides around the tap, each way
GUESS_SHARE = 1 / 12  # no die side known: a frame's shorter side over 12


def expected_side(dice: Any, profile: Any, shape: tuple[int, ...]) -> float:
    """A die's side in this frame: the median of the read dice's boxes, else the
    profile's calibrated size, else a guess from the frame's size."""
    sides = [max(float(d.box[2]), float(d.box[3])) for d in dice or ()]
    if sides:
        return float(np.median(sides))
    if getattr(profile, "die_side", None):
        return float(profile.die_side)
    return GUESS_SHARE * min(shape[:2])


def mark_box(frame: np.ndarray, point: tuple[float, float], dice: Any = (), *,
             taken: Sequence[tuple[float, float]] = (), profile: Any = None,
             models: str | Path | None = None) -> tuple[int, int, int, int]:
    """The [x, y, w, h] box of the die a player tapped at `point` on a frame read as
    `dice`: the die found there by die_near, else a square of the expected side around
    the tap. `taken`: centres of dice already read or marked, never the one tapped."""
    side = expected_side(dice, profile, np.asarray(frame).shape)
    try:
        found = die_near(frame, point, side, taken=taken, profile=profile, models=models)
    except Exception:  # a failing detector must not lose the players' mark
        log.exception("no die looked for around the tap; the mark is a square there")
        found = None
    if found is not None:
        return found[1]
    x, y = point
    return (round(x - side / 2), round(y - side / 2), round(side), round(side))


def die_near(frame: np.ndarray, point: tuple[float, float], side: float, *,
             taken: Sequence[tuple[float, float]] = (), profile: Any = None,
             models: str | Path | None = None
             ) -> tuple[tuple[float, float], tuple[int, int, int, int], float] | None:
    """(centre, box, detector score) of the detector's peak nearest `point`
    (raw frame pixels, like read_dice's), expecting faces about `side` pixels; None
    when it sees none there. Peaks within half a side of a `taken` centre (raw pixels:
    dice read or marked already) are other dice, not the one tapped."""
    raw = _check_frame(frame)
    if not side > 0:
        raise ValueError(f"a die's side is a positive number of pixels, not {side!r}")
    rotation = int(getattr(profile, "rotation", 0) or 0)
    upright = cv2.rotate(raw, _ROTATE[rotation]) if rotation in _ROTATE else raw
    upright = even_light(upright)
    tap = _to_upright(np.array([point], np.float64), rotation, raw.shape)[0]
    half = WINDOW * side
    region = (tap[0] - half, tap[1] - half, tap[0] + half, tap[1] + half)
    detector = DieDetector(Path(models or model_dir()) / "detector.onnx", threshold=LOW)
    cands = detector.detect(upright, scale=DET_SIDE / side, region=region)
    others = _to_upright(np.array(taken, np.float64).reshape(-1, 2), rotation, raw.shape)
    close = [c for c in cands if _gap(c, tap) <= REACH * side
             and SIZES[0] * side <= c.side <= SIZES[1] * side
             and not any(_gap(c, o) < side / 2 for o in others)]
    if not close:
        return None
    # the peak nearest the tap of those at least STRONG times the strongest: the strongest
    # is often a neighbouring die, the nearest a speck or a pip
    top = max(c.score for c in close)
    best = min((c for c in close if c.score >= STRONG * top), key=lambda c: _gap(c, tap))
    c = _to_raw(np.array([best.center]), rotation, raw.shape)[0]
    s = best.side
    box = (round(c[0] - s / 2), round(c[1] - s / 2), round(s), round(s))
    return (float(c[0]), float(c[1])), box, best.score


def _gap(c: Candidate, point: np.ndarray) -> float:
    return float(np.hypot(c.center[0] - point[0], c.center[1] - point[1]))
