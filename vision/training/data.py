"""Loading the labelled dice photographs and turning labels into training targets.

Each label becomes (cx, cy, face, value): the centre of the die's upward face, an
estimate of that face's side in pixels, and the pip count. The matteop65 boxes cover
the pips of the top face only, so its face side is estimated from the pip span.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.training.synth import NO_PIPS

SETS = ("byler-2019-12-08", "matteop65-train", "rune55-gray-topdown", "rune55-oblique")
VAL_FRACTION = 0.2  # of matteop65 images, chosen by a fixed hash of the file name
SCENE_VAL_FRACTION = 0.1  # of the rune55 scenes (a scene's rotated copies stay together)
PIP_SPAN = 0.75  # pip box side / face side for faces 2-6 (measured by eye on matteop65)
# The rune55 sets hold many rotated and sheared copies of each scene (3,518 and 2,123
# photos): at most this many are loaded, spread over the scenes, to bound memory.
CAP = {"rune55-gray-topdown": 900, "rune55-oblique": 900}
# Single-die crop sets in ../dice-crops (classifier only): the die's face side as a share
# of the crop's side, measured by eye.
CROP_SETS = {"casino-felt": 0.85, "tomitomi3-cup": 0.45}


@dataclass
class Photo:
    set: str
    file: str
    image: np.ndarray  # BGR full resolution
    labels: np.ndarray  # (n, 4) float32: cx, cy, face side, value
    val: bool
    # (m, 3) float32: cx, cy, side of dice that are there but not labelled (a rendered
    # die mostly hidden): neither a die nor background to learn from.
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))


def hash_share(name: str) -> float:
    """A fixed number in [0, 1) for a file name (a subset that is the same every run)."""
    return int(hashlib.sha1(("share:" + name).encode()).hexdigest()[:8], 16) / 2 ** 32


def scene_of(entry: dict) -> str:
    """The scene a photo shows: copies of one scene (rune55's rotations) share it."""
    return str(entry.get("source_stem") or entry["file"])


def is_validation(set_name: str, entry: dict) -> bool:
    """The fixed validation split: byler's own "test" images, 20% of matteop65 by hash,
    10% of the rune55 scenes by hash (all copies of a scene on one side)."""
    if entry.get("split") == "test":
        return True
    if set_name.startswith("matteop65"):
        h = int(hashlib.sha1(entry["file"].encode()).hexdigest()[:8], 16)
        return (h % 1000) < VAL_FRACTION * 1000
    if set_name.startswith("rune55"):
        return hash_share("scene:" + scene_of(entry)) < SCENE_VAL_FRACTION
    return False


def capped(entries: list[dict], cap: int | None) -> list[dict]:
    """At most `cap` entries, spread over the scenes: each scene's first copy (by a fixed
    hash of the file name) before any scene's second, and so on."""
    if cap is None or len(entries) <= cap:
        return entries
    rank: dict[str, int] = {}
    keyed = []
    for e in sorted(entries, key=lambda e: hash_share(e["file"])):
        k = rank[scene_of(e)] = rank.get(scene_of(e), -1) + 1
        keyed.append((k, hash_share(e["file"]), e))
    return [e for _, _, e in sorted(keyed, key=lambda t: t[:2])[:cap]]


def _face_sides(set_name: str, dice: list[dict]) -> list[float]:
    if set_name.startswith("rune55-oblique"):  # seen from low down: the box holds side faces
        return [min(d["bbox"][2], d["bbox"][3]) for d in dice]
    sides = [max(d["bbox"][2], d["bbox"][3]) for d in dice]
    if not set_name.startswith("matteop65"):
        return sides
    est = [s / PIP_SPAN for s, d in zip(sides, dice) if d["value"] != 1]
    if est:
        face = float(np.median(est))
    else:  # only ones: the box is either the pip or (sometimes) the whole face
        face = float(np.median([s if s >= 25 else s * 3.5 for s in sides]))
    return [face] * len(dice)


def labels_of(set_name: str, entry: dict) -> np.ndarray:
    """(n, 4) rows cx, cy, face side, value: 1-6, or NO_PIPS for the Event die's faces
    ("blank", "dragon", "rally" in a table's own photos, vision/photolog.py, and in
    rendered sets). A rendered die's `top_bbox` (its upward face's box) gives the centre
    and side where there is one."""
    dice = entry["dice"]
    sides = _face_sides(set_name, dice)
    rows = []
    for d, side in zip(dice, sides):
        x, y, w, h = d.get("top_bbox") or d["bbox"]
        if "top_bbox" in d:
            side = max(w, h)
        value = d["value"] if isinstance(d["value"], int) else NO_PIPS
        rows.append((x + w / 2, y + h / 2, side, value))
    return np.array(rows, np.float32).reshape(-1, 4)


def ignored(entry: dict) -> np.ndarray:
    """(m, 3) cx, cy, side of the entry's "ignore" boxes (rendered sets: dice too hidden to
    label)."""
    rows = [(x + w / 2, y + h / 2, max(w, h)) for x, y, w, h in
            (b["bbox"] for b in entry.get("ignore", ()))]
    return np.array(rows, np.float32).reshape(-1, 3)


PIECE = 0.6  # a hit inside a labelled die, under this share of its face's side: a piece of it


def piece_of(labels: np.ndarray, d: np.ndarray, side: float) -> int | None:
    """The index of the labelled die (rows cx, cy, face side, value) a hit of `side` px at
    distances `d` from their centres is a piece of (inside its face, under PIECE of its
    side), or None. Not when the hit is the size of another die near it."""
    near = d < 0.5 * labels[:, 2]
    if not near.any() or np.any(near & (side >= PIECE * labels[:, 2])):
        return None
    return int(np.flatnonzero(near)[np.argmin(d[near])])


LABEL_FIXES = Path(__file__).with_name("label_fixes.json")


def read_manifest(folder: Path) -> dict:
    """The manifest.json of the labelled set in `folder`, with the labels found wrong by
    eye corrected (LABEL_FIXES: the photo, the die's index, the face labelled and the
    face shown). Its "label_fixes" is how many were corrected. A fix whose die does not
    carry the face it corrects is not applied (the set is another version)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    fixes = json.loads(LABEL_FIXES.read_text()).get(folder.name, [])
    by_file = {entry["file"]: entry for entry in manifest.get("images", [])}
    done = 0
    for fix in fixes:
        entry = by_file.get(fix["file"])
        dice = entry["dice"] if entry else []
        if fix["die"] < len(dice) and dice[fix["die"]]["value"] == fix["was"]:
            dice[fix["die"]] = {**dice[fix["die"]], "value": fix["value"]}
            done += 1
    manifest["label_fixes"] = done
    return manifest


def load_set(root: Path, set_name: str) -> list[Photo]:
    """The photos of the set in folder root/set_name (a manifest.json and its images; at
    most CAP of them for the big sets)."""
    folder = root / set_name
    manifest = read_manifest(folder)
    photos = []
    for entry in capped(manifest["images"], CAP.get(set_name)):
        image = cv2.imread(str(folder / entry["file"]))
        if image is None:
            raise ValueError(f"cannot read {folder / entry['file']}")
        photos.append(Photo(set_name, entry["file"], image, labels_of(set_name, entry),
                            is_validation(set_name, entry), ignored(entry)))
    return photos


def load_all(root: Path, extra: tuple[Path, ...] = (), hold_out: tuple[str, ...] = ()
             ) -> list[Photo]:
    """The public sets in `root` (SETS) but those named in `hold_out`, and any `extra` set
    folders (a table's own photos, rendered sets)."""
    return [p for s in SETS if (root / s).is_dir() and s not in hold_out
            for p in load_set(root, s)] + \
        [p for folder in extra for p in load_set(folder.parent, folder.name)]


@dataclass
class Crop:
    """One die cut out of a photo (the crop sets): the die lies in the middle."""

    set: str
    image: np.ndarray  # BGR
    side: float  # the face's side in pixels (estimated: CROP_SETS)
    value: int


def load_crops(root: Path, hold_out: tuple[str, ...] = ()) -> list[Crop]:
    """The single-die crop sets (CROP_SETS) in `root`'s sibling folder dice-crops, those
    named in `hold_out` excepted; [] where the folder is absent."""
    crops = []
    for name, share in CROP_SETS.items():
        folder = root.parent / "dice-crops" / name
        if name in hold_out or not (folder / "manifest.json").is_file():
            continue
        for entry in json.loads((folder / "manifest.json").read_text())["crops"]:
            image = cv2.imread(str(folder / entry["file"]))
            if image is None:
                raise ValueError(f"cannot read {folder / entry['file']}")
            crops.append(Crop(name, image, share * max(image.shape[:2]), int(entry["value"])))
    return crops


def set_weights(sets: list[str], power: float) -> np.ndarray:
    """Sampling weights (summing to 1) of items that belong to the photo sets `sets` (one
    name per item): each set's share of the draws is proportional to its size raised to
    `power` (1: every item alike, as drawn uniformly; 0: every set alike, so a set of 100
    photos is drawn as often as one of 900 and a big set no longer drowns the small
    ones), spread evenly over its items. The pure-noise frames ("garbage") keep their
    natural share."""
    names, index, counts = np.unique(np.asarray(sets, dtype=object).astype(str),
                                     return_inverse=True, return_counts=True)
    garbage = names == "garbage"
    mass = np.where(garbage, 0.0, counts.astype(np.float64) ** power)
    rest = 1.0 - counts[garbage].sum() / len(sets)
    share = np.where(garbage, counts / len(sets), rest * mass / max(mass.sum(), 1e-12))
    return (share / counts)[index]


def dark_weights(pool: list[tuple[np.ndarray, np.ndarray]], dice: np.ndarray, weight: float
                 ) -> np.ndarray:
    """Cumulative sampling weights of the dice `dice` ((image, label) index pairs into
    `pool`, a list of (image, labels)): `weight` for a die whose face is
    dark (mean Lab lightness of its middle under 90: black, marbled, deep red bodies,
    where pips are hardest to see), 1 for the others."""
    w = np.ones(len(dice))
    if weight != 1:
        for k, (pi, li) in enumerate(dice):
            img, labels = pool[pi]
            cx, cy, side, _ = labels[li]
            r = max(2, int(0.3 * side))
            mid = img[max(0, int(cy) - r):int(cy) + r, max(0, int(cx) - r):int(cx) + r]
            if mid.size and cv2.cvtColor(mid, cv2.COLOR_BGR2LAB)[..., 0].mean() < 90:
                w[k] = weight
    return np.cumsum(w) / w.sum()
