"""The dice reader's result types: plain frozen dataclasses that serialise to JSON.

Shared by the reader core (detect/faces/reader) and the calibration helpers
(colour, Event die, quality, overlay), so this module imports nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# The table plays a die read at least this surely; below it, the phones are asked
# (companion.controller.interpret uses it; `read --json` reports it per image). Chosen on
# sets the networks never trained on (benchmarks/vision_loso.py, vision_accuracy.py on
# rune55; each prints the rolls at 0.6-0.99): from 0.6 to 0.8 the rolls played wrong fall
# by a fifth to a half (rune55 from low angles, bundled networks: 5.9% -> 3.1%), each
# costing 1 to 3 rolls played right that are now asked; from 0.8 to 0.9, 3 to 20.
PLAY_CONFIDENCE = 0.8

Kind = Literal["soldier", "event"]
EventFace = Literal["blank", "dragon", "rally"]
Value = int | str | None  # 1-6 for a soldier die, an EventFace for the Event die, None = unreadable

SOLDIER: Kind = "soldier"
EVENT: Kind = "event"
EVENT_FACES: tuple[str, ...] = ("blank", "dragon", "rally")


def _box_tuple(box: Any) -> tuple[int, int, int, int]:
    x, y, w, h = (round(float(v)) for v in box)
    return (x, y, w, h)


@dataclass(frozen=True)
class Die:
    """One die found in a frame.

    kind: "soldier" (pip die) or "event" (the Event die).
    value: 1-6 for a soldier die, "blank"/"dragon"/"rally" for the Event die,
        None when the face could not be read (then confidence is low).
    center: (x, y) pixel centre in the frame as given to read_dice.
    box: (x, y, w, h) pixel box, top-left origin.
    confidence: 0-1, calibrated probability that `value` is right (and that this is a die).
    color: the colour-set name from the profile (which player's dice), or None.
    choices: the faces worth offering the players when they are asked about this die,
        most probable first (`value` first when it is a face): the reader's runners-up.
        Empty when it has none to offer. Not part of to_json (the `read --json` format).
    """

    kind: str
    value: Value
    center: tuple[float, float]
    box: tuple[int, int, int, int]
    confidence: float
    color: str | None = None
    choices: tuple[int | str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in (SOLDIER, EVENT):
            raise ValueError(f"die kind must be 'soldier' or 'event', not {self.kind!r}")
        if self.kind == SOLDIER and self.value is not None and self.value not in range(1, 7):
            raise ValueError(f"a soldier die shows 1-6, not {self.value!r}")
        if self.kind == EVENT and self.value is not None and self.value not in EVENT_FACES:
            raise ValueError(f"the Event die shows blank, dragon or rally, not {self.value!r}")
        if not 0.0 <= float(self.confidence) <= 1.0:
            raise ValueError(f"confidence must be in 0..1, not {self.confidence!r}")
        object.__setattr__(self, "center", (float(self.center[0]), float(self.center[1])))
        object.__setattr__(self, "box", _box_tuple(self.box))
        object.__setattr__(self, "confidence", float(self.confidence))
        object.__setattr__(self, "choices", tuple(self.choices))

    def to_json(self) -> dict[str, Any]:
        """The die as the JSON object of `dragon-farkle read --json`."""
        return {
            "kind": self.kind,
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "box": list(self.box),
            "confidence": round(self.confidence, 3),
            "color": self.color,
        }


@dataclass(frozen=True)
class DiceWarning:
    """Something the players should fix before the roll can be read reliably.

    code: short machine name, e.g. "touching", "cocked", "hand", "dark", "glare".
    message: one sentence a player understands.
    box: optional (x, y, w, h) of the region concerned.
    """

    code: str
    message: str
    box: tuple[int, int, int, int] | None = None

    def __post_init__(self) -> None:
        if self.box is not None:
            object.__setattr__(self, "box", _box_tuple(self.box))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.box is not None:
            out["box"] = list(self.box)
        return out


@dataclass(frozen=True)
class Reading:
    """Everything read from one frame: the dice and the warnings."""

    dice: tuple[Die, ...] = ()
    warnings: tuple[DiceWarning, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    @property
    def soldier_values(self) -> tuple[int | None, ...]:
        """Faces of the soldier dice, in reading order (None for unreadable ones)."""
        return tuple(d.value for d in self.dice if d.kind == SOLDIER)  # type: ignore[misc]

    @property
    def event(self) -> Die | None:
        """The Event die, if one was found."""
        return next((d for d in self.dice if d.kind == EVENT), None)

    def to_json(self) -> dict[str, Any]:
        """{"dice": [...], "warnings": [...]} as in `dragon-farkle read --json` (minus "image")."""
        return {
            "dice": [d.to_json() for d in self.dice],
            "warnings": [w.to_json() for w in self.warnings],
        }
