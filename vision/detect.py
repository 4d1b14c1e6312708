"""Finding dice: a small centre-heatmap network (CenterNet-style) run with OpenCV DNN.

The frame is shrunk to 320 px wide; the network marks the centre of each die's upward
face on a grid 4x coarser, with the face side and a sub-cell offset. Peaks of that
heatmap are the candidate dice; the face classifier (vision.faces) then rejects
candidates that are not dice.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.onnxnets import load_net, model_dir

DET_WIDTH = 320
STRIDE = 4
DEFAULT_THRESHOLD = 0.4


@dataclass(frozen=True)
class Candidate:
    """A possible die: centre (x, y) and face side in frame pixels, heatmap score 0-1."""

    center: tuple[float, float]
    side: float
    score: float

    @property
    def box(self) -> tuple[int, int, int, int]:
        s = self.side
        return (round(self.center[0] - s / 2), round(self.center[1] - s / 2), round(s), round(s))


def _input_size(w: int, h: int) -> tuple[int, int]:
    ih = max(STRIDE * 4, round(h * DET_WIDTH / w / STRIDE) * STRIDE)
    return DET_WIDTH, ih


class DieDetector:
    """Runs the detector network on BGR frames of any size (3 channels, uint8)."""

    def __init__(self, path: str | Path | None = None, *, threshold: float = DEFAULT_THRESHOLD
                 ) -> None:
        self.path = str(path or model_dir() / "detector.onnx")
        self.threshold = threshold

    def heatmap(self, frame: np.ndarray) -> tuple[np.ndarray, float, float]:
        """Raw network output (4, H/4, W/4) for the frame and the x/y scale frame->input."""
        h, w = frame.shape[:2]
        iw, ih = _input_size(w, h)
        blob = cv2.dnn.blobFromImage(frame, 1 / 255.0, (iw, ih), (127.5, 127.5, 127.5),
                                     swapRB=False, crop=False)
        net = load_net(self.path)
        net.setInput(blob)
        return net.forward()[0], iw / w, ih / h

    def detect(self, frame: np.ndarray) -> list[Candidate]:
        """Candidates sorted by score, at most one per die (closer peaks are merged)."""
        out, sx, sy = self.heatmap(frame)
        heat = 1 / (1 + np.exp(-out[0]))
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= self.threshold)
        found: list[Candidate] = []
        for iy, ix in sorted(zip(*np.nonzero(peaks)), key=lambda p: -heat[p]):
            cx = (ix + float(out[2, iy, ix])) * STRIDE / sx
            cy = (iy + float(out[3, iy, ix])) * STRIDE / sy
            side = 16 * float(np.exp(np.clip(out[1, iy, ix], -3, 3))) / sx
            if any(np.hypot(cx - c.center[0], cy - c.center[1]) < 0.5 * max(side, c.side)
                   for c in found):
                continue
            found.append(Candidate((cx, cy), side, float(heat[iy, ix])))
        return found


def detect_dice(frame: np.ndarray, *, threshold: float = DEFAULT_THRESHOLD) -> list[Candidate]:
    """Dice in a BGR frame: detector candidates that the face classifier takes for dice.

    For callers that need where the dice are but not their faces (calibration)."""
    from vision.faces import FaceReader

    folder = model_dir()
    cands = DieDetector(folder / "detector.onnx", threshold=threshold).detect(frame)
    reads = FaceReader(folder).read(frame, [c.center for c in cands], [c.side for c in cands])
    return [c for c, r in zip(cands, reads) if r.label != "none" and r.die_probability >= 0.5]
