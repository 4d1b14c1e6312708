"""Moving each found die's square onto its top face, with a small regression network.

The detector (vision.detect) marks each die's upward face from a frame shrunk to about
20 px a die, so its square is often a little off the face: on a die seen slanted (near
the edge of a wide lens, or tipped against a wall) it is pulled towards the die's sides,
and its size is a guess from one heatmap cell. The face classifier and the Event-die
matcher learned faces cut round the top face itself, and read a die cut so better
(vision/training/README.md, the thirty-ninth session).

Here each candidate is cut from the full-resolution frame, WINDOW face sides wide, at
SIZE x SIZE pixels, and a small network (vision/training/topface.py, trained on
rendered dice whose top face is labelled) says where the top face is in that cut: its
centre's offset from the cut's centre, in face sides, and the log of its side over
the candidate's. A correction is bounded (MAX_SHIFT, MAX_SCALE), so a network that
errs moves a square only so far.

Used when the model folder ($DICE_MODELS, else vision/models) holds topface.onnx, or
the file $DICE_TOPFACE names; $DICE_TOPFACE=0 leaves it out.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.faces import face_matrix
from vision.onnxnets import load_net, optional_net

FILE = "topface.onnx"
WINDOW = 1.8  # the cut is this many candidate face sides wide
SIZE = 48  # ... and this many pixels
MAX_SHIFT = 0.4  # a centre moves at most this many face sides each way
MAX_SCALE = 1.4  # a side grows or shrinks by at most this factor


def path() -> Path | None:
    """The network's file, or None when it is switched off or not in the model folder
    (a file $DICE_TOPFACE names must be there)."""
    return optional_net("DICE_TOPFACE", FILE)


def cut_matrix(center: Sequence[float], side: float, *, angle: float = 0.0,
               flip: bool = False) -> np.ndarray:
    """2x3 affine: the WINDOW x `side` square round `center`, turned by `angle`
    degrees (and mirrored left to right when `flip`), onto SIZE x SIZE pixels, its
    centre at (SIZE / 2, SIZE / 2) (vision.faces.face_matrix)."""
    return face_matrix((float(center[0]), float(center[1])), WINDOW * side, angle=angle,
                       flip=flip, size=SIZE)


def cut(frame: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The SIZE x SIZE BGR cut the affine `m` (cut_matrix) takes from the frame."""
    return cv2.warpAffine(np.ascontiguousarray(frame), m, (SIZE, SIZE), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)


def net_input(cuts: list[np.ndarray]) -> np.ndarray:
    """(n, 3, SIZE, SIZE) float32, scaled as the other networks' input (0..1 minus 0.5)."""
    return cv2.dnn.blobFromImages(cuts, 1 / 255.0, (SIZE, SIZE), (127.5, 127.5, 127.5),
                                  swapRB=False, crop=False)


def corrections(frame: np.ndarray, centers: Sequence[Sequence[float]],
                sides: Sequence[float], file: Path) -> np.ndarray:
    """(n, 3): each candidate's (dx, dy, log side ratio), bounded, as the network says."""
    if not len(centers):
        return np.zeros((0, 3), np.float32)
    cuts = [cut(frame, cut_matrix(c, s)) for c, s in zip(centers, sides)]
    out = load_net(str(file)).run(net_input(cuts)).reshape(len(cuts), 3)
    out[:, :2] = np.clip(out[:, :2], -MAX_SHIFT, MAX_SHIFT)
    out[:, 2] = np.clip(out[:, 2], -math.log(MAX_SCALE), math.log(MAX_SCALE))
    return out


def refine(frame: np.ndarray, cands: list, file: Path | None = None) -> list:
    """The candidates (anything with .center and .side, a dataclass) with each square
    moved onto its die's top face; as given when there is no network (path)."""
    file = file or path()
    if file is None or not cands:
        return list(cands)
    fix = corrections(frame, [c.center for c in cands], [c.side for c in cands], file)
    out = []
    for c, (dx, dy, ds) in zip(cands, fix):
        s = float(c.side)
        out.append(replace(c, center=(float(c.center[0]) + float(dx) * s,
                                      float(c.center[1]) + float(dy) * s),
                           side=s * float(math.exp(ds))))
    return out
