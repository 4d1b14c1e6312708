"""The Event die: is this die the Event die, and which face (blank / dragon / rally) is up?

The Event die's printing differs between editions, so nothing here knows what its
symbols look like: the profile holds a few learned views of each face (calibration).
A die is the Event die when its body colour is near the learned one, the reader's face
classifier does not surely take it for a pip face (unless for a 1, or its colour is no
player's), and its top face looks like one of the learned faces more than like any pip
layout. When a player's dice share the Event die's colour, the face alone decides (the
body colour cannot).

A face is compared as an "ink map": how far each pixel of the top face is from the body
colour (so the light and the ink's colour matter little), blurred, inside a disc that
leaves out the rounded edges and their glints. The face is first set upright (its turn
from the directions of its edges, its side from the reader's box: face_pose), learned
views and dice in play alike, then cut a little larger than the face and searched over
the four quarter turns (give or take 10 degrees), shifts (a tenth of a side each way)
and sizes, so a turned, off-centre or slanted die still lines up with its learned
views; a blank face is a map with no ink. Each learned view may match at 0.6-1.7 times
its ink strength (dimmer or brighter light); a Dragon or Rally view that shows no
emblem is left out. Pip layouts 1-6 are matched the same way (turned through half a
turn: a 2, 3 or 6 turned a quarter is another layout): a Soldier die of the Event die's
colour matches them better than any Event face.

A learned comparison (vision.event_embed) can pick the face instead, from the face's
colour map, when a network for it is in the model folder; none ships (it read no
better).
"""
from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from calibration.profile import EVENT_FACES, EventDie, FaceTemplate, Profile
from vision import event_embed
from vision.color import body_color, color_distance, crop_bounds, medians_u8
from vision.types import PLAY_CONFIDENCE

FACE = 24  # pixels of one face side in the compared maps
CUT = 1.25  # the query is cut this many face sides wide (room for the shifts)
SIZE = round(FACE * CUT)  # 30
WIN = 20  # side of the compared window (pixels): the disc fits in it
R_FULL, R_ZERO = 0.3, 0.42  # share of the face side: full weight inside, none beyond
SHIFTS = range(-2, 3)  # window offsets tried (pixels), each way
SCALES = (0.88, 1.0, 1.12)  # face sizes tried, relative to the measured one
# (smaller ones push a 2's corner pips out of the disc: it would pass for a blank face)
TURNS = (-10, -5, 0, 5, 10)  # degrees tried round each quarter turn of a face set upright (face_pose)
RING = (0.3, 0.42)  # the ring round a face's middle (face sides from its centre) whose colour may be the body's
OUTLIER = 10.0  # a Dragon or Rally view this many times nearer a blank view than its own face's is left out
INK_RATIO = 0.1  # a view with this share of the ink of another of its face shows no emblem (_inked)
POSE_CUT = 1.1  # the face's turn is measured in a square this many box sides wide
# The reader's detector boxes a die's top face a little wider than the face, and wider
# still when the die is turned (rendered tables: 1.13 face sides square to the frame,
# 1.24 turned 45 degrees, where the face's own upright box is 1.41): the box is
# BOX_OVER_FACE * (1 + BOX_GROWTH * (|cos| + |sin| - 1)) face sides.
BOX_OVER_FACE, BOX_GROWTH = 1.12, 0.25
STORE = 48  # side of a stored template image (the face square)
INK_SCALE = 45.0  # Lab distance counted as full ink
BLUR = 1.2  # pixels of Gaussian blur on the ink map (a pixel of misalignment costs little)
GAIN = (0.6, 1.7)  # ink strength a learned view may be matched at
PIP_RADIUS, PIP_OFFSET = 0.085, 0.26  # pip layouts, in face sides
MAX_BODY_DISTANCE = 4.0  # Mahalanobis, as in vision.color
REJECT = 12.0  # a best match this many times the learned spread: not the Event die
FACE_DISTANCE = 18.0  # Lab distance from the body counted as top face (loose boxes)
PIP_MARGIN = 0.8  # a die of a player's colour is the Event die only when it wins by this ratio
PIP_VETO = 0.5  # a classifier's pip face read more surely than this rules the Event die out
# (event_face; at or under it, as a read whose views disagree is, the face decides)
# A face read with this match score (its margin over the next face, times its fit) is
# as sure as the table's PLAY_CONFIDENCE (event_confidence). 0.6 until the fortieth
# session (vision/training/README.md): 5 of 61 faces scored 0.6-0.8 were wrong.
PLAYED_SCORE = 0.8

