"""Calibration of the Event die: find it alone in its frames and learn its faces.

- `event_boxes(frames_by_face)`: the die's top face square in every frame, found by the
  reader's detector and by colour, whichever recurs;
- `learn_event(frames_by_face)`: the die's body colour and a template of each face
  (`vision/event.py` reads the faces with them at play time);
- `with_view_from_play(event, frame, box, face)`: one more view of a face, from a roll
  whose Event die the camera was unsure of or misread and the players gave its face.

The players' dice and the tray are learned in `calibration/procedures.py`, whose
`build_profile` puts it all together; both find dice with `calibration/finding.py`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from calibration.finding import (
    Box,
    CalibrationError,
    detector_die_side,
    die_sides,
    refine_box,
    segment_dice,
)
from calibration.profile import EVENT_FACES, ColorModel, EventDie
from vision.color import body_color, body_pixels
from vision.event import face_ink, face_squares, face_template

PART_OF_FACE = 0.65  # a face square under this share of the blank face's is a part of a face
SURE_DIE = 0.5  # a square learned from with the face classifier's die probability under this: "check it"
PLAY_VIEWS = 6  # views of a face, the calibration's pictures among them, before play adds no more
# A die whose centre lies this far out from the picture's middle (share of the half
# width or half height) is seen from the side: the phone page asks for it nearer the
# middle (near_edge).
EDGE_BAND = 0.8
# A Dragon or Rally face none of whose views shows this much ink (vision.event.face_ink)
# shows no emblem to the camera: on 21 rendered tables, the emblem faces' best views
# showed 7.1 to 172, but those of a white Event die the light washed out 1.9 and 2.9,
# as little as its blank views (1.3 and 4.8).
EMBLEM_INK = 5.0
TOWARDS_MIDDLE = ("the Event die lies near the edge of the camera's view, where it is seen "
                  "from the side: put it nearer the middle of the tray")


def event_boxes(frames: Mapping[str, Sequence[np.ndarray]], *,
                die_side: float | None = None, left_out: list[str] | None = None
                ) -> dict[str, list[Box | None]]:
    """The Event die's top face square (x, y, side, side) in every frame: of the dice
    found, the one whose colour recurs.

    Frames should show the Event die alone, but a stray die, a dark corner or the tray's
    wall must not be learned: the body colour seen on a die-like thing in the most frames
    wins, and each frame gives its most die-like thing of that colour. Dice are found by
    the reader's detector (at the players' dice size, `die_side`, when measured) and by
    colour segmentation, so a die that looks like the felt is still found.

    A frame where the die is not found raises CalibrationError; or, given a `left_out`
    list, is left out (None in its place, a sentence in the list) while its face keeps
    another frame: a lamp's glare can turn one picture's top face white.
    """
    side = die_side or _event_die_side(frames)
    cands: list[tuple[str, int, Box, np.ndarray, float]] = []
    for face, imgs in frames.items():
        for i, img in enumerate(imgs):
            found = face_boxes(img, side)
            likely = die_likeness(img, found)
            for b, p in zip(found, likely):
                c = body_color(img, b)
                if c is not None:
                    cands.append((face, i, b, c, p))
    if not cands:
        raise CalibrationError("no die found in the Event-die frames: put only the Event die "
                               "in the tray, apart from anything else")

    def dist(a: np.ndarray, b: np.ndarray) -> float:
        # Lightness varies with the light, and a glossy dark die's top face mirrors a
        # lamp where it lies under one (rendered: lightness 60 to 230 on one black die).
        return float(np.linalg.norm((a - b) * (0.1, 1.0, 1.0)))

    def support(colour: np.ndarray) -> tuple[int, float]:
        near = [(f, i, p) for f, i, _, c, p in cands if dist(c, colour) < 25 and p >= 0.5]
        best: dict[tuple[str, int], float] = {}
        for f, i, p in near:
            best[(f, i)] = max(p, best.get((f, i), 0.0))
        return len(best), sum(best.values())
    consensus = max(cands, key=lambda c: (support(c[3]), c[4]))[3]
    out: dict[str, list[Box | None]] = {}
    for face, imgs in frames.items():
        for i in range(len(imgs)):
            mine = [(p, -dist(c, consensus), b) for f, j, b, c, p in cands
                    if (f, j) == (face, i) and dist(c, consensus) <= 40]
            if mine:
                box = max(mine, key=lambda m: m[:2])[2]
                out.setdefault(face, []).append(_top_face(imgs[i], box, side))
                continue
            other = any((f, j) == (face, i) and p >= 0.5 for f, j, _, _, p in cands)
            why = (f"the Event die in {face} frame {i + 1} is not the colour it is in the "
                   "others (a lamp's glare on it?)" if other else
                   f"the Event die was not found in {face} frame {i + 1}")
            if left_out is None:
                raise CalibrationError(f"{why}: put only the Event die in the tray, showing "
                                       "that face, out of any glare")
            out.setdefault(face, []).append(None)
            left_out.append(f"{why}: that picture is left out")
    out = _whole_faces(out)
    for face, found in out.items():
        if not any(b is not None for b in found):
            raise CalibrationError(f"the Event die was not found in any {face} frame: put "
                                   "only the Event die in the tray, showing that face")
    return out


def near_edge(frame: np.ndarray, box: Box) -> bool:
    """Whether the die whose top face square is `box` lies in the picture's outer band
    (EDGE_BAND), where the camera sees it slanted. The reader's detector boxes such a
    die by its sides as much as by its top face, and a view learned there is off the
    face: on the 30 rendered tables (benchmarks/vision_event_tables.py) 17 of the 40
    pictures with the die in that band had their square more than 0.15 face sides
    off the top face's centre, 9 of the 134 elsewhere and none of the 35 in the middle
    40%; cut at the face's centre instead, the learned views read 261 faces of 300
    right on the first 15 tables, not 249."""
    h, w = frame.shape[:2]
    x, y, bw, bh = box
    cx, cy = x + bw / 2, y + bh / 2
    return max(abs(cx - w / 2) / (w / 2), abs(cy - h / 2) / (h / 2)) >= EDGE_BAND


def edge_pictures(frames: Mapping[str, Sequence[np.ndarray]],
                  boxes: Mapping[str, Sequence[Box | None]]) -> list[str]:
    """A sentence for each picture whose die lies near the picture's edge (near_edge),
    asking for it again nearer the middle. The picture is still learned from: left out,
    its face would keep one view fewer, and on the rendered tables, two pictures a face,
    that played a roll wrong (the phone page refuses such a picture instead, and the
    players take another)."""
    return [f"in {face} frame {i + 1} {TOWARDS_MIDDLE}, and take that picture again"
            for face, found in boxes.items() for i, b in enumerate(found)
            if b is not None and near_edge(frames[face][i], b)]


def _whole_faces(boxes: dict[str, list[Box | None]]) -> dict[str, list[Box | None]]:
    """The face squares, those far smaller than the blank face's (under PART_OF_FACE of
    the blank pictures' median side) grown round their centre to that side. The camera
    does not move, so the Event die's face is about as big in every picture (on the
    rendered tables, lens and place made the Dragon and Rally squares 0.72-1.3 of the
    blank ones); a blank face shows the detector nothing but its edge, while a big
    emblem can be boxed instead of the face: table 100006's Rally, a white ring nearly
    as wide as the face, was boxed at 0.57 and 0.64, its learned views were the ring's
    inside, and Dragons in play were read as Rallies at 0.84-0.96."""
    sides = [b[2] for b in boxes.get("blank", []) if b is not None]
    if not sides:
        return boxes
    side = float(np.median(sides))
    return {face: [b if b is None or b[2] >= PART_OF_FACE * side else
                   (b[0] + b[2] / 2 - side / 2, b[1] + b[3] / 2 - side / 2, side, side)
                   for b in found]
            for face, found in boxes.items()}


def _top_face(frame: np.ndarray, box: Box, side: float | None) -> Box:
    """The top face square of the die in `box`: the square round its body-coloured top,
    unless that is under 0.8 of the measured die `side` (0.65 of the box when not
    measured). A detector's or a blob's box can take in the die's sides and shadow, and a
    learned view must be the face alone; a glossy top that mirrors a lamp breaks up its
    colour into a smaller square, and then the box stays."""
    body = body_color(frame, box)
    if body is None:
        return box
    cx, cy, s = face_squares(frame, box, body)[-1]
    if s < (0.8 * side if side else 0.65 * box[2]):
        return box
    return (cx - s / 2, cy - s / 2, s, s)


def face_boxes(frame: np.ndarray, side: float | None) -> list[Box]:
    """Top face squares (x, y, s, s) of the dice in a calibration frame: the detector's
    candidates, looked for over the whole frame and at the scale that shows a `side` px
    die as the detector likes it (a die by the tray's wall can be missed at one of them),
    and the colour blobs no candidate lies on (their middle, `side` wide)."""
    from vision.detect import DET_SIDE, DieDetector
    from vision.onnxnets import model_dir

    out: list[Box] = []

    def add(cx: float, cy: float, s: float) -> None:
        if not any(abs(cx - o[0] - o[2] / 2) < 0.5 * max(s, o[2])
                   and abs(cy - o[1] - o[3] / 2) < 0.5 * max(s, o[2]) for o in out):
            out.append((cx - s / 2, cy - s / 2, s, s))
    try:
        detector = DieDetector(model_dir() / "detector.onnx")
        for scale in ([DET_SIDE / side] if side else []) + [None]:
            for c in detector.detect(frame, scale=scale):
                add(c.center[0], c.center[1], c.side)
    except FileNotFoundError:  # detector not installed: the colour blobs will do
        pass
    for b in segment_dice(frame):
        x, y, w, h = refine_box(frame, b)
        add(x + w / 2, y + h / 2, side or 0.85 * min(w, h))
    return out


def die_likeness(frame: np.ndarray, boxes: Sequence[Box]) -> list[float]:
    """How likely each face square is a die, by the reader's face classifier (1 - P(not a
    die)); 1.0 for every box when the classifier is not installed."""
    if not boxes:
        return []
    try:
        from vision.faces import FaceReader

        reads = FaceReader(paint=False, cascade=False).read(
            frame, [(x + w / 2, y + h / 2) for x, y, w, h in boxes],
            [(w + h) / 2 for _, _, w, h in boxes])
    except FileNotFoundError:
        return [1.0] * len(boxes)
    return [r.die_probability for r in reads]


def surely_a_die(frame: np.ndarray, box: Box) -> bool:
    """Whether the reader's face classifier takes the square `box` of `frame` for a die
    (die_likeness at least SURE_DIE). With the die half out of view, the calibration can
    find a dark corner of the tray instead (a rendered table's calibration learned one):
    a square found that is not surely a die is shown to the players to check."""
    return die_likeness(frame, [box])[0] >= SURE_DIE


def unsure_pictures(frames: Mapping[str, Sequence[np.ndarray]],
                    boxes: Mapping[str, Sequence[Box | None]]) -> list[str]:
    """A sentence for each picture whose square found (event_boxes) is not surely a die
    (surely_a_die), asking the players to check it."""
    out = []
    for face, imgs in frames.items():
        for i, (img, box) in enumerate(zip(imgs, boxes[face])):
            if box is not None and not surely_a_die(img, box):
                out.append(f"in {face} frame {i + 1} the Event die was found where the camera "
                           "is not sure there is a die: check that picture shows the whole die")
    return out


def _event_die_side(frames: Mapping[str, Sequence[np.ndarray]]) -> float | None:
    """The Event die's side (frame pixels) as the reader's networks measure it in the
    frames (detector_die_side), else from the colour blobs; None when neither finds it."""
    sides = [s for imgs in frames.values() for img in imgs[:1]
             if (s := detector_die_side(img)) is not None]
    if not sides:
        sides = [s for imgs in frames.values() for img in imgs[:1]
                 for s in die_sides(img, segment_dice(img))]
    return float(np.median(sides)) if sides else None


def learn_event(frames: Mapping[str, Sequence[np.ndarray]],
                boxes: Mapping[str, Sequence[Box | None]] | None = None, *,
                die_side: float | None = None, left_out: list[str] | None = None) -> EventDie:
    """The Event die from a few frames of each face {"blank": [...], "dragon": [...], "rally": [...]}.

    Each frame shows the Event die alone (or give its top face square per frame in
    `boxes`). die_side: the players' dice side in pixels, when measured (the Event die
    is found at that scale). left_out: see event_boxes (a frame where the die is not
    found raises CalibrationError without it).
    """
    missing = [f for f in EVENT_FACES if not frames.get(f)]
    if missing:
        raise CalibrationError(f"need at least one frame of each Event-die face; missing: "
                               f"{', '.join(missing)}")
    unknown = sorted(set(frames) - set(EVENT_FACES))
    if unknown:
        raise CalibrationError(f"unknown Event-die face {unknown[0]!r}: use blank, dragon or rally")
    boxes = boxes or event_boxes(frames, die_side=die_side, left_out=left_out)
    found = [(face, img, boxes[face][i]) for face, imgs in frames.items()
             for i, img in enumerate(imgs) if boxes[face][i] is not None]
    pixels = np.vstack([body_pixels(img, box) for _, img, box in found])
    body = ColorModel.from_pixels(pixels)
    templates = tuple(face_template(img, box, face) for face, img, box in found)
    return EventDie(body, templates)


def plain_emblems(event: EventDie) -> list[str]:
    """The emblem faces (dragon, rally) in none of whose learned views the camera sees an
    emblem: every view's ink under EMBLEM_INK. The reader cannot tell such a face from the
    blank ones, and asks about the Event die in every roll."""
    ink = face_ink(event)
    return [f for f in EVENT_FACES if f != "blank" and ink.get(f)
            and max(ink[f]) < EMBLEM_INK]


def emblem_advice(event: EventDie | None) -> str | None:
    """What to do when the camera sees no emblem on a learned Event face (plain_emblems),
    else None."""
    plain = plain_emblems(event) if event is not None else []
    if not plain:
        return None
    faces = " and ".join(f.title() for f in plain)
    return (f"In the Event die's {faces} pictures the camera sees no emblem: those faces look "
            "as plain as the blank ones, so every roll's Event die will be asked. Too much "
            "light on the die can wash its emblems out: dim or move the lamp, then start the "
            "Event die's pictures again.")


def with_view_from_play(event: EventDie, frame: np.ndarray, box: Box, face: str
                        ) -> EventDie | None:
    """The Event die with one more view of `face`: its top face square `box` (frame pixels,
    as the reader found it) in a frame whose face the players gave; None when that face
    has PLAY_VIEWS views already. Raises ValueError for an unknown face or a square too
    small to learn from.

    Two pictures of a face at calibration leave it unsure on dice whose emblem the light,
    the lens or the turn changes. On the ten rendered tables of
    benchmarks/vision_event_tables.py ("learning"), adding the face of every roll the
    players answered whose Event die was read wrong or unsurely, up to PLAY_VIEWS a face,
    read the face right in 160 rolls of 200 instead of 144, each roll read before its own
    answer was learned (62 views learned; 9 of them on a Soldier die the reader had taken
    for the Event die, which the players' answer does not say)."""
    if len(event.faces(face)) >= PLAY_VIEWS:
        return None
    return EventDie(event.body, event.templates + (face_template(frame, box, face),))
