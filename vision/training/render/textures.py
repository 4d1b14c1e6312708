"""Face textures of a rendered die: pips, pip rims and the Event die's stand-in emblems.

A die's six faces share one atlas image, 3 cells wide and 2 high, cell k for face slot
k (geometry.SLOT_NORMALS). Two layers, numpy/OpenCV only: "ink" (RGB of the print and
its coverage in alpha) painted over the body, and "height" (0 flat, down to -1 at the
bottom of an engraved pip) for the bump of engraved pips. The Event die's Dragon and
Rally art is not public, so its emblems are drawn from a seed: polygons, strokes,
glyphs and rings, different for every seed and fixed for one (the same die across a
game's frames).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic import _DRAGON, _RALLY
from vision.training.render.looks import DieLook


# Pip centres on a unit face (0-1, x right, y down), given the corner pips' offset o.
def pip_layout(value: int, o: float) -> list[tuple[float, float]]:
    """Pip centres of face `value` (1-6) on a unit face, corner pips `o` from the edges."""
    a, b, m = o, 1 - o, 0.5
    return {
        1: [(m, m)], 2: [(a, a), (b, b)], 3: [(a, a), (m, m), (b, b)],
        4: [(a, a), (b, a), (a, b), (b, b)], 5: [(a, a), (b, a), (m, m), (a, b), (b, b)],
        6: [(a, a), (b, a), (a, m), (b, m), (a, b), (b, b)],
    }[value]


def _pips(cell: int, value: int, look: DieLook) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(coverage of ink, coverage of rim, height) of one pip face, each (cell, cell)."""
    s = 8  # draw 8x larger than a sample for anti-aliased round pips
    big = cell * s
    ink = np.zeros((big, big), np.uint8)
    rim = np.zeros((big, big), np.uint8)
    r = look.pip_radius * (min(look.big_one, (0.47 - look.bevel) / look.pip_radius)
                           if value == 1 else 1.0)
    yy, xx = np.mgrid[0:cell, 0:cell].astype(np.float32)
    height = np.zeros((cell, cell), np.float32)
    for px, py in pip_layout(value, look.pip_offset):
        c = (int(px * big), int(py * big))
        if look.rim is not None:
            cv2.circle(rim, c, int(r * 1.4 * big), 255, -1, cv2.LINE_AA)
        cv2.circle(ink, c, int(r * big), 255, -1, cv2.LINE_AA)
        d2 = ((xx + 0.5) / cell - px) ** 2 + ((yy + 0.5) / cell - py) ** 2
        height = np.minimum(height, -np.sqrt(np.clip(1 - d2 / r ** 2, 0, 1)))
    shrink = (cell, cell)
    return (cv2.resize(ink, shrink, interpolation=cv2.INTER_AREA).astype(np.float32) / 255,
            cv2.resize(rim, shrink, interpolation=cv2.INTER_AREA).astype(np.float32) / 255,
            height)


