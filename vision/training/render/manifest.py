"""A rendered set on disk: images/, one label file per frame, manifest.json.

Each frame is written as its JPEG, then its label file (labels/NAME.json, the
manifest entry), each atomically: a frame counts as done exactly when its label file
exists, so a run stopped at any moment (even a power cut) resumes where it was and a
half-written frame is rendered again. `manifest.json` is rebuilt from the label files
under a lock, so runs over different frame ranges may share one folder.
"""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

MANIFEST_HEAD = {
    "source": "rendered by vision/training/render (Blender Cycles) of the Dragon Farkle "
              "Table Companion: our own renders, no photographs or third-party art",
    "license": "MIT (the project's licence)",
    "bbox_format": "[x, y, w, h] pixels, top-left origin; bbox: the whole die as seen, "
                   "top_bbox: its top face",
}
ATTRIBUTION = """# Rendered dice

Every picture here was rendered by this project's own renderer
(`python -m vision.training.render`, Blender Cycles as a Python module) from
procedural scenes: no photographs, textures or art of anyone else are in them. The
Dragon Farkle Event die's Dragon and Rally emblems are stand-ins drawn from random
shapes, not the game's art. Licence: MIT, like the project (see LICENSE).

Each manifest entry: `dice` (per visible die: `value` 1-6 or the Event die's
`blank`/`dragon`/`rally`, `bbox` the whole die as seen, `top_bbox` its top face,
`kind` soldier or event, `set` the colour set, `visible` the share of the die seen),
`ignore` (boxes of dice too hidden to read: neither a die nor background), `scene`
(tray, lens, camera height, lamps, median die side in pixels).
"""
LICENSE = """MIT License

Copyright (c) the Dragon Farkle Table Companion authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def frame_name(kind: str, number: int) -> str:
    return f"{kind}-{number:07d}"


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def prepare(out: Path) -> None:
    """Create the set's folders and its licence notes (once)."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(exist_ok=True)
    for name, text in (("ATTRIBUTION.md", ATTRIBUTION), ("LICENSE", LICENSE)):
        if not (out / name).exists():
            _atomic_write(out / name, text.encode())


def is_done(out: Path, kind: str, number: int) -> bool:
    return (out / "labels" / f"{frame_name(kind, number)}.json").exists()


def write_frame(out: Path, kind: str, number: int, jpeg: bytes, entry: dict) -> None:
    """The frame's picture, then its manifest entry (`file` filled in here)."""
    name = frame_name(kind, number)
    _atomic_write(out / "images" / f"{name}.jpg", jpeg)
    entry = {"file": f"images/{name}.jpg", **entry}
    _atomic_write(out / "labels" / f"{name}.json", json.dumps(entry).encode())


def collect(out: Path) -> dict:
    """Rebuild manifest.json from every finished frame (under a lock); return it."""
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        images = []
        for path in sorted((out / "labels").glob("*.json")):
            try:
                images.append(json.loads(path.read_text()))
            except (OSError, json.JSONDecodeError):
                continue  # written atomically, so only a stray file; skip it
        manifest = {**MANIFEST_HEAD, "n_images": len(images),
                    "n_dice": sum(len(e["dice"]) for e in images), "images": images}
        _atomic_write(out / "manifest.json", json.dumps(manifest, indent=1).encode())
    return manifest
