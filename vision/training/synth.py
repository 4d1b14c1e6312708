"""Synthetic dice faces pasted into real photos (training augmentation only).

Two uses: more pip faces in colours/sizes the photos lack, and the faces of the
Dragon Farkle Event die (four blank faces, a Dragon, a Rally), of which no photos
exist, so the detector learns to find a die that has no pips.
"""
from __future__ import annotations

import cv2
import numpy as np

# pip positions on a unit face, in the usual layout
PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}
NO_PIPS = 7  # label value of a face without pips (blank or symbol)


def _colors(rng: np.random.Generator) -> tuple[tuple[int, ...], tuple[int, ...]]:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(30, 256)]]])
    body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(int)
    lum = body.mean()
    if rng.random() < 0.35:  # coloured pips (red, yellow, gold ... on a dark or bright body)
        pip = rng.integers(0, 256, 3)
        if abs(pip.mean() - lum) < 60:
            pip = np.full(3, 0 if lum > 127 else 255)
    else:
        pip = np.full(3, 20 if lum > 110 else 235)
    return tuple(int(v) for v in body), tuple(int(v) for v in pip)


def _marble(tile: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Swirls of a second colour through the body, as marbled and gem dice have."""
    s = tile.shape[0]
    noise = cv2.GaussianBlur(rng.random((s, s)).astype(np.float32), (0, 0), s / 10)
    noise = cv2.normalize(noise, None, 0, 1, cv2.NORM_MINMAX)
    veins = np.exp(-((noise - rng.uniform(0.3, 0.7)) / 0.06) ** 2)[..., None]
    other = rng.integers(0, 256, 3).astype(np.float32)
    return (tile * (1 - veins) + other * veins).astype(np.uint8)


def _symbol(tile: np.ndarray, side: int, color: tuple[int, ...], rng: np.random.Generator) -> None:
    """Draw a simple emblem (stand-in for a Dragon or Rally print) in the face centre."""
    c = side / 2
    n = int(rng.integers(3, 9))
    ang = np.sort(rng.uniform(0, 2 * np.pi, n))
    rad = rng.uniform(0.12, 0.36, n) * side
    pts = np.stack([c + rad * np.cos(ang), c + rad * np.sin(ang)], 1).astype(np.int32)
    if rng.random() < 0.6:
        cv2.fillPoly(tile, [pts], color, cv2.LINE_AA)
    else:
        cv2.polylines(tile, [pts], True, color, max(1, side // 14), cv2.LINE_AA)


def render_face(side: int, value: int, rng: np.random.Generator, solid: bool = False
                ) -> tuple[np.ndarray, np.ndarray]:
    """A BGR tile and a float alpha mask of one die seen from above (value 1-6 or NO_PIPS),
    its top face centred in the tile. With `solid`, the die looks more like a real one:
    a strip of one or two side faces with their own pips (a camera not straight above),
    a glint of light on the face, or a translucent body the tray shows through; the
    tile is then larger than `side`."""
    s = 4 * side  # draw large, then shrink: anti-aliased edges and round pips
    pad = int(0.4 * s) if solid else 0
    big = s + 2 * pad
    body, pip = _colors(rng)
    if solid:  # the whole die: side faces first, the top face drawn over them below
        tile = np.zeros((big, big, 3), np.uint8)
        tile[:] = body
        mask = np.zeros((big, big), np.uint8)
        pips = np.zeros((big, big), np.uint8)
        if rng.random() < 0.7:
            _side_faces(tile, mask, pips, pad, s, body, pip, rng)
    top = np.zeros((s, s, 3), np.uint8)
    top[:] = body
    r = int(s * rng.uniform(0.08, 0.2))
    face = np.zeros((s, s), np.uint8)
    cv2.rectangle(face, (r, 0), (s - r, s), 255, -1)
    cv2.rectangle(face, (0, r), (s, s - r), 255, -1)
    for cx, cy in ((r, r), (s - r, r), (r, s - r), (s - r, s - r)):
        cv2.circle(face, (cx, cy), r, 255, -1)
    if rng.random() < 0.35:
        top = _marble(top, rng)
    shade = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.15), s)[None, :, None]
    top = np.clip(top * shade, 0, 255).astype(np.uint8)
    top_pips = np.zeros((s, s), np.uint8)
    if value == NO_PIPS:
        if rng.random() < 0.6:
            _symbol(top, s, pip, rng)
    else:
        pr = int(s * rng.uniform(0.07, 0.11))
        ring = tuple(int(v) for v in rng.integers(0, 256, 3)) if rng.random() < 0.25 else None
        for px, py in PIPS[value]:
            if ring is not None:  # pips with a rim of another colour
                cv2.circle(top, (int(px * s), int(py * s)), int(pr * 1.35), ring, -1,
                           cv2.LINE_AA)
            cv2.circle(top, (int(px * s), int(py * s)), pr, pip, -1, cv2.LINE_AA)
            cv2.circle(top_pips, (int(px * s), int(py * s)), pr, 255, -1)
    if solid and rng.random() < 0.3:  # a glint of the lamp on the face
        g = np.zeros((s, s), np.float32)
        g[int(rng.uniform(0.1, 0.9) * s), int(rng.uniform(0.1, 0.9) * s)] = 1
        g = cv2.GaussianBlur(g, (0, 0), s * rng.uniform(0.04, 0.12))
        g = g / g.max() * rng.uniform(60, 200)
        top = np.clip(top + g[..., None], 0, 255).astype(np.uint8)
    if solid:
        inside = face > 0
        tile[pad:pad + s, pad:pad + s][inside] = top[inside]
        mask[pad:pad + s, pad:pad + s] = np.maximum(mask[pad:pad + s, pad:pad + s], face)
        pips[pad:pad + s, pad:pad + s][inside] = top_pips[inside]
    else:
        tile, mask = top, face
    out = big // 4
    tile = cv2.resize(tile, (out, out), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(mask, (out, out), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    if solid and rng.random() < 0.2:  # translucent body: the tray shows through, pips do not
        p = cv2.resize(pips, (out, out), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        alpha = alpha * (rng.uniform(0.6, 0.85) * (1 - p) + p)
    return tile, alpha


def _side_faces(tile: np.ndarray, mask: np.ndarray, pips: np.ndarray, pad: int, s: int,
                body: tuple[int, ...], pip: tuple[int, ...], rng: np.random.Generator) -> None:
    """One or two side faces seen at a slant, right of and below the top face (the
    paste turns the die any way), darker than the top, with a random face's pips."""
    for along_x in ([True, False] if rng.random() < 0.5 else [bool(rng.random() < 0.5)]):
        e = rng.uniform(0.08, 0.35) * s
        skew = rng.uniform(-0.3, 0.3) * e
        if along_x:  # right side: x from pad+s to pad+s+e
            quad = [(pad + s, pad), (pad + s + e, pad + skew), (pad + s + e, pad + s + skew),
                    (pad + s, pad + s)]
        else:  # bottom side
            quad = [(pad, pad + s), (pad + s, pad + s), (pad + s + skew, pad + s + e),
                    (pad + skew, pad + s + e)]
        poly = np.round(np.array(quad)).astype(np.int32)
        dark = rng.uniform(0.45, 0.85)
        cv2.fillPoly(tile, [poly], tuple(int(v * dark) for v in body), cv2.LINE_AA)
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_AA)
        pr = s * rng.uniform(0.07, 0.11)
        for px, py in PIPS[int(rng.integers(1, 7))]:
            if along_x:  # squeezed across the slant
                c = (pad + s + px * e, pad + py * s + px * skew)
                axes = (pr * e / s, pr)
            else:
                c = (pad + px * s + py * skew, pad + s + py * e)
                axes = (pr, pr * e / s)
            centre = (int(c[0]), int(c[1]))
            size = (max(1, int(axes[0])), max(1, int(axes[1])))
            cv2.ellipse(tile, centre, size, 0, 0, 360, pip, -1, cv2.LINE_AA)
            cv2.ellipse(pips, centre, size, 0, 0, 360, 255, -1)