def emblem(cell: int, face: str, seed: int, *, inner: float = 0.62) -> np.ndarray:
    """Coverage (cell, cell, 0-1) of a stand-in emblem for the Event die's `face`
    ("dragon" or "rally") drawn from `seed`, within the middle `inner` of the face."""
    rng = np.random.default_rng([seed, 1 if face == "dragon" else 2])
    s = 4
    big = cell * s
    out = np.zeros((big, big), np.uint8)
    half = big * inner / 2
    c = big / 2
    thick = max(1, int(big * rng.uniform(0.03, 0.07)))
    style = int(rng.integers(0, 5))
    if style == 0:  # the reader's own test shapes, jittered (vision/synthetic.py)
        for poly in (_DRAGON if face == "dragon" else _RALLY):
            pts = (np.array(poly) + rng.normal(0, 0.06, (len(poly), 2))) * half + c
            cv2.fillPoly(out, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    elif style == 1:  # a star or blob
        n = int(rng.integers(4, 11))
        ang = np.sort(rng.uniform(0, 2 * np.pi, n))
        rad = rng.uniform(0.35, 1.0, n) * half
        pts = np.stack([c + rad * np.cos(ang), c + rad * np.sin(ang)], 1)
        cv2.fillPoly(out, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    elif style == 2:  # brush strokes
        for _ in range(int(rng.integers(1, 4))):
            t = np.linspace(0, 1, 40)[:, None]
            ctrl = rng.uniform(-1, 1, (4, 2)) * half + c
            pts = ((1 - t) ** 3 * ctrl[0] + 3 * (1 - t) ** 2 * t * ctrl[1]
                   + 3 * (1 - t) * t ** 2 * ctrl[2] + t ** 3 * ctrl[3])
            cv2.polylines(out, [pts.astype(np.int32)], False, 255, thick, cv2.LINE_AA)
    elif style == 3:  # letter-like glyphs
        text = "".join(rng.choice(list("ADFGKMRSWXZ&%#@")) for _ in range(rng.integers(1, 3)))
        font = int(rng.choice([0, 2, 3, 4, 6, 7]))
        scale = cv2.getFontScaleFromHeight(font, int(half * 1.2), thick)
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        scale *= min(1.0, 2 * half / max(tw, 1))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        cv2.putText(out, text, (int(c - tw / 2), int(c + th / 2)), font, scale, 255, thick,
                    cv2.LINE_AA)
    else:  # a ring round a shape
        cv2.circle(out, (int(c), int(c)), int(half), 255, thick, cv2.LINE_AA)
        n = int(rng.integers(3, 7))
        ang = rng.uniform(0, 2 * np.pi) + np.arange(n) * 2 * np.pi / n
        pts = np.stack([c + 0.6 * half * np.cos(ang), c + 0.6 * half * np.sin(ang)], 1)
        cv2.fillPoly(out, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    if rng.random() < 0.5:  # no two emblems alike: turn it
        m = cv2.getRotationMatrix2D((c, c), float(rng.uniform(0, 360)), 1.0)
        out = cv2.warpAffine(out, m, (big, big))
    return cv2.resize(out, (cell, cell), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def atlas(look: DieLook, *, cell: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """(ink RGBA float32 (2 cell, 3 cell, 4), height float32 (2 cell, 3 cell)) of the die.

    Rows run top to bottom as numpy stores them; Blender's images start at the bottom,
    so the Blender side flips them."""
    rgba = np.zeros((2 * cell, 3 * cell, 4), np.float32)
    height = np.zeros((2 * cell, 3 * cell), np.float32)
    ink, rim = np.array(look.ink, np.float32), np.array(look.rim or look.ink, np.float32)
    for slot, face in enumerate(look.faces):
        y0, x0 = (slot // 3) * cell, (slot % 3) * cell
        if isinstance(face, int):
            cover, ring, h = _pips(cell, face, look)
        elif face in ("dragon", "rally"):
            cover = emblem(cell, face, look.emblem_seed, inner=min(0.62, 0.9 - 2 * look.bevel))
            ring, h = np.zeros_like(cover), -cover
        else:
            continue
        rim_only = np.clip(ring - cover, 0, 1)[..., None]
        colour = (ink * cover[..., None] + rim * rim_only) / np.maximum(
            cover[..., None] + rim_only, 1e-6)
        rgba[y0:y0 + cell, x0:x0 + cell, :3] = colour
        rgba[y0:y0 + cell, x0:x0 + cell, 3] = np.maximum(cover, ring)
        height[y0:y0 + cell, x0:x0 + cell] = h
    return rgba, height


def ink_count(rgba: np.ndarray, slot: int, *, threshold: float = 0.5) -> int:
    """Number of separate inked blobs on face `slot` of an atlas (a pip face's value)."""
    cell = rgba.shape[0] // 2
    y0, x0 = (slot // 3) * cell, (slot % 3) * cell
    mask = (rgba[y0:y0 + cell, x0:x0 + cell, 3] > threshold).astype(np.uint8)
    return cv2.connectedComponents(mask)[0] - 1
