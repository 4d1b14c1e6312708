"""Die body colour: which player's dice a die belongs to.

The body colour is measured on the middle of the die's box (mostly the top face),
with the pips removed as the pixels farthest from the median colour, so white and
black pips, shadows at the edge and marbling do not pull the estimate. A calibrated
profile names the nearest learned player colour (Mahalanobis distance, with a
threshold so an unknown die gets None); the default profile gives a generic name
("red", "white", ...) with a modest confidence.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import cv2
import numpy as np

from calibration.profile import ColorModel, Profile

# Share of the box's half-size used: the middle of the die, away from the tray behind it.
INNER = 0.72
# Share of the inner pixels kept as body (the rest: pips, glints, edge shadow).
BODY_SHARE = 0.6
# Lighting drifts across a tray: tolerance (Lab std) added to every learned model.
FLOOR_STD = (14.0, 5.0, 5.0)
# Beyond this Mahalanobis distance a die is "not any learned colour".
MAX_DISTANCE = 4.0
GENERIC_MAX_CONFIDENCE = 0.6

Box = Sequence[float]


def crop_bounds(frame: np.ndarray, box: Box, *, scale: float = 1.0
                ) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the pixels of `box` (x, y, w, h), grown by `scale` about its
    centre, clipped to the frame (x1 >= x0, y1 >= y0)."""
    x, y, w, h = (float(v) for v in box)
    cx, cy = x + w / 2, y + h / 2
    w, h = w * scale, h * scale
    x0, y0 = max(0, round(cx - w / 2)), max(0, round(cy - h / 2))
    x1 = min(frame.shape[1], round(cx + w / 2))
    y1 = min(frame.shape[0], round(cy + h / 2))
    return x0, y0, max(x0, x1), max(y0, y1)


def crop_box(frame: np.ndarray, box: Box, *, scale: float = 1.0) -> np.ndarray:
    """The part of `frame` inside `box` (x, y, w, h), grown by `scale` about its centre, clipped."""
    x0, y0, x1, y1 = crop_bounds(frame, box, scale=scale)
    return frame[y0:y1, x0:x1]


def _quantile(values: np.ndarray, q: float) -> float:
    """np.quantile(values, q) (linear interpolation) by partial sorting."""
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    part = np.partition(values, (lo, hi))
    return float(part[lo] + (part[hi] - part[lo]) * (pos - lo))


@lru_cache(maxsize=256)
def _ellipse(h: int, w: int) -> np.ndarray:
    """The (h, w) mask of the ellipse inscribed in an h x w crop (read-only: shared)."""
    yy, xx = np.ogrid[:h, :w]
    mask = ((xx - (w - 1) / 2) / (w / 2)) ** 2 + ((yy - (h - 1) / 2) / (h / 2)) ** 2 <= 1.0
    mask.flags.writeable = False
    return mask


def medians_u8(values: np.ndarray) -> list[float]:
    """np.median of each column of an (N, 3) uint8 array (N >= 1), by partial sorting."""
    n = len(values)
    k = n // 2
    if n % 2:
        return [float(v) for v in np.partition(values, k, axis=0)[k]]
    part = np.partition(values, (k - 1, k), axis=0)
    return [(int(a) + int(b)) / 2 for a, b in zip(part[k - 1], part[k])]


def body_pixels(frame: np.ndarray, box: Box) -> np.ndarray:
    """Lab pixels (N, 3) float32 of the die body inside `box`; empty when the box is tiny."""
    crop = crop_box(frame, box, scale=INNER)
    if crop.shape[0] < 4 or crop.shape[1] < 4:
        return np.empty((0, 3), np.float32)
    inside = _ellipse(*crop.shape[:2])
    lab8 = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB)[inside]
    lab8 = lab8[lab8[:, 0] < 250]  # specular glints carry the light's colour, not the die's
    if len(lab8) < 10:
        return np.empty((0, 3), np.float32)
    med = medians_u8(lab8)
    lab = lab8.astype(np.float32)
    # Lightness differences count half: pips differ mostly in L, marbling mostly in a/b.
    dist = (0.5 * (lab[:, 0] - med[0])) ** 2 + (lab[:, 1] - med[1]) ** 2 + (lab[:, 2] - med[2]) ** 2
    keep = dist <= _quantile(dist, BODY_SHARE)
    return lab[keep]


def body_color(frame: np.ndarray, box: Box) -> np.ndarray | None:
    """Mean Lab colour (3,) of the die body, or None when nothing can be measured."""
    px = body_pixels(frame, box)
    return px.mean(axis=0).astype(np.float64) if len(px) else None


