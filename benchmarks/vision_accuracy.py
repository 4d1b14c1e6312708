"""Dice reader accuracy and speed on the labelled photo sets.

    .venv/bin/python benchmarks/vision_accuracy.py [--data DIR] [--models DIR] [--limit N]
                                                   [--profile FILE]

Data: --data, else $DICE_DATA, else <repo>/../shared/data/dice: a folder of labelled sets,
or one set (a table's own photos, DATA/dice-photos, read with --profile: its calibration
profile, vision/photolog.py). Prints, per set, dice
read correctly / dice labelled, missed, false dice, wrong with confidence >= 0.9 and
milliseconds per frame (median, p95) in one process on one core, each photo taken as a
roll (played right / asked / played wrong, and why the rolls asked were asked:
vision.evaluate.why_asked); then the same on the
validation photos (byler's "test" split, a fixed 20% of matteop65 and 10% of the rune55
scenes), which no shipped model was trained on (vision/training/README.md).
Times: wall clock per frame and, in brackets, the process's CPU time per frame (the
same on an idle core; wall time grows when other programs share the machine).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _is_validation(set_name: str, entry: dict) -> bool:
    """The training's fixed validation split (vision/training/data.py, which needs no torch):
    byler's "test" photos, 20% of matteop65, 10% of the rune55 scenes."""
    from vision.training.data import is_validation
    return is_validation(set_name, entry)


def _line(name: str, t) -> str:
    ms = np.array(t.ms) if t.ms else np.zeros(1)
    cpu = np.array(t.cpu_ms) if t.cpu_ms else np.zeros(1)
    pct = 100 * t.correct / max(t.labelled, 1)
    return (f"{name:<34} {t.images:>4} img  correct {t.correct}/{t.labelled} ({pct:.2f}%)  "
            f"missed {t.missed}  false {t.false} ({100 * t.false / max(t.labelled, 1):.2f}%)  "
            f"wrong {t.wrong}  wrong>=0.9 {t.wrong_confident}  unsure {t.unsure}  "
            f"ms/frame median {np.median(ms):.1f} p95 {np.percentile(ms, 95):.1f} "
            f"(CPU ms median {np.median(cpu):.1f} p95 {np.percentile(cpu, 95):.1f})")


def _asked_line(t) -> str:
    """What the phones are asked: dice read below the table's threshold, and for those read
    wrong, how often the right face is among the choices offered for a tap."""
    from vision.evaluate import ASKED

    return (f"{'':<6}asked (read below {ASKED:g}) {t.asked} dice ({100 * t.asked / max(t.labelled, 1):.1f}%) "
            f"in {t.asked_photos} of {t.images} photos, {t.asked - t.asked_wrong} of them read "
            f"right; the right face among the choices offered for {t.asked_wrong_offered} "
            f"of the {t.asked_wrong} read wrong (mean {t.offered / max(t.asked, 1):.1f} "
            f"choices a die)")


def rolls_line(t) -> str:
    """Each photo taken as one roll: the rolls the table would play right, ask the phones
    about, and play wrong (vision.evaluate.roll_outcome)."""
    n = max(t.images, 1)
    return (f"{'':<6}rolls: played right {t.rolls_right} ({100 * t.rolls_right / n:.1f}%), "
            f"asked {t.rolls_asked} ({100 * t.rolls_asked / n:.1f}%), played wrong "
            f"{t.rolls_wrong} ({100 * t.rolls_wrong / n:.2f}%) of {t.images}")


def why_line(asked_why) -> str:
    """Why the rolls asked were asked (vision.evaluate.why_asked), commonest first."""
    from vision.evaluate import why_text

    return f"{'':<6}why asked (rolls; one can have several): {why_text(asked_why)}"


SWEEP = (0.6, 0.7, 0.8, 0.9, 0.95, 0.99)  # play thresholds the rolls are also scored at


def sweep_line(t) -> str:
    """The rolls at other play thresholds (Tally.rolls_at): right / asked / wrong, in
    percent of the rolls, so the threshold can be chosen by the trade it makes."""
    n = max(t.images, 1)
    parts = []
    for c in SWEEP:
        right, asked, wrong = t.rolls_at(c)
        parts.append(f"{c:g}: {100 * right / n:.1f}/{100 * asked / n:.1f}/{100 * wrong / n:.2f}")
    return f"{'':<6}rolls right/asked/wrong % at play threshold  " + "  ".join(parts)