_CACHE: dict[int, tuple[EventDie, Any]] = {}
_FRAME = threading.local()  # .matches: one frame's _match results (one_frame), per thread


def _weight() -> np.ndarray:
    """(WIN, WIN) square root of the disc weight: 1 inside R_FULL, 0 beyond R_ZERO."""
    c = (WIN - 1) / 2
    yy, xx = np.mgrid[:WIN, :WIN]
    r = np.hypot(xx - c, yy - c) / FACE
    return np.sqrt(np.clip((R_ZERO - r) / (R_ZERO - R_FULL), 0.0, 1.0)).astype(np.float32)


SQRT_W = _weight()
W_SUM = float((SQRT_W ** 2).sum())


def _window_index() -> np.ndarray:
    """(shifts, WIN * WIN) flat indices of every shifted WIN x WIN window in the part of
    a query square the shifts reach (WIN + the shifts' span pixels a side), the windows
    in the order of sliding_window_view (rows, then columns)."""
    span = WIN + SHIFTS[-1] - SHIFTS[0]
    yy, xx = np.mgrid[:WIN, :WIN]
    at = [(dy + yy) * span + dx + xx for dy in range(len(SHIFTS)) for dx in range(len(SHIFTS))]
    return np.array(at).reshape(len(at), WIN * WIN)


WINDOWS = _window_index()
SQRT_W_FLAT = SQRT_W.ravel()


def _ink(square: np.ndarray, face: float, body: np.ndarray | None = None, *,
         colour: bool = False) -> np.ndarray:
    """(n, n) float32 in 0..1, how far each pixel of a BGR square is from the die's body
    colour (_difference), blurred; the face is `face` pixels wide in the square.
    colour: instead (n, n, 3) float32 in -1..1, the difference itself (Lab, in INK_SCALE
    units, blurred alike): what the learned comparison (vision.event_embed) reads, for
    which a white glint and a green emblem on a black die differ."""
    return _mapped(_difference(square, face, body), colour=colour)


def _difference(square: np.ndarray, face: float, body: np.ndarray | None) -> np.ndarray:
    """(n, n, 3) float32 Lab difference of each pixel of a BGR square from the die's body
    colour as seen in this picture (a glossy face that mirrors a lamp is lighter than the
    learned colour, its emblem still stands out): the median of the face's middle disc,
    or of a ring round it (a big emblem fills the middle), whichever is nearer the
    learned colour `body` (Lab; lightness counts a tenth, as the light changes it)."""
    lab8 = cv2.cvtColor(np.ascontiguousarray(square), cv2.COLOR_BGR2LAB)
    disc, ring = _rings(square.shape[0], round(face, 3))
    ref = medians_u8(lab8[disc])
    if body is not None:
        other = medians_u8(lab8[ring])
        if _off(other, body) < _off(ref, body):
            ref = other
    return lab8.astype(np.float32) - np.asarray(ref, np.float32)


def _off(colour: Sequence[float], body: np.ndarray) -> float:
    """How far a face's Lab colour is from the learned body colour, lightness a tenth."""
    dl, da, db = (c - float(b) for c, b in zip(colour, body))
    return math.sqrt((0.1 * dl) ** 2 + da * da + db * db)


def _mapped(d: np.ndarray, *, colour: bool = False) -> np.ndarray:
    """The ink map (or, colour, the colour map) of a Lab difference (_difference): _ink."""
    if colour:
        return cv2.GaussianBlur(np.clip(d / INK_SCALE, -1.0, 1.0), (0, 0), BLUR)
    l, a, b = d[..., 0], d[..., 1], d[..., 2]
    ink = np.minimum(np.sqrt(l * l + a * a + b * b) / INK_SCALE, 1.0)
    return cv2.GaussianBlur(ink, (0, 0), BLUR)


