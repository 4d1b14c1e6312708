"""Leave one source out: how the dice reader reads photo sets it never trained on.

    .venv/bin/python benchmarks/vision_loso.py [--data DIR] [--folds DIR] [--train]
                                               [--recipe "OPTIONS"] [--extra-set DIR ...]
                                               [--only NAME ...] [--limit N]

A player's dice, tray, light and camera are new to the reader every time, so it is
judged on sets it never saw. For each labelled set NAME in --data, the models of its
source's fold, FOLDS/SOURCE (trained on every other source's sets, real and rendered,
never on SOURCE's: `python -m vision.training.retrain --hold-out NAME ... --out
FOLDS/SOURCE`), read every photo of NAME. A source is where the photos come from: the two
rune55 sets are one (the same dice and makers, two cameras), so neither is trained on
when either is read. With --train, missing folds are trained first (needs the `train`
extra; about 45 minutes a fold on a 2-core laptop); without it they are reported missing.
The shipped models never trained on rune55 (the "hold_out" of vision/models/train_meta.json):
they read the rune55 sets when FOLDS/rune55 is missing, so a new checkout's run holds
two held-out sets without training a fold.

Printed per set: dice read right / labelled, missed, false, read wrong, read wrong with
confidence >= 0.9, milliseconds per frame (one core); the dice the phones are asked
about; and each photo taken as one roll: how many rolls the table would play right, ask
about, and play wrong (vision.evaluate.roll_outcome). The public sets hold no Event die:
what is read as one there is counted on its own line and left out of the scores (the
rune55 photos show unlabelled symbol dice, which are dice without pips).

A set whose photos show more than the tray (byler's bottom strip is the tray's lip, with
two screw heads that pass for dice) is read a second time cut to the tray, as a camera
over the tray sees it: the lines marked "cut to its tray" (TRAYS, or
--tray NAME=X0,Y0,X1,Y1).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import (
    _asked_line,
    _line,
    data_arguments,
    data_sets,
    fixes_line,
    rolls_line,
    sweep_line,
    why_line,
)

# Where the tray lies in a set's photos (x0, y0, x1, y1, pixels), for a second reading
# of the photos cut to it, as a camera over the tray sees them. byler: everything above
# the lip (its dice end by y = 524; the screw heads on the lip lie at y = 580-605). A
# profile's tray was tried instead: some byler photos show the box's dark walls, which
# a calibration would learn as the tray's but a rectangle cannot, so 33 rolls were
# asked for "something in the tray".
TRAYS: dict[str, tuple[float, float, float, float]] = {"byler-2019-12-08": (0, 0, 640, 560)}


def cut_to(frame: np.ndarray, labels: list[dict], box: tuple[float, float, float, float]
           ) -> tuple[np.ndarray, list[dict]]:
    """The frame cut to the rectangle `box`, and the labels of the dice whose centre lies
    in it, moved with it."""
    x0, y0, x1, y1 = (max(0, round(v)) for v in box)
    kept = []
    for label in labels:
        x, y, w, h = label["bbox"]
        if x0 <= x + w / 2 < x1 and y0 <= y + h / 2 < y1:
            kept.append({**label, "bbox": [x - x0, y - y0, w, h]})
    return frame[y0:y1, x0:x1], kept


def tray_argument(text: str) -> tuple[str, tuple[float, float, float, float]]:
    """--tray NAME=X0,Y0,X1,Y1"""
    name, _, box = text.partition("=")
    values = box.split(",")
    if not name or len(values) != 4:
        raise argparse.ArgumentTypeError(f"--tray wants NAME=X0,Y0,X1,Y1, not {text!r}")
    try:
        x0, y0, x1, y1 = (float(v) for v in values)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tray wants four numbers after {name}=") from None
    if not (x0 < x1 and y0 < y1):
        raise argparse.ArgumentTypeError(f"--tray {name}: the rectangle is empty")
    return name, (x0, y0, x1, y1)


def read_set(folder: Path, models: Path, limit: int | None,
             tray: tuple[float, float, float, float] | None = None):
    """The Tally of the fold's models reading every photo of the set in `folder` (as
    photographed, or cut to the rectangle `tray`), how many Event dice were read in
    photos labelled without one (dropped from the scores) and in how many photos, and how
    many of the set's labels were corrected (vision.training.data.read_manifest)."""
    from vision import read_dice
    from vision.evaluate import Tally, score
    from vision.training.data import read_manifest

    manifest = read_manifest(folder)
    entries = manifest["images"][:limit] if limit else manifest["images"]
    total, events, event_photos = Tally(), 0, 0
    for entry in entries:
        frame = cv2.imread(str(folder / entry["file"]))
        labels = entry["dice"]
        if tray is not None:
            frame, labels = cut_to(frame, labels, tray)
        t0, c0 = time.perf_counter(), time.process_time()
        reading = read_dice(frame, models=models)
        ms, cpu = 1000 * (time.perf_counter() - t0), 1000 * (time.process_time() - c0)
        dice = reading.dice
        if not any(isinstance(d["value"], str) for d in labels):
            kept = tuple(d for d in dice if d.kind != "event")
            events += len(dice) - len(kept)
            event_photos += len(kept) < len(dice)
            dice = kept
        t = score(dice, labels, reading.warnings)
        t.ms.append(ms)
        t.cpu_ms.append(cpu)
        total.add(t)
    return total, events, event_photos, manifest["label_fixes"]


