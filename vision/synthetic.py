"""Synthetic frames of dice, for testing what has no public photos (the Event die) and settling.

No public photo of the Dragon Farkle Event die exists, so its tests and benchmark
use frames made here: a die rendered with perspective, a visible side, shading, a
soft shadow, sensor noise and blur, with a dragon-like or rally-like (banner) symbol
or nothing (blank) printed in an ink colour, composited onto a background (a crop of
a real tray/desk photo when given, else a procedural desk texture). Pip dice are
rendered the same way. Deterministic for a given numpy Generator.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TEXTURE = 128  # pixels of the canonical face texture before warping
EVENT_BODY = (40, 40, 150)  # BGR: dark red body
EVENT_INK = (90, 200, 230)  # BGR: gold print

# Symbols in unit face coordinates (-1..1, y down); asymmetric so rotation matters.
_DRAGON = [
    [(-0.05, -0.05), (-0.75, -0.7), (-0.55, -0.2), (-0.7, 0.05), (-0.25, 0.1)],   # left wing
    [(0.05, -0.1), (0.45, -0.75), (0.5, -0.3), (0.7, -0.2), (0.25, 0.05)],       # right wing
    [(-0.25, 0.0), (0.25, -0.05), (0.3, 0.3), (-0.05, 0.45), (-0.3, 0.3)],       # body
    [(0.2, 0.2), (0.45, 0.35), (0.7, 0.3), (0.6, 0.45), (0.3, 0.45)],            # head
    [(-0.15, 0.4), (-0.35, 0.7), (-0.7, 0.65), (-0.45, 0.58), (-0.3, 0.35)],     # tail
]
_RALLY = [
    [(-0.55, -0.7), (-0.42, -0.7), (-0.42, 0.75), (-0.55, 0.75)],               # pole
    [(-0.42, -0.65), (0.65, -0.5), (0.25, -0.2), (0.65, 0.1), (-0.42, 0.0)],     # swallowtail banner
    [(-0.75, 0.62), (-0.2, 0.62), (-0.2, 0.75), (-0.75, 0.75)],                 # base
]
_PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass(frozen=True)
class SynthDie:
    """One die to draw. face: 1-6 (pips) or "blank"/"dragon"/"rally" (Event die)."""

    face: int | str
    center: tuple[float, float]
    size: float = 44.0  # top-face side in pixels
    angle: float = 0.0  # degrees, clockwise
    body: tuple[int, int, int] = EVENT_BODY
    ink: tuple[int, int, int] = EVENT_INK  # symbol or pip colour
    tilt: float = 0.05  # random corner jitter (share of size) for perspective


def face_texture(die: SynthDie) -> np.ndarray:
    """The flat face (TEXTURE x TEXTURE BGR) with its symbol or pips, before warping."""
    t = np.zeros((TEXTURE, TEXTURE, 3), np.uint8)
    t[:] = die.body
    half = TEXTURE / 2
    def px(p: tuple[float, float]) -> tuple[int, int]:
        return round(half + p[0] * half * 0.8), round(half + p[1] * half * 0.8)
    if die.face == "dragon" or die.face == "rally":
        shapes = _DRAGON if die.face == "dragon" else _RALLY
        for poly in shapes:
            cv2.fillPoly(t, [np.array([px(p) for p in poly], np.int32)], die.ink, cv2.LINE_AA)
    elif isinstance(die.face, int):
        for gx, gy in _PIPS[die.face]:
            cv2.circle(t, px((gx * 0.6, gy * 0.6)), round(TEXTURE * 0.085), die.ink, -1, cv2.LINE_AA)
    elif die.face != "blank":
        raise ValueError(f"unknown synthetic face {die.face!r}")
    # Rounded edges catch less light.
    edge = np.zeros((TEXTURE, TEXTURE), np.float32)
    cv2.rectangle(edge, (0, 0), (TEXTURE - 1, TEXTURE - 1), 1.0, 6)
    edge = cv2.GaussianBlur(edge, (0, 0), 4)
    return (t * (1 - 0.35 * edge[..., None])).astype(np.uint8)


def _quad(die: SynthDie, rng: np.random.Generator) -> np.ndarray:
    a = np.deg2rad(die.angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    corners = (unit + rng.normal(0, die.tilt, (4, 2))) * die.size
    return (corners @ rot.T + np.array(die.center)).astype(np.float32)


def draw_die(frame: np.ndarray, die: SynthDie, rng: np.random.Generator,
             *, light_dir: tuple[float, float] = (0.4, 0.7)) -> tuple[int, int, int, int]:
    """Draw `die` into `frame` in place (shadow, side, top); returns its pixel box (x, y, w, h)."""
    top = _quad(die, rng)
    off = np.array(light_dir, np.float32) * die.size * 0.16
    side_poly = cv2.convexHull(np.vstack([top, top + off])).reshape(-1, 2)
    shadow = np.zeros(frame.shape[:2], np.float32)
    cv2.fillPoly(shadow, [np.round(side_poly + off * 1.2).astype(np.int32)], 1.0, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), die.size * 0.12)
    frame[:] = (frame * (1 - 0.45 * shadow[..., None])).astype(np.uint8)
    side_col = tuple(int(c * 0.55) for c in die.body)
    cv2.fillPoly(frame, [np.round(side_poly).astype(np.int32)], side_col, cv2.LINE_AA)
    src = np.float32([[0, 0], [TEXTURE, 0], [TEXTURE, TEXTURE], [0, TEXTURE]])
    h = cv2.getPerspectiveTransform(src, top)
    shape = (frame.shape[1], frame.shape[0])
    tex = face_texture(die)
    warped = cv2.warpPerspective(tex, h, shape, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((TEXTURE, TEXTURE), 255, np.uint8), h, shape)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    frame[:] = (frame * (1 - alpha) + warped * alpha).astype(np.uint8)
    x, y, w, hgt = cv2.boundingRect(np.round(side_poly).astype(np.int32))
    return x, y, w, hgt


def procedural_background(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A desk-like textured background (BGR) of shape (H, W)."""
    h, w = shape
    base = np.array(rng.choice([(150, 170, 185), (200, 200, 200), (90, 120, 150)]), np.float32)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 3)
    stripes = np.sin(np.linspace(0, rng.uniform(20, 60), w))[None, :] * 0.5
    tex = 1 + 0.06 * grain + 0.05 * stripes
    return np.clip(base * tex[..., None], 0, 255).astype(np.uint8)


