"""Frame warnings: what the players should fix so the dice can be read (dark, glare, a hand).

Each check works on a small copy of the frame (long side 160 px) inside the tray, with
the dice boxes left out where they would confuse it. Messages are one sentence saying
what to do; codes are stable names for the web page and the LEDs.
"""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.profile import Profile
from vision.types import DiceWarning

SMALL = 160
DARK_MEAN = 45  # grey level (0-255) of the tray below which the frame is too dark
DARK_BRIGHT = 70  # ... or when even the brightest tenth is below this
DARK_LIT = 110  # ... unless its brightest 0.5% (white dice, pips) reach this: a dark felt, lit
GLARE_LEVEL = 250
GLARE_SHARE = 0.004  # share of tray pixels blown out
GLARE_ON_DIE = 0.10  # share of a die's box blown out
# A blown patch off the dice asks only when it could hide a die: at least this share of a
# die's face (a die lost in it leaves the roll a die short, which the table asks about anyway).
GLARE_HIDES = 0.5
OBJECT_DISTANCE = 28.0  # Lab distance from the tray colour counted as "something there"
OBJECT_SHARE = 0.06  # a single blob this share of the tray (not a die) is a hand or object

MESSAGES = {
    "dark": "Too dark to read the dice: turn on a light over the tray.",
    "glare": "Glare on the dice: move the light or the tray so it does not shine into the camera.",
    "hand": "A hand is in the tray: take it out so the dice can be read.",
    "object": "Something other than dice is in the tray: take it out so the dice can be read.",
}

Box = Sequence[float]


def frame_warnings(frame: np.ndarray, boxes: Sequence[Box] = (), *,
                   profile: Profile | None = None) -> list[DiceWarning]:
    """Warnings for `frame` (BGR uint8 H x W x 3) given the dice boxes (x, y, w, h) found in it."""
    small, f = shrunk(frame)
    tray = tray_mask(small.shape[:2], f, None if profile is None else profile.tray)
    dice = _boxes_mask(small.shape[:2], f, boxes, grow=1.3)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    out: list[DiceWarning] = []
    if _too_dark(grey, tray):
        return [DiceWarning("dark", MESSAGES["dark"])]  # the other checks mean nothing then
    glare = _glare(grey, tray, boxes, f, dice, _die_side(boxes, profile))
    if glare is not None:
        out.append(glare)
    # Hands and objects are big: half the size again is plenty, and much cheaper in Lab.
    size = (max(1, small.shape[1] // 2), max(1, small.shape[0] // 2))
    half = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    free = cv2.resize((tray & ~dice).astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    blob = _foreign_object(half, free, f * size[0] / small.shape[1],
                           calibrated=profile is not None and profile.tray is not None,
                           tray_colors=() if profile is None else profile.tray_colors)
    if blob is not None:
        out.append(blob)
    return out


def shrunk(frame: np.ndarray) -> tuple[np.ndarray, float]:
    """The small copy of the frame (long side SMALL px) the checks look at, and its scale
    (small pixels per frame pixel)."""
    h, w = frame.shape[:2]
    f = SMALL / max(h, w)
    return cv2.resize(frame, (max(1, round(w * f)), max(1, round(h * f))),
                      interpolation=cv2.INTER_AREA), f


def tray_mask(shape: tuple[int, int], f: float,
              tray: Sequence[tuple[float, float]] | None) -> np.ndarray:
    """(H, W) bool: the tray polygon (frame pixels; a profile's tray) in an image `f`
    times the frame's size (all of it without a polygon)."""
    if tray is None:
        return np.ones(shape, bool)
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.array(tray) * f).astype(np.int32)], 1)
    return mask.astype(bool)


def _boxes_mask(shape: tuple[int, int], f: float, boxes: Sequence[Box], *, grow: float
                ) -> np.ndarray:
    mask = np.zeros(shape, bool)
    for x, y, bw, bh in boxes:
        cx, cy = (x + bw / 2) * f, (y + bh / 2) * f
        hw, hh = bw * f * grow / 2, bh * f * grow / 2
        mask[max(0, int(cy - hh)):max(0, int(np.ceil(cy + hh))),
             max(0, int(cx - hw)):max(0, int(np.ceil(cx + hw)))] = True
    return mask


