"""Perception: pure functions from camera frames (BGR numpy arrays) to dice readings.

    from vision import read_dice, Reading, Die, DiceWarning, draw_reading, Settler
"""
from __future__ import annotations

from vision.reader import FrameError, read_dice
from vision.types import DiceWarning, Die, Reading

__all__ = ["DiceWarning", "Die", "FrameError", "Reading", "read_dice"]

try:  # overlays and settling come from the calib branch's modules
    from vision.overlay import draw_reading
except ImportError:  # pragma: no cover - only before the calib branch is merged
    pass
else:
    __all__ += ["draw_reading"]
try:
    from vision.settle import Settler, SettleStatus
except ImportError:  # pragma: no cover
    pass
else:
    __all__ += ["SettleStatus", "Settler"]