def background_from_photo(photo: np.ndarray, shape: tuple[int, int],
                          rng: np.random.Generator) -> np.ndarray:
    """A random crop of a real photo resized to cover (H, W), for realistic surroundings."""
    h, w = shape
    ph, pw = photo.shape[:2]
    scale = max(h / ph, w / pw, 1.0)
    if scale > 1.0:
        photo = cv2.resize(photo, (round(pw * scale) + 1, round(ph * scale) + 1))
        ph, pw = photo.shape[:2]
    y0, x0 = int(rng.integers(0, ph - h + 1)), int(rng.integers(0, pw - w + 1))
    return photo[y0:y0 + h, x0:x0 + w].copy()


def render_frame(dice: list[SynthDie], *, background: np.ndarray, rng: np.random.Generator,
                 light: float = 1.0, noise: float = 3.0, blur: float = 0.7
                 ) -> tuple[np.ndarray, list[tuple[int, int, int, int]]]:
    """Draw dice on a copy of `background`, then light, blur and noise; returns (frame, boxes)."""
    frame = background.copy()
    angle = rng.uniform(0, 2 * np.pi)
    light_dir = (float(np.cos(angle)) * 0.6, float(np.sin(angle)) * 0.6)
    h, w = frame.shape[:2]  # the light is drawn first, so it does not depend on the dice
    gx = np.linspace(-1, 1, w)[None, :] * rng.uniform(-0.15, 0.15)
    gy = np.linspace(-1, 1, h)[:, None] * rng.uniform(-0.15, 0.15)
    boxes = [draw_die(frame, d, rng, light_dir=light_dir) for d in dice]
    gain = (light * (1 + gx + gy))[..., None]
    out = frame.astype(np.float32) * gain
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += rng.normal(0, noise, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8), boxes


def random_event_frame(face: str, rng: np.random.Generator, *, background: np.ndarray,
                       body: tuple[int, int, int] = EVENT_BODY, ink: tuple[int, int, int] = EVENT_INK,
                       others: int = 0) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A frame with the Event die showing `face` at a random place, size, angle and light.

    `others` plain pip dice (random colours) are scattered too. Returns (frame, event box).
    """
    h, w = background.shape[:2]
    size = float(rng.uniform(36, 60))
    margin = size * 1.2
    center = (float(rng.uniform(margin, w - margin)), float(rng.uniform(margin, h - margin)))
    dice = [SynthDie(face, center, size, float(rng.uniform(0, 360)), body, ink)]
    for _ in range(others):
        c = (float(rng.uniform(40, w - 40)), float(rng.uniform(40, h - 40)))
        if np.hypot(c[0] - center[0], c[1] - center[1]) < size * 1.6:
            continue
        col = tuple(int(v) for v in rng.integers(30, 230, 3))
        dice.append(SynthDie(int(rng.integers(1, 7)), c, size * 0.9, float(rng.uniform(0, 360)),
                             col, (240, 240, 240)))  # type: ignore[arg-type]
    frame, boxes = render_frame(dice, background=background, rng=rng,
                                light=float(rng.uniform(0.7, 1.2)), noise=float(rng.uniform(2, 6)))
    return frame, boxes[0]
