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
