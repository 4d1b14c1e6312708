"""Where the reader's ONNX weights live and how they are run.

Two runtimes read the same files: onnxruntime when it is installed (a dependency of
the package; a frame takes 16-19% less time with it here:
benchmarks/vision_runtimes.py), else OpenCV's DNN module.
$DICE_RUNTIME=opencv or =onnxruntime picks one. Both run on as many threads as OpenCV
is set to (cv2.setNumThreads; the benchmarks use one), so one knob governs both.
"""
from __future__ import annotations

import json
import logging
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)
MODEL_DIR = Path(__file__).resolve().parent / "models"
RUNTIMES = ("onnxruntime", "opencv")


def model_dir() -> Path:
    """The bundled models, or $DICE_MODELS (used while developing new weights)."""
    return Path(os.environ.get("DICE_MODELS") or MODEL_DIR)


OUTPUT = "y"  # the output every exported network has (train.py export); a face
# classifier may also have "features", what its last layer reads (vision/adapt.py)


class Net(Protocol):
    def run(self, blob: np.ndarray) -> np.ndarray:
        """The network's output ("y") for an (N, 3, H, W) float32 input."""

    def outputs(self, blob: np.ndarray, names: list[str]) -> list[np.ndarray]:
        """The named outputs for an (N, 3, H, W) float32 input."""


class OpenCVNet:
    """A network run by OpenCV's DNN module. One net is shared by every thread (the
    camera loop, calibration and learning on the web server's), and setInput + forward
    is not safe to interleave, so each run holds the net's lock."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self.net = cv2.dnn.readNetFromONNX(path)
        self.net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
        self.net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
        self.names = list(self.net.getUnconnectedOutLayersNames())

    def run(self, blob: np.ndarray) -> np.ndarray:
        # forward() alone gives the last layer's output, which is not "y" when the
        # file has more outputs.
        return self.outputs(blob, [OUTPUT])[0] if OUTPUT in self.names else self._forward(blob)

    def _forward(self, blob: np.ndarray) -> np.ndarray:
        with self._lock:
            self.net.setInput(blob)
            return self.net.forward()

    def outputs(self, blob: np.ndarray, names: list[str]) -> list[np.ndarray]:
        with self._lock:
            self.net.setInput(blob)
            return list(self.net.forward(names))


class OrtNet:
    """A network run by onnxruntime, on `threads` threads that sleep between frames
    (no spinning: the camera, web server and LEDs share the Pi's cores)."""

    def __init__(self, path: str, threads: int) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, threads)
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.path = path
        self.session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name
        self.names = [o.name for o in self.session.get_outputs()]
        self.first = [OUTPUT] if OUTPUT in self.names else self.names[:1]

    def run(self, blob: np.ndarray) -> np.ndarray:
        return self.session.run(self.first, {self.input: blob})[0]

    def outputs(self, blob: np.ndarray, names: list[str]) -> list[np.ndarray]:
        return self.session.run(names, {self.input: blob})


def runtime() -> str:
    """The runtime networks are loaded with: $DICE_RUNTIME, else onnxruntime if it is
    installed, else opencv."""
    wanted = os.environ.get("DICE_RUNTIME", "").strip().lower()
    if wanted and wanted not in RUNTIMES:
        raise ValueError(f"DICE_RUNTIME must be one of {', '.join(RUNTIMES)}, not {wanted!r}")
    if wanted:
        return wanted
    return "onnxruntime" if _onnxruntime_installed() else "opencv"


@lru_cache(maxsize=1)
def _onnxruntime_installed() -> bool:
    """Whether onnxruntime imports (asked once: a failed import searches the disk again)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def load_net(path: str) -> Net:
    """The network in the ONNX file `path`, ready to run (cached per runtime and threads)."""
    return _load(path, runtime(), cv2.getNumThreads())


@lru_cache(maxsize=8)
def _load(path: str, which: str, threads: int) -> Net:
    if not Path(path).is_file():
        raise FileNotFoundError(f"dice model missing: {path} (reinstall the package)")
    if which == "onnxruntime":
        # A broken install or an onnxruntime too old for the file falls back to OpenCV;
        # onnxruntime's errors (Fail, InvalidGraph, ...) derive from Exception itself.
        try:
            return OrtNet(path, threads)
        except Exception as err:  # noqa: BLE001
            log.warning("onnxruntime cannot run %s (%s); using OpenCV DNN", path, err)
    return OpenCVNet(path)


def optional_net(variable: str, name: str) -> Path | None:
    """An optional network's file: the one the environment variable `variable` names
    (which must be there), none when it is "0", else `name` in the model folder when it
    is there."""
    wanted = os.environ.get(variable, "").strip()
    if wanted == "0":
        return None
    if wanted:
        if not Path(wanted).is_file():
            raise FileNotFoundError(f"{variable} names no file: {wanted}")
        return Path(wanted)
    p = model_dir() / name
    return p if p.is_file() else None


def stamp(path: str | Path) -> int:
    """The file's modification time (ns), 0 when it is missing: part of a cache key, so
    a model folder rewritten in place (vision/adapt.py) is read again."""
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def load_meta(path: str) -> dict[str, Any]:
    """A model folder's JSON file (faces.json), {} when it is missing."""
    return _load_meta(path, stamp(path))


@lru_cache(maxsize=8)
def _load_meta(path: str, _stamp: int) -> dict[str, Any]:
    p = Path(path)
    return json.loads(p.read_text()) if p.is_file() else {}
