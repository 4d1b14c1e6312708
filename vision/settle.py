"""Settling: tell from consecutive frames when the dice have stopped, and which frame to read.

Works on small blurred grey frames (the long side downscaled to 160 px), so one update
costs well under a millisecond or two. A frame differs from the previous one by the
share of pixels that changed; a large share means a hand or an object is moving in the
tray. After `settle_time` seconds without motion the stop is reported once as
"settled" with the full frame to read, then "still" until something moves. A hand that
passes without moving the dice does not cause a second report. With an empty-tray
frame known (`empty=` or `set_empty`), a still scene like it is "empty" and a large
still difference from it (a resting hand, a phone) is "hand".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

State = Literal["moving", "settled", "still", "hand", "empty"]
SMALL = 160  # long side of the working frame (pixels)


@dataclass(frozen=True)
class SettleStatus:
    """state: moving | settled | still | hand | empty; frame: the frame to read when settled."""

    state: State
    frame: np.ndarray | None = None
    motion: float = 0.0  # share of tray pixels that changed since the previous frame


class Settler:
    """Feed it frames in order with `update(frame, t)`; t in seconds (any monotonic clock).

    settle_time: seconds without motion before a stop counts.
    motion_share: share of changed tray pixels above which the dice are moving.
    hand_share: share of changed pixels (frame to frame, or still vs the empty tray) that
        means a hand or a large object is in the tray.
    tray: polygon [(x, y), ...] in full-frame pixels limiting what is watched (None = all).
    """

    def __init__(self, *, settle_time: float = 0.35, motion_share: float = 0.002,
                 hand_share: float = 0.12, threshold: int = 18,
                 tray: list[tuple[float, float]] | tuple | None = None,
                 empty: np.ndarray | None = None) -> None:
        if settle_time < 0 or not 0 < motion_share < hand_share < 1:
            raise ValueError("need settle_time >= 0 and 0 < motion_share < hand_share < 1")
        self.settle_time = settle_time
        self.motion_share = motion_share
        self.hand_share = hand_share
        self.threshold = threshold
        self.tray = None if tray is None else [(float(x), float(y)) for x, y in tray]
        self._mask: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._still_since: float | None = None
        self._reported: np.ndarray | None = None  # small frame of the last reported stop
        self._stop_done = False  # this stop has been dealt with (reported or unchanged)
        self._empty: np.ndarray | None = None
        if empty is not None:
            self.set_empty(empty)

    @classmethod
    def for_profile(cls, profile: object, **options: object) -> Settler:
        """A Settler watching only the profile's tray (calibration.Profile or None)."""
        return cls(tray=getattr(profile, "tray", None), **options)  # type: ignore[arg-type]

    def set_empty(self, frame: np.ndarray) -> None:
        """Remember `frame` (BGR) as the empty tray."""
        self._empty = self._small(frame)

    def update(self, frame: np.ndarray, t: float) -> SettleStatus:
        """The state after this frame (BGR uint8, H x W x 3) taken at time t (seconds)."""
        small = self._small(frame)
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            self._still_since = t
            return SettleStatus("moving")
        motion = self._changed(small, prev)
        if motion >= self.motion_share:
            self._still_since, self._stop_done = None, False
            return SettleStatus("hand" if motion >= self.hand_share else "moving", motion=motion)
        if self._still_since is None:
            self._still_since = t
        if self._stop_done:
            return SettleStatus("still", motion=motion)
        if t - self._still_since < self.settle_time:
            return SettleStatus("moving", motion=motion)
        return self._still(frame, small, motion)

    def _still(self, frame: np.ndarray, small: np.ndarray, motion: float) -> SettleStatus:
        if self._empty is not None:
            away = self._changed(small, self._empty)
            if away >= self.hand_share:
                return SettleStatus("hand", motion=motion)
            if away < self.motion_share / 4:
                self._reported = small
                return SettleStatus("empty", motion=motion)
        self._stop_done = True
        if self._reported is not None and self._changed(small, self._reported) < self.motion_share:
            return SettleStatus("still", motion=motion)  # e.g. a hand passed, dice untouched
        self._reported = small
        return SettleStatus("settled", frame=frame, motion=motion)

    def _small(self, frame: np.ndarray) -> np.ndarray:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (H, W, 3), got {frame.dtype} {frame.shape}")
        h, w = frame.shape[:2]
        f = SMALL / max(h, w)
        size = (max(1, round(w * f)), max(1, round(h * f)))
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        if self.tray is not None and (self._mask is None or self._mask.shape != grey.shape):
            self._mask = np.zeros_like(grey)
            pts = np.round(np.array(self.tray) * f).astype(np.int32)
            cv2.fillPoly(self._mask, [pts], 255)
        return cv2.GaussianBlur(grey, (3, 3), 0)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        diff = cv2.absdiff(a, b) > self.threshold
        if self._mask is not None:
            inside = self._mask > 0
            return float(np.count_nonzero(diff & inside)) / max(1, int(np.count_nonzero(inside)))
        return float(np.count_nonzero(diff)) / diff.size
