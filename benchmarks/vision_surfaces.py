"""Can a tray's colour or texture hide a die? The labelled photos' dice moved onto trays of
every colour, read by the reader.

    .venv/bin/python benchmarks/vision_surfaces.py [--data DIR] [--limit N] [--models DIR]

Each photo's dice (and their shadows: the pixels around each die unlike the tray there,
vision.training.augment.die_mask, and the labelled box) are laid on new trays: plain and
felt in twelve colours from white to black, and wood, each lit evenly. Printed per tray:
dice found (of those labelled), read right, false dice; then the worst tray. A die the
reader finds on its own tray but not on another is hidden by the colour: the worst line
says how often that happens.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import data_arguments, data_sets, models_argument, use_models

COLOURS = {  # BGR
    "white": (235, 235, 235), "grey": (128, 128, 128), "black": (25, 25, 25),
    "red": (40, 40, 200), "orange": (30, 130, 235), "yellow": (40, 220, 230),
    "green": (50, 150, 40), "teal": (130, 128, 20), "blue": (180, 80, 30),
    "purple": (130, 40, 110), "pink": (180, 150, 240), "brown": (40, 80, 120),
}
WHOLE_DIE_BOXES = ("byler", "rune55")  # sets whose boxes hold the whole die


def trays(h: int, w: int) -> dict[str, np.ndarray]:
    """The trays every photo is laid on, by name (the same for every photo of a size)."""
    from vision.training.augment import background

    rng = np.random.default_rng(0)
    out = {}
    for name, colour in COLOURS.items():
        for kind in ("plain", "felt"):
            out[f"{kind} {name}"] = background(h, w, rng, colour=colour, kind=kind, lamp=False)
    out["wood"] = background(h, w, rng, colour=COLOURS["brown"], kind="wood", lamp=False)
    return out


def moved(image: np.ndarray, entry: dict, set_name: str, tray: np.ndarray) -> np.ndarray:
    """The photo's dice laid on `tray`."""
    from vision.training.augment import die_mask
    from vision.training.data import labels_of

    labels = labels_of(set_name, entry)
    mask = die_mask(image, labels[:, :2], labels[:, 2])
    if set_name.startswith(WHOLE_DIE_BOXES):
        for d in entry["dice"]:
            x, y, bw, bh = (round(v) for v in d["bbox"])
            mask[max(y, 0):y + bh, max(x, 0):x + bw] = 1.0
    typical = float(np.median(labels[:, 2])) if len(labels) else 20.0
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.7, 0.04 * typical))[..., None]
    return np.round(image * mask + tray * (1 - mask)).astype(np.uint8)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.set_defaults(limit=20)
    models_argument(ap)
    args = ap.parse_args()
    use_models(args.models)
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision import read_dice
    from vision.evaluate import Tally, score

    print(f"dice moved onto trays of every colour, data {args.data}, {args.limit} photos a set")
    for folder in sets:
        entries = json.loads((folder / "manifest.json").read_text())["images"][:args.limit]
        tallies: dict[str, Tally] = {}
        own = Tally()
        for entry in entries:
            image = cv2.imread(str(folder / entry["file"]))
            own.add(score(read_dice(image).dice, entry["dice"]))
            for name, tray in trays(*image.shape[:2]).items():
                t = score(read_dice(moved(image, entry, folder.name, tray)).dice, entry["dice"])
                tallies.setdefault(name, Tally()).add(t)
        print(f"{folder.name}: on its own tray found {own.labelled - own.missed}/{own.labelled}, "
              f"right {own.correct}, false {own.false}")
        for name, t in tallies.items():
            print(f"  {name:<14} found {t.labelled - t.missed}/{t.labelled} "
                  f"({100 * (t.labelled - t.missed) / max(t.labelled, 1):.1f}%)  right "
                  f"{t.correct} ({100 * t.correct / max(t.labelled, 1):.1f}%)  false {t.false}")
        name, worst = min(tallies.items(), key=lambda kv: kv[1].labelled - kv[1].missed)
        print(f"  worst tray: {name}, {worst.missed} of {worst.labelled} dice not found "
              f"(own tray: {own.missed})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
