"""Training a learned comparison of the Event die's faces (vision.event_embed).

The reader tells the Event die's faces apart by comparing the die in play with the
views calibration learned (vision.event), as ink maps. A learned comparison maps each
upright colour map (the face's Lab difference from the body colour) to a short vector,
so that views of one face of one die lie near each other and the die's other faces
further off, whatever its emblems. It learns that from many Event dice, each with its
own emblems, of two kinds:

- made-up dice drawn here with numpy and OpenCV alone: a top face at any turn, rounded
  edges that catch the light in thin bright lines (the glints the ink maps take for a
  Dragon's bar on dark dice), a glossy face's highlight, a visible side, shadow, a
  tray of any colour, blur, noise and JPEG;
- dice rendered with Blender (`render`, the render extra): one Event die thrown seven
  times on a Dragon Farkle table, so one frame holds learned views and queries alike.

Its emblems are not the renderer's own (vision/training/render/textures.py): blobs of
smooth noise, strokes, polygons, ellipses and glyphs of other letters, so the rendered
tables of benchmarks/vision_event_tables.py, whose emblems that renderer draws, stay
unseen in kind as well as in seed.

Measured on those 30 tables, the comparison read no better than the ink maps, so no
network ships (vision/training/README.md, thirty-eighth session). To try one:

    python -m vision.training.event_faces render --out DIR [--first 0] [--count 1000]
    python -m vision.training.event_faces train --out MODELS --renders DIR [--made-up 4000]
    DICE_EVENT_EMBED=MODELS/event_faces.onnx .venv/bin/python benchmarks/vision_event_tables.py
"""
from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path

import cv2
import numpy as np

from vision import event
from vision.event_embed import CHANNELS, WIN

FACES = ("blank", "dragon", "rally")
TEX = 128  # texture side of a drawn face


@dataclass(frozen=True)
class Look:
    """One made-up Event die: body and ink colours (BGR), its two emblems' seed, how
    round its edges are (share of the face side) and how glossy it is (0-1)."""

    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    seed: int
    bevel: float
    gloss: float
    engraved: bool


def _hsv_bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    px = np.uint8([[[round(h / 2) % 180, round(s * 255), round(v * 255)]]])
    return tuple(int(c) for c in cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0])


def sample_look(rng: np.random.Generator) -> Look:
    kind = rng.choice(["black", "white", "colour"], p=[0.3, 0.2, 0.5])
    if kind == "black":
        body = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.3), rng.uniform(0.03, 0.2))
    elif kind == "white":
        body = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.12), rng.uniform(0.8, 1.0))
    else:
        body = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0.3, 1.0), rng.uniform(0.25, 1.0))
    light = float(np.mean(body)) / 255
    for _ in range(30):
        if rng.random() < 0.4:
            ink = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0))
        else:
            ink = _hsv_bgr(0, 0, rng.uniform(0.85, 1.0) if light < 0.5 else rng.uniform(0, 0.15))
        if abs(float(np.mean(ink)) / 255 - light) > 0.25 or \
                np.abs(np.subtract(ink, body)).max() > 110:
            break
    return Look(body, ink, int(rng.integers(0, 2**31)), float(rng.uniform(0.04, 0.18)),
                float(rng.uniform(0, 1)), bool(rng.random() < 0.4))


