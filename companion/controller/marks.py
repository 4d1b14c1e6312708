"""Dice the players mark on the photo of a roll the camera asked about.

The photo log keeps a checked roll only when every die in it is accounted for
(vision/photolog.py). When the camera missed a die, or took something for a die, the
players can say so on the photo while they answer: a tap where the missed die lies
marks it (the box fitted to the die by vision.locate), a tap inside a box the camera
drew crosses that "die" out, and a tap on a mark takes it back. Marks only decide what
the photo log keeps and learns from; the roll itself is what the players enter.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MAX_MARKS = 12  # a roll has at most 7 dice; more taps than this are a mistake
Box = tuple[int, int, int, int]
Locate = Callable[[np.ndarray, tuple[float, float], Sequence[Any], Sequence[tuple[float, float]]], Box]


class MarkError(ValueError):
    """A tap the marks cannot take (outside the photo, too many marks)."""


def locate_die(frame: np.ndarray, point: tuple[float, float], dice: Sequence[Any],
               taken: Sequence[tuple[float, float]]) -> Box:
    """The default locator: vision.locate.mark_box with no calibration profile."""
    from vision.locate import mark_box

    return mark_box(frame, point, dice, taken=taken)


@dataclass
class PhotoMarks:
    """The players' marks on one frame read as `dice` (vision Die objects)."""

    frame: np.ndarray
    dice: Sequence[Any]
    locate: Locate = locate_die
    missed: list[Box] = field(default_factory=list)  # boxes of dice the camera missed
    not_dice: set[int] = field(default_factory=set)  # indices into dice: no die there

    def tap(self, x: float, y: float) -> str:
        """Take a tap at (x, y), each 0-1 of the photo's width and height; say what it did."""
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
                   for v in (x, y)):
            raise MarkError("A tap on the photo is x and y between 0 and 1.")
        h, w = self.frame.shape[:2]
        point = (float(x) * w, float(y) * h)
        for i, box in enumerate(self.missed):
            if _inside(point, box):
                del self.missed[i]
                return "The mark is taken back."
        for i, die in enumerate(self.dice):
            if _inside(point, die.box):
                if i in self.not_dice:
                    self.not_dice.discard(i)
                    return "That is a die again."
                self._room()
                self.not_dice.add(i)
                return "Crossed out: no die there."
        self._room()
        taken = [tuple(d.center) for d in self.dice] + [_center(b) for b in self.missed]
        self.missed.append(tuple(int(v) for v in self.locate(self.frame, point, self.dice, taken)))
        return "Marked: a die the camera missed."

    def _room(self) -> None:
        if len(self.missed) + len(self.not_dice) >= MAX_MARKS:
            raise MarkError(f"At most {MAX_MARKS} marks on one photo: tap a mark to take it back.")

    def kept_dice(self) -> list[Any]:
        """The read dice without those crossed out."""
        return [d for i, d in enumerate(self.dice) if i not in self.not_dice]

    def view(self) -> list[dict[str, Any]]:
        """The marks for the phones: kind and centre in 0-1 of the photo."""
        h, w = self.frame.shape[:2]
        out = [{"kind": "missed", "x": _center(b)[0] / w, "y": _center(b)[1] / h}
               for b in self.missed]
        out += [{"kind": "not_die", "x": self.dice[i].center[0] / w,
                 "y": self.dice[i].center[1] / h} for i in sorted(self.not_dice)]
        return [m | {"x": round(m["x"], 4), "y": round(m["y"], 4)} for m in out]


def _inside(point: tuple[float, float], box: Sequence[float]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def _center(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2] / 2, box[1] + box[3] / 2)
