"""Finding the dice in calibration frames, and measuring their size.

- `find_dice(frame)`: boxes of the dice in a frame made on purpose (dice apart on the
  tray floor): those the reader's detector finds and its classifier takes for dice,
  with a simple segmentation (`segment_dice`: anything unlike the tray's colour, of a
  die's size and shape) as fallback; `refine_box` shrinks a box to the die's body
  colour.
- `die_sides(frame, boxes)`: each die's side in pixels; `detector_die_side(frame)`: the
  dice's side as the reader's own networks see it, at several zooms.

Used by the players' dice and the tray (`calibration/procedures.py`) and by the Event die
(`calibration/event_die.py`); `CalibrationError` is what every calibration step raises.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from vision.color import body_color

Box = tuple[float, float, float, float]
MIN_DIE_SIDE = 12.0  # frame pixels: below this a die's pips cannot be read
DIM_ROOM = 2 / 3  # a frame whose brightest 1% is under this share of the reader's DIM is
# brightened before the dice are measured (the benchmarks' frames are 0.8 and up)


class CalibrationError(ValueError):
    """A calibration frame could not be used; the message says what to change."""


def find_dice(frame: np.ndarray) -> list[Box]:
    """Boxes (x, y, w, h) of dice in a calibration frame, shrunk to each die's body.

    The dice the reader's detector finds and its face classifier takes for dice
    (vision.detect.detect_dice); the segmentation when they find none (the networks not
    installed, or dice unlike any they learned). The segmentation alone also boxes the
    tray's dark corners, shadows and patches of felt: on the 30 rendered tables of
    benchmarks/vision_event_tables.py it learned 7 of 65 players' colours partly or only
    from such boxes, and the dice in play were then given the wrong player's colour 137
    times in 2,310, against 53 with the networks' dice (every colour right in 526 rolls of
    600, against 557)."""
    try:
        from vision.detect import detect_dice

        boxes = [(c.center[0] - c.side / 2, c.center[1] - c.side / 2, c.side, c.side)
                 for c in detect_dice(frame)]
    except Exception:  # noqa: BLE001 - networks not installed or failing: the segmentation
        boxes = []
    boxes = boxes or segment_dice(frame)
    return [refine_box(frame, b) for b in boxes]


def _body_blob(frame: np.ndarray, box: Box) -> np.ndarray | None:
    """Contour (frame pixels) of the largest blob of the die's body colour around `box`
    (pips filled in, shadow and darker sides left out), or None."""
    body = body_color(frame, box)
    if body is None:
        return None
    x, y, w, h = box
    x0, y0 = max(0, int(x - 0.1 * w)), max(0, int(y - 0.1 * h))
    crop = frame[y0:int(y + 1.1 * h) + 1, x0:int(x + 1.1 * w) + 1]
    lab = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB).astype(np.float32)
    near = (np.sqrt(((lab - body.astype(np.float32)) ** 2).sum(axis=2)) < 30).astype(np.uint8)
    k = max(3, round(min(w, h) / 5) | 1)
    near = cv2.morphologyEx(near, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(near, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    return max(contours, key=cv2.contourArea).reshape(-1, 2) + np.array([x0, y0])


def refine_box(frame: np.ndarray, box: Box) -> Box:
    """Shrink a rough box (which may include the die's shadow) to the die's body colour."""
    blob = _body_blob(frame, box)
    if blob is None:
        return box
    bx, by, bw, bh = cv2.boundingRect(blob)
    if bw * bh < 0.3 * box[2] * box[3]:
        return box
    return (float(bx), float(by), float(bw), float(bh))


def segment_dice(frame: np.ndarray, *, distance: float = 32.0) -> list[Box]:
    """Die-sized, roughly square blobs unlike the frame's dominant (tray) colour.

    Blobs touching the frame's border are left out (cut-off dice, the table's edge).
    """
    h, w = frame.shape[:2]
    _, _, stats, _ = cv2.connectedComponentsWithStats(_foreground(frame, distance))
    area_lo, area_hi = 0.0003 * h * w, 0.05 * h * w
    boxes: list[Box] = []
    for x, y, bw, bh, area in stats[1:]:
        at_edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h  # cut off, or the table edge
        if not at_edge and area_lo <= area <= area_hi and 0.5 <= bw / bh <= 2.0 \
                and area >= 0.45 * bw * bh:
            boxes.append((float(x), float(y), float(bw), float(bh)))
    if len(boxes) >= 3:  # specks of dirt or texture are far smaller than the dice
        typical = float(np.median([b[2] * b[3] for b in boxes]))
        boxes = [b for b in boxes if b[2] * b[3] >= 0.35 * typical]
    return boxes


def _foreground(frame: np.ndarray, distance: float = 32.0) -> np.ndarray:
    """uint8 0/1 mask of what differs from the frame's dominant (tray) colour."""
    h, w = frame.shape[:2]
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    ref = np.median(lab.reshape(-1, 3)[:: max(1, h * w // 20000)], axis=0)
    fg = (np.sqrt(((lab - ref) ** 2).sum(axis=2)) > distance).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def detector_die_side(frame: np.ndarray) -> float | None:
    """The median face side (frame pixels) of the dice the reader's own networks find
    surely, looked for at several zooms; None when they find none (or are missing).

    Dice too big for the default scale (a camera close over the tray; frames up to 640
    px wide), or too small in a 640 px frame (a camera hung high), are measured at the
    look the reader itself takes (vision.reader.read_at_the_right_scale).
    Otherwise the zoom where most dice are read surely wins (the smaller on a tie: zoomed
    too far, single pips start to pass for dice), unless what it reads are the pips of
    the dice read before (pips_of); in frames up to 640 px wide, zooming in stops once
    two dice or more read surely at the detector's size (DET_SIDE). (Wider frames zoom
    in all the way: shrunk to 320 px, a cluster of their small dice can pass for one
    such die.) Then one more look at the zoom that side asks for, where the detector's
    size estimate is at its best."""
    from vision.detect import DET_SIDE, DieDetector, full_frame_scale
    from vision.faces import FaceReader
    from vision.onnxnets import model_dir
    from vision.reader import DIM, SURE, even_light, is_die, light_level, read_at_the_right_scale

    def sure(cands: list) -> list[tuple[Any, Any]]:
        """(candidate, read) of the candidates read surely as dice."""
        reads = faces.read_candidates(frame, cands)
        return [(c, r) for c, r in zip(cands, reads) if is_die(r) and r.confidence >= SURE]

    def median_side(dice: list[tuple[Any, Any]]) -> float:
        return float(np.median([c.side for c, _ in dice]))

    if light_level(frame) < DIM_ROOM * DIM:  # brightened, as the reader's networks see it
        # Colours are left alone: on a brown table with no white in view, evening them
        # out made 6 px dice measure 31.
        frame = even_light(frame, balance=1.0)
    base = full_frame_scale(frame.shape[1])
    best: list[tuple[Any, Any]] = []
    try:
        detector = DieDetector(model_dir() / "detector.onnx")
        faces = FaceReader(model_dir(), paint=False, cascade=False)  # are they whole dice?
        first = detector.detect(frame, scale=base)
        if base >= 0.5:  # as the reader would look (never from further in wider frames)
            looked, _ = read_at_the_right_scale(
                detector, FaceReader(model_dir(), cascade=False), frame, first, None)
            if looked is not first:  # from further away, or a 640 px frame's closer look
                best = sure(looked)
        if not best:
            for zoom in (1.0, 1.5, 2.0, 3.0, 4.0):
                dice = sure(first if zoom == 1.0 else detector.detect(frame, scale=zoom * base))
                if len(dice) > len(best) and not pips_of(dice, best):
                    best = dice
                if base >= 0.5 and len(dice) >= 2 and median_side(dice) * zoom * base >= DET_SIDE:
                    break  # big enough: closer still, the pips would pass for dice
        if not best:
            return None
        again = sure(detector.detect(frame, scale=DET_SIDE / median_side(best)))
    except FileNotFoundError:  # models not installed: the colour blobs will do
        return None
    return median_side(again if len(again) >= len(best) else best)


def pips_of(closer: list[tuple[Any, Any]], dice: list[tuple[Any, Any]]) -> bool:
    """Whether what a closer look read surely (`closer`, (candidate, read) pairs) are the
    pips of the dice read surely before (`dice`): three or more of them inside those
    dice, under half their size, at least three quarters of them read as 1. (Small dice
    inside what was taken for one die, a cluster of them, show every face.)"""
    inside = [r.label for c, r in closer if any(
        max(abs(c.center[0] - b.center[0]), abs(c.center[1] - b.center[1])) < 0.5 * b.side
        and c.side < 0.5 * b.side for b, _ in dice)]
    return len(inside) >= 3 and inside.count(1) >= 0.75 * len(inside)


def die_sides(frame: np.ndarray, boxes: Sequence[Box]) -> list[float]:
    """Each die's side in pixels: of the smallest turned rectangle round its body colour
    (a die turned 45 degrees has a box 1.4 times its side), else of its box."""
    sides = []
    for box in boxes:
        side = max(box[2], box[3])
        blob = _body_blob(frame, box)
        if blob is not None:
            (_, _), (rw, rh), _ = cv2.minAreaRect(blob)
            if rw * rh >= 0.3 * box[2] * box[3]:
                side = (rw + rh) / 2
        sides.append(float(side))
    return sides