@lru_cache(maxsize=16)
def emblem(face: str, seed: int, size: int = TEX) -> np.ndarray:
    """(size, size) coverage 0-1 of a made-up emblem for `face` ("dragon", "rally")
    (read-only: cached)."""
    rng = np.random.default_rng([seed, 7 if face == "dragon" else 11])
    s = 2
    big = size * s
    out = np.zeros((big, big), np.uint8)
    inner = rng.uniform(0.45, 0.7)
    half, c = big * inner / 2, big / 2
    thick = max(2, int(big * rng.uniform(0.025, 0.08)))
    style = int(rng.integers(0, 5))
    if style == 0:  # a blob of smooth noise
        n = np.zeros((big // 16, big // 16), np.float32)
        cv2.randn(n, 0, 1)
        n = cv2.GaussianBlur(cv2.resize(n, (big, big)), (0, 0), big * rng.uniform(0.04, 0.1))
        yy, xx = np.mgrid[:big, :big]
        r = np.hypot(xx - c, yy - c) / half
        level = np.quantile(n[r < 1], rng.uniform(0.35, 0.7))
        out[(n > level) & (r < 1)] = 255
    elif style == 1:  # strokes
        for _ in range(int(rng.integers(1, 5))):
            pts = c + rng.uniform(-1, 1, (int(rng.integers(2, 6)), 2)) * half
            cv2.polylines(out, [pts.astype(np.int32)], False, 255, thick, cv2.LINE_AA)
    elif style == 2:  # polygons and ellipses
        for _ in range(int(rng.integers(1, 4))):
            if rng.random() < 0.5:
                pts = c + rng.uniform(-1, 1, (int(rng.integers(3, 7)), 2)) * half
                cv2.fillPoly(out, [cv2.convexHull(pts.astype(np.int32))], 255, cv2.LINE_AA)
            else:
                ctr = c + rng.uniform(-0.5, 0.5, 2) * half
                axes = rng.uniform(0.15, 0.6, 2) * half
                cv2.ellipse(out, (int(ctr[0]), int(ctr[1])), (int(axes[0]), int(axes[1])),
                            float(rng.uniform(0, 180)), 0, 360, 255,
                            -1 if rng.random() < 0.6 else thick, cv2.LINE_AA)
    elif style == 3:  # glyphs
        text = "".join(rng.choice(list("BCEHJLNPQTUVY23479?!+=")) for _ in range(rng.integers(1, 3)))
        font = int(rng.choice([1, 5, 16 | 0, 16 | 2]))
        scale = cv2.getFontScaleFromHeight(font & 15, int(half * 1.3), thick)
        (tw, th), _ = cv2.getTextSize(text, font & 15, scale, thick)
        scale *= min(1.0, 2 * half / max(tw, 1))
        (tw, th), _ = cv2.getTextSize(text, font & 15, scale, thick)
        cv2.putText(out, text, (int(c - tw / 2), int(c + th / 2)), font & 15, scale, 255,
                    thick, cv2.LINE_AA, bool(font & 16))
    else:  # a mark in a frame: a square or triangle outline round a dot or bar
        n = int(rng.choice([3, 4, 6]))
        a0 = rng.uniform(0, 2 * np.pi)
        ang = a0 + np.arange(n) * 2 * np.pi / n
        pts = np.stack([c + half * np.cos(ang), c + half * np.sin(ang)], 1)
        cv2.polylines(out, [pts.astype(np.int32)], True, 255, thick, cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.circle(out, (int(c), int(c)), int(half * rng.uniform(0.15, 0.4)), 255, -1,
                       cv2.LINE_AA)
        else:
            w = half * rng.uniform(0.3, 0.6)
            cv2.line(out, (int(c - w), int(c)), (int(c + w), int(c)), 255, thick, cv2.LINE_AA)
    m = cv2.getRotationMatrix2D((c, c), float(rng.uniform(0, 360)), 1.0)
    out = cv2.warpAffine(out, m, (big, big))
    cover = cv2.resize(out, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    cover.flags.writeable = False
    return cover


def _texture(look: Look, face: str, rng: np.random.Generator) -> np.ndarray:
    """(TEX, TEX, 3) float32 BGR top face: body, emblem, rounded edges and their glints."""
    t = np.empty((TEX, TEX, 3), np.float32)
    t[:] = look.body
    if face != "blank":
        cover = emblem(face, look.seed)[..., None]
        ink = np.asarray(look.ink, np.float32)
        if look.engraved:  # an engraved emblem's walls are in shadow
            edge = cv2.dilate(cover, np.ones((5, 5), np.uint8))[..., None] - cover
            t *= 1 - 0.4 * np.clip(edge, 0, 1)
        t = t * (1 - cover) + ink * cover
    yy, xx = (np.mgrid[:TEX, :TEX].astype(np.float32) + 0.5) / TEX
    band = look.bevel
    inset = np.minimum.reduce([xx, yy, 1 - xx, 1 - yy])  # 0 at the face's edge
    rim = np.clip(1 - inset / band, 0, 1)  # 1 at the edge, 0 on the flat face
    t *= (1 - rng.uniform(0.2, 0.6) * rim ** 1.5)[..., None]
    # glints: the lamp mirrored in the rounded edges, thin bright lines along one or two
    if rng.random() < 0.3 + 0.6 * look.gloss:
        for side in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            along = (xx, yy, xx, yy)[side]
            across = (yy, xx, 1 - yy, 1 - xx)[side]
            lo = rng.uniform(0.05, 0.5)
            hi = min(0.95, lo + rng.uniform(0.2, 0.8))
            at = band * rng.uniform(0.3, 0.8)
            width = max(0.008, band * rng.uniform(0.1, 0.35))
            line = np.exp(-((across - at) / width) ** 2) * \
                np.clip(np.minimum(along - lo, hi - along) / 0.05, 0, 1)
            bright = rng.uniform(0.5, 1.0)
            t = t * (1 - bright * line[..., None]) + 255 * bright * line[..., None]
    if rng.random() < 0.4 * look.gloss:  # a glossy face mirrors a soft lamp
        cx, cy, r = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8), rng.uniform(0.1, 0.35)
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / r ** 2) * rng.uniform(0.2, 0.7)
        t = t * (1 - blob[..., None]) + 255 * blob[..., None]
    return t


def draw(look: Look, face: str, rng: np.random.Generator, *, side: float,
         tray: tuple[int, int, int], light: float = 1.0
         ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A frame about four face sides wide with the die showing `face`, its top face
    `side` pixels, in a light about `light` times the plain one; returns (BGR frame, the reader's box of its top face (x, y, w, h))."""
    n = math.ceil(side * 4)
    frame = np.empty((n, n, 3), np.float32)
    frame[:] = tray
    grain = cv2.GaussianBlur(_noise(rng, (n, n), 1.0), (0, 0), 1.5)
    frame *= (1 + rng.uniform(0.02, 0.1) * grain)[..., None]
    angle = rng.uniform(0, 360)
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    centre = np.array([n / 2, n / 2]) + rng.normal(0, 0.03 * side, 2)
    top = ((unit + rng.normal(0, 0.02, (4, 2))) * side) @ rot.T + centre
    # the camera is not quite overhead: a side of the die shows, and its shadow
    off = rng.normal(0, 0.12, 2) * side
    shadow_dir = rng.normal(0, 0.2, 2) * side
    hull = cv2.convexHull(np.vstack([top, top + off]).astype(np.float32)).reshape(-1, 2)
    shade = np.zeros((n, n), np.float32)
    cv2.fillPoly(shade, [np.round((hull + shadow_dir) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    shade = cv2.GaussianBlur(shade, (0, 0), side * rng.uniform(0.05, 0.2))
    frame *= (1 - rng.uniform(0.2, 0.6) * shade)[..., None]
    side_colour = tuple(float(c) * rng.uniform(0.35, 0.8) for c in look.body)
    cv2.fillPoly(frame, [np.round(hull * 16).astype(np.int32)], side_colour, cv2.LINE_AA, 4)
    tex = _texture(look, face, rng)
    src = np.float32([[0, 0], [TEX, 0], [TEX, TEX], [0, TEX]])
    h = cv2.getPerspectiveTransform(src, top.astype(np.float32))
    warped = cv2.warpPerspective(tex, h, (n, n), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.ones((TEX, TEX), np.float32), h, (n, n))[..., None]
    frame = frame * (1 - mask) + warped * mask
    # the light: brightness, a gradient across the frame, its colour
    gain = light * rng.uniform(0.85, 1.15) * np.array([rng.uniform(0.9, 1.1) for _ in range(3)])
    g = 1 + np.linspace(-1, 1, n)[None, :, None] * rng.uniform(-0.15, 0.15)
    frame = frame * gain * g
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.3, 1.1))
    frame += _noise(rng, frame.shape, rng.uniform(1, 5))
    out = np.clip(frame, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    turn = math.radians(((angle + 45) % 90) - 45)
    extent = side * event._growth(turn) * rng.uniform(0.94, 1.06)
    cx, cy = centre + rng.normal(0, 0.04 * side, 2)
    return out, (cx - extent / 2, cy - extent / 2, extent, extent)


def _noise(rng: np.random.Generator, shape: tuple[int, ...], sd: float) -> np.ndarray:
    out = np.empty(shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(0, 2**31)))
    cv2.randn(out, 0.0, float(sd))
    return out


def _tray(rng: np.random.Generator, body: tuple[int, int, int]) -> tuple[int, int, int]:
    for _ in range(20):
        tray = _hsv_bgr(rng.uniform(0, 360), rng.uniform(0, 0.9), rng.uniform(0.15, 0.9))
        if np.abs(np.subtract(tray, body)).max() > 40:
            return tray
    return tray


Example = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]


def views_of(pictures: Sequence[tuple[np.ndarray, Sequence[float], str]],
             query: tuple[np.ndarray, Sequence[float]], body: np.ndarray, face: int) -> Example:
    """An example as the reader would compare it: (the learned views' ink maps (k, FACE,
    FACE), the query's ink windows (n, WIN * WIN), the learned views' colour maps (k,
    FACE, FACE, 3), the query's colour windows (n, WIN * WIN * 3), the query's face
    index). pictures: (frame, reader's box, face name) of each learned view, FACES
    order; query: (frame, reader's box); body: the learned body colour (Lab)."""
    temps = [event.face_template(f, b, name) for f, b, name in pictures]
    ink = np.array([event.template_map(t, body) for t in temps])
    tint = np.array([event.template_map(t, body, colour=True) for t in temps])
    frame, box = query
    q_ink, q_tint = event.query_views(frame, event.face_squares(frame, box, body), body,
                                      colour=True)
    return ink, q_ink, tint, q_tint, face


def example(rng: np.random.Generator, views: int = 2) -> Example:
    """One made-up die (views_of): `views` learned views of each face, and one more
    picture as the query."""
    look = sample_look(rng)
    base = float(rng.uniform(16, 70))
    tray = _tray(rng, look.body)
    light = float(rng.uniform(0.65, 1.25))
    pictures = []
    for f in FACES:
        for _ in range(views):
            frame, box = draw(look, f, rng, side=base * rng.uniform(0.9, 1.1), tray=tray,
                              light=light)
            pictures.append((frame, box, f))
    q = int(rng.integers(0, 3))
    query = draw(look, FACES[q], rng, side=base * rng.uniform(0.85, 1.15), tray=tray,
                 light=light)
    return views_of(pictures, query, _body_lab(look), q)


def _body_lab(look: Look) -> np.ndarray:
    px = np.uint8([[look.body]])
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)



# -- rendered dice (Blender, the render extra) -------------------------------------------

PER_FACE = 2  # views of each face a made-up die keeps as its learned views (as calibration)
# A learned view's box is this far off (face sides, standard deviation) this often
# (reader_box): calibration boxes a die alone less well than the detector boxes a die in
# play; on the rendered tables a sixth of the learned views were 0.15-0.75 face sides off.
CALIBRATION_OFF = (0.3, 0.15)


@contextmanager
def own_emblems() -> Iterator[None]:
    """Inside it, the renderer (vision/training/render) draws the Event die's Dragon and
    Rally with this module's emblems, not its own, so dice rendered for training are
    unlike the rendered tables' in kind as well as in seed."""
    from vision.training.render import textures

    def drawn(cell: int, face: str, seed: int, *, inner: float = 0.62) -> np.ndarray:
        cover = emblem(face, seed, cell)
        if inner >= 0.62:
            return cover.copy()
        c = (cell - 1) / 2  # a rounder die's flat face is smaller: so is its emblem
        m = cv2.getRotationMatrix2D((c, c), 0.0, inner / 0.62)
        return cv2.warpAffine(cover, m, (cell, cell))

    keep = textures.emblem
    textures.emblem = drawn
    try:
        yield
    finally:
        textures.emblem = keep


def render_frames(out: Path, first: int, count: int) -> int:
    """Render frames first .. first + count - 1 into `out` (JPEG and its labels, JSON;
    one already there is kept): a Dragon Farkle table drawn from the frame's number,
    with one made-up Event die thrown PER_FACE times showing each face, once more showing
    any face, and a few Soldier dice beside it. Returns how many were rendered."""
    from dataclasses import replace

    from vision.training.render.frames import render_roll
    from vision.training.render.looks import event_look
    from vision.training.render.placement import place
    from vision.training.render.scene import sample_scene

    out.mkdir(parents=True, exist_ok=True)
    done = 0
    with own_emblems():
        for n in range(first, first + count):
            path = out / f"{n:06d}.jpg"
            if path.with_suffix(".json").exists():
                continue
            rng = np.random.default_rng([n, 31])  # not the rendered tables' streams
            scene = sample_scene(rng, kind="dragon-farkle")
            size = scene.sets[0][1].size
            look, colour = event_look(rng, size=size * float(rng.uniform(1.0, 1.2)))
            scene = replace(scene, event=look, event_colour=colour)
            items = [(f, look, "event", "event") for f in FACES for _ in range(PER_FACE)]
            items.append((FACES[int(rng.integers(3))], look, "event", "event"))
            for _ in range(int(rng.integers(0, 4))):
                name, soldier = scene.sets[int(rng.integers(len(scene.sets)))]
                items.append((int(rng.integers(1, 7)), soldier, name, "soldier"))
            dice = place(rng, scene, [items[i] for i in rng.permutation(len(items))],
                         touch=0.0, in_view=1.0)
            t0 = time.time()
            roll = render_roll(scene, dice, seed=n)
            path.write_bytes(roll.jpeg)
            path.with_suffix(".json").write_text(json.dumps({"dice": roll.dice}) + "\n")
            done += 1
            print(f"  rendered {path.name} ({time.time() - t0:.1f} s)", flush=True)
    return done


def reader_box(frame: np.ndarray, top_bbox: Sequence[float], rng: np.random.Generator,
               off: float = 0.04) -> tuple[float, float, float, float]:
    """A box round a labelled top face (its upright bounding box, `top_bbox`) as the
    reader's detector would draw it: about the face's size and turn (event._growth),
    a little off in size, and in place by `off` face sides (standard deviation)."""
    x, y, w, h = (float(v) for v in top_bbox)
    cx, cy, ext = x + w / 2, y + h / 2, (w + h) / 2
    angle, _ = event.face_pose(frame, cx, cy, ext)
    a = math.radians(angle)
    side = ext / (abs(math.cos(a)) + abs(math.sin(a)))
    extent = side * event._growth(a) * rng.uniform(0.94, 1.06)
    cx, cy = np.array([cx, cy]) + rng.normal(0, off * side, 2)
    return (cx - extent / 2, cy - extent / 2, extent, extent)


def rendered_examples(labels_files: Iterable[Path], seed: int, *, queries: int = 2
                      ) -> Iterator[Example]:
    """Examples (views_of) from rendered frames (their labels' files, render_frames): per frame,
    `queries` of its Event dice in turn are the query, PER_FACE others of each face the
    learned views (one is used twice when a face has too few left)."""
    from vision.color import body_color

    rng = np.random.default_rng(seed)
    for path in labels_files:
        frame = cv2.imread(str(path.with_suffix(".jpg")))
        labels = [d for d in json.loads(path.read_text())["dice"]
                  if d["kind"] == "event" and d.get("visible", 1.0) >= 0.6]
        if frame is None or len(labels) < 4:
            continue
        boxes = [reader_box(frame, d["top_bbox"], rng) for d in labels]
        learned_boxes = [reader_box(frame, d["top_bbox"], rng, CALIBRATION_OFF[1]
                                    if rng.random() < CALIBRATION_OFF[0] else 0.04)
                         for d in labels]
        colours = [c for c in (body_color(frame, b) for b in boxes) if c is not None]
        if not colours:
            continue
        body = np.median(np.array(colours), axis=0).astype(np.float32)
        for qi in rng.permutation(len(labels))[:queries]:
            rest = [i for i in range(len(labels)) if i != qi]
            views = []
            for f in FACES:
                mine = [i for i in rest if labels[i]["value"] == f]
                if not mine:
                    break
                pick = list(rng.permutation(mine)[:PER_FACE])
                views += (pick * PER_FACE)[:PER_FACE]
            if len(views) < 3 * PER_FACE:
                continue
            yield views_of([(frame, learned_boxes[i], labels[i]["value"]) for i in views],
                           (frame, boxes[qi]), body, FACES.index(labels[qi]["value"]))


QUERIES = 48  # query windows kept per example in training (of the reader's 75-150)


def dataset(examples: Iterable[Example], *, ink: bool = False) -> dict[str, np.ndarray]:
    """The examples as arrays: "views" (n, 3 * PER_FACE * turns, WIN * WIN * 3) every
    learned view's colour map at every turn the reader tries, "queries" (n, QUERIES,
    WIN * WIN * 3) a random share of the query's colour windows, "face" (n,) the query's
    face index; ink: "ink_views" and "ink_queries" likewise, of the ink maps."""
    rng = np.random.default_rng(0)
    out: dict[str, list[np.ndarray]] = {"views": [], "queries": [], "face": []}
    if ink:
        out.update(ink_views=[], ink_queries=[])
    for maps, q_ink, tint, q_tint, face in examples:
        pick = rng.choice(len(q_tint), size=QUERIES, replace=len(q_tint) < QUERIES)
        out["views"].append(event._stack(list(tint), 4).astype(np.float16))
        out["queries"].append(q_tint[pick].astype(np.float16))
        out["face"].append(np.int64(face))
        if ink:
            out["ink_views"].append(event._stack(list(maps), 4).astype(np.float16))
            out["ink_queries"].append(q_ink[pick].astype(np.float16))
    return {k: np.array(v) for k, v in out.items()}


def made_up(n: int, seed: int) -> Iterator[Example]:
    """n made-up dice (example) drawn from `seed`."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield example(rng, PER_FACE)


def face_distances(q: np.ndarray, v: np.ndarray, views: int = 2) -> np.ndarray:
    """(3,) the squared-difference matcher's distance (vision.event) of query windows q
    to each face's views v (3 * views * turns rows, FACES order): for comparison."""
    energy = (v.astype(np.float32) ** 2).sum(axis=1)
    d = event._Learned._distances(q.astype(np.float32), v.astype(np.float32), energy)
    return d.reshape(3, -1).min(axis=1)


def _net(width: int, dim: int):
    import torch
    from torch import nn

    class Embed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            w = width
            self.body = nn.Sequential(
                nn.Conv2d(CHANNELS, w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(2 * w, 2 * w, 3, padding=1), nn.ReLU(),
                nn.Flatten(), nn.Linear(2 * w * (WIN // 4) ** 2, dim))

        def forward(self, x):
            y = self.body(x)
            return y / torch.clamp(torch.linalg.vector_norm(y, dim=1, keepdim=True), min=1e-6)

    return Embed()


def _face_logits(net, views, queries, scale):
    """(B, 3) logits: minus scale times each face's nearest distance (1 - dot)."""
    import torch

    b, nv, _ = views.shape
    nq = queries.shape[1]
    def image(x):
        return x.reshape(-1, WIN, WIN, CHANNELS).permute(0, 3, 1, 2)

    e = net(torch.cat([image(views), image(queries)]))
    ev, eq = e[:b * nv].reshape(b, nv, -1), e[b * nv:].reshape(b, nq, -1)
    d = 1 - torch.einsum("bqd,bvd->bqv", eq, ev)  # (B, queries, views)
    d = d.min(dim=1).values.reshape(b, 3, -1).min(dim=2).values
    return -scale * d


def _turn_share(rows: int, rng: np.random.Generator, small: int = 2) -> np.ndarray:
    """Rows of a "views" array (dataset) to train on in one step: every view at every
    quarter turn, at `small` of the reader's TURNS round each."""
    turns = len(event.TURNS)
    per_view = 4 * turns
    pick = [q * turns + t for q in range(4)
            for t in rng.choice(turns, small, replace=False)]
    return np.array([v * per_view + p for v in range(rows // per_view) for p in pick])


def train(data: dict[str, np.ndarray], *, steps: int, seed: int, batch: int = 16,
          width: int = 12, dim: int = 32, lr: float = 3e-3, threads: int = 1,
          log_every: int = 100):
    """The embedding network trained on `data` (dataset) to pick each query's face."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    net = _net(width, dim)
    scale = torch.nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.Adam(list(net.parameters()) + [scale], lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    views = torch.from_numpy(data["views"])
    queries = torch.from_numpy(data["queries"])
    faces = torch.from_numpy(data["face"])
    rng = np.random.default_rng(seed)
    start, seen, right, total = time.time(), 0, 0, 0.0
    for step in range(steps):
        idx = torch.from_numpy(rng.choice(len(faces), batch, replace=False))
        # a share of the turns and query windows each step (the nearest pair is among
        # them often enough, and a step costs a third)
        keep = _turn_share(views.shape[1], rng)
        v = views[idx][:, keep].float()
        q = queries[idx][:, rng.choice(queries.shape[1], QUERIES // 2, replace=False)].float()
        if rng.random() < 0.5:  # the ink a little stronger or weaker than learned
            q = q * float(rng.uniform(0.7, 1.3))
        logits = _face_logits(net, v, q, scale)
        loss = torch.nn.functional.cross_entropy(logits, faces[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        seen += batch
        right += int((logits.argmax(1) == faces[idx]).sum())
        total += float(loss.detach()) * batch
        if log_every and (step + 1) % log_every == 0:
            print(f"  step {step + 1}/{steps}  loss {total / seen:.3f}  right {right / seen:.3f}  "
                  f"scale {float(scale):.1f}  {time.time() - start:.0f} s", flush=True)
            seen, right, total = 0, 0, 0.0
    net.eval()
    return net, float(scale)


def evaluate(net, data: dict[str, np.ndarray]) -> dict[str, float]:
    """Share of queries whose nearest face is right, with the network and with the
    squared-difference matcher, on `data` (dataset)."""
    import torch

    right_net = right_l2 = 0
    with torch.no_grad():
        for i in range(len(data["face"])):
            v = torch.from_numpy(data["views"][i:i + 1]).float()
            q = torch.from_numpy(data["queries"][i:i + 1]).float()
            right_net += int(_face_logits(net, v, q, 1.0).argmax() == data["face"][i])
            if "ink_views" in data:
                right_l2 += int(face_distances(data["ink_queries"][i], data["ink_views"][i])
                                .argmin() == data["face"][i])
    n = len(data["face"])
    out = {"network": right_net / n}
    if "ink_views" in data:
        out["squared difference"] = right_l2 / n
    return out


def export(net, out: Path) -> None:
    """Write the network as ONNX (input (N, CHANNELS, WIN, WIN), output "y")."""
    import torch

    dummy = torch.zeros(2, CHANNELS, WIN, WIN)
    torch.onnx.export(net, dummy, str(out), input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "n"}, "y": {0: "n"}}, opset_version=13,
                      dynamo=False)


def _cached(path: Path | None, make: Callable[[], dict[str, np.ndarray]]
            ) -> dict[str, np.ndarray]:
    """The arrays in `path` (.npz) when it is there, else made and kept there."""
    if path is not None and path.is_file():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    data = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, **data)
    return data


def _data(args: argparse.Namespace) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(training arrays, check arrays): made-up dice and rendered frames, the last
    tenth of each folder of rendered frames (and 500 more made-up dice) kept for the
    check. Each part is kept in --cache, named by what it is made of."""
    cache = args.cache

    def at(name: str) -> Path | None:
        return cache / f"{name}.npz" if cache else None

    train_parts = [_cached(at(f"made-up-{args.made_up}-{args.seed}"),
                           lambda: dataset(made_up(args.made_up, args.seed)))]
    check_parts = [_cached(at(f"made-up-500-{args.seed + 10_000}"),
                           lambda: dataset(made_up(500, args.seed + 10_000), ink=True))]
    for folder in args.renders:
        frames = sorted(folder.glob("*.json"))
        cut = len(frames) - len(frames) // 10
        tag = f"{folder.name}-{len(frames)}-{args.queries}-{args.seed}"
        for name, part, share in (("renders", train_parts, frames[:cut]),
                                  ("renders-check", check_parts, frames[cut:])):
            part.append(_cached(at(f"{name}-{tag}"), partial(
                lambda files, ink: dataset(rendered_examples(files, args.seed,
                                                             queries=args.queries), ink=ink),
                share, part is check_parts)))

    def join(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        parts = [p for p in parts if len(p.get("face", []))]
        keys = set.intersection(*(set(p) for p in parts))
        return {k: np.concatenate([p[k] for p in parts]) for k in keys}
    return join(train_parts), join(check_parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("render", help="render training frames (needs the render extra)")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--first", type=int, default=0)
    r.add_argument("--count", type=int, default=1000)
    t = sub.add_parser("train", help="train the comparison and write event_faces.onnx")
    t.add_argument("--out", type=Path, required=True, help="folder for event_faces.onnx")
    t.add_argument("--renders", type=Path, action="append", default=[], metavar="DIR",
                   help="frames made by the render command (repeatable)")
    t.add_argument("--made-up", type=int, default=4000, help="made-up dice drawn here")
    t.add_argument("--queries", type=int, default=3, help="queries taken from each rendered frame")
    t.add_argument("--steps", type=int, default=3000)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--width", type=int, default=12)
    t.add_argument("--dim", type=int, default=32)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--cache", type=Path, metavar="DIR",
                   help="keep the examples here (.npz files) and reuse them")
    args = ap.parse_args(argv)
    if args.command == "render":
        print(f"rendered {render_frames(args.out, args.first, args.count)} frames")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    data, check = _data(args)
    print(f"{len(data['face'])} examples to train on, {len(check['face'])} to check "
          f"({time.time() - t0:.0f} s)", flush=True)
    net, scale = train(data, steps=args.steps, seed=args.seed, width=args.width,
                       dim=args.dim, threads=args.threads)
    scores = evaluate(net, check)
    print("faces right on the check examples: "
          + ", ".join(f"{k} {v:.3f}" for k, v in scores.items()))
    export(net, args.out / "event_faces.onnx")
    meta = {"examples": len(data["face"]), "steps": args.steps, "seed": args.seed,
            "width": args.width, "dim": args.dim, "scale": round(scale, 3),
            "renders": [str(p) for p in args.renders], "made_up": args.made_up,
            "check": {k: round(v, 4) for k, v in scores.items()}}
    (args.out / "event_faces.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {args.out / 'event_faces.onnx'} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
