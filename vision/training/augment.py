"""Random geometric and photometric changes for training samples (numpy + OpenCV)."""
from __future__ import annotations

import cv2
import numpy as np


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0
                ) -> np.ndarray:
    """Hue rotation, saturation, brightness/contrast/gamma per channel, blur (round or
    motion) and noise; `strength` scales the ranges and chances of all but the hue (at
    full strength a dark die's dim pips can vanish altogether)."""
    k = strength
    out = img
    if rng.random() < 0.7:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
        i = np.arange(256)
        hue = ((i + rng.integers(0, 180)) % 180).astype(np.uint8)
        sat = np.clip(i * rng.uniform(1 - 0.4 * k, 1 + 0.4 * k), 0, 255).astype(np.uint8)
        lut = np.stack([hue, sat, i.astype(np.uint8)], 1)[None]
        out = cv2.cvtColor(cv2.LUT(hsv, lut), cv2.COLOR_HSV2BGR)
    x = np.arange(256, dtype=np.float32)[:, None]
    f = ((x * rng.uniform(1 - 0.4 * k, 1 + 0.4 * k) + rng.uniform(-40 * k, 40 * k))
         * rng.uniform(1 - 0.15 * k, 1 + 0.15 * k, 3)[None])
    f = 255 * (np.clip(f, 0, 255) / 255) ** rng.uniform(1 - 0.3 * k, 1 + 0.4 * k)
    out = cv2.LUT(out, f.astype(np.uint8)[None])
    if rng.random() < 0.3 * k:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 0.4 + 0.9 * k))
    elif rng.random() < 0.15 * k:
        out = motion_blur(out, rng)
    if rng.random() < 0.4 * k:
        noise = np.empty(out.shape, np.int16)
        cv2.randn(noise, 0, float(rng.uniform(2, 2 + 6 * k)))
        out = np.clip(out.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    return out


def motion_blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur along a random direction, as a die (or the camera) moving during the exposure."""
    n = int(rng.integers(3, 8))
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0 / n
    m = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), float(rng.uniform(0, 180)), 1.0)
    k = cv2.warpAffine(k, m, (n, n))
    return cv2.filter2D(img, -1, k / max(float(k.sum()), 1e-6))


def affine(center: tuple[float, float], angle: float, scale: float, flip: bool,
           out_center: tuple[float, float]) -> np.ndarray:
    """2x3 matrix: rotate/scale (and optionally mirror) about `center`, moved to `out_center`."""
    m = cv2.getRotationMatrix2D(center, angle, scale)
    if flip:
        m = np.array([[-1, 0, 2 * center[0]], [0, 1, 0]], np.float64)
        m = np.vstack([cv2.getRotationMatrix2D(center, angle, scale), [0, 0, 1]]) @ np.vstack(
            [m, [0, 0, 1]])
        m = m[:2]
    m[:, 2] += np.array(out_center) - np.array(center)
    return m


def transform_points(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ m[:, :2].T + m[:, 2]


def swap_colours(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A light die with dark pips made a dark die with light pips (negative), the colour
    channels shuffled, or the colour taken away: dice and trays unlike the photos'."""
    r = rng.random()
    if r < 0.5:
        return 255 - img
    if r < 0.8:
        return np.ascontiguousarray(img[..., rng.permutation(3)])
    return cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


SURFACES = ("plain", "felt", "wood", "gradient")


def background(h: int, w: int, rng: np.random.Generator, *,
               colour: tuple[int, int, int] | None = None, kind: str | None = None,
               lamp: bool | None = None) -> np.ndarray:
    """A surface for dice to lie on: plain colour, felt, wood grain or a smooth gradient
    (`kind`, one of SURFACES), in `colour` (BGR), under a lamp's uneven light or not;
    what is not given is random (any hue and lightness)."""
    if colour is None:
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256), rng.integers(15, 256)]]])
        colour = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    colour_f = np.array(colour, np.float32)
    kind = kind or SURFACES[int(rng.integers(0, 4))]
    if kind == "plain":
        shade = np.ones((h, w), np.float32)
    elif kind == "felt":  # fine fibres over soft blotches
        fine = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), rng.uniform(0.5, 1.5))
        soft = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), rng.uniform(8, 30))
        shade = 1 + rng.uniform(0.1, 0.5) * (fine - fine.mean()) / max(float(fine.std()), 1e-3) / 3 \
            + rng.uniform(0, 0.4) * (soft - soft.mean()) / max(float(soft.std()), 1e-3) / 3
    elif kind == "wood":  # wavy stripes
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, np.pi)
        u = xx * np.cos(a) + yy * np.sin(a)
        warp_ = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 20) * 60
        shade = 1 + rng.uniform(0.1, 0.35) * np.sin((u + warp_) / rng.uniform(2, 12))
    else:  # a smooth gradient
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        shade = 1 + rng.uniform(-0.4, 0.4) * (xx / w - 0.5) + rng.uniform(-0.4, 0.4) * (yy / h - 0.5)
    if rng.random() < 0.5 if lamp is None else lamp:  # a lamp's pool of light
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.5, 1.5) * max(h, w)
        shade = shade * (1 - rng.uniform(0, 0.5) * np.clip(np.hypot(xx - cx, yy - cy) / r, 0, 1))
    return np.clip(colour_f[None, None] * shade[..., None], 0, 255).astype(np.uint8)