def paste(image: np.ndarray, labels: np.ndarray, rng: np.random.Generator,
          count: int, event_share: float = 0.5, solid: bool = False) -> np.ndarray:
    """Paste `count` synthetic dice where they do not overlap labelled ones; return new labels."""
    h, w = image.shape[:2]
    sides = labels[:, 2] if len(labels) else np.array([40.0])
    rows = [labels]
    for _ in range(count):
        side = int(np.clip(rng.choice(sides) * rng.uniform(0.85, 1.15), 14, 120))
        cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
        placed = np.concatenate(rows)
        if len(placed) and np.min(np.hypot(placed[:, 0] - cx, placed[:, 1] - cy)
                                  - 0.75 * (placed[:, 2] + side)) < 0:
            continue
        value = NO_PIPS if rng.random() < event_share else int(rng.integers(1, 7))
        tile, alpha = render_face(side, value, rng, solid)
        t = tile.shape[0] / 2  # the top face's centre
        m = cv2.getRotationMatrix2D((t, t), rng.uniform(0, 360), 1.0)
        m[:, 2] += (cx - t, cy - t)
        warped = cv2.warpAffine(tile, m, (w, h), flags=cv2.INTER_LINEAR)
        a = cv2.warpAffine(alpha, m, (w, h), flags=cv2.INTER_LINEAR)[..., None]
        shadow = cv2.GaussianBlur(a, (0, 0), side / 10)[..., None] if a.ndim == 3 else a
        shadow = np.roll(shadow, (side // 12, side // 12), (0, 1))
        if shadow.ndim == 2:
            shadow = shadow[..., None]
        image[:] = (image * (1 - 0.35 * shadow)).astype(np.uint8)
        image[:] = (image * (1 - a) + warped * a).astype(np.uint8)
        rows.append(np.array([[cx, cy, side, value]], np.float32))
    return np.concatenate(rows)


def garbage(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A frame with no dice: pixel noise, blurred noise at a random scale, or a mix.

    Training negatives, so neither network takes noise-like texture (a camera fault,
    a cloth, gravel) for pips."""
    kind = rng.integers(0, 3)
    noise = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
    if kind == 0:
        return noise
    blurred = cv2.GaussianBlur(noise, (0, 0), float(rng.uniform(0.6, 8)))
    blurred = cv2.normalize(blurred, None, 0, 255, cv2.NORM_MINMAX)
    if rng.random() < 0.5:
        blurred = cv2.cvtColor(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    if kind == 1:
        return blurred
    a = float(rng.uniform(0.3, 0.7))
    return cv2.addWeighted(noise, a, blurred, 1 - a, 0)
