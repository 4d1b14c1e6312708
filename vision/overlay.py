"""Overlay: the reading drawn on a copy of the frame, for the phone page and `read --overlay`.

Each die gets its box and a label (face, colour, confidence); the Event die is drawn
in magenta, soldier dice in green, and a die read with low confidence in orange with a
"?" and its other likely faces ("3/6?") so players check it. Warnings are written along
the top. The input is never changed.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.types import PLAY_CONFIDENCE, Die, Reading

LOW_CONFIDENCE = PLAY_CONFIDENCE  # drawn orange, with "?": the dice the phones are asked about
GREEN, ORANGE, MAGENTA, RED = (60, 200, 60), (0, 140, 255), (200, 60, 200), (40, 40, 230)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def draw_reading(frame: np.ndarray, reading: Reading) -> np.ndarray:
    """A new BGR image: `frame` (BGR or grey uint8) with `reading`'s dice and warnings drawn."""
    out = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    for die in reading.dice:
        _draw_die(out, die, scale)
    for i, warning in enumerate(reading.warnings):
        if warning.box is not None:
            x, y, w, h = warning.box
            cv2.rectangle(out, (x, y), (x + w, y + h), RED, max(1, round(2 * scale)))
        _text(out, f"! {warning.message}", (6, round((i + 1) * 26 * scale + 4)), scale, RED)
    return out


def label(die: Die) -> str:
    """Short text for a die: face (or ?), colour, confidence; a die read unsurely shows its
    choices, likeliest first ("3/6?": a 3, or else a 6)."""
    face = "?" if die.value is None else str(die.value)
    unsure = "?" if die.value is not None and die.confidence < LOW_CONFIDENCE else ""
    if unsure and len(die.choices) > 1:
        face = "/".join(map(str, die.choices))
    colour = f" {die.color}" if die.color else ""
    return f"{face}{unsure}{colour} {die.confidence:.2f}"


def _draw_die(out: np.ndarray, die: Die, scale: float) -> None:
    x, y, w, h = die.box
    low = die.value is None or die.confidence < LOW_CONFIDENCE
    colour = ORANGE if low else (MAGENTA if die.kind == "event" else GREEN)
    thick = max(1, round(2 * scale))
    cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
    if low:  # dashes across the corners make low confidence visible without colour vision
        cv2.line(out, (x, y), (x + w // 4, y + h // 4), colour, thick)
        cv2.line(out, (x + w, y + h), (x + w - w // 4, y + h - h // 4), colour, thick)
    _text(out, label(die), (x, max(12, y - 4)), scale * 0.9, colour)


def _text(out: np.ndarray, text: str, org: tuple[int, int], scale: float,
          colour: tuple[int, int, int]) -> None:
    thick = max(1, round(scale * 1.5))
    cv2.putText(out, text, org, FONT, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(out, text, org, FONT, scale, colour, thick, cv2.LINE_AA)
