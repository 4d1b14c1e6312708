"""read_dice: from one camera frame to every die's kind, face, colour and confidence.

Stages: turn the frame upright (profile rotation), even out a dim or coloured light -> find
candidates (vision.detect, inside the tray, at the scale the profile's die size asks
for; uncalibrated, frames wider than 640 px are looked at closer when the dice are
small, narrower ones from further away when the dice are too big) -> read
each face (vision.faces, one batched forward pass) -> drop what is not a die or lies
outside the tray -> Event die, colour and frame warnings from the calibration helpers
(on the frame as given; a roll holds one Event die; a calibrated frame looks for it
again among what was dropped, and keeps the likelier; with none read, among the
detector's weak peaks) -> warnings the detection itself
can tell (touching dice, unreadable dice).
Centres and boxes are reported in the pixels of the frame as given (before rotation),
the same coordinates as the profile's tray polygon and LED positions.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.color import body_color, color_distance, crop_bounds, die_color, medians_u8
from vision.detect import DET_SIDE, Candidate, DieDetector, full_frame_scale
from vision.event import MAX_BODY_DISTANCE, event_face, event_likeness, one_frame
from vision.faces import DISAGREE_CAP, FaceRead, FaceReader
from vision.onnxnets import model_dir, stamp
from vision.quality import frame_warnings, tray_mask
from vision.types import EVENT, SOLDIER, DiceWarning, Die, Reading

# Below this (the classifiers' 1 - P(not a die)) a candidate is dropped. 0.7 until the
# thirty-third session, then 0.8, 0.85 since the thirty-fourth: each time the classifiers
# were fine-tuned with more renders and took more things for dice; with the higher cut
# the folds that never saw a set play as many rolls right or more, none more wrong, and
# take fewer false dice (vision/training/README.md).
DIE_PROBABILITY = 0.85
UNSURE = 0.5  # a die read below this confidence gets an "unreadable" warning
SURE = 0.9  # touching dice both read at least this surely need no warning
PLAYER_COLOUR = 3.0  # a dropped candidate this near (Mahalanobis) a player's dice colour is one
PIPS_SEEN = 0.02  # ... when the classifier gave its pip faces at least this probability together
ODD_SIZE = 0.75  # a die this much smaller than the frame's median is read with capped confidence
# ... unless it is a whole face read surely (whole_face_read_surely)
TOUCHING = 0.85  # centres closer than this many face sides: the dice touch
DIM = 200.0  # a frame whose brightest 1% is darker than this is brightened for the networks
MAX_GAIN = 3.0
BALANCE = 1.33  # most a colour channel is raised or lowered to even out a coloured light
SMALL = 1.1 * DET_SIDE  # uncalibrated: dice found this small (detector input px) are looked for closer
VGA_SMALL = 16.0  # ... in a 640 px frame, this small (its dice as photographed come out 15.4 and up)
VGA_SURER = 0.05  # ... and that closer look is kept when its dice read this much more surely
LARGE = 21.0  # uncalibrated: dice this big (detector input px) at half the scale are read from further
ALIKE = 0.66  # ... when at least this share of them are within a third of their median size
FURTHER = (2, 4)  # ... looked at with the default scale divided by these, in turn
CROWDED = 8  # ... unless the default look reads this many dice surely (a roll has at most 7)
# A calibrated frame with no Event die read looks for it again among the detector's weak
# peaks (_event_die_second_look): a blank face is a plain square the detector is unsure of.
SECOND_LOOK = 0.2  # the least detector score looked at then
CUT_OFF = 0.05  # ... a peak whose face square reaches this share of its side out of the frame is left
STANDS_OUT = 10.0  # ... the face found must differ this much (Lab) from what lies round it
EDGE_NEAR = 1.0  # ... and one within this many sides of the frame's edge, cut off there maybe, is asked
# A die whose face centre lies outside the calibrated tray, by up to this many of its sides,
# is in the tray still, when its face is whole in the picture (CUT_OFF).
TRAY_MARGIN = 0.75
# A die whose face reaches this share of its side or more out of the frame is asked about
# (face_out): pips may lie beyond the edge (red 6 read as 3 at 0.86 on a rendered table,
# box 0.42 out; no die so cut was read both surely and right on the photo sets or the
# tables, while dice 0.3-0.4 out were, 14 of 14). A box touching the edge is grown to the
# frame's dice' side first: the box of a die cut through shrinks to what is left of it.
CUT_FACE = 0.4
EDGE_TOUCH = 0.05  # ... a box this near the edge (share of its side) may be shrunk by the cut
# Calibrated: a die whose body colour fills the gap between its box and the frame's edge,
# under RUN_OFF_GAP of its side, runs on past the edge, and is asked about (runs_off_the_frame).
# Near the edge of the view a camera over the tray sees a die's side face beside its top,
# on the side towards the picture's middle: with the top cut by the edge, the side face
# is what was read (a red Event die's Dragon side read as its face at 0.82, its top blank).
RUN_OFF_GAP = 0.5
RUN_OFF_DISTANCE = 20.0  # Lab distance from the die's body colour counted as the body
RUN_OFF_SHARE = 0.5  # ... the share of the gap's pixels that must be the body
_ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


class FrameError(ValueError):
    """The frame is not a picture the reader can use (wrong type, shape or empty)."""


def _check_frame(frame: Any) -> np.ndarray:
    if not isinstance(frame, np.ndarray):
        raise FrameError(f"a frame must be an image array, not {type(frame).__name__}")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise FrameError(f"a frame must be a colour image (H, W, 3), got shape {frame.shape}")
    if min(frame.shape[:2]) < 32:
        raise FrameError(f"the frame is too small to hold dice: {frame.shape[1]}x{frame.shape[0]}")
    if frame.dtype != np.uint8:
        raise FrameError(f"a frame must hold 8-bit pixels, got {frame.dtype}")
    return frame


def _brightest(frame: np.ndarray) -> np.ndarray:
    """Each colour channel's 99th percentile (every 4th pixel), from its histogram (fast)."""
    small = np.ascontiguousarray(frame[::4, ::4])
    top = np.ones(3)
    for c in range(3):
        cum = np.cumsum(cv2.calcHist([small], [c], None, [256], [0, 256]).ravel())
        top[c] = max(1.0, float(np.searchsorted(cum, 0.99 * cum[-1])))
    return top


