"""Calibration procedures: learn a table's profile from a few frames.

- `learn_tray(frame)`: the tray floor as a polygon, and a rotation guess;
  `learn_tray_colors(frame, polygon)`: the colours the empty tray shows in it.
- `learn_color(frame)`: one player's dice colour from a frame of their dice
  (`learn_dice`: the same and each die's side in pixels).
- `learn_event(frames_by_face)` (in `calibration/event_die.py`): the Event die's body
  colour and face templates.
- `build_profile(...)`: all of it into a `Profile`, with the dice's size in the picture
  (`measure_die_side`, from the players' frames) so the reader can scale frames to it.

Dice in calibration frames are found by `find_dice` (`calibration/finding.py`): the
reader's own detector and classifier, with a simple segmentation (anything unlike the
tray's colour, of a die's size and shape) as fallback.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import cv2
import numpy as np

from calibration.event_die import (
    edge_pictures,
    emblem_advice,
    event_boxes,
    learn_event,
    unsure_pictures,
)
from calibration.finding import (
    MIN_DIE_SIDE,
    Box,
    CalibrationError,
    detector_die_side,
    die_sides,
    find_dice,
)
from calibration.profile import MAX_TRAY_COLORS, ColorModel, Profile, default_profile
from vision.color import body_pixels

SMALL_DIE_SIDE = 20.0  # frame pixels: below this the reader gets noticeably fewer dice right


def learn_tray(frame: np.ndarray) -> tuple[tuple[tuple[float, float], ...] | None, int]:
    """(tray polygon in frame pixels or None for the whole frame, rotation 0 or 90).

    The tray is the smooth region round the middle of the frame: a flood fill that follows
    gradual shading (floor and sloping walls) and stops at edges (the rim, dice), tried
    from a few seeds so a die in the middle does not matter. The rotation turns the tray's long side horizontal (the
    wizard or `--rotation` can override it). Best from a picture of the empty tray.
    """
    h, w = frame.shape[:2]
    f = 200 / max(h, w)
    small = cv2.resize(frame, (max(1, round(w * f)), max(1, round(h * f))),
                       interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    region = max((_flood(lab, (round(sw * fx), round(sh * fy)))
                  for fx in (0.4, 0.5, 0.6) for fy in (0.4, 0.5, 0.6)),
                 key=lambda r: int(np.count_nonzero(r)))
    if np.count_nonzero(region) < 0.15 * sh * sw:
        raise CalibrationError("could not find the tray: point the camera straight at the tray "
                               "floor, with the floor filling the middle of the picture")
    k = 2 * round(0.015 * max(sh, sw)) + 1  # make up for the blur at the edge
    region = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    _, _, bw, bh = cv2.boundingRect(poly)
    rotation = 90 if bh > 1.15 * bw else 0
    if len(poly) < 3 or cv2.contourArea(poly) > 0.9 * sh * sw:
        return None, rotation
    return tuple((float(px / f), float(py / f)) for px, py in poly), rotation


TRAY_COLOR_SHARE = 0.1  # a colour covering this share of the empty tray is one of its colours


def learn_tray_colors(frame: np.ndarray, tray: Sequence[tuple[float, float]] | None
                      ) -> tuple[tuple[float, float, float], ...]:
    """The colours (Lab) the empty tray shows inside `tray` (its polygon in frame pixels;
    None: the whole frame): the centres of up to MAX_TRAY_COLORS clusters of its pixels,
    each covering at least TRAY_COLOR_SHARE of it (a felt floor, walls of another colour,
    a rim). The frame checks take a patch of them for the tray, not a hand or an object."""
    from vision.quality import shrunk, tray_mask  # as the frame checks look at it

    small, f = shrunk(frame)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[tray_mask(small.shape[:2], f, tray)]
    lab = lab.astype(np.float32)
    if len(lab) < 4 * MAX_TRAY_COLORS:
        return ()
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)  # the same frame always gives the same colours
    _, labels, centres = cv2.kmeans(lab, MAX_TRAY_COLORS, None, criteria, 3,
                                    cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=MAX_TRAY_COLORS) / len(lab)
    keep = [k for k in np.argsort(-share) if share[k] >= TRAY_COLOR_SHARE]
    return tuple(tuple(float(np.clip(v, 0, 255)) for v in centres[k]) for k in keep)


def _flood(lab: np.ndarray, seed: tuple[int, int], diff: int = 3) -> np.ndarray:
    """Region (uint8 0/1) reached from `seed` through neighbours differing by <= diff."""
    mask = np.zeros((lab.shape[0] + 2, lab.shape[1] + 2), np.uint8)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | (1 << 8)
    cv2.floodFill(lab.copy(), mask, seed, 0, (diff,) * 3, (diff,) * 3, flags)
    return cv2.morphologyEx(mask[1:-1, 1:-1], cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))


def learn_color(frame: np.ndarray, boxes: Sequence[Box] | None = None, *,
                expect: int | None = 6) -> ColorModel:
    """A player's dice colour from a frame of their dice (found when `boxes` is None)."""
    boxes = list(find_dice(frame) if boxes is None else boxes)
    if not boxes:
        raise CalibrationError("no dice found: put this player's dice in the tray, apart from "
                               "each other, and take the picture again")
    if expect is not None and len(boxes) > 2 * expect:
        raise CalibrationError(f"found {len(boxes)} dice-like things, expected {expect}: take "
                               "other dice and objects out of the tray")
    pixels = [body_pixels(frame, b) for b in boxes]
    pixels = [p for p in pixels if len(p)]
    if not pixels:
        raise CalibrationError("the dice are too small in the picture: move the camera closer")
    return ColorModel.from_pixels(np.vstack(pixels))


