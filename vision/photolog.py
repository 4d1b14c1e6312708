"""The table's own dice photos: frames whose faces the players checked, kept as a labelled set.

The reader was trained on two public photo sets; dice that look like neither (the game
box's own dice) read worse (vision/training/README.md). Every time the camera was not
sure and the players answered with the real roll, that frame and its dice are worth
keeping, and so is a frame it misread that the players took back and fixed:
`PhotoLog` writes them in the format of the public photo sets
(images/*.jpg and a manifest.json with [x, y, w, h] boxes), so the same benchmark
(`benchmarks/vision_accuracy.py --data FOLDER`) scores the reader on this table's dice
and the training script (`train.py --extra-set FOLDER`) learns from them.

`label_dice` says which die showed which face: the players give the roll as a list of
faces, not per die, so the labels change as few read faces as the answer allows, and a
photo is not kept when that leaves a choice. Marks the players put on the photo (a
die's real face, a missed die, no die there: companion/controller/marks.py) settle
such choices before the labels are made.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SURE = 0.9  # a read this confident keeps its face when the roll has it (wrong <= 0.1%)
HELD_OUT = 0.2  # share of photos marked "split": "test" (never trained on), by file name
JPEG_QUALITY = 92
DEFAULT_LIMIT = 500  # photos kept at most (15-60 kB each at 640x480)


def label_dice(dice: Sequence[Any], roll: Sequence[int], event: str | None
               ) -> list[dict[str, Any]] | None:
    """Labels [{"value", "bbox"} (+ "kind": "event")] for the read `dice` (vision Die:
    kind, value, box, confidence) given the faces the players answered, or None when
    the answer leaves a choice: a die missed or one too many, or dice whose faces could
    go either way round (read 3 and 3, answered 3 and 5: which one was the 5?).

    As few read faces change as the answer allows: a die keeps its read face when the
    roll has it, first the surely read dice (SURE, wrong at most 0.1% of the time), then
    the others while the roll has that face for all of them. The dice left over take the
    faces left over if those are all alike, and if that face is among each one's choices
    (`Die.choices`, the faces the reader found likely: a face it did not is more often a
    swap with another misread die than this die's). (Two misreads that swap faces, a 2
    read 4 and a 4 read 2, cannot be seen and are labelled as read.)"""
    soldiers = [d for d in dice if d.kind != "event"]
    events = [d for d in dice if d.kind == "event"]
    if len(soldiers) != len(roll) or len(events) != (event is not None):
        return None
    if not all(isinstance(v, int) and 1 <= v <= 6 for v in roll):
        raise ValueError(f"a roll is faces 1-6, not {list(roll)}")
    left = Counter(int(v) for v in roll)
    value: dict[int, int] = {}
    for i, d in enumerate(soldiers):  # sure reads first
        if d.confidence >= SURE and left[d.value] > 0:
            value[i] = d.value
            left[d.value] -= 1
    unsure = Counter(d.value for i, d in enumerate(soldiers) if i not in value)
    for i, d in enumerate(soldiers):  # the rest, where the roll has that face for all of them
        if i not in value and unsure[d.value] <= left[d.value]:
            value[i] = d.value
    left = Counter(int(v) for v in roll) - Counter(value.values())
    rest = [i for i in range(len(soldiers)) if i not in value]
    faces = sorted(left.elements())
    if rest and len(set(faces)) != 1:
        return None
    if any(faces[0] not in (getattr(soldiers[i], "choices", ()) or (faces[0],)) for i in rest):
        return None
    for i in rest:
        value[i] = faces[0]
    out = [{"value": value[i], "bbox": _bbox(d)} for i, d in enumerate(soldiers)]
    out += [{"value": event, "bbox": _bbox(d), "kind": "event"} for d in events]
    return out


def event_view_to_learn(dice: Sequence[Any], label: dict[str, Any] | None,
                        play_confidence: float) -> tuple[list[float], str] | None:
    """The Event die's square (x, y, w, h) and face in `label` (its label for the read
    `dice`: companion.controller.marks.PhotoMarks.event_label) when the reader read that
    die (the same square) with another face, as a Soldier die, or below
    `play_confidence`: a view of the face worth learning
    (calibration.event_die.with_view_from_play). None otherwise, without a label, and
    for an Event die the players marked themselves (its square is only where they
    tapped)."""
    if label is None:
        return None
    read = next((d for d in dice if _bbox(d) == list(label["bbox"])), None)
    if read is None or (read.kind == "event" and read.value == label["value"]
                        and read.confidence >= play_confidence):
        return None
    return list(label["bbox"]), str(label["value"])


def _bbox(die: Any) -> list[float]:
    return [float(v) for v in die.box]


def held_out(file: str) -> bool:
    """Whether a photo is kept out of training (a fixed share, by a hash of its name)."""
    return int(hashlib.sha1(file.encode()).hexdigest()[:8], 16) % 1000 < HELD_OUT * 1000


class PhotoLog:
    """A folder of labelled frames in the photo sets' format, at most `limit` photos."""

    def __init__(self, folder: str | Path, *, limit: int = DEFAULT_LIMIT) -> None:
        self.folder = Path(folder)
        self.limit = limit
        self._count: int | None = None  # photos in the manifest, once read

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    def manifest(self) -> dict[str, Any]:
        """The manifest (a new one when the folder has none yet)."""
        try:
            data = json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            return {"source": "this table's camera: frames whose roll the players checked",
                    "license": "the table owner's own photos",
                    "bbox_format": "[x, y, w, h] pixels, top-left origin", "images": []}
        if not isinstance(data, dict) or not isinstance(data.get("images"), list):
            raise ValueError(f"{self.manifest_path} is not a photo manifest")  # noqa: TRY004
        return data

    def __len__(self) -> int:
        if self._count is None:
            self._count = len(self.manifest()["images"])
        return self._count

    def add(self, frame: np.ndarray, dice: list[dict[str, Any]], name: str) -> Path | None:
        """Keep `frame` (BGR) with its labelled dice as images/NAME.jpg; None when the
        folder already holds `limit` photos or that name. The manifest is replaced whole
        (written beside it, then renamed), so a power cut leaves the old one or the new."""
        manifest = self.manifest()
        file = f"images/{name}.jpg"
        if len(manifest["images"]) >= self.limit or any(e["file"] == file
                                                         for e in manifest["images"]):
            return None
        path = self.folder / file
        path.parent.mkdir(parents=True, exist_ok=True)
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise ValueError("the frame could not be encoded as JPEG")
        path.write_bytes(jpeg.tobytes())
        manifest["images"].append({
            "file": file, "width": int(frame.shape[1]), "height": int(frame.shape[0]),
            "split": "test" if held_out(file) else "train", "dice": dice})
        manifest["n_images"] = len(manifest["images"])
        manifest["n_dice"] = sum(len(e["dice"]) for e in manifest["images"])
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(manifest, indent=1))
        os.replace(tmp, self.manifest_path)
        self._count = len(manifest["images"])
        return path