def source_of(name: str) -> str:
    """The source a set's photos come from (its fold's name)."""
    return name.split("-")[0] if name.startswith("rune55") else name


def has_models(folder: Path) -> bool:
    return all((folder / f).is_file() for f in ("detector.onnx", "faces.json"))


def train_meta(folder: Path) -> dict:
    """The models in `folder`'s train_meta.json ({} without one): its "hold_out" lists
    the sets they were trained without."""
    meta = folder / "train_meta.json"
    return json.loads(meta.read_text()) if meta.is_file() else {}


def train_fold(names: list[str], folder: Path, data: Path, extra: list[Path],
               recipe: str | None) -> None:
    """Train the fold that never sees the sets `names` (vision.training.retrain)."""
    held = [a for name in names for a in ("--hold-out", name)]
    cmd = [sys.executable, "-m", "vision.training.retrain", "--out", str(folder), "--data",
           str(data), *held, "--no-compare",
           *[a for d in extra for a in ("--extra-set", str(d))]]
    if recipe is not None:
        cmd.append(f"--recipe={recipe}")
    print(f"training the fold without {', '.join(names)}: {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True, cwd=REPO)


def _print_details(t, events: int, event_photos: int) -> None:
    print(_asked_line(t))
    print(rolls_line(t))
    print(why_line(t.asked_why))
    print(sweep_line(t))
    if events:
        print(f"{'':<6}read as the Event die: {events} in {event_photos} photos "
              f"(left out of the scores: this set shows no Event die)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.add_argument("--folds", type=Path,
                    default=Path(os.environ.get("DICE_FOLDS") or REPO / ".folds"),
                    help="one model folder per held-out set (default $DICE_FOLDS, else .folds)")
    ap.add_argument("--train", action="store_true", help="train the folds that are missing")
    ap.add_argument("--recipe", help="training options for new folds (vision.training.retrain)")
    ap.add_argument("--extra-set", action="append", default=[], type=Path, metavar="DIR",
                    help="a rendered or table's own set every fold also trains on")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only these held-out sets")
    ap.add_argument("--tray", action="append", default=[], type=tray_argument,
                    metavar="NAME=X0,Y0,X1,Y1",
                    help="read set NAME again cut to this rectangle (pixels), its tray, as "
                         "a camera over the tray sees it; byler's is known (TRAYS)")
    args = ap.parse_args()
    trays = TRAYS | dict(args.tray)
    sets = [s for s in data_sets(args.data) if not args.only or s.name in args.only]
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision import read_dice
    from vision.onnxnets import MODEL_DIR

    print(f"leave one source out, data {args.data}, folds {args.folds}, one core")
    status = 0
    shipped_held = set(train_meta(MODEL_DIR).get("hold_out", []))
    every = [s.name for s in data_sets(args.data)]
    for folder in sets:
        source = source_of(folder.name)
        fold = args.folds / source
        held = [name for name in every if source_of(name) == source]
        shipped = not has_models(fold) and set(held) <= shipped_held
        if shipped:
            fold = MODEL_DIR
        if not has_models(fold) and args.train:
            if importlib.util.find_spec("torch") is None:
                print(f"{folder.name}: training its fold needs the train extra: "
                      f".venv/bin/pip install '.[train]'")
                return 2
            train_fold(held, fold, args.data, args.extra_set, args.recipe)
        if not has_models(fold):
            print(f"{folder.name}: no fold models in {fold} (train them once with "
                  f"benchmarks/vision_loso.py --train, about 45 minutes a fold on 2 cores, "
                  f"or point --folds or $DICE_FOLDS at trained folds)")
            status = 1
            continue
        meta = train_meta(fold)
        if not set(held) <= set(meta.get("hold_out", [])):
            print(f"{folder.name}: the models in {fold} were not trained without "
                  f"{', '.join(held)}: skipped")
            status = 1
            continue
        read_dice(np.full((480, 640, 3), 128, np.uint8), models=fold)  # load before timing
        t, events, event_photos, fixed = read_set(folder, fold, args.limit)
        print(_line(f"{folder.name} (held out)", t))
        if shipped:
            print(f"{'':<6}read with the shipped models, trained without {', '.join(held)}")
        if note := fixes_line(fixed):
            print(note)
        _print_details(t, events, event_photos)
        if folder.name in trays:
            box = trays[folder.name]
            t, events, event_photos, _ = read_set(folder, fold, args.limit, box)
            print(_line(f"  {folder.name} cut to its tray {','.join(f'{v:g}' for v in box)}",
                        t))
            _print_details(t, events, event_photos)
        if not shipped:
            extra = ", ".join(Path(d).name for d in meta.get("extra_sets", [])) or "none"
            print(f"{'':<6}fold trained with recipe {meta.get('recipe') or 'shipped'}, "
                  f"extra sets: {extra}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
