"""Fixtures for the dice reader tests: the bundled labelled sample photos."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision

SAMPLES = Path(vision.__file__).resolve().parent / "samples"


def _load(set_name: str) -> list[tuple[str, np.ndarray, list[dict]]]:
    folder = SAMPLES / set_name
    manifest = json.loads((folder / "manifest.json").read_text())
    out = []
    for e in manifest["images"]:
        image = cv2.imread(str(folder / e["file"]))
        assert image is not None, e["file"]
        out.append((str(folder / e["file"]), image, e["dice"]))
    return out


@pytest.fixture(scope="session")
def samples() -> dict[str, list[tuple[str, np.ndarray, list[dict]]]]:
    """{set name: [(path, BGR image, labels)]} of the photos bundled in vision/samples/."""
    return {p.name: _load(p.name) for p in sorted(SAMPLES.iterdir())
            if (p / "manifest.json").is_file()}


@pytest.fixture(scope="session")
def sample_paths(samples) -> list[str]:
    return [path for photos in samples.values() for path, _, _ in photos]
