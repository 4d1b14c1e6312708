"""The Event die: is this die the Event die, and which face (blank / dragon / rally) is up?

The Event die's printing differs between editions, so nothing here knows what its
symbols look like: the profile holds a few learned views of each face. A die is the
Event die when its body colour is near the learned one. Its top face is found as the
largest body-coloured region in the box (minimum-area rectangle), warped to a small
upright square, and turned into an "ink map" (how far each pixel is from the body
colour, so lighting and the ink's colour matter little). The map is compared with
every learned view under 4 x 5 rotations (quarter turns plus a small tilt), so the
match is rotation invariant; a blank face is simply a map with no ink.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import EVENT_FACES, EventDie, FaceTemplate, Profile
from vision.color import body_color, color_distance, crop_box

CANON = 48  # side of the canonical face square (pixels)
STORE = 48  # side of a stored template image
INK_SCALE = 45.0  # Lab distance counted as full ink
BLUR = 2.5  # pixels of Gaussian blur on the ink map
SCALES = (1.0,)  # sizes tried (more cost more time; one is enough with centring)
INNER = 0.8  # share of the canonical square compared (skips the rounded edges)
TILTS = (-10.0, -5.0, 0.0, 5.0, 10.0)
MAX_BODY_DISTANCE = 4.0  # Mahalanobis, as in vision.color
REJECT = 10.0  # a best match this many times the learned spread: not the Event die
FACE_DISTANCE = 18.0  # Lab distance from the body counted as top face (not the darker sides)

_CACHE: dict[int, tuple[EventDie, list[tuple[str, np.ndarray]], float]] = {}


def canonical_face(frame: np.ndarray, box: tuple[float, ...] | list[float], *,
                   body: np.ndarray | None = None, size: int = CANON) -> np.ndarray | None:
    """The die's top face in `box` warped to an upright `size` x `size` BGR square, or None.

    body: mean Lab colour of the die body (measured from the box when None).
    """
    if body is None:
        body = body_color(frame, box)
    if body is None:
        return None
    crop = crop_box(frame, box, scale=1.05)
    if crop.shape[0] < 8 or crop.shape[1] < 8:
        return None
    rect = _face_rect(crop, body)
    pts = cv2.boxPoints(rect).astype(np.float32)
    dst = np.float32([[0, size], [0, 0], [size, 0], [size, size]])
    m = cv2.getPerspectiveTransform(pts, dst)
    return cv2.warpPerspective(np.ascontiguousarray(crop), m, (size, size), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _face_rect(crop: np.ndarray, body: np.ndarray) -> tuple:
    """Minimum-area rectangle of the largest body-coloured region (fallback: the middle)."""
    h, w = crop.shape[:2]
    lab = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB).astype(np.float32)
    dist = np.sqrt(((lab - body.astype(np.float32)) ** 2).sum(axis=2))
    mask = (dist < FACE_DISTANCE).astype(np.uint8)
    k = max(3, round(min(h, w) / 6) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    fallback = ((w / 2, h / 2), (w * 0.62, h * 0.62), 0.0)
    if n < 2:
        return fallback
    # The region under the box's middle, else the largest (a same-coloured die nearby
    # must not be taken for this one).
    mid = labels[h // 2 - 1:h // 2 + 2, w // 2 - 1:w // 2 + 2].ravel()
    mid = mid[mid > 0]
    big = int(np.bincount(mid).argmax()) if len(mid) else \
        1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[big, cv2.CC_STAT_AREA] < 0.2 * h * w:
        return fallback
    contours, _ = cv2.findContours((labels == big).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    rect = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    (cx, cy), (rw, rh), ang = rect
    side = min(rw, rh)  # a square face; the longer side includes the die's visible side
    return ((cx, cy), (side, side), ang)


def ink_map(face: np.ndarray) -> np.ndarray:
    """(n, n) float32 in 0..1: how far each pixel of a canonical face is from its body colour."""
    face = cv2.resize(face, (CANON, CANON), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    lo, hi = round(CANON * (1 - INNER) / 2), round(CANON * (1 + INNER) / 2)
    body = np.median(lab[lo:hi, lo:hi].reshape(-1, 3), axis=0)
    ink = np.clip(np.sqrt(((lab - body) ** 2).sum(axis=2)) / INK_SCALE, 0.0, 1.0)
    ink[:lo] = ink[hi:] = 0.0
    ink[:, :lo] = ink[:, hi:] = 0.0
    ink = _centred(ink)
    # Blurred so a pixel or two of misalignment costs little.
    return cv2.GaussianBlur(ink, (0, 0), BLUR)[lo:hi, lo:hi]


def _centred(ink: np.ndarray) -> np.ndarray:
    """Move the ink's centre of mass to the middle.

    The found face can be off by the die's visible side, so the position comes from
    the ink itself; unchanged when there is almost no ink.
    """
    mass = float(ink.sum())
    if mass < 0.02 * ink.size:
        return ink
    ys, xs = np.indices(ink.shape)
    cx, cy = float((xs * ink).sum() / mass), float((ys * ink).sum() / mass)
    mid = (ink.shape[0] - 1) / 2
    m = np.float32([[1, 0, mid - cx], [0, 1, mid - cy]])
    return cv2.warpAffine(ink, m, ink.shape[::-1], borderValue=0.0)


def _rotations(m: np.ndarray) -> np.ndarray:
    """(20, n*n) views of an ink map: quarter turns x small tilts (x SCALES)."""
    n = m.shape[0]
    centre = ((n - 1) / 2, (n - 1) / 2)
    out = []
    for k in range(4):
        q = np.ascontiguousarray(np.rot90(m, k))
        for t in TILTS:
            for s in SCALES:
                if t == 0.0 and s == 1.0:
                    out.append(q.ravel())
                    continue
                r = cv2.getRotationMatrix2D(centre, t, s)
                out.append(cv2.warpAffine(q, r, (n, n), borderMode=cv2.BORDER_CONSTANT).ravel())
    return np.array(out, np.float32)


def _distance(views: np.ndarray, template: np.ndarray) -> float:
    """Smallest mean squared difference between any view of the query and a template map."""
    return float(((views - template.ravel()[None, :]) ** 2).mean(axis=1).min())


def _learned(event: EventDie) -> tuple[list[tuple[str, np.ndarray]], float]:
    """Template ink maps and the typical distance between views of the same face (cached)."""
    hit = _CACHE.get(id(event))
    if hit is not None and hit[0] is event:
        return hit[1], hit[2]
    maps = [(t.face, ink_map(t.image)) for t in event.templates]
    spreads = []
    for i, (face, m) in enumerate(maps):
        views = _rotations(m)
        same = [_distance(views, o) for j, (f, o) in enumerate(maps) if f == face and j != i]
        if same:
            spreads.append(min(same))
    spread = max(0.004, float(np.median(spreads))) if spreads else 0.01
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(event)] = (event, maps, spread)
    return maps, spread


def event_face(frame: np.ndarray, box: tuple[float, ...] | list[float], *,
               profile: Profile | None) -> tuple[str, float] | None:
    """("blank" | "dragon" | "rally", confidence) for the Event die in `box`, else None.

    None when the profile has no Event die, or this die's body colour or pattern is not
    the Event die's. frame: BGR uint8 (H, W, 3); box: (x, y, w, h).
    """
    if profile is None or profile.event is None:
        return None
    body = body_color(frame, box)
    if body is None:
        return None
    distance = color_distance(body, profile.event.body)
    if distance > MAX_BODY_DISTANCE or any(color_distance(body, m) < distance
                                           for m in profile.colors.values()):
        return None  # not the Event die's colour, or nearer a player's dice
    face = canonical_face(frame, box, body=body)
    if face is None:
        return None
    maps, spread = _learned(profile.event)
    views = _rotations(ink_map(face))
    stack = np.array([m.ravel() for _, m in maps], np.float32)
    # Mean squared difference of every view with every template, as one matrix product.
    sq = ((views ** 2).sum(axis=1)[:, None] + (stack ** 2).sum(axis=1)[None, :]
          - 2.0 * views @ stack.T) / views.shape[1]
    best: dict[str, float] = {}
    for (name, _), d in zip(maps, sq.min(axis=0).tolist()):
        best[name] = min(max(0.0, d), best.get(name, d))
    ranked = sorted((d, name) for name, d in best.items())
    (d1, name), (d2, _) = ranked[0], ranked[1]
    if d1 > REJECT * spread:
        return None
    margin = 1.0 - d1 / d2 if d2 > 0 else 0.0
    fit = 1.0 if d1 <= 3.0 * spread else float(np.exp(-(d1 - 3.0 * spread) / (3.0 * spread)))
    return name, float(np.clip(margin * fit, 0.0, 1.0))


def face_template(frame: np.ndarray, box: tuple[float, ...] | list[float], face: str, *,
                  body: np.ndarray | None = None) -> FaceTemplate:
    """A learned view of `face` from the Event die in `box` (for calibration)."""
    if face not in EVENT_FACES:
        raise ValueError(f"Event-die face must be one of {', '.join(EVENT_FACES)}, got {face!r}")
    img = canonical_face(frame, box, body=body, size=STORE)
    if img is None:
        raise ValueError("could not see the Event die's face in that frame")
    return FaceTemplate(face, img)
