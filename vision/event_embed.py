"""A learned comparison of Event-die faces: each upright colour map as a short vector.

vision.event compares a die in play with the views calibration learned as ink maps
(how far each pixel is from the body colour), set upright and searched over turns,
shifts and sizes; its distance is the maps' squared difference. Here a small network
(vision/training/event_faces.py) maps each compared window of the face's colour map
(WIN x WIN, its Lab difference from the body colour, weighted by the disc) to a unit
vector, so that views of one face lie near each other and a die's other faces further
off; two windows' distance is 1 - the vectors' dot product. With a network, the face
and its margin come from these distances, while the ink maps still decide whether the
die is the Event die at all (against the pip layouts) and how well it fits.

No network ships: trained on made-up and rendered dice, it read the rendered tables'
Event faces no better than the ink maps (vision/training/README.md). It is used when
the model folder ($DICE_MODELS, else vision/models) holds event_faces.onnx, or the file
$DICE_EVENT_EMBED names; $DICE_EVENT_EMBED=0 leaves it out.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.onnxnets import load_net, optional_net

WIN = 20  # the compared window's side (vision.event.WIN)
CHANNELS = 3  # a window of a colour map: its Lab difference from the body colour
FILE = "event_faces.onnx"


def embed_input(windows: np.ndarray) -> np.ndarray:
    """(n, CHANNELS, WIN, WIN) float32 network input of (n, WIN * WIN * CHANNELS)
    weighted windows of colour maps (vision.event.query_views)."""
    w = np.asarray(windows, np.float32).reshape(-1, WIN, WIN, CHANNELS)
    return np.ascontiguousarray(w.transpose(0, 3, 1, 2))


def path() -> Path | None:
    """The comparison network's file, or None when it is switched off or not in the
    model folder (a file $DICE_EVENT_EMBED names must be there)."""
    return optional_net("DICE_EVENT_EMBED", FILE)


def embed(windows: np.ndarray, file: Path) -> np.ndarray:
    """(n, D) unit vectors of (n, WIN * WIN * CHANNELS) weighted windows."""
    if not len(windows):
        return np.zeros((0, 1), np.float32)
    out = load_net(str(file)).run(embed_input(windows))
    out = out.reshape(len(windows), -1).astype(np.float32)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
