"""Scoring readings against labelled photos (used by the accuracy benchmark and training).

Labels are faces 1-6, or "blank" / "dragon" / "rally" for the Event die. A reported die
matches a label when its centre lies inside the label box grown by half its size
(matteop65 boxes surround only the top face's pips, so box overlap would be
meaningless); each label takes the nearest such die.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.types import PLAY_CONFIDENCE, Die

GROW = 0.5  # label box grown by half its size (centred) for matching
ASKED = PLAY_CONFIDENCE  # the table asks the phones about a die read below this


@dataclass
class Tally:
    """Counts over a set of photos."""

    labelled: int = 0
    correct: int = 0
    missed: int = 0
    false: int = 0
    wrong: int = 0
    wrong_confident: int = 0  # wrong face with confidence >= 0.9
    unsure: int = 0  # matched dice reported with confidence < 0.5
    asked: int = 0  # matched dice read below ASKED: the table asks the phones about them
    asked_wrong: int = 0  # ... of them read wrong
    asked_wrong_offered: int = 0  # ... whose right face is among the die's choices
    offered: int = 0  # choices offered for the asked dice, in all
    asked_photos: int = 0  # photos with at least one asked die
    images: int = 0
    # A photo is one roll: what the table would do with it (roll_outcome).
    rolls_right: int = 0  # played by the camera, every face right
    rolls_asked: int = 0  # asked on the phones
    rolls_wrong: int = 0  # played by the camera with a wrong face: the worst outcome
    # Rolls the table could play at some threshold (as many dice read as are there, every
    # one with a face, no warnings): (their least sure die's confidence, faces right).
    playable: list[tuple[float, bool]] = field(default_factory=list)
    # Why the rolls asked at the table's threshold were asked (why_asked): rolls per reason.
    asked_why: Counter = field(default_factory=Counter)
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)

    def rolls_at(self, play_confidence: float) -> tuple[int, int, int]:
        """(played right, asked, played wrong) had the table played dice read at least
        `play_confidence` surely: how asking more trades against playing wrong."""
        right = sum(ok for c, ok in self.playable if c >= play_confidence)
        wrong = sum(not ok for c, ok in self.playable if c >= play_confidence)
        return right, self.images - right - wrong, wrong

    def add(self, other: Tally) -> None:
        for k in ("labelled", "correct", "missed", "false", "wrong", "wrong_confident",
                  "unsure", "asked", "asked_wrong", "asked_wrong_offered", "offered", "asked_photos",
                  "images", "rolls_right", "rolls_asked", "rolls_wrong"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.playable.extend(other.playable)
        self.asked_why.update(other.asked_why)
        self.ms.extend(other.ms)
        self.cpu_ms.extend(other.cpu_ms)


def match(dice: list[Die] | tuple[Die, ...], labels: list[dict]) -> list[tuple[int, int]]:
    """Pairs (label index, die index), one die per label and one label per die."""
    pairs = []
    for li, lab in enumerate(labels):
        x, y, w, h = lab["bbox"]
        cx, cy = x + w / 2, y + h / 2
        gw, gh = w * (1 + GROW) / 2, h * (1 + GROW) / 2
        for di, d in enumerate(dice):
            if abs(d.center[0] - cx) <= gw and abs(d.center[1] - cy) <= gh:
                pairs.append((float(np.hypot(d.center[0] - cx, d.center[1] - cy)), li, di))
    used_l: set[int] = set()
    used_d: set[int] = set()
    out = []
    for _, li, di in sorted(pairs):
        if li not in used_l and di not in used_d:
            used_l.add(li)
            used_d.add(di)
            out.append((li, di))
    return out


def is_right(die: Die, value: int | str) -> bool:
    """A soldier die labelled 1-6 read as that face; an Event die labelled "blank",
    "dragon" or "rally" read as the Event die showing that face."""
    if isinstance(value, str):
        return die.kind == "event" and die.value == value
    return die.kind == "soldier" and die.value == value


def roll_outcome(dice: list[Die] | tuple[Die, ...], labels: list[dict],
                 warnings: tuple[Any, ...] | list[Any] = (), *,
                 play_confidence: float = PLAY_CONFIDENCE) -> str:
    """What the table does with a photo taken as one roll: "right" or "wrong" when it
    plays the roll itself, "asked" when it asks the phones.

    The table plays a roll when as many dice are read as are there (Soldier dice and the
    Event die counted apart, as the table counts them: companion.controller.interpret),
    every one with a face and at least `play_confidence` sure, and the reading has no
    warnings. A played
    roll is right when its faces (Soldier faces and the Event face, as a multiset: the
    rules do not care which die shows what) are the labelled ones."""
    playable = least_sure(dice, labels, warnings)
    if playable is None or playable < play_confidence:
        return "asked"
    return "right" if faces_right(dice, labels) else "wrong"


def least_sure(dice: list[Die] | tuple[Die, ...], labels: list[dict],
               warnings: tuple[Any, ...] | list[Any] = ()) -> float | None:
    """The confidence of a roll's least sure die when the table could play the roll at
    some threshold (as many Soldier dice read as are there and the Event die when it is
    there, as the table counts them against the dice in hand: every one with a face, no
    warnings), else None: the table asks whatever its threshold."""
    kinds = Counter("event" if isinstance(lab["value"], str) else "soldier" for lab in labels)
    if Counter(d.kind for d in dice) != kinds or warnings or any(d.value is None for d in dice):
        return None
    return min((d.confidence for d in dice), default=1.0)


def why_asked(dice: list[Die] | tuple[Die, ...], labels: list[dict],
              warnings: tuple[Any, ...] | list[Any] = (), *,
              play_confidence: float = PLAY_CONFIDENCE) -> set[str]:
    """Why the table asks about a roll, as its labels tell (a roll can have several
    reasons; empty when the table plays it):
    - "missed": a labelled die no die was read at; "false": a die read where none is;
    - "kind": a Soldier die read as the Event die, or the Event die as a Soldier die;
    - "unsure (right)" / "unsure (wrong)": a Soldier die read with no face or below
      `play_confidence`, its face right or not ("Event die unsure (...)" for the Event die);
    - "warning CODE": a warning other than "cocked" (which every unsure die brings)."""
    if roll_outcome(dice, labels, warnings, play_confidence=play_confidence) != "asked":
        return set()
    why = {f"warning {w.code}" for w in warnings if getattr(w, "code", None) != "cocked"}
    pairs = match(dice, labels)
    if len(pairs) < len(labels):
        why.add("missed")
    if len(pairs) < len(dice):
        why.add("false")
    for li, di in pairs:
        d, value = dice[di], labels[li]["value"]
        if d.kind != ("event" if isinstance(value, str) else "soldier"):
            why.add("kind")
        elif d.value is None or d.confidence < play_confidence:
            who = "Event die unsure" if d.kind == "event" else "unsure"
            why.add(f"{who} ({'right' if is_right(d, value) else 'wrong'})")
    return why


def why_text(asked_why: Counter) -> str:
    """Rolls per reason asked (why_asked), commonest first: "missed 12, false 3"."""
    parts = [f"{why} {n}" for why, n in sorted(asked_why.items(), key=lambda kv: (-kv[1], kv[0]))]
    return ", ".join(parts) or "none"


def faces_right(dice: list[Die] | tuple[Die, ...], labels: list[dict]) -> bool:
    """Whether the faces read are the labelled ones, as a multiset (the rules do not care
    which die shows what). Soldier faces are 1-6, the Event die's "blank", "dragon",
    "rally": as text they cannot be confused."""
    return Counter(str(d.value) for d in dice) == Counter(str(lab["value"]) for lab in labels)


def score(dice: list[Die] | tuple[Die, ...], labels: list[dict],
          warnings: tuple[Any, ...] | list[Any] | None = None) -> Tally:
    """Tally of one photo's reading against its labels; with the reading's `warnings`
    (None: not scored as a roll), the photo is also scored as one roll (roll_outcome, at
    the table's threshold; its least sure die kept for the other thresholds, rolls_at)."""
    t = Tally(labelled=len(labels), images=1)
    if warnings is not None:
        least = least_sure(dice, labels, warnings)
        if least is not None:
            t.playable.append((least, faces_right(dice, labels)))
        t.rolls_right, t.rolls_asked, t.rolls_wrong = t.rolls_at(ASKED)
        if t.rolls_asked:
            t.asked_why.update(why_asked(dice, labels, warnings))
    pairs = match(dice, labels)
    t.missed = len(labels) - len(pairs)
    t.false = len(dice) - len(pairs)
    for li, di in pairs:
        d = dice[di]
        if is_right(d, labels[li]["value"]):
            t.correct += 1
        else:
            t.wrong += 1
            if d.confidence >= 0.9:
                t.wrong_confident += 1
        if d.confidence < 0.5:
            t.unsure += 1
        if d.confidence < ASKED:
            t.asked += 1
            t.offered += len(d.choices)
            if not is_right(d, labels[li]["value"]):
                t.asked_wrong += 1
                t.asked_wrong_offered += labels[li]["value"] in d.choices
    t.asked_photos = int(t.asked > 0)
    return t


def close_up(image: np.ndarray, labels: list[dict], zoom: float
             ) -> tuple[np.ndarray, list[dict]] | None:
    """The photo as a camera `zoom` times closer would see it: its middle 1/zoom blown up
    to its size, with the labels inside (moved and enlarged). None when the cut crosses a
    labelled die (half a die is no label) or leaves none."""
    h, w = image.shape[:2]
    cw, ch = round(w / zoom), round(h / zoom)
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    kx, ky = w / cw, h / ch
    inside = []
    for lab in labels:
        x, y, bw, bh = lab["bbox"]
        if x >= x0 and y >= y0 and x + bw <= x0 + cw and y + bh <= y0 + ch:
            inside.append(dict(lab, bbox=[(x - x0) * kx, (y - y0) * ky, bw * kx, bh * ky]))
        elif x < x0 + cw and x + bw > x0 and y < y0 + ch and y + bh > y0:
            return None
    if not inside:
        return None
    big = cv2.resize(image[y0:y0 + ch, x0:x0 + cw], (w, h), interpolation=cv2.INTER_CUBIC)
    return big, inside
