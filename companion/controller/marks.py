"""Dice the players mark on the photo of a roll the camera asked about.

The photo log keeps a checked roll only when every die in it is accounted for and the
answer says which die showed which face (vision/photolog.py). The players can say so on
the photo while they answer: a tap on the photo and a face marks what is there.

- A tap inside a box the camera drew gives that die its real face, or "none": no die
  there (a speck the camera took for one).
- A tap where the camera saw nothing marks a die it missed (the box fitted to the die by
  vision.locate), with its face.
- "clear" takes back the mark under the tap.

Marks decide what the photo log keeps and learns from, and what the roll keypad is
filled with; the roll played is what the players enter.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_MARKS = 12  # a roll has at most 7 dice; more marks than this are a mistake
EVENT_FACES = ("blank", "dragon", "rally")
NONE = "none"  # no die there
CLEAR = "clear"  # take the mark back
Box = tuple[int, int, int, int]
Locate = Callable[[np.ndarray, tuple[float, float], Sequence[Any], Sequence[tuple[float, float]]], Box]


class MarkError(ValueError):
    """A tap the marks cannot take (outside the photo, an unknown face, too many marks)."""


def locate_die(frame: np.ndarray, point: tuple[float, float], dice: Sequence[Any],
               taken: Sequence[tuple[float, float]]) -> Box:
    """The default locator: vision.locate.mark_box with no calibration profile."""
    from vision.locate import mark_box

    return mark_box(frame, point, dice, taken=taken)


def check_face(face: Any) -> int | str:
    if isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= 6:
        return face
    if face in (*EVENT_FACES, NONE, CLEAR):
        return face
    raise MarkError(f"A die on the photo is marked 1-6, {', '.join(EVENT_FACES)}, "
                    f"{NONE!r} (no die there) or {CLEAR!r} (take the mark back), not {face!r}.")


@dataclass
class Missed:
    """A die the camera missed, marked by the players: its box and face."""

    box: Box
    face: int | str

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2] / 2, self.box[1] + self.box[3] / 2)


@dataclass
class PhotoMarks:
    """The players' marks on one frame read as `dice` (vision Die objects)."""

    frame: np.ndarray
    dice: Sequence[Any]
    locate: Locate = locate_die
    missed: list[Missed] = field(default_factory=list)
    faces: dict[int, int | str] = field(default_factory=dict)  # read die -> face, or NONE

    def tap(self, x: Any, y: Any, face: Any) -> str:
        """Mark `face` at (x, y), each 0-1 of the photo's width and height; say what it did."""
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
                   for v in (x, y)):
            raise MarkError("A tap on the photo is x and y between 0 and 1.")
        face = check_face(face)
        h, w = self.frame.shape[:2]
        point = (float(x) * w, float(y) * h)
        for i, m in enumerate(self.missed):
            if _inside(point, m.box):
                if face in (CLEAR, NONE):
                    del self.missed[i]
                    return "The mark is taken back."
                m.face = face
                return f"Marked: a die the camera missed, showing {face}."
        for i, die in enumerate(self.dice):
            if _inside(point, die.box):
                if face == CLEAR:
                    self.faces.pop(i, None)
                    return "The die is as the camera read it again."
                self._room(i)
                self.faces[i] = face
                return "Crossed out: no die there." if face == NONE else f"That die shows {face}."
        if face in (CLEAR, NONE):
            raise MarkError("There is no box or mark there: tap inside one to change it.")
        self._room()
        taken = [tuple(d.center) for d in self.dice] + [m.center for m in self.missed]
        box = tuple(int(v) for v in self.locate(self.frame, point, self.dice, taken))
        self.missed.append(Missed(box, face))  # type: ignore[arg-type]
        return f"Marked: a die the camera missed, showing {face}."

    def _room(self, die: int | None = None) -> None:
        if die in self.faces:
            return
        if len(self.missed) + len(self.faces) >= MAX_MARKS:
            raise MarkError(f"At most {MAX_MARKS} marks on one photo: tap a mark to take it back.")

    def photo_dice(self) -> list[Any]:
        """The dice of the photo as the players marked it: the read dice less those crossed
        out, with the faces the players gave (confidence 1), then the missed dice."""
        return [d for d, _ in self._photo_dice()]

    def _photo_dice(self) -> list[tuple[Any, bool]]:
        """photo_dice, each with whether the players gave its face."""
        out = []
        for i, d in enumerate(self.dice):
            face = self.faces.get(i)
            if face != NONE:
                out.append((d, False) if face is None else (_die(face, d.center, d.box), True))
        return out + [(_die(m.face, m.center, m.box), True) for m in self.missed]

    def marked(self) -> bool:
        return bool(self.missed or self.faces)

    def roll(self) -> dict[str, Any] | None:
        """The roll the photo shows with the marks ({"roll": soldier faces, "event"}), or
        None while a die on it has no face."""
        dice = self.photo_dice()
        if any(d.value is None for d in dice):
            return None
        events = [d.value for d in dice if d.kind == "event"]
        if len(events) > 1:
            return None
        return {"roll": sorted(d.value for d in dice if d.kind != "event"),
                "event": events[0] if events else None}

    def labels(self, roll: Sequence[int], event: str | None) -> list[dict[str, Any]] | None:
        """The photo log's labels for the players' answer (vision.photolog.label_dice on
        photo_dice), or None when they leave a choice or contradict a face the players
        gave a die on the photo."""
        from vision.photolog import label_dice

        dice = self._photo_dice()
        labels = label_dice([d for d, _ in dice], roll, event)
        if labels is None:
            return None
        ordered = [p for p in dice if p[0].kind != "event"] + [p for p in dice if p[0].kind == "event"]
        if any(given and d.value != lab["value"] for (d, given), lab in zip(ordered, labels)):
            return None  # label_dice's order: soldiers, then the Event die
        return labels

    def event_label(self, event: str | None) -> dict[str, Any] | None:
        """The Event die's label for the players' answer `event` ({"value", "bbox",
        "kind": "event"}): the one die on the photo read or marked as the Event die, with
        the face they gave; None without one, with several, or when the face marked on it
        is another. Unlike labels(), it needs no Soldier die settled."""
        found = [(d, given) for d, given in self._photo_dice() if d.kind == "event"]
        if event is None or len(found) != 1 or (found[0][1] and found[0][0].value != event):
            return None
        return {"value": event, "bbox": [float(v) for v in found[0][0].box], "kind": "event"}

    def asked(self, below: float) -> list[dict[str, Any]]:
        """The read dice the camera was not sure of (confidence below `below`, or no face),
        for the phones to settle with one tap each: centre and box in 0-1 of the photo, the
        face read, the faces to offer (the reader's choices, likeliest first) and the face
        the players marked (None: not yet; "none": no die)."""
        return [self._where(d) | {"read": d.value, "confidence": round(float(d.confidence), 3),
                                  "choices": offered_faces(d), "marked": self.faces.get(i)}
                for i, d in enumerate(self.dice) if not _sure(d, below)]

    def boxes(self, below: float) -> list[dict[str, Any]]:
        """Every die the camera read, for the phones to draw on the photo: centre and box in
        0-1 of the photo, the face read, and whether it was read surely (at least `below`)."""
        return [self._where(d) | {"read": d.value, "sure": _sure(d, below)} for d in self.dice]

    def _where(self, die: Any) -> dict[str, Any]:
        h, w = self.frame.shape[:2]
        x, y, bw, bh = die.box
        return {"x": round(die.center[0] / w, 4), "y": round(die.center[1] / h, 4),
                "box": [round(x / w, 4), round(y / h, 4), round(bw / w, 4), round(bh / h, 4)]}

    def view(self) -> list[dict[str, Any]]:
        """The marks for the phones: face ("none": no die) and centre in 0-1 of the photo,
        missed dice first, then read dice given a face."""
        h, w = self.frame.shape[:2]
        out = [{"kind": "missed", "face": m.face, "x": m.center[0] / w, "y": m.center[1] / h}
               for m in self.missed]
        out += [{"kind": "not_die" if f == NONE else "face", "face": f,
                 "x": self.dice[i].center[0] / w, "y": self.dice[i].center[1] / h}
                for i, f in sorted(self.faces.items())]
        return [m | {"x": round(m["x"], 4), "y": round(m["y"], 4)} for m in out]


def _sure(die: Any, below: float) -> bool:
    return die.value is not None and float(die.confidence) >= below


def offered_faces(die: Any) -> list[int | str]:
    """The faces to offer for a die the camera was not sure of: the reader's choices (its
    read face first); for the Event die, its three faces, the read one first."""
    if die.kind == "event":
        return sorted(EVENT_FACES, key=lambda f: f != die.value)
    choices = list(getattr(die, "choices", ()) or ())
    if not choices and die.value is not None:
        choices = [die.value]
    return choices


def _die(face: int | str, center: tuple[float, float], box: Sequence[int]) -> Any:
    """A die whose face the players gave (a vision Die, confidence 1)."""
    from vision.types import Die

    return Die("event" if face in EVENT_FACES else "soldier", face, tuple(center), tuple(box), 1.0)


def _inside(point: tuple[float, float], box: Sequence[float]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h