def _too_dark(grey: np.ndarray, tray: np.ndarray) -> bool:
    """The tray is dark (its mean, or its brightest tenth) and nothing in it is lit
    brightly: a black or purple felt under a good light holds dice and pips that are."""
    px = grey[tray]
    if not len(px) or (px.mean() >= DARK_MEAN and np.percentile(px, 90) >= DARK_BRIGHT):
        return False
    return bool(np.percentile(px, 99.5) < DARK_LIT)


def _die_side(boxes: Sequence[Box], profile: Profile | None = None) -> float | None:
    """A die's side in frame pixels: the median of the dice boxes found, else the
    calibrated die size, else None (unknown)."""
    if len(boxes):
        return float(np.median([max(b[2], b[3]) for b in boxes]))
    return getattr(profile, "die_side", None) or None


def _glare(grey: np.ndarray, tray: np.ndarray, boxes: Sequence[Box], f: float,
           dice: np.ndarray, side: float | None = None) -> DiceWarning | None:
    """Glare on a die (GLARE_ON_DIE of its box blown out), or in the tray (GLARE_SHARE of
    it) in a patch off the dice (`dice`: their grown boxes' mask) big enough to hide one
    (GLARE_HIDES of a die's face of `side` frame pixels; any patch when the size is
    unknown). A small glint on the felt hides nothing (rune55 straight down: 43 rolls
    read right were asked for one)."""
    blown = (grey >= GLARE_LEVEL) & tray
    for box in boxes:
        one = _boxes_mask(grey.shape, f, [box], grow=1.0)
        if one.any() and np.count_nonzero(blown & one) / np.count_nonzero(one) >= GLARE_ON_DIE:
            return DiceWarning("glare", MESSAGES["glare"], box=tuple(box))  # type: ignore[arg-type]
    if np.count_nonzero(blown) / max(1, np.count_nonzero(tray)) < GLARE_SHARE:
        return None
    if not side:
        ys, xs = np.nonzero(blown)
        x, y, w, h = xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    else:
        off = (blown & ~dice).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(off)
        if n < 2:
            return None
        big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[big, cv2.CC_STAT_AREA] < GLARE_HIDES * (side * f) ** 2:
            return None
        x, y, w, h = (stats[big, i] for i in range(4))
    return DiceWarning("glare", MESSAGES["glare"], box=(x / f, y / f, w / f, h / f))


def _foreign_object(small: np.ndarray, free: np.ndarray, f: float, *, calibrated: bool,
                    tray_colors: Sequence[Sequence[float]] = ()) -> DiceWarning | None:
    """A big blob unlike the tray (its median colour, and the colours calibration saw in
    the empty tray: walls of another colour than the felt are no object) outside the
    dice: a hand or an object.

    Without a calibrated tray the frame shows table edges and walls too, so only a
    skin-coloured blob on a surface that is not itself skin-coloured counts (a hand).
    """
    if np.count_nonzero(free) < 50:
        return None
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    refs = np.vstack([np.median(lab[free], axis=0), np.asarray(tray_colors, np.float32)
                      .reshape(-1, 3)])
    l, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    near = None  # each pixel's squared distance from the nearest reference colour
    for rl, ra, rb in refs.tolist():
        d2 = (l - rl) ** 2 + (a - ra) ** 2 + (b - rb) ** 2
        near = d2 if near is None else np.minimum(near, d2)
    fg = ((near > OBJECT_DISTANCE ** 2) & free).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg)
    if n < 2:
        return None
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = stats[big, cv2.CC_STAT_AREA]
    if area < OBJECT_SHARE * np.count_nonzero(free):
        return None
    x, y, w, h = (stats[big, i] for i in range(4))
    skin = _skin_share(small[labels == big])
    if not calibrated and (skin < 0.6 or _skin_share(small[free & (labels != big)]) > 0.25):
        return None
    code = "hand" if skin >= 0.5 else "object"
    return DiceWarning(code, MESSAGES[code], box=(x / f, y / f, w / f, h / f))


def _skin_share(bgr: np.ndarray) -> float:
    """Share of pixels (N, 3) in a common skin range of YCrCb (any skin tone, lit normally)."""
    ycc = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2YCrCb).reshape(-1, 3)
    skin = (ycc[:, 1] >= 135) & (ycc[:, 1] <= 180) & (ycc[:, 2] >= 80) & (ycc[:, 2] <= 135) \
        & (ycc[:, 0] >= 40)
    return float(skin.mean()) if len(skin) else 0.0