def light_level(frame: np.ndarray) -> float:
    """How bright the frame's brightest 1% is (0-255, the channels' mean): the public
    photos are 170-215; in a room with a third of their light, about 60."""
    return float(_brightest(frame).mean())


def even_light(frame: np.ndarray, balance: float = BALANCE) -> np.ndarray:
    """The frame as the networks like it: a coloured light evened out, so the brightest
    1% of each colour channel (white pips and dice, glints, a light tray) match, by at
    most `balance` times either way (1: colours left alone); then, if dim, brightened so
    that brightest 1% reaches DIM, at most MAX_GAIN times. A well-lit, white-balanced
    frame is returned as it is.

    The networks learned from well-lit photos. On the byler validation photos
    (benchmarks/vision_robustness.py), half the light cost 5 of 158 dice and a third of
    it 7; a cold light 7 and a warm lamp 3."""
    top = _brightest(frame)
    gains = np.clip(top.mean() / top, 1 / balance, balance)
    level = float((top * gains).mean())
    gains *= float(np.clip(DIM / level, 1.0, MAX_GAIN))
    if np.all(np.abs(gains - 1) < 0.05):
        return frame
    lut = np.clip(np.arange(256)[:, None] * gains[None, :], 0, 255).astype(np.uint8)
    return cv2.LUT(frame, lut.reshape(256, 1, 3))


def _to_raw(points: np.ndarray, rotation: int, raw_shape: tuple[int, ...]) -> np.ndarray:
    """Map (n, 2) points of the upright frame back to the raw frame's pixels."""
    h, w = raw_shape[:2]
    u, v = points[:, 0], points[:, 1]
    if rotation == 90:  # upright = raw turned clockwise: raw (x, y) -> (h - 1 - y, x)
        return np.stack([v, h - 1 - u], 1)
    if rotation == 180:
        return np.stack([w - 1 - u, h - 1 - v], 1)
    if rotation == 270:
        return np.stack([w - 1 - v, u], 1)
    return points


def _to_upright(points: np.ndarray, rotation: int, raw_shape: tuple[int, ...]) -> np.ndarray:
    """Map (n, 2) points of the raw frame to the upright frame (inverse of _to_raw)."""
    h, w = raw_shape[:2]
    x, y = points[:, 0], points[:, 1]
    if rotation == 90:
        return np.stack([h - 1 - y, x], 1)
    if rotation == 180:
        return np.stack([w - 1 - x, h - 1 - y], 1)
    if rotation == 270:
        return np.stack([y, w - 1 - x], 1)
    return points


def detection_view(profile: Any, rotation: int, raw_shape: tuple[int, ...]
                   ) -> tuple[float | None, tuple[int, int, int, int] | None]:
    """Detector scale and region (upright pixels) for this profile.

    The calibration's die size picks the scale that shows each die DET_SIDE px wide
    (a camera far above a wide tray sees small dice); its tray, grown by a die's side,
    is the only region looked at. None, None: the whole frame at the default scale."""
    side = getattr(profile, "die_side", None)
    scale = DET_SIDE / side if side else None
    tray = getattr(profile, "tray", None)
    if not tray:
        return scale, None
    pts = _to_upright(np.asarray(tray, np.float64), rotation, raw_shape)
    grow = side or 0.04 * max(raw_shape[:2])
    lo, hi = pts.min(axis=0) - grow, pts.max(axis=0) + grow
    return scale, (int(lo[0]), int(lo[1]), int(np.ceil(hi[0])), int(np.ceil(hi[1])))


def is_die(read: FaceRead) -> bool:
    """Whether a candidate's read makes it a die: not "not a die", and a die at least
    DIE_PROBABILITY likely."""
    return read.label != "none" and read.die_probability >= DIE_PROBABILITY


def whole_face_read_surely(read: FaceRead) -> bool:
    """Whether a die far smaller than its neighbours (ODD_SIZE) is still a whole face, not
    a piece of a die cut wrong: every view of every member (all four quarter turns; or
    both views of each member read first, when they settle it: vision.faces.FIRST_SURE)
    read it as the same face of 2-5 pips, at least SURE. A piece of a bigger die is read so
    as a 1 (one of its pips, alike at every turn), and a die's side face seen by a low
    camera as a 6, so those stay capped. On the rune55 photos no network trained on
    (sets of many sizes in one photo), the dice this lets through were right 52 times of
    52 straight down and 4 of 4 from low angles; byler 4 of 4, matteop65 1 of 1. Of the
    1s and 6s it keeps capped, 3 were read wrong and 5 were no dice at all (36 right)."""
    return (read.agree and isinstance(read.label, int) and 2 <= read.label <= 5
            and read.confidence >= SURE)