def die_color(frame: np.ndarray, box: Box, *, profile: Profile | None = None,
              mean: np.ndarray | None = None) -> tuple[str | None, float]:
    """(colour-set name or None, confidence 0-1) of the die in `box` (x, y, w, h).

    frame: BGR uint8 (H, W, 3). With learned colours in the profile, the nearest
    within MAX_DISTANCE; otherwise a generic colour name. mean: the die's body_color,
    when it is measured already.
    """
    if mean is None:
        mean = body_color(frame, box)
    if mean is None:
        return None, 0.0
    if profile is None or not profile.colors:
        return generic_color(mean)
    return nearest_color(mean, profile.colors)


@lru_cache(maxsize=256)
def _gaussian(model: ColorModel) -> tuple[np.ndarray, np.ndarray, float]:
    """(mean, inverse covariance, log-determinant of the covariance) of a learned colour,
    its covariance floored (FLOOR_STD): worked out once a model, as every die of every
    frame is compared with every learned colour."""
    cov = model.cov_array() + np.diag(np.square(FLOOR_STD))
    centre, inverse = model.mean_array(), np.linalg.inv(cov)
    centre.flags.writeable = inverse.flags.writeable = False  # shared
    return centre, inverse, float(np.linalg.slogdet(cov)[1])


def _squared_distance(mean: np.ndarray, model: ColorModel) -> float:
    """The squared Mahalanobis distance of a Lab colour from a learned colour."""
    centre, inverse, _ = _gaussian(model)
    diff = np.asarray(mean, np.float64) - centre
    return max(0.0, float(diff @ inverse @ diff))


def color_distance(mean: np.ndarray, model: ColorModel) -> float:
    """Mahalanobis distance of a die's mean Lab colour from a learned colour model."""
    return math.sqrt(_squared_distance(mean, model))


def _log_likelihood(mean: np.ndarray, model: ColorModel) -> tuple[float, float]:
    """(Mahalanobis distance, Gaussian log-likelihood up to a constant) of a die's colour.

    The likelihood's log-determinant term stops a broad model (marbled dice, or one
    learned from a poor picture) from claiming every die.
    """
    d2 = _squared_distance(mean, model)
    return math.sqrt(d2), -0.5 * d2 - 0.5 * _gaussian(model)[2]


def nearest_color(mean: np.ndarray, colors: Mapping[str, ColorModel]) -> tuple[str | None, float]:
    """Most likely learned colour; None beyond MAX_DISTANCE. Confidence from the likelihoods."""
    scored = sorted(((ll, d, name) for name, m in colors.items()
                     for d, ll in [_log_likelihood(mean, m)]), reverse=True)
    best_ll, best_d, best = scored[0]
    if best_d > MAX_DISTANCE:
        return None, float(min(0.9, 0.5 + 0.1 * (best_d - MAX_DISTANCE)))
    posterior = 1.0 / sum(math.exp(min(50.0, ll - best_ll)) for ll, _, _ in scored)
    closeness = 1.0 if best_d <= 2.0 else 1.0 - 0.5 * (best_d - 2.0) / (MAX_DISTANCE - 2.0)
    return best, float(max(0.0, min(1.0, posterior * closeness)))


# Lab hue angle (degrees) ranges for the generic names; red wraps round 0.
_HUES = (("red", -20.0, 47.0), ("orange", 47.0, 75.0), ("yellow", 75.0, 110.0),
         ("green", 110.0, 215.0), ("blue", 215.0, 295.0), ("purple", 295.0, 340.0))


def generic_color(mean: Sequence[float]) -> tuple[str, float]:
    """A generic colour name from Lab lightness and hue, with a modest confidence (<= 0.6)."""
    lightness = float(mean[0]) * 100.0 / 255.0
    a, b = float(mean[1]) - 128.0, float(mean[2]) - 128.0
    chroma = math.hypot(a, b)
    grey_limit = 11.0 if lightness < 30.0 else 14.0  # dark dice show little chroma
    if chroma < grey_limit:
        gap = grey_limit - chroma
        if lightness >= 62.0:
            return "white", _modest(min(gap, lightness - 62.0), 10.0)
        if lightness <= 38.0:
            return "black", _modest(min(gap, 38.0 - lightness), 10.0)
        return "grey", _modest(min(gap, lightness - 38.0, 62.0 - lightness), 10.0)
    hue = math.degrees(math.atan2(b, a))
    hue = hue + 360.0 if hue < -20.0 else hue
    for name, lo, hi in _HUES:
        if lo <= hue < hi:
            if name == "orange" and lightness < 45.0:
                name = "brown"
            margin = min(hue - lo, hi - hue, chroma - grey_limit)
            return name, _modest(margin, 12.0)
    return "red", _modest(min(360.0 - hue, chroma - grey_limit), 12.0)


def _modest(margin: float, full: float) -> float:
    """0.3 at a class boundary rising to GENERIC_MAX_CONFIDENCE at `full` away from it."""
    share = max(0.0, min(1.0, margin / full))
    return round(0.3 + (GENERIC_MAX_CONFIDENCE - 0.3) * share, 3)