def learn_dice(frame: np.ndarray) -> tuple[ColorModel, list[float]]:
    """One player's dice colour, and the dice's side in pixels: as the detector measures
    it (the size the reader scales by), else from the colour blobs."""
    side = detector_die_side(frame)
    if side is not None:
        measure_die_side([side])  # dice too small to read: say so before anything else
    boxes = find_dice(frame)
    return learn_color(frame, boxes), [side] if side else die_sides(frame, boxes)


def measure_die_side(sides: Sequence[float]) -> float:
    """The typical die side (frame pixels) of the dice found in the players' frames; the
    reader scales every frame by it. Too small to read pips is a calibration error."""
    side = float(np.median(sides))
    if side < MIN_DIE_SIDE:
        raise CalibrationError(f"the dice are only {side:.0f} pixels wide in the camera's "
                               f"picture, too small to read their pips: move the camera "
                               f"closer to the tray (or raise its resolution)")
    return side


def die_side_advice(side: float | None) -> str | None:
    """What to do about dice measured `side` px wide, when they read worse than they
    could (benchmarks/vision_wide_view.py --same-size, calibrated: byler's dice at about
    23 px 97.2% right, at 17 px 95.3%, against 97-98% at their photographed 30-45 px)."""
    if side is None or side >= SMALL_DIE_SIDE:
        return None
    return (f"The dice are only {side:.0f} pixels wide in the camera's picture: below "
            f"{SMALL_DIE_SIDE:.0f} the reader gets more of them wrong. Raise the camera's "
            f"resolution (camera.size = [1280, 720] in the configuration file) or move it "
            f"closer to the tray, then measure the dice again.")


def build_profile(*, base: Profile | None = None, tray: np.ndarray | None = None,
                  rotation: int | None = None, players: Mapping[str, np.ndarray] | None = None,
                  event: Mapping[str, Sequence[np.ndarray]] | None = None,
                  notes: list[str] | None = None) -> Profile:
    """A profile from calibration frames; what is not given is kept from `base` (default).

    notes: given a list, an Event-die picture where the die cannot be found is left out
    (its face keeping another) and said there; without it, it is an error. A picture
    whose die the camera is not sure of is said there too (event_die.unsure_pictures),
    one whose die lies near the picture's edge (event_die.edge_pictures), and an emblem
    face whose pictures show no emblem (event_die.emblem_advice)."""
    profile = base or default_profile()
    if tray is not None:
        polygon, guessed = learn_tray(tray)
        profile = replace(profile, tray=polygon, rotation=guessed,
                          tray_colors=learn_tray_colors(tray, polygon))
    if rotation is not None:
        profile = replace(profile, rotation=rotation)
    if players:
        colors = dict(profile.colors)
        sides: list[float] = []
        for name, frame in players.items():
            try:
                colors[name], found = learn_dice(frame)
            except CalibrationError as exc:
                raise CalibrationError(f"player {name!r}: {exc}") from None
            sides += found
        profile = replace(profile, colors=colors, die_side=measure_die_side(sides))
    if event:
        boxes = event_boxes(event, die_side=profile.die_side, left_out=notes)
        profile = replace(profile, event=learn_event(event, boxes, die_side=profile.die_side))
        if notes is not None:
            notes += unsure_pictures(event, boxes) + edge_pictures(event, boxes)
            advice = emblem_advice(profile.event)
            if advice:
                notes.append(advice)
    return profile