def _die_confidences(reads: list[FaceRead]) -> list[float]:
    return [r.confidence for r in reads if is_die(r)]


def reads_better(new: list[FaceRead], old: list[FaceRead], margin: float = 0.0) -> bool:
    """Whether another look at the frame (`new`: from further away, or closer) reads the
    dice better than the default look (`old`): its dice read more surely on average (a
    big die's pips taken for dice, or dice sized wrong, mostly read unsurely), by more
    than `margin`, while keeping at least half as many dice read surely (SURE): from
    further away, a cluster of small dice can pass for one big die, read surely too."""
    f, n = _die_confidences(new), _die_confidences(old)
    if not f or (n and float(np.mean(f)) <= float(np.mean(n)) + margin):
        return False
    return sum(c >= SURE for c in f) >= 0.5 * sum(c >= SURE for c in n)


def loses_dice(far: list[Candidate], near: list[Candidate], near_reads: list[FaceRead]
               ) -> bool:
    """Whether a look from further away (`far`) loses dice the default look (`near`)
    read surely (SURE): one beyond a side's length from every far die (a slanted
    camera's view of a die's side faces reaches that far), or one near a far die, less
    than half its size and read as 3-6. A pip seen closer can pass for a 1, or a 2 with
    a neighbouring pip in its crop, but not for more, so such a die inside a far "die"
    makes that a cluster of dice or the tray with dice on it (a white tray with two dark
    dice on it looks like a die showing 2)."""
    for n, r in zip(near, near_reads):
        if not is_die(r) or r.confidence < SURE:
            continue
        by = [c for c in far if max(abs(n.center[0] - c.center[0]),
                                    abs(n.center[1] - c.center[1])) < c.side]
        if not by or (isinstance(r.label, int) and r.label > 2
                      and any(n.side < c.side / 2 for c in by)):
            return True
    return False


def read_at_the_right_scale(detector: DieDetector, faces: FaceReader, frame: np.ndarray,
                            cands: list[Candidate], region: tuple[int, int, int, int] | None
                            ) -> tuple[list[Candidate], list[FaceRead]]:
    """Uncalibrated frames: the candidates and their reads of the default look (`cands`),
    or of another look that reads the dice better (reads_better):
    - in frames up to 640 px wide, a look from further away when the dice seem too big
      for the default scale, if it loses no die the default look, or the closer look,
      read surely (loses_dice: a cluster of small dice with the tray between them can
      pass for one big die, read surely);
    - otherwise, in frames 640 px wide or wider, a closer look when the dice seem small
      (zoom_in_on_small_dice). In a 640 px frame it must read them VGA_SURER more surely
      on average: the default look is at the detector's own scale there, and closer, a
      speck on the tray passes for a die showing 1 beside dice read as well as before.
    A frame wider than 640 px is never looked at from further away: shrunk that far (a
    1920 px frame to 160), a cluster of its small dice can pass for one big die with
    pips, read surely."""
    reads = faces.read_candidates(frame, cands)
    wide = full_frame_scale(frame.shape[1]) < 0.5  # wider than 640 px
    closer = zoom_in_on_small_dice(detector, frame, cands, region)
    closer_reads = [] if closer is None else faces.read_candidates(frame, closer)
    if not wide and sum(c >= SURE for c in _die_confidences(reads)) < CROWDED:
        far = zoom_out_on_large_dice(detector, frame, region)
        if far is not None:
            far_reads = faces.read_candidates(frame, far)
            if (reads_better(far_reads, reads) and not loses_dice(far, cands, reads)
                    and not (closer and loses_dice(far, closer, closer_reads))):
                return far, far_reads
    if closer and reads_better(closer_reads, reads, 0.0 if wide else VGA_SURER):
        return closer, closer_reads
    return cands, reads


def zoom_in_on_small_dice(detector: DieDetector, frame: np.ndarray, cands: list[Candidate],
                          region: tuple[int, int, int, int] | None) -> list[Candidate] | None:
    """The candidates of a closer look when the dice may be too small for the default
    scale, else None.

    Without a calibrated die size the frame is shrunk to DET_WIDTH px wide. In a frame
    wider than 640 px (the Pi camera's 1280x720), dice may come out too small there to be
    found, or found but sized wrong: the detector sizes dice far below its training
    range too large (dice 10 px wide come out 14-18 px). So when nothing was found, or
    the dice found are under SMALL, the frame is looked at again at twice the scale (as
    a 640 px frame would be: dice under 22 px come out under 44, still inside the
    detector's range). Dice of about 20 px come out 15-21 px too, and twice that is
    where the detector starts taking pips for dice: which look is kept is up to how
    surely each reads its dice (read_at_the_right_scale).

    A 640 px frame (a camera hung high over the tray) is looked at closer, at its own
    pixels, when the dice found come out under VGA_SMALL: its dice of 17 px come out
    about 15 at the default scale, those of an ordinary view 15.4 and up. A 640 px frame
    where nothing was found is not: closer, a speck on an empty tray can pass for a die."""
    base = full_frame_scale(frame.shape[1])
    if base > 0.5 or (base == 0.5 and not cands):
        return None
    small = SMALL if base < 0.5 else VGA_SMALL
    if cands and float(np.median([c.side for c in cands])) * base >= small:
        return None
    return detector.detect(frame, scale=2 * base, region=region)


