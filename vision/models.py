"""Where the reader's ONNX weights live and how they are loaded (OpenCV DNN, cached)."""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2

MODEL_DIR = Path(__file__).resolve().parent / "models"


def model_dir() -> Path:
    """The bundled models, or $DICE_MODELS (used while developing new weights)."""
    return Path(os.environ.get("DICE_MODELS") or MODEL_DIR)


@lru_cache(maxsize=8)
def load_net(path: str) -> cv2.dnn.Net:
    if not Path(path).is_file():
        raise FileNotFoundError(f"dice model missing: {path} (reinstall the package)")
    net = cv2.dnn.readNetFromONNX(path)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    return net


@lru_cache(maxsize=8)
def load_meta(path: str) -> dict[str, Any]:
    p = Path(path)
    return json.loads(p.read_text()) if p.is_file() else {}
