"""Finding dice: a small centre-heatmap network (CenterNet-style), run by onnxruntime or
OpenCV DNN.

The frame is shrunk to 320 px wide (or, when the calibration measured the dice, to the
scale that makes a die about 20 px wide: see vision.reader); the network marks the
centre of each die's upward face on a grid 4x coarser, with the face side and a sub-cell offset. Peaks of that
heatmap are the candidate dice; the face classifier (vision.faces) then rejects
candidates that are not dice.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision import topface
from vision.onnxnets import load_net, model_dir

DET_WIDTH = 320
DET_SIDE = 20.0  # face side in input px the detector reads best (trained on about 12-45)
STRIDE = 4
DEFAULT_THRESHOLD = 0.4
MERGE = 0.45  # peaks closer than this many face sides are one die's


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


MAX_INPUT = 1280  # widest/tallest detector input (a very small die side asks for more)


def full_frame_scale(width: int) -> float:
    """The detector's default scale: the whole frame shrunk to DET_WIDTH px wide."""
    return DET_WIDTH / width


def _input_size(w: int, h: int, scale: float) -> tuple[int, int]:
    scale = min(scale, MAX_INPUT / max(w, h))
    return (max(STRIDE * 4, round(w * scale / STRIDE) * STRIDE),
            max(STRIDE * 4, round(h * scale / STRIDE) * STRIDE))


class DieDetector:
    """Runs the detector network on BGR frames of any size (3 channels, uint8)."""

    def __init__(self, path: str | Path | None = None, *, threshold: float = DEFAULT_THRESHOLD
                 ) -> None:
        self.path = str(path or model_dir() / "detector.onnx")
        self.threshold = threshold

    def heatmap(self, frame: np.ndarray, scale: float | None = None
                ) -> tuple[np.ndarray, float, float]:
        """Raw network output (4, H/4, W/4) for the frame and the x/y scale frame->input.

        scale: detector input pixels per frame pixel (default: DET_WIDTH px wide). The
        network was trained on dice whose face is about 12-45 input px wide."""
        h, w = frame.shape[:2]
        iw, ih = _input_size(w, h, full_frame_scale(w) if scale is None else scale)
        blob = cv2.dnn.blobFromImage(frame, 1 / 255.0, (iw, ih), (127.5, 127.5, 127.5),
                                     swapRB=False, crop=False)
        return load_net(self.path).run(blob)[0], iw / w, ih / h

    def detect(self, frame: np.ndarray, *, scale: float | None = None,
               region: tuple[int, int, int, int] | None = None,
               threshold: float | None = None, top_faces: bool = True) -> list[Candidate]:
        """Candidates sorted by score, at most one per die (closer peaks are merged).

        scale: as in heatmap. region: (x0, y0, x1, y1), look only inside it (the tray);
        candidates are in the frame's pixels either way. threshold: the least score of a
        candidate, instead of the detector's own. top_faces: move the squares onto the
        dice's top faces (on_top_faces; False: the detector's own squares)."""
        full = frame
        x0 = y0 = 0
        if region is not None:
            h, w = frame.shape[:2]
            x0, y0 = max(0, int(region[0])), max(0, int(region[1]))
            x1, y1 = min(w, int(np.ceil(region[2]))), min(h, int(np.ceil(region[3])))
            if x1 - x0 < 8 or y1 - y0 < 8:
                return []
            if scale is None:
                scale = full_frame_scale(w)
            frame = frame[y0:y1, x0:x1]
        out, sx, sy = self.heatmap(frame, scale)
        heat = 1 / (1 + np.exp(-out[0]))
        least = self.threshold if threshold is None else threshold
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= least)
        found: list[Candidate] = []
        for iy, ix in sorted(zip(*np.nonzero(peaks)), key=lambda p: -heat[p]):
            cx = x0 + (ix + float(out[2, iy, ix])) * STRIDE / sx
            cy = y0 + (iy + float(out[3, iy, ix])) * STRIDE / sy
            side = 16 * float(np.exp(np.clip(out[1, iy, ix], -3, 3))) / sx
            cand = Candidate((cx, cy), side, float(heat[iy, ix]))
            if not _merged(cand, found):
                found.append(cand)
        return on_top_faces(full, found, self.threshold) if top_faces else found


def _merged(c: Candidate, found: list[Candidate]) -> bool:
    """Whether `c` is a peak of a die already found. Touching dice's peaks are about one
    side apart, and the two predicted centres lean towards each other: merge only what
    is closer than MERGE side."""
    return any(np.hypot(c.center[0] - o.center[0], c.center[1] - o.center[1])
               < MERGE * max(c.side, o.side) for o in found)


def on_top_faces(frame: np.ndarray, found: list[Candidate], threshold: float
                 ) -> list[Candidate]:
    """`found` (by score) with each candidate of at least `threshold` moved onto its die's
    top face (vision.topface, when its network is there), and those that then land on a
    better candidate's die left out, as the peaks are merged (_merged).
    Weaker peaks, which only the Event die's second look reads, are left as found."""
    file = topface.path()
    strong = [c for c in found if c.score >= threshold]
    if file is None or not strong:
        return found
    moved = dict(zip((id(c) for c in strong), topface.refine(frame, strong, file)))
    out: list[Candidate] = []
    for c in found:
        c = moved.get(id(c), c)
        if not _merged(c, out):
            out.append(c)
    return out


def detect_dice(frame: np.ndarray, *, threshold: float = DEFAULT_THRESHOLD) -> list[Candidate]:
    """Dice in a BGR frame: detector candidates that the face classifier takes for dice.

    For callers that need where the dice are but not their faces (calibration)."""
    from vision.faces import FaceReader

    folder = model_dir()
    cands = DieDetector(folder / "detector.onnx", threshold=threshold).detect(frame)
    reads = FaceReader(folder, cascade=False).read_candidates(frame, cands)
    return [c for c, r in zip(cands, reads) if r.label != "none" and r.die_probability >= 0.5]
