"""A classical pip count, the reader's second, independent opinion on a face.

The face square is compared pixel by pixel with the die's body colour (the median of
the square in Lab); pixels far from it form blobs, and blobs of a pip's size and
roundness inside the face are counted. Works for dark and light pips alike. It is
only used to confirm the CNN: when it disagrees, the reading's confidence is capped.
"""
from __future__ import annotations

import cv2
import numpy as np

SIZE = 48  # side of the face square the count runs on


def count_pips(frame: np.ndarray, center: tuple[float, float], side: float) -> int | None:
    """Number of pips (1-6) on the face of `side` px centred at `center`, or None if unsure."""
    from vision.faces import face_crop

    face = face_crop(frame, center, side, size=SIZE)
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    inner = lab[SIZE // 6: -SIZE // 6, SIZE // 6: -SIZE // 6].reshape(-1, 3)
    body = np.median(inner, axis=0)
    dist = np.sqrt(((lab - body) ** 2).sum(axis=2))
    dist = cv2.GaussianBlur(dist, (3, 3), 0)
    inner_d = dist[SIZE // 8: -SIZE // 8, SIZE // 8: -SIZE // 8]
    thresh = max(25.0, 0.5 * float(np.percentile(inner_d, 99)))
    mask = (dist > thresh).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    pip_area = (0.1 * SIZE) ** 2 * np.pi / 4  # a pip ~ 10% .. 22% of the face side across
    count = 0
    for i in range(1, n):
        _, _, w, h, area = stats[i]
        cx, cy = cents[i]
        if not (SIZE * 0.1 < cx < SIZE * 0.9 and SIZE * 0.1 < cy < SIZE * 0.9):
            continue
        if area < pip_area * 0.5 or area > pip_area * 6:
            continue
        if max(w, h) > 1.8 * min(w, h) + 1 or area < 0.45 * w * h:
            continue
        count += 1
    return count if 1 <= count <= 6 else None