def zoom_out_on_large_dice(detector: DieDetector, frame: np.ndarray,
                           region: tuple[int, int, int, int] | None) -> list[Candidate] | None:
    """The candidates of a look from further away when the dice are too big for the
    default scale (a camera close over a small tray, a phone photo of a few dice), else
    None.

    Past about 45 px the detector takes a big die's pips for dice. So the frame is also
    looked at with half the scale (a quarter of the work): if the dice found there are
    at least LARGE px and alike in size (ALIKE of them within a third of the median;
    one set's dice are), the frame is read at the scale that shows them DET_SIDE px
    wide. LARGE stays above the 14-20 px the dice of an ordinary frame come out at half
    the scale (the detector sizes dice below its range too large). When they are not,
    the frame is looked at once more with a quarter of the scale (a sixteenth of the
    work): dice of 170-300 px in a 640 px frame are still past the detector's range at
    half the scale, found there as pieces or sized all over the place, and within it
    at a quarter."""
    base = full_frame_scale(frame.shape[1])
    far: list[Candidate] = []
    for shrink in FURTHER:
        scale = base / shrink
        far = detector.detect(frame, scale=scale, region=region)
        side = _large_and_alike([c.side * scale for c in far])
        if side is not None:
            break
    else:
        return None
    to_size = scale * DET_SIDE / side
    if to_size >= 0.9 * scale:
        return far
    return detector.detect(frame, scale=to_size, region=region) or far


def _large_and_alike(sides: list[float]) -> float | None:
    """The median of these sides (detector input px) when it is at least LARGE and ALIKE
    of them are within a third of it (one set of dice), else None."""
    if not sides:
        return None
    a = np.asarray(sides)
    side = float(np.median(a))
    if side < LARGE or np.mean((a > 0.75 * side) & (a < 1.33 * side)) < ALIKE:
        return None
    return side


def _raw_geometry(c: Candidate, rotation: int, raw_shape: tuple[int, ...]
                  ) -> tuple[tuple[float, float], tuple[int, int, int, int]]:
    x, y, bw, bh = c.box
    corners = np.array([[c.center[0], c.center[1]], [x, y], [x + bw, y + bh]], np.float64)
    pts = _to_raw(corners, rotation, raw_shape)
    lo, hi = pts[1:].min(axis=0), pts[1:].max(axis=0)
    box = (round(float(lo[0])), round(float(lo[1])), round(float(hi[0] - lo[0])),
           round(float(hi[1] - lo[1])))
    return (float(pts[0, 0]), float(pts[0, 1])), box


def _soldier_or_event(raw: np.ndarray, read: FaceRead, center: tuple[float, float],
                      box: tuple[int, int, int, int], profile: Any,
                      body: np.ndarray | None = None) -> Die:
    """The die the classifier read `read`, a Soldier die or the Event die; `body`: its
    body_color, when measured already."""
    if body is None:
        body = body_color(raw, box)
    event = (event_face(raw, box, profile=profile, read=read, body=body)
             if profile is not None and body is not None else None)
    if event is not None:
        face, conf = event
        return Die(EVENT, face, center, box, float(np.clip(conf, 0, 1)))
    if read.label == "nopips" and not _not_the_event_colour(body, profile):
        return Die(EVENT, None, center, box, 0.0)  # no pips: the Event die, face unknown
    return _soldier(read, center, box)


def _soldier(read: FaceRead, center: tuple[float, float], box: tuple[int, int, int, int]) -> Die:
    """A Soldier die as the classifier read it; one it read as a face without pips gets its
    likeliest pip face, as sure as that face's probability (low: the players are asked)."""
    if isinstance(read.label, int):
        return Die(SOLDIER, read.label, center, box, read.confidence, choices=read.choices())
    face = int(np.argmax(read.probs[:6]))
    return Die(SOLDIER, face + 1, center, box, float(read.probs[face]), choices=read.choices())


def _not_the_event_colour(body: np.ndarray | None, profile: Any) -> bool:
    """Whether a die of body colour `body` is not the calibrated Event die but a player's
    die (False when the profile knows no Event die or no players' colours)."""
    event = getattr(profile, "event", None)
    if event is None or not getattr(profile, "colors", None):
        return False
    if body is None or color_distance(body, event.body) <= MAX_BODY_DISTANCE:
        return False
    return min(color_distance(body, m) for m in profile.colors.values()) <= MAX_BODY_DISTANCE


def one_event_die(raw: np.ndarray, dice: list[Die], reads: list[FaceRead], profile: Any
                  ) -> list[Die]:
    """A roll holds one Event die: when more dice were read as the Event die, the one
    read with a face and likeliest the calibrated Event die (_event_likeness) stays it;
    the others are Soldier dice as the classifier read them (`reads`, one per die)."""
    events = [i for i, d in enumerate(dice) if d.kind == EVENT]
    if len(events) < 2:
        return dice
    keep = max(events, key=lambda i: _event_likeness(raw, dice[i], profile))
    return [_as_soldier(d, reads[i]) if i in events and i != keep else d
            for i, d in enumerate(dice)]


def _as_soldier(die: Die, read: FaceRead) -> Die:
    """`die`, read as the Event die, as the Soldier die the classifier read (`read`),
    its colour kept."""
    return replace(_soldier(read, die.center, die.box), color=die.color)