def die_mask(img: np.ndarray, centres: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """(h, w) float mask of the dice (centres (n, 2), top-face sides (n,)) and their
    shadows: around each die, the pixels unlike the surface there (the median of a
    square ring round the die, in Lab), joined to the face's middle; the face's middle
    always."""
    h, w = img.shape[:2]
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    mask = np.zeros((h, w), np.uint8)
    for (cx, cy), side in zip(centres, sides):
        r = int(0.85 * float(side)) + 2
        x0, y0, x1, y1 = int(cx) - r, int(cy) - r, int(cx) + r + 1, int(cy) + r + 1
        cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if cx1 - cx0 < 3 or cy1 - cy0 < 3:
            continue
        box = lab[cy0:cy1, cx0:cx1]
        ring = np.concatenate([box[0], box[-1], box[:, 0], box[:, -1]])
        surface = np.median(ring, axis=0)
        spread = np.median(np.abs(ring - surface), axis=0).sum()
        unlike = (np.abs(box - surface).sum(axis=2) > max(24.0, 3 * spread)).astype(np.uint8)
        core = np.zeros_like(unlike)
        cv2.circle(core, (int(cx) - cx0, int(cy) - cy0), max(1, int(0.5 * side)), 1, -1)
        unlike = cv2.morphologyEx(unlike | core, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        _, comp = cv2.connectedComponents(unlike)
        keep = np.isin(comp, np.unique(comp[core > 0])) & (comp > 0)
        mask[cy0:cy1, cx0:cx1] |= keep.astype(np.uint8)
    return mask.astype(np.float32)


def new_background(img: np.ndarray, centres: np.ndarray, sides: np.ndarray,
                   rng: np.random.Generator, *, surface: np.ndarray | None = None,
                   blobs: bool = True) -> np.ndarray:
    """`img` with everything but its dice (centres (n, 2), face sides (n,), die_mask) and
    a few blobs of the old surface replaced by a new surface (`background`): the same
    dice on a tray of another colour and texture. The old blobs kept besides the dice
    make "a patch of different texture" no sign of a die; the seams are feathered."""
    h, w = img.shape[:2]
    mask = die_mask(img, centres, sides)
    typical = float(np.median(sides)) if len(sides) else 0.15 * min(h, w)
    for _ in range(int(rng.integers(0, 4))):
        r = typical * rng.uniform(0.3, 1.0)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        cv2.ellipse(mask, (int(cx), int(cy)), (int(r), int(r * rng.uniform(0.5, 1))),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.7, 0.04 * typical))[..., None]
    new = (background(h, w, rng) if surface is None else surface).astype(np.float32)
    return (img * mask + new * (1 - mask)).astype(np.uint8)