def timed_read(frame: np.ndarray, labels: list[dict], profile=None):
    """The Tally of reading one frame (with `profile`, None: the default) against its
    labels, with the reading's wall-clock and CPU milliseconds."""
    from vision import read_dice
    from vision.evaluate import score

    t0, c0 = time.perf_counter(), time.process_time()
    reading = read_dice(frame, profile=profile)
    ms, cpu = 1000 * (time.perf_counter() - t0), 1000 * (time.process_time() - c0)
    t = score(reading.dice, labels, reading.warnings)
    t.ms.append(ms)
    t.cpu_ms.append(cpu)
    return t


def run_set(folder: Path, limit: int | None, verbose: bool, profile=None):
    """(every photo's Tally, the validation photos' Tally, how many of the set's labels
    were corrected: vision.training.data.read_manifest)."""
    from vision.evaluate import Tally
    from vision.training.data import read_manifest

    manifest = read_manifest(folder)
    entries = manifest["images"][:limit] if limit else manifest["images"]
    everything, val = Tally(), Tally()
    for entry in entries:
        t = timed_read(cv2.imread(str(folder / entry["file"])), entry["dice"], profile)
        everything.add(t)
        if _is_validation(folder.name, entry):
            val.add(t)
        if verbose and (t.wrong or t.missed or t.false):
            print(f"  {entry['file']}: wrong {t.wrong} missed {t.missed} false {t.false}")
    return everything, val, manifest["label_fixes"]


def fixes_line(n: int) -> str | None:
    """The note on a set's `n` labels corrected by eye (read_manifest's "label_fixes",
    vision/training/label_fixes.json), None when there are none."""
    return (f"{'':<6}{n} labels corrected, found wrong by eye (vision/training/label_fixes.json)"
            if n else None)


def data_arguments(ap: argparse.ArgumentParser) -> None:
    """--data (the labelled sets) and --limit, shared by the dice benchmarks."""
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("DICE_DATA") or REPO.parent / "shared/data/dice"))
    ap.add_argument("--limit", type=int, help="only the first N photos of each set")


def models_argument(ap: argparse.ArgumentParser) -> None:
    """--models, shared by the dice benchmarks; use_models applies it."""
    ap.add_argument("--models", type=Path, help="model folder (default: the bundled models)")


def use_models(models: Path | None) -> None:
    """Read with the networks in `models` (through $DICE_MODELS) when it is given."""
    if models:
        os.environ["DICE_MODELS"] = str(models)


def chosen_entries(folder: Path, every: bool, limit: int | None) -> list[dict]:
    """The manifest entries of the set in `folder` a benchmark reads: its validation
    photos (every photo with `every`), the first `limit` of them when given."""
    entries = json.loads((folder / "manifest.json").read_text())["images"]
    entries = [e for e in entries if every or _is_validation(folder.name, e)]
    return entries[:limit] if limit else entries


def data_sets(data: Path) -> list[Path]:
    """The labelled sets (folders with manifest.json) in `data`, or `data` itself when it is
    one; says so when there are none."""
    if (data / "manifest.json").is_file():
        return [data]
    sets = sorted(p for p in data.glob("*") if (p / "manifest.json").is_file()) \
        if data.is_dir() else []
    if not sets:
        print(f"No dice data found at {data} (folders with manifest.json): "
              f"pass --data DIR or set DICE_DATA.")
    return sets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    models_argument(ap)
    ap.add_argument("-v", "--verbose", action="store_true", help="list photos with errors")
    ap.add_argument("--profile", type=Path,
                    help="read with this calibration profile (default: none, as the public "
                         "sets were photographed)")
    args = ap.parse_args()
    use_models(args.models)
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision import read_dice
    from vision.onnxnets import runtime

    print(f"dice reader benchmark, data {args.data}, one core (cv2.setNumThreads(1)), "
          f"networks run by {runtime()} ($DICE_RUNTIME=opencv or onnxruntime to choose)")
    read_dice(np.full((480, 640, 3), 128, np.uint8))  # load the models before timing
    profile = None
    if args.profile:
        from calibration.profile import load_profile
        profile = load_profile(args.profile)
    for folder in sets:
        everything, val, fixed = run_set(folder, args.limit, args.verbose, profile)
        print(_line(folder.name, everything))
        if note := fixes_line(fixed):
            print(note)
        print(_asked_line(everything))
        print(rolls_line(everything))
        print(why_line(everything.asked_why))
        print(sweep_line(everything))
        print(_line(f"  validation photos of {folder.name}", val))
        print(_asked_line(val))
        print(rolls_line(val))
        print(why_line(val.asked_why))
        print(sweep_line(val))
    return 0


if __name__ == "__main__":
    sys.exit(main())