def in_the_tray(profile: Any, center: tuple[float, float], box: tuple[int, int, int, int],
                shape: tuple[int, ...]) -> bool:
    """Whether a die read at `center` with face square `box` (frame pixels; `shape`: the
    frame's) lies in the profile's tray: its centre inside the tray polygon, or within
    TRAY_MARGIN of its sides outside it with its face whole in the picture. The polygon
    is the floor the calibration saw; a die against the wall stands on the wall's foot,
    and its top face, nearer the camera, lies further out in the picture (rendered
    tables: 40 Soldier dice and 20 Event dice left out so, by 0.01-0.83 of a side). A
    face the picture cuts is left out there as before: an Event die's emblem beyond the
    edge, its face read as blank."""
    if profile is None or profile.in_tray(center):
        return True
    side = max(box[2], box[3])
    if side <= 0 or _cut_off(box, shape):
        return False
    tray = np.asarray(profile.tray, np.float32)
    return cv2.pointPolygonTest(tray, (float(center[0]), float(center[1])), True) >= -TRAY_MARGIN * side


def share_out(box: tuple[float, float, float, float], shape: tuple[int, ...]) -> float:
    """How much of the square `box` (x, y, w, h) lies beyond the edge of a frame of
    `shape`, as a share of its larger side, on the side it reaches furthest out (0 when
    it is whole in the picture)."""
    h, w = shape[:2]
    side = max(box[2], box[3])
    if side <= 0:
        return 0.0
    return max(0.0, -box[0], -box[1], box[0] + box[2] - w, box[1] + box[3] - h) / side


def _cut_off(box: tuple[float, float, float, float], shape: tuple[int, ...]) -> bool:
    """Whether the square `box` (x, y, w, h) reaches over CUT_OFF of its side out of a
    frame of `shape`: a face the picture cuts, whose pips or emblem may lie beyond."""
    return share_out(box, shape) > CUT_OFF


def face_out(box: tuple[float, float, float, float], shape: tuple[int, ...],
             side: float) -> float:
    """share_out of the face whose box is `box`, when the face is `side` px wide or more:
    a face the picture cuts through has a box shrunk to what is left of it, its inner edge
    the face's, so at each edge the box touches (within EDGE_TOUCH of its side) the face
    is taken to reach `side` (or the box's own side, the larger) from that inner edge."""
    h, w = shape[:2]
    x, y, bw, bh = box
    own = max(bw, bh)
    full = max(own, side)
    if full <= 0:
        return 0.0
    near = EDGE_TOUCH * own
    out = [0.0]  # a box beyond an edge touches it: share_out(box) when full is its own side
    if x <= near:
        out.append(full - (x + bw))
    if x + bw >= w - near:
        out.append(full - (w - x))
    if y <= near:
        out.append(full - (y + bh))
    if y + bh >= h - near:
        out.append(full - (h - y))
    return max(out) / full


def asked_when_cut(dice: list[Die], shape: tuple[int, ...]) -> list[Die]:
    """The dice, each whose face reaches CUT_FACE of its side or more out of the frame
    capped at DISAGREE_CAP: its face may have pips beyond the edge, so the table asks.
    The face is taken as wide as its box, or as the frame's dice (their median side, of
    three or more) where its box touches the edge (face_out)."""
    typical = typical_side(dice)
    return [replace(d, confidence=min(d.confidence, DISAGREE_CAP))
            if face_out(d.box, shape, typical) >= CUT_FACE else d for d in dice]


