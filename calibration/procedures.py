"""Calibration procedures: learn a table's profile from a few frames.

- `learn_tray(frame)`: the tray floor as a polygon, and a rotation guess;
  `learn_tray_colors(frame, polygon)`: the colours the empty tray shows in it.
- `learn_color(frame)`: one player's dice colour from a frame of their dice
  (`learn_dice`: the same and each die's side in pixels).
- `learn_event(frames_by_face)` (in `calibration/event_die.py`): the Event die's body
  colour and face templates.
- `build_profile(...)`: all of it into a `Profile`, with the dice's size in the picture
  (`measure_die_side`, from the players' frames) so the reader can scale frames to it.

Dice in calibration frames are found by `find_dice`: a simple segmentation (anything
unlike the tray's colour, of a die's size and shape), which is dependable for frames
made on purpose (dice apart, on the tray floor), with the bundled detector as fallback.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from calibration.profile import MAX_TRAY_COLORS, ColorModel, Profile, default_profile
from vision.color import body_color, body_pixels

Box = tuple[float, float, float, float]
MIN_DIE_SIDE = 12.0  # frame pixels: below this a die's pips cannot be read
DIM_ROOM = 2 / 3  # a frame whose brightest 1% is under this share of the reader's DIM is
# brightened before the dice are measured (the benchmarks' frames are 0.8 and up)
SMALL_DIE_SIDE = 20.0  # frame pixels: below this the reader gets noticeably fewer dice right


class CalibrationError(ValueError):
    """A calibration frame could not be used; the message says what to change."""


def find_dice(frame: np.ndarray) -> list[Box]:
    """Boxes (x, y, w, h) of dice in a calibration frame, shrunk to each die's body.

    Calibration frames are made on purpose (dice apart on the tray floor), where the
    segmentation is dependable; the bundled detector is the fallback when it finds nothing.
    """
    boxes = segment_dice(frame)
    if not boxes:
        try:
            from vision.detect import detect_dice

            boxes = [(c.center[0] - c.side / 2, c.center[1] - c.side / 2, c.side, c.side)
                     for c in detect_dice(frame)]
        except Exception:  # noqa: BLE001 - detector model not installed: nothing more to try
            boxes = []
    return [refine_box(frame, b) for b in boxes]


def _body_blob(frame: np.ndarray, box: Box) -> np.ndarray | None:
    """Contour (frame pixels) of the largest blob of the die's body colour around `box`
    (pips filled in, shadow and darker sides left out), or None."""
    body = body_color(frame, box)
    if body is None:
        return None
    x, y, w, h = box
    x0, y0 = max(0, int(x - 0.1 * w)), max(0, int(y - 0.1 * h))
    crop = frame[y0:int(y + 1.1 * h) + 1, x0:int(x + 1.1 * w) + 1]
    lab = cv2.cvtColor(np.ascontiguousarray(crop), cv2.COLOR_BGR2LAB).astype(np.float32)
    near = (np.sqrt(((lab - body.astype(np.float32)) ** 2).sum(axis=2)) < 30).astype(np.uint8)
    k = max(3, round(min(w, h) / 5) | 1)
    near = cv2.morphologyEx(near, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(near, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    return max(contours, key=cv2.contourArea).reshape(-1, 2) + np.array([x0, y0])


def refine_box(frame: np.ndarray, box: Box) -> Box:
    """Shrink a rough box (which may include the die's shadow) to the die's body colour."""
    blob = _body_blob(frame, box)
    if blob is None:
        return box
    bx, by, bw, bh = cv2.boundingRect(blob)
    if bw * bh < 0.3 * box[2] * box[3]:
        return box
    return (float(bx), float(by), float(bw), float(bh))


def segment_dice(frame: np.ndarray, *, distance: float = 32.0) -> list[Box]:
    """Die-sized, roughly square blobs unlike the frame's dominant (tray) colour.

    Blobs touching the frame's border are left out (cut-off dice, the table's edge).
    """
    h, w = frame.shape[:2]
    _, _, stats, _ = cv2.connectedComponentsWithStats(_foreground(frame, distance))
    area_lo, area_hi = 0.0003 * h * w, 0.05 * h * w
    boxes: list[Box] = []
    for x, y, bw, bh, area in stats[1:]:
        at_edge = x == 0 or y == 0 or x + bw >= w or y + bh >= h  # cut off, or the table edge
        if not at_edge and area_lo <= area <= area_hi and 0.5 <= bw / bh <= 2.0 \
                and area >= 0.45 * bw * bh:
            boxes.append((float(x), float(y), float(bw), float(bh)))
    if len(boxes) >= 3:  # specks of dirt or texture are far smaller than the dice
        typical = float(np.median([b[2] * b[3] for b in boxes]))
        boxes = [b for b in boxes if b[2] * b[3] >= 0.35 * typical]
    return boxes


def _foreground(frame: np.ndarray, distance: float = 32.0) -> np.ndarray:
    """uint8 0/1 mask of what differs from the frame's dominant (tray) colour."""
    h, w = frame.shape[:2]
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    ref = np.median(lab.reshape(-1, 3)[:: max(1, h * w // 20000)], axis=0)
    fg = (np.sqrt(((lab - ref) ** 2).sum(axis=2)) > distance).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


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
    from vision.quality import SMALL  # as small as the frame checks look

    h, w = frame.shape[:2]
    f = SMALL / max(h, w)
    small = cv2.resize(frame, (max(1, round(w * f)), max(1, round(h * f))),
                       interpolation=cv2.INTER_AREA)
    mask = np.ones(small.shape[:2], np.uint8)
    if tray is not None:
        mask[:] = 0
        cv2.fillPoly(mask, [np.round(np.array(tray) * f).astype(np.int32)], 1)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)[mask > 0].astype(np.float32)
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


def detector_die_side(frame: np.ndarray) -> float | None:
    """The median face side (frame pixels) of the dice the reader's own networks find
    surely, looked for at several zooms; None when they find none (or are missing).

    Dice too big for the default scale (a camera close over the tray; frames up to 640
    px wide), or too small in a 640 px frame (a camera hung high), are measured at the
    look the reader itself takes (vision.reader.read_at_the_right_scale).
    Otherwise the zoom where most dice are read surely wins (the smaller on a tie: zoomed
    too far, single pips start to pass for dice), unless what it reads are the pips of
    the dice read before (pips_of); in frames up to 640 px wide, zooming in stops once
    two dice or more read surely at the detector's size (DET_SIDE). (Wider frames zoom
    in all the way: shrunk to 320 px, a cluster of their small dice can pass for one
    such die.) Then one more look at the zoom that side asks for, where the detector's
    size estimate is at its best."""
    from vision.detect import DET_SIDE, DieDetector, full_frame_scale
    from vision.faces import FaceReader
    from vision.onnxnets import model_dir
    from vision.reader import DIM, SURE, even_light, is_die, light_level, read_at_the_right_scale

    def sure(cands: list) -> list[tuple[Any, Any]]:
        """(candidate, read) of the candidates read surely as dice."""
        reads = faces.read_candidates(frame, cands)
        return [(c, r) for c, r in zip(cands, reads) if is_die(r) and r.confidence >= SURE]

    def median_side(dice: list[tuple[Any, Any]]) -> float:
        return float(np.median([c.side for c, _ in dice]))

    if light_level(frame) < DIM_ROOM * DIM:  # brightened, as the reader's networks see it
        # Colours are left alone: on a brown table with no white in view, evening them
        # out made 6 px dice measure 31.
        frame = even_light(frame, balance=1.0)
    base = full_frame_scale(frame.shape[1])
    best: list[tuple[Any, Any]] = []
    try:
        detector = DieDetector(model_dir() / "detector.onnx")
        faces = FaceReader(model_dir(), paint=False)  # are the candidates whole dice?
        first = detector.detect(frame, scale=base)
        if base >= 0.5:  # as the reader would look (never from further in wider frames)
            looked, _ = read_at_the_right_scale(detector, FaceReader(model_dir()), frame,
                                                first, None)
            if looked is not first:  # from further away, or a 640 px frame's closer look
                best = sure(looked)
        if not best:
            for zoom in (1.0, 1.5, 2.0, 3.0, 4.0):
                dice = sure(first if zoom == 1.0 else detector.detect(frame, scale=zoom * base))
                if len(dice) > len(best) and not pips_of(dice, best):
                    best = dice
                if base >= 0.5 and len(dice) >= 2 and median_side(dice) * zoom * base >= DET_SIDE:
                    break  # big enough: closer still, the pips would pass for dice
        if not best:
            return None
        again = sure(detector.detect(frame, scale=DET_SIDE / median_side(best)))
    except FileNotFoundError:  # models not installed: the colour blobs will do
        return None
    return median_side(again if len(again) >= len(best) else best)


def pips_of(closer: list[tuple[Any, Any]], dice: list[tuple[Any, Any]]) -> bool:
    """Whether what a closer look read surely (`closer`, (candidate, read) pairs) are the
    pips of the dice read surely before (`dice`): three or more of them inside those
    dice, under half their size, at least three quarters of them read as 1. (Small dice
    inside what was taken for one die, a cluster of them, show every face.)"""
    inside = [r.label for c, r in closer if any(
        max(abs(c.center[0] - b.center[0]), abs(c.center[1] - b.center[1])) < 0.5 * b.side
        and c.side < 0.5 * b.side for b, _ in dice)]
    return len(inside) >= 3 and inside.count(1) >= 0.75 * len(inside)


def die_sides(frame: np.ndarray, boxes: Sequence[Box]) -> list[float]:
    """Each die's side in pixels: of the smallest turned rectangle round its body colour
    (a die turned 45 degrees has a box 1.4 times its side), else of its box."""
    sides = []
    for box in boxes:
        side = max(box[2], box[3])
        blob = _body_blob(frame, box)
        if blob is not None:
            (_, _), (rw, rh), _ = cv2.minAreaRect(blob)
            if rw * rh >= 0.3 * box[2] * box[3]:
                side = (rw + rh) / 2
        sides.append(float(side))
    return sides


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
    (its face keeping another) and said there; without it, it is an error."""
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
        from calibration.event_die import learn_event  # it uses this module's helpers

        profile = replace(profile, event=learn_event(event, die_side=profile.die_side,
                                                     left_out=notes))
    return profile