@lru_cache(maxsize=64)
def _rings(n: int, face: float) -> tuple[np.ndarray, np.ndarray]:
    """Masks of an n-pixel square whose face is `face` pixels wide: its middle disc
    (0.4 face sides round the centre) and RING (read-only: shared)."""
    c = (n - 1) / 2
    yy, xx = np.mgrid[:n, :n]
    r = np.hypot(xx - c, yy - c) / face
    disc, ring = r <= 0.4, (r >= RING[0]) & (r <= RING[1])
    disc.flags.writeable = ring.flags.writeable = False
    return disc, ring


def _turned(m: np.ndarray, angle: float) -> np.ndarray:
    """The WIN x WIN middle of map `m` (a colour map: (n, n, 3)) turned by `angle`
    degrees, weighted, flattened."""
    n = m.shape[0]
    c = (n - 1) / 2
    r = cv2.getRotationMatrix2D((c, c), angle, 1.0)
    r[:, 2] -= (n - WIN) / 2
    out = cv2.warpAffine(m, r, (WIN, WIN), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return (out * (SQRT_W if out.ndim == 2 else SQRT_W[..., None])).ravel()


def pip_map(face: int) -> np.ndarray:
    """(FACE, FACE) ink map of a Soldier die's pip layout `face` (1-6)."""
    m = np.zeros((FACE * 4, FACE * 4), np.float32)  # drawn 4x finer, then shrunk
    c, step, r = (4 * FACE - 1) / 2, (0.5 - PIP_OFFSET) * 4 * FACE, PIP_RADIUS * 4 * FACE
    layout = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
              4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
              5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
              6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[face]
    for gx, gy in layout:
        cv2.circle(m, (round(c + gx * step), round(c + gy * step)), round(r), 1.0, -1)
    m = cv2.resize(m, (FACE, FACE), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(m, (0, 0), BLUR)


def _padded(m: np.ndarray) -> np.ndarray:
    """A FACE-sided map in the middle of a SIZE-sided one (so turns keep the corners)."""
    p = (SIZE - FACE) // 2
    return cv2.copyMakeBorder(m, p, SIZE - FACE - p, p, SIZE - FACE - p, cv2.BORDER_CONSTANT,
                              value=(0, 0, 0, 0))


def _turns(quarters: int) -> list[float]:
    """The turns tried: `quarters` quarter turns, each give or take TURNS."""
    return [90.0 * q + t for q in range(quarters) for t in TURNS]


def _stack(maps: Sequence[np.ndarray], quarters: int) -> np.ndarray:
    """(len(maps) * turns, WIN * WIN) every map at every turn of _turns(quarters)."""
    return np.array([_turned(_padded(m), a) for m in maps for a in _turns(quarters)], np.float32)


def face_pose(frame: np.ndarray, cx: float, cy: float, extent: float) -> tuple[float, float]:
    """(angle, side) of the die's top face centred at (cx, cy) whose box, upright to the
    frame, is `extent` pixels wide: how far the face is turned from upright (degrees,
    -45 to 45, as cv2.getRotationMatrix2D counts them), from the directions of the edges
    in and round it (the face's own edges are the strongest and a quarter turn apart),
    and the face's side (`extent` is taken as the reader's box: _growth)."""
    n = 48
    cut = _cut(frame, cx, cy, POSE_CUT * extent, n)
    lab = cv2.cvtColor(cut, cv2.COLOR_BGR2LAB)
    gx3 = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    gy3 = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
    m3 = gx3 * gx3 + gy3 * gy3
    gx, gy, m2 = gx3[..., 0], gy3[..., 0], m3[..., 0]
    for c in (1, 2):  # each pixel's strongest channel (the first of equals)
        more = m3[..., c] > m2
        gx = np.where(more, gx3[..., c], gx)
        gy = np.where(more, gy3[..., c], gy)
        m2 = np.where(more, m3[..., c], m2)
    inside = _round_window(n)
    gx, gy, m2 = gx[inside], gy[inside], m2[inside]
    # Each edge votes with its strength |g| for its direction times four (edges a quarter
    # turn apart count alike): |g| (cos 4phi, sin 4phi) = (c4, s4) / |g|^3, where
    # (c2, s2) = |g|^2 (cos 2phi, sin 2phi) and (c4, s4) = |g|^4 (cos 4phi, sin 4phi).
    c2, s2 = gx * gx - gy * gy, 2 * gx * gy
    c4, s4 = c2 * c2 - s2 * s2, 2 * c2 * s2
    m2 = np.maximum(m2, 1e-6)
    w = 1.0 / (m2 * np.sqrt(m2))  # |g| ** -3
    angle = float(np.degrees(math.atan2(float((s4 * w).sum()), float((c4 * w).sum())) / 4))
    r = math.radians(angle)
    return angle, extent / _growth(r)


@lru_cache(maxsize=4)
def _round_window(n: int) -> np.ndarray:
    """The disc inscribed in an n-pixel square (read-only: shared)."""
    c = (n - 1) / 2
    yy, xx = np.mgrid[:n, :n]
    inside = np.hypot(xx - c, yy - c) < n / 2
    inside.flags.writeable = False
    return inside


def _growth(turn: float) -> float:
    """How much wider than the face the reader's box of a die is, turned `turn` radians."""
    return BOX_OVER_FACE * (1 + BOX_GROWTH * (abs(math.cos(turn)) + abs(math.sin(turn)) - 1))


def template_map(t: FaceTemplate, body: np.ndarray | None = None, *, colour: bool = False
                 ) -> np.ndarray:
    """(FACE, FACE) ink map of a learned view, set upright (face_pose; its image is the
    die's top face cut upright to the frame at the reader's box: face_template).
    colour: its colour map instead (_ink)."""
    n = t.image.shape[0]
    angle, side = face_pose(t.image, (n - 1) / 2, (n - 1) / 2, n)
    return _ink(_cut(t.image, (n - 1) / 2, (n - 1) / 2, side, FACE, angle), FACE, body,
                colour=colour)


class _Learned:
    """An Event die's views, ready to compare: every view at every turn, the pip
    layouts likewise, and how far apart views of the same face typically are. A Dragon
    or Rally view that shows no emblem is left out (_consistent, _inked), and so is a
    blank view that shows ink its face's other views do not (_inked)."""

    def __init__(self, event: EventDie) -> None:
        body = event.body.mean_array()
        maps = [template_map(t, body) for t in event.templates]
        names = [t.face for t in event.templates]
        self.turns = len(_turns(4))
        views = _stack(maps, 4)
        energy = (views ** 2).sum(axis=1)  # each view's ink at every turn
        near = self._apart(maps, views, energy)
        by_map = energy.reshape(len(maps), self.turns)
        self.ink: dict[str, list[float]] = {}  # every view's ink by face, left-out ones too
        for name, ink in zip(names, by_map.mean(axis=1).tolist()):
            self.ink.setdefault(name, []).append(ink)
        keep = _inked(by_map.mean(axis=1), names, _consistent(near, names))
        self.names = [names[i] for i in keep]
        self.views = views.reshape(len(maps), self.turns, -1)[keep].reshape(-1, views.shape[1])
        self.view_energy = by_map[keep].ravel()
        pips = [pip_map(f) for f in range(1, 7)]
        self.pips = _stack(pips, 2)  # a pip layout looks the same half a turn on (2, 3, 6 not a quarter)
        self.pip_energy = (self.pips ** 2).sum(axis=1)
        same = [min(near[i, j] for j in keep if j != i and names[j] == names[i])
                for i in keep if sum(names[j] == names[i] for j in keep) > 1]
        self.spread = max(0.002, float(np.median(same))) if same else 0.006
        self.net = event_embed.path()  # the learned comparison's network, if any
        self.vectors = None
        if self.net is not None:
            tinted = _stack([template_map(event.templates[i], body, colour=True) for i in keep], 4)
            self.vectors = event_embed.embed(tinted, self.net)

    def _apart(self, maps: list[np.ndarray], views: np.ndarray, energy: np.ndarray
               ) -> np.ndarray:
        """(n, n) how far apart each two views are (the smaller of either compared with
        the other at every turn; `views`: the maps at every turn, _stack(maps, 4), and
        `energy` their summed squares)."""
        d = np.array([self._distances(_turned(_padded(m), 0)[None, :], views, energy)
                      .reshape(len(maps), -1).min(axis=1) for m in maps])
        return np.minimum(d, d.T)

    @staticmethod
    def _distances(q: np.ndarray, t: np.ndarray, t_energy: np.ndarray) -> np.ndarray:
        """(len(t),) smallest weighted mean squared difference between any query view
        (rows of q) and each template view, the template's ink scaled within GAIN."""
        a = q @ t.T  # (views, templates)
        c = (q ** 2).sum(axis=1)[:, None]
        g = np.clip(a / np.maximum(t_energy, 1e-6)[None, :], *GAIN)
        d = c + g * (g * t_energy[None, :] - 2 * a)  # |q - g t|^2
        return np.maximum(d.min(axis=0), 0.0) / W_SUM

    def match(self, q: np.ndarray) -> tuple[dict[str, float], float]:
        """({face: best distance}, best pip-layout distance) for the query views q."""
        best = self._by_face(self._distances(q, self.views, self.view_energy))
        return best, float(self._distances(q, self.pips, self.pip_energy).min())

    def _by_face(self, d: np.ndarray) -> dict[str, float]:
        """{face: the smallest of `d`, one distance per view and turn, over its views}."""
        best: dict[str, float] = {}
        for name, v in zip(self.names, d.reshape(-1, self.turns).min(axis=1).tolist()):
            best[name] = min(v, best.get(name, v))
        return best

    def embedded(self, q: np.ndarray | None) -> dict[str, float] | None:
        """{face: nearest distance} of the query's colour views q (query_views) by the
        learned comparison (vision.event_embed: 1 - the vectors' dot product), None
        without its network."""
        if self.vectors is None or self.net is None:
            return None
        return self._by_face((1.0 - event_embed.embed(q, self.net) @ self.vectors.T).min(axis=0))


def _consistent(near: np.ndarray, names: Sequence[str]) -> list[int]:
    """Indices of the views to keep: a Dragon or Rally view that is OUTLIER times nearer
    a blank view than any view of its own face shows no emblem (the die at the picture's
    edge, half hidden, or on its side) and goes, the furthest from its face first, as
    long as its face keeps a view."""
    keep = list(range(len(names)))
    while True:
        worst, ratio = None, OUTLIER
        for i in keep:
            own = [near[i, j] for j in keep if j != i and names[j] == names[i]]
            blank = [near[i, j] for j in keep if names[j] == "blank"]
            if names[i] == "blank" or not own or not blank:
                continue
            apart = min(own) / max(min(blank), 1e-9)
            if apart > ratio:
                worst, ratio = i, apart
        if worst is None:
            return keep
        keep.remove(worst)


def _inked(ink: np.ndarray, names: Sequence[str], keep: list[int]) -> list[int]:
    """`keep` less the views whose ink (`ink`: each view's summed squared ink) says the
    picture shows another face than it is named for, judged against the other views of
    its face: a Dragon or Rally view with under INK_RATIO times the ink of another (its
    emblem faced away or lost in glare), a blank view with over 1 / INK_RATIO times that
    of another and over 10 (a side face's emblem, a neighbour or the tray's edge in it;
    two clean blank views differ by more than ten times in specks alone). A face keeps
    at least one view. On the rendered tables (benchmarks/vision_event_tables.py) a
    Dragon view without its emblem passed _consistent, its table's blank views showing
    ink too, and blank dice were read as Dragons at 0.88-0.96."""
    keep = list(keep)
    for i in list(keep):
        own = [float(ink[j]) for j in keep if j != i and names[j] == names[i]]
        if not own:
            continue
        if names[i] == "blank":
            if ink[i] > max(1.0, min(own)) / INK_RATIO:
                keep.remove(i)
        elif ink[i] < INK_RATIO * max(own):
            keep.remove(i)
    return keep


def face_ink(event: EventDie) -> dict[str, list[float]]:
    """{face: each learned view's ink}: the summed squared ink map of its top face set
    upright, in the compared disc, averaged over the turns (_Learned.ink, views left out
    by _consistent and _inked too). A blank face's views show little (specks, a glint);
    an emblem shows much more."""
    return {face: list(ink) for face, ink in _learned(event).ink.items()}


def _learned(event: EventDie) -> _Learned:
    hit = _CACHE.get(id(event))
    if hit is not None and hit[0] is event and hit[1].net == event_embed.path():
        return hit[1]
    learned = _Learned(event)
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(event)] = (event, learned)
    return learned


def face_squares(frame: np.ndarray, box: Sequence[float], body: np.ndarray
                 ) -> list[tuple[float, float, float]]:
    """Where the die's top face may be: (cx, cy, extent) of `box` taken as the reader's
    box of the face, and, when it differs, of the largest region of the top face's
    colour in it (a loose box round a whole die, its sides and shadow), its extent the
    reader's box of a face that size and turn (_growth)."""
    x, y, w, h = (float(v) for v in box)
    out = [(x + w / 2, y + h / 2, (w + h) / 2)]
    ox, oy, x1, y1 = crop_bounds(frame, box, scale=1.05)
    crop = frame[oy:y1, ox:x1]
    if crop.shape[0] < 8 or crop.shape[1] < 8:
        return out
    rect = _face_rect(crop, body)
    if rect is None:
        return out
    (rx, ry), (rw, _), ang = rect
    a = math.radians(ang)
    extent = rw * _growth(a)
    cx, cy, side = out[0]
    if math.hypot(ox + rx - cx, oy + ry - cy) > 0.1 * side or not 0.85 < extent / side < 1.15:
        out.append((ox + rx, oy + ry, extent))
    return out


def _face_rect(crop: np.ndarray, body: np.ndarray) -> tuple | None:
    """Minimum-area square round the body-coloured region under the crop's middle."""
    h, w = crop.shape[:2]
    lab = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB).astype(np.float32)
    d = lab - body.astype(np.float32)
    l, a, b = d[..., 0], d[..., 1], d[..., 2]
    mask = (l * l + a * a + b * b < FACE_DISTANCE ** 2).astype(np.uint8)
    k = max(3, round(min(h, w) / 6) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    mid = labels[h // 2 - 1:h // 2 + 2, w // 2 - 1:w // 2 + 2].ravel()
    mid = mid[mid > 0]
    if n < 2 or not len(mid):
        return None
    big = int(np.bincount(mid).argmax())
    if stats[big, cv2.CC_STAT_AREA] < 0.2 * h * w:
        return None
    contours, _ = cv2.findContours((labels == big).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    side = min(rw, rh)  # a square face; the longer side includes the die's visible side
    return (cx, cy), (side, side), ang


def _cut(frame: np.ndarray, cx: float, cy: float, side: float, size: int,
         angle: float = 0.0) -> np.ndarray:
    """The `side`-pixel square round (cx, cy), turned by `angle` degrees (0: upright to
    the frame), as `size` x `size`."""
    m = cv2.getRotationMatrix2D((cx, cy), angle, size / side)
    m[:, 2] += (size - 1) / 2 - np.array([cx, cy])
    return cv2.warpAffine(np.ascontiguousarray(frame), m, (size, size), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)


def query_views(frame: np.ndarray, squares: Sequence[tuple[float, float, float]],
                body: np.ndarray | None = None, *, colour: bool = False
                ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """(n, WIN * WIN) weighted views of the face, set upright (face_pose): every square
    (cx, cy, extent), size and shift. colour: (those, and the same views of its colour
    map (n, WIN * WIN * 3), _ink)."""
    rows, tinted = [], []
    o = (SIZE - WIN) // 2
    lo, hi = o + SHIFTS[0], o + SHIFTS[-1] + WIN
    for cx, cy, extent in squares:
        angle, side = face_pose(frame, cx, cy, extent)
        for s in SCALES:
            d = _difference(_cut(frame, cx, cy, CUT * side * s, SIZE, angle), FACE / s, body)
            part = np.ascontiguousarray(_mapped(d)[lo:hi, lo:hi])
            rows.append(part.ravel()[WINDOWS] * SQRT_W_FLAT)  # every shifted window
            if colour:  # the same windows of the colour map, each pixel's 3 channels in turn
                part = np.ascontiguousarray(_mapped(d, colour=True)[lo:hi, lo:hi])
                windows = part.reshape(-1, 3)[WINDOWS] * SQRT_W_FLAT[:, None]
                tinted.append(windows.reshape(len(WINDOWS), WIN * WIN * 3))
    views = np.concatenate(rows).astype(np.float32)
    return (views, np.concatenate(tinted).astype(np.float32)) if colour else views


def event_face(frame: np.ndarray, box: tuple[float, ...] | list[float], *,
               profile: Profile | None, read: Any = None, body: np.ndarray | None = None
               ) -> tuple[str, float] | None:
    """("blank" | "dragon" | "rally", confidence) for the Event die in `box`, else None.

    None when the profile has no Event die, or this die's body colour or face is not
    the Event die's. frame: BGR uint8 (H, W, 3); box: (x, y, w, h), the die's top face
    square as the reader's detector finds it, or a looser box round the die. read: the
    face classifier's read of the die (vision.faces.FaceRead), when there is one: a die
    whose likeliest class is a pip face, read more surely than PIP_VETO, is a Soldier
    die (pip dice of the Event die's colour often matched an Event face better than the
    drawn pip layouts, whose pips differ in size and place between sets), unless it was
    read as a 1 (an Event emblem can pass for one: rendered tables, 13 of 120 Event dice
    read so) or the players' colours are known and it has none of them; then, and when
    the pip read is as unsure as that, its face must beat the pip layouts by PIP_MARGIN.
    An unsure pip read does not decide: on 15 rendered tables a white Event die on black
    felt, beside white Soldier dice, was read as a 4, 5 or 6 at 0.2-0.3 in 12 of 20 rolls;
    letting its face decide there found the Event die in 285 of 300 rolls instead of
    262, its face right in 253 instead of 240, with 7 Soldier dice taken for it instead
    of 10. body: the die's body_color, when it is measured already.
    """
    if profile is None or profile.event is None:
        return None
    if body is None:
        body = body_color(frame, box)
    if body is None:
        return None
    distance = color_distance(body, profile.event.body)
    if distance > MAX_BODY_DISTANCE:
        return None  # not the Event die's colour
    label = getattr(read, "label", None)
    players = [color_distance(body, m) for m in profile.colors.values()]
    shared = any(d < distance for d in players)
    player_colour = not players or min(players) <= MAX_BODY_DISTANCE  # maybe a player's die
    sure = float(getattr(read, "confidence", 1.0)) > PIP_VETO
    if isinstance(label, int) and label != 1 and player_colour and sure:
        return None  # read as a pip face other than a lone pip: a Soldier die
    learned, best, pips, embedded = _match(frame, box, profile, body)
    ranked = sorted((d, name) for name, d in best.items())
    (d1, name), (d2, _) = ranked[0], ranked[1]
    need = PIP_MARGIN if (shared or isinstance(label, int)) and label != "nopips" else 1.0
    if d1 >= need * pips or d1 > REJECT * learned.spread:
        return None  # a pip layout fits better: a Soldier die (or not this die at all)
    spread = learned.spread
    fit = 1.0 if d1 <= 3.0 * spread else float(np.exp(-(d1 - 3.0 * spread) / (3.0 * spread)))
    if embedded is not None:
        ranked = sorted((d, n) for n, d in embedded.items())
        (d1, name), (d2, _) = ranked[0], ranked[1]
    margin = 1.0 - d1 / d2 if d2 > 0 else 0.0
    return name, event_confidence(margin * fit)


@contextmanager
def one_frame(frame: np.ndarray) -> Iterator[None]:
    """Inside it, a die of `frame` matched to the Event die once (event_face, then
    event_likeness for the same box and body colour, as vision.reader.read_dice asks
    when several dice are read as the Event die) is not matched again: the match is the
    reader's dearest step (a few milliseconds a die). Kept for this frame object only,
    on this thread, and dropped on leaving: a camera that fills the same array with the
    next picture is matched afresh."""
    outer = getattr(_FRAME, "matches", None)
    _FRAME.matches = (frame, {})
    try:
        yield
    finally:
        _FRAME.matches = outer


def _match(frame: np.ndarray, box: tuple[float, ...] | list[float], profile: Profile,
           body: np.ndarray
           ) -> tuple[_Learned, dict[str, float], float, dict[str, float] | None]:
    """The learned Event die, and the die in `box` matched to it: {face: best distance}
    and the best pip-layout distance (_Learned.match), and {face: nearest distance} by
    the learned comparison (_Learned.embedded). Remembered inside one_frame(frame)."""
    scope = getattr(_FRAME, "matches", None)
    memo = scope[1] if scope is not None and scope[0] is frame else None
    key = (tuple(float(v) for v in box), np.asarray(body, np.float64).tobytes(), id(profile.event))
    if memo is not None and key in memo and memo[key][0] is profile.event:
        return memo[key][1]
    learned = _learned(profile.event)
    squares = face_squares(frame, box, body)
    learned_body = profile.event.body.mean_array()
    tinted = None
    if learned.vectors is not None:
        views, tinted = query_views(frame, squares, learned_body, colour=True)
    else:
        views = query_views(frame, squares, learned_body)
    best, pips = learned.match(views)
    out = (learned, best, pips, learned.embedded(tinted))
    if memo is not None:
        memo[key] = (profile.event, out)
    return out


def event_likeness(frame: np.ndarray, box: tuple[float, ...] | list[float], *,
                   profile: Profile, body: np.ndarray | None = None) -> float:
    """How much likelier the die in `box` is the calibrated Event die than a Soldier die,
    for choosing among dice read as it (vision.reader.one_event_die): the log of how
    many times better its nearest learned Event view fits than its nearest pip layout,
    less its body colour's distance (Mahalanobis) from the Event die's. -inf when its
    colour cannot be measured.

    A Soldier die whose top face a lamp turned white, or the tray's wall, can match the
    blank face as closely as the Event die matches its own; only the Event die's emblem
    and colour set it apart from a pip face. On the 30 rendered tables of
    benchmarks/vision_event_tables.py, among 79 rolls with several dice read as the
    Event die and the real one among them, this chose the real one in 72 (the
    classifier's pip probability and the face's match score together: 61)."""
    if profile.event is None:
        raise ValueError("the profile has no Event die")
    if body is None:
        body = body_color(frame, box)
    if body is None:
        return float("-inf")
    learned, best, pips, _ = _match(frame, box, profile, body)
    nearest = max(min(best.values()), 1e-3 * learned.spread)
    return float(np.log(pips / nearest) - color_distance(body, profile.event.body))


def event_confidence(score: float) -> float:
    """The confidence of an Event face read with match `score` (its margin over the next
    face, times how well it fits, 0-1): PLAY_CONFIDENCE at PLAYED_SCORE, linear on either
    side. The score is no probability. On 18 rendered tables of
    benchmarks/vision_event_tables.py (360 rolls, calibrated; dice read as the Event die,
    Soldier dice among them), faces read at 0.6-0.8 were right 53 times of 58, those at
    0.8-0.9 50 of 53, above 98 of 110, and at 0.5-0.6 only 14 of 21: PLAYED_SCORE was 0.6.
    Rendered again (tables 100000-100005 and 100015-100029, 420 rolls), faces read at
    0.6-0.8 were right 56 of 61 times and played three rolls wrong, at 0.8-0.9 67 of 67,
    above 137 of 142: so 0.8, and those rolls are asked."""
    s = float(np.clip(score, 0.0, 1.0))
    return float(np.interp(s, (0.0, PLAYED_SCORE, 1.0), (0.0, PLAY_CONFIDENCE, 1.0)))


def face_template(frame: np.ndarray, box: tuple[float, ...] | list[float], face: str
                  ) -> FaceTemplate:
    """A learned view of `face` from the Event die whose top face square is `box` (x, y,
    w, h; for calibration): the square, upright to the frame, STORE pixels a side."""
    if face not in EVENT_FACES:
        raise ValueError(f"Event-die face must be one of {', '.join(EVENT_FACES)}, got {face!r}")
    x, y, w, h = (float(v) for v in box)
    if min(w, h) < 8:
        raise ValueError("could not see the Event die's face in that frame")
    return FaceTemplate(face, _cut(frame, x + w / 2, y + h / 2, (w + h) / 2, STORE))