def runs_off_the_frame(raw: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether the die whose face square is `box` (frame pixels) runs on past the frame's
    edge: at an edge under RUN_OFF_GAP of its side from the box, the gap between them
    (beside the box's middle three fifths) is mostly (RUN_OFF_SHARE) its body colour."""
    h, w = raw.shape[:2]
    x, y, bw, bh = (int(v) for v in box)
    side = max(bw, bh)
    if side <= 0:
        return False
    rows = slice(max(0, int(y + 0.2 * bh)), max(0, int(np.ceil(y + 0.8 * bh))))
    cols = slice(max(0, int(x + 0.2 * bw)), max(0, int(np.ceil(x + 0.8 * bw))))
    gaps = []
    if 0 < w - (x + bw) < RUN_OFF_GAP * side:
        gaps.append(raw[rows, x + bw:w])
    if 0 < x < RUN_OFF_GAP * side:
        gaps.append(raw[rows, :x])
    if 0 < h - (y + bh) < RUN_OFF_GAP * side:
        gaps.append(raw[y + bh:h, cols])
    if 0 < y < RUN_OFF_GAP * side:
        gaps.append(raw[:y, cols])
    gaps = [g for g in gaps if g.size]
    if not gaps:
        return False
    body = body_color(raw, box)
    if body is None:
        return False
    for gap in gaps:
        lab = cv2.cvtColor(np.ascontiguousarray(gap), cv2.COLOR_BGR2LAB).reshape(-1, 3)
        dist = np.sqrt(((lab.astype(np.float32) - body.astype(np.float32)) ** 2).sum(axis=1))
        if float(np.mean(dist < RUN_OFF_DISTANCE)) >= RUN_OFF_SHARE:
            return True
    return False


def asked_when_running_off(raw: np.ndarray, dice: list[Die]) -> list[Die]:
    """The dice of a calibrated frame, each one read surely that runs on past the frame's
    edge (runs_off_the_frame) capped at DISAGREE_CAP: the table asks.

    Only where calibrated (a tray or the dice' size measured): the camera hangs over the
    tray there, so a die's body beside the edge is the die. The rune55 photos,
    uncalibrated, have dark dice by their black corners and grey dice on grey felt,
    whose gap to the edge reads as the die: 170 of 3,518 rolls played right would be
    asked."""
    return [replace(d, confidence=min(d.confidence, DISAGREE_CAP))
            if d.confidence > DISAGREE_CAP and runs_off_the_frame(raw, d.box) else d
            for d in dice]


def typical_side(dice: list[Die] | tuple[Die, ...]) -> float:
    """The median side (px) of the dice's boxes, when there are three or more, else 0."""
    sides = [max(d.box[2], d.box[3]) for d in dice]
    return float(np.median(sides)) if len(sides) >= 3 else 0.0


def _apart(cand: Candidate, others: list[Candidate]) -> bool:
    """Whether the candidate's centre is over half a side (the larger) from every other's."""
    return all(np.hypot(cand.center[0] - k.center[0], cand.center[1] - k.center[1])
               > 0.5 * max(cand.side, k.side) for k in others)


def _event_die_passed_over(raw: np.ndarray, passed: list[tuple[Candidate, FaceRead]],
                           kept: list[Candidate], typical: float, rotation: int,
                           profile: Any) -> tuple[Die, float] | None:
    """The Event die among the candidates the face classifier took for no die: the
    likeliest of those in the tray whose colour and face are the calibrated Event die's
    (event_face), with its side. Only candidates about the players' dice size
    (`typical`, when known) that do not sit on a die already read (`kept`) are looked
    at. A blank Event face is a plain square of the die's colour, which the classifier,
    never shown the real die, can take for the tray (rendered tables: 15 of 80 Event
    dice, most of them blank, dropped so)."""
    if profile is None or getattr(profile, "event", None) is None:
        return None
    if typical:  # the Event die is the players' dice's size
        passed = [(c, r) for c, r in passed if 0.6 * typical <= c.side <= 1.67 * typical]
    passed = [(c, r) for c, r in passed if _apart(c, kept)]  # not a die already read
    best = None
    for cand, read in passed:
        center, box = _raw_geometry(cand, rotation, raw.shape)
        if not in_the_tray(profile, center, box, raw.shape):
            continue
        body = body_color(raw, box)
        event = event_face(raw, box, profile=profile, read=read, body=body)
        if event is not None and (best is None or event[1] > best[0][1]):
            best = (event, center, box, cand.side, body)
    if best is None:
        return None
    (face, conf), center, box, side, body = best
    color, _ = die_color(raw, box, profile=profile, mean=body)
    return Die(EVENT, face, center, box, float(np.clip(conf, 0, 1)), color=color), side


def _event_die_second_look(raw: np.ndarray, upright: np.ndarray, faces: FaceReader,
                           weak: list[Candidate], cands: list[Candidate], typical: float,
                           rotation: int, profile: Any) -> tuple[Die, float] | None:
    """The Event die among the detector's weak peaks (`weak`: scores from SECOND_LOOK to
    its threshold, found in the same pass as the candidates `cands`), for a calibrated
    frame where no die was read as it: the die and its side.

    A blank Event face is a plain square of one colour; the detector, trained on pip
    faces, often scores it just under its threshold (rendered tables: 31 of the 52 Event
    dice missed had a peak of 0.2-0.4). Weak peaks are matched as the classifier's
    dropped candidates are (_event_die_passed_over), and a face found must stand out
    from what lies round it (STANDS_OUT: a patch of felt in a shadow is as plain). A
    peak whose face the frame cuts off is left out (an emblem may lie beyond the edge),
    and a face found within EDGE_NEAR sides of the edge is asked about, not played.
    The candidates `cands` were each looked at already."""
    weak = [c for c in weak if _apart(c, cands) and not _cut_off(
        (c.center[0] - c.side / 2, c.center[1] - c.side / 2, c.side, c.side), upright.shape)]
    if not weak:
        return None
    found = _event_die_passed_over(raw, list(zip(weak, faces.read_candidates(upright, weak))),
                                   cands, typical, rotation, profile)
    if found is None:
        return None
    die, side = found
    body = body_color(raw, die.box)
    if body is None or _contrast(raw, die.box, body) < STANDS_OUT:
        return None
    (cx, cy), s = die.center, max(die.box[2], die.box[3])
    rh, rw = raw.shape[:2]
    if min(cx, cy, rw - cx, rh - cy) < EDGE_NEAR * s:
        die = replace(die, confidence=min(die.confidence, DISAGREE_CAP))
    return die, side


def _contrast(raw: np.ndarray, box: tuple[int, int, int, int], body: np.ndarray) -> float:
    """Lab distance of a die's body colour (body_color) from the median colour of the
    square ring round its box (0.65-0.85 box sides from its centre each way, in the
    frame): how much the die stands out from what it lies on."""
    x, y, bw, bh = box
    cx, cy, s = x + bw / 2, y + bh / 2, float(max(bw, bh))
    x0, y0, x1, y1 = crop_bounds(raw, (cx - s / 2, cy - s / 2, s, s), scale=1.7)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    far = np.maximum(np.abs(xx - cx), np.abs(yy - cy)) / s
    ring = (far > 0.65) & (far < 0.85)
    if not ring.any():
        return 0.0
    lab = cv2.cvtColor(np.ascontiguousarray(raw[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)[ring]
    return float(np.linalg.norm(np.asarray(medians_u8(lab), np.float64) - body))


def _soldier_dice_passed_over(raw: np.ndarray, passed: list[tuple[Candidate, FaceRead]],
                              dice: list[Die], typical: float, rotation: int, profile: Any
                              ) -> list[tuple[Die, float]]:
    """The players' dice among the candidates the face classifier took for no die, with
    their sides: those in the tray, about the dice's size (`typical`, else the profile's
    die side), on no die read already (`dice`), whose body colour is a player's
    (within PLAYER_COLOUR, and nearer it than the Event die's) and not the tray's (a
    player whose dice are the felt's colour cannot be told from the felt by colour: the
    tray's median colour passes for theirs). Each is a Soldier die of
    that colour showing its likeliest pip face, below UNSURE: the players are asked
    its face. A die the classifier has never seen the like of (another box's dice, a
    new light) is often taken for the tray (rendered tables: 120 of 222 Soldier dice
    missed); asking about it beats leaving it out, and the photo log then keeps the
    roll to learn from. Needs the players' colours (calibration)."""
    colours = getattr(profile, "colors", None)
    size = typical or float(getattr(profile, "die_side", None) or 0.0)
    if not colours or not size:
        return []
    event = getattr(profile, "event", None)
    taken = [(d.center, max(d.box[2], d.box[3])) for d in dice]
    found: list[tuple[float, Die, float]] = []
    ground: np.ndarray | None = None  # the tray's colour, measured when first needed
    for cand, read in passed:
        if not 0.75 * size <= cand.side <= 1.33 * size or sum(read.probs[:6]) < PIPS_SEEN:
            continue
        center, box = _raw_geometry(cand, rotation, raw.shape)
        if not in_the_tray(profile, center, box, raw.shape) or any(
                np.hypot(center[0] - c[0], center[1] - c[1]) < 0.6 * max(cand.side, s)
                for c, s in taken):
            continue
        body = body_color(raw, box)
        if body is None:
            continue
        name, distance = min(((n, color_distance(body, m)) for n, m in colours.items()),
                             key=lambda nd: nd[1])
        if distance > PLAYER_COLOUR or (
                event is not None and color_distance(body, event.body) <= distance):
            continue
        if ground is None:
            ground = _tray_lab(raw, profile)
        if color_distance(ground, colours[name]) <= PLAYER_COLOUR:
            continue
        face = int(np.argmax(read.probs[:6]))
        die = Die(SOLDIER, face + 1, center, box, min(float(read.probs[face]), 0.9 * UNSURE),
                  color=name, choices=read.choices())
        found.append((distance, die, cand.side))
    out: list[tuple[Die, float]] = []
    for _, die, side in sorted(found, key=lambda f: f[0]):  # the nearest colour first
        if all(np.hypot(die.center[0] - c[0], die.center[1] - c[1]) >= 0.6 * max(side, s)
               for c, s in taken):
            out.append((die, side))
            taken.append((die.center, side))
    return out


def _tray_lab(raw: np.ndarray, profile: Any) -> np.ndarray:
    """The median Lab colour (3,) of the frame inside the profile's tray (every 4th pixel
    each way; the whole frame without a tray): the felt, which most of it is."""
    small = raw[::4, ::4]
    inside = tray_mask(small.shape[:2], 0.25, getattr(profile, "tray", None))
    pixels = small[inside] if inside.any() else small.reshape(-1, 3)
    lab = cv2.cvtColor(np.ascontiguousarray(pixels[:, None, :]), cv2.COLOR_BGR2LAB).reshape(-1, 3)
    return np.asarray(medians_u8(lab), np.float64)


def _event_likeness(raw: np.ndarray, die: Die, profile: Any) -> tuple[bool, float]:
    """How likely a die read as the Event die is it: read with a face first, then how
    much better the Event die's learned faces and colour explain it than a pip face
    does (vision.event.event_likeness). Not the classifier's pip probability: an emblem
    can pass for a 1 to it, and a Soldier die's top face a lamp turned white for no pips
    (rendered tables: with the pip probability, 46 of 600 Event dice were read as
    Soldier dice; without it, 25)."""
    if die.value is None:
        return False, float("-inf")
    return True, event_likeness(raw, die.box, profile=profile)


def _with_passed_over_event_die(raw: np.ndarray, dice: list[Die], reads: list[FaceRead],
                                sides: list[float], found: tuple[Die, float],
                                profile: Any) -> tuple[list[Die], list[float]]:
    """The dice with the Event die found among the candidates the classifier dropped
    (_event_die_passed_over): added when no die was read as the Event die; else it takes
    the place of the die read so when it is likelier the Event die (_event_likeness),
    and that die is the Soldier die the classifier read (a Soldier die of the Event die's
    colour taken for it while the real one, its face blank, was dropped)."""
    die, side = found
    events = [i for i, d in enumerate(dice) if d.kind == EVENT]
    if not events:
        return [*dice, die], [*sides, side]
    i = events[0]  # one_event_die left at most one
    if _event_likeness(raw, die, profile) <= _event_likeness(raw, dice[i], profile):
        return dice, sides
    return [*dice[:i], _as_soldier(dice[i], reads[i]), *dice[i + 1:], die], [*sides, side]


def touching_warnings(dice: list[Die], sides: list[float]) -> list[DiceWarning]:
    """A warning for each pair of dice so close that at least one could not be read surely.

    Touching dice that were both read with confidence >= SURE need no action."""
    out = []
    for i in range(len(dice)):
        for j in range(i + 1, len(dice)):
            (xi, yi), (xj, yj) = dice[i].center, dice[j].center
            if min(dice[i].confidence, dice[j].confidence) >= SURE:
                continue
            if np.hypot(xi - xj, yi - yj) < TOUCHING * max(sides[i], sides[j]):
                x0, y0 = min(dice[i].box[0], dice[j].box[0]), min(dice[i].box[1], dice[j].box[1])
                x1 = max(dice[i].box[0] + dice[i].box[2], dice[j].box[0] + dice[j].box[2])
                y1 = max(dice[i].box[1] + dice[i].box[3], dice[j].box[1] + dice[j].box[3])
                out.append(DiceWarning("touching", "Two dice are touching: move them apart so "
                                       "each can be read.", (x0, y0, x1 - x0, y1 - y0)))
    return out


def unreadable_warnings(dice: list[Die]) -> list[DiceWarning]:
    """A warning for each soldier die read with confidence below UNSURE. Code "cocked":
    the reader cannot tell a die cocked on an edge or partly hidden from one lying flat
    whose pips are hard to see, so the message asks for a look, not a re-roll."""
    return [DiceWarning("cocked", "A die could not be read surely: check its face (if it is "
                        "cocked on an edge or partly hidden, lay it flat).", d.box)
            for d in dice if d.kind == SOLDIER and d.confidence < UNSURE]


def _models(folder: str) -> tuple[DieDetector, FaceReader]:
    return _models_of(folder, stamp(Path(folder) / "faces.json"))


@lru_cache(maxsize=4)
def _models_of(folder: str, _stamp: int) -> tuple[DieDetector, FaceReader]:
    return DieDetector(Path(folder) / "detector.onnx"), FaceReader(folder)


def _default_profile() -> Any:
    try:
        from calibration.profile import default_profile
    except ImportError:
        return None
    return default_profile()


def read_dice(frame: np.ndarray, *, profile: Any = None, models: str | Path | None = None
              ) -> Reading:
    """Read every die in a BGR uint8 frame (H, W, 3); the frame is not modified.

    profile: a calibration.Profile (tray, rotation, colours, Event die) or None for the
    default profile. models: the model folder (default: vision.onnxnets.model_dir()).
    Raises FrameError (a ValueError) when `frame` is not an image; "no dice" and "not
    sure" are results (empty dice, low confidence), not errors.
    """
    raw = _check_frame(frame)
    profile = _default_profile() if profile is None else profile
    with one_frame(raw):  # a die matched to the Event die is matched once
        return _read(raw, profile, models)


def _read(raw: np.ndarray, profile: Any, models: str | Path | None) -> Reading:
    """read_dice of a checked frame."""
    rotation = int(getattr(profile, "rotation", 0) or 0)
    upright = cv2.rotate(raw, _ROTATE[rotation]) if rotation in _ROTATE else raw
    upright = even_light(upright)  # for the networks; colours and warnings see the frame as is
    detector, faces = _models(str(models or model_dir()))
    scale, region = detection_view(profile, rotation, raw.shape)
    # A calibrated Event die is looked for again among the weak peaks of the same pass.
    second_look = SECOND_LOOK if getattr(profile, "event", None) is not None else None
    peaks = detector.detect(upright, scale=scale, region=region, threshold=second_look)
    cands = [c for c in peaks if c.score >= detector.threshold]
    weak = [c for c in peaks if c.score < detector.threshold]
    if scale is None:
        cands, reads = read_at_the_right_scale(detector, faces, upright, cands, region)
    else:
        reads = faces.read_candidates(upright, cands)
    dice: list[Die] = []
    dice_reads: list[FaceRead] = []
    sides: list[float] = []
    kept = [c for c, r in zip(cands, reads) if is_die(r)]
    typical = float(np.median([c.side for c in kept])) if len(kept) >= 3 else 0.0
    passed: list[tuple[Candidate, FaceRead]] = []  # not dice to the classifier
    for cand, read in zip(cands, reads):
        if not is_die(read):
            passed.append((cand, read))
            continue
        if cand.side < ODD_SIZE * typical and not whole_face_read_surely(read):
            # a face far smaller than its neighbours': likely mis-cut
            read = replace(read, confidence=min(read.confidence, DISAGREE_CAP))
        center, box = _raw_geometry(cand, rotation, raw.shape)
        if not in_the_tray(profile, center, box, raw.shape):
            continue
        body = body_color(raw, box)
        die = _soldier_or_event(raw, read, center, box, profile, body)
        color, _ = die_color(raw, box, profile=profile, mean=body)
        dice.append(replace(die, color=color))
        dice_reads.append(read)
        sides.append(cand.side)
    dice = one_event_die(raw, dice, dice_reads, profile)
    found = _event_die_passed_over(raw, passed, kept, typical, rotation, profile)
    if found is not None:
        dice, sides = _with_passed_over_event_die(raw, dice, dice_reads, sides, found, profile)
    if weak and not any(d.kind == EVENT for d in dice):
        second = _event_die_second_look(raw, upright, faces, weak, cands, typical, rotation,
                                        profile)
        if second is not None:
            dice.append(second[0])
            sides.append(second[1])
    for die, side in _soldier_dice_passed_over(raw, passed, dice, typical, rotation, profile):
        dice.append(die)
        sides.append(side)
    dice = asked_when_cut(dice, raw.shape)
    if getattr(profile, "tray", None) or getattr(profile, "die_side", None):  # calibrated
        dice = asked_when_running_off(raw, dice)
    warnings = touching_warnings(dice, sides) + unreadable_warnings(dice)
    warnings += list(frame_warnings(raw, [d.box for d in dice], profile=profile))
    return Reading(tuple(dice), tuple(warnings))
