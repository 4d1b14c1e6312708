"""A table learning its own dice during a game, on rendered Dragon Farkle tables no network saw.

    .venv/bin/python benchmarks/vision_table_learning.py [--start 15] [--tables 15] [--rolls 60]
                                                         [--learn-from 40] [--event-pictures 4]
                                                         [--tap-error 0.25 | --no-marks]
                                                         [--fine-tune DATA] [--cache DIR]

The tables are those of benchmarks/vision_event_tables.py (the same pinned trays, dice,
light and camera; rendered into the same cache on the first run, which needs the
`render` extra; without it the tables not cached are left out and named). Each table is
calibrated as there (--event-pictures pictures of each Event face, those the phone page
keeps). Then a game is played on it:

- the first --learn-from rolls are read with the bundled weights; each roll the table
  does not play right is answered by the players, and the photo log keeps it as the
  table does (vision.photolog.PhotoLog, labelled through the phone page's marks,
  companion.controller.marks.PhotoMarks): the players cross out each false die, tap
  each missed die and give its face (a tap up to --tap-error die sides off its centre),
  and give each misread die its face; --no-marks: they only type the roll, and a photo
  is kept when that alone says which die showed what (vision.photolog.label_dice);
- "Learn our dice" (vision.adapt.learn_and_install: the classifiers' last layer refitted
  on the kept photos not held out, then checked on the held-out fifth, installed only
  when it reads those no worse);
- the remaining rolls are read with the bundled weights, with the learned ones (installed
  or not) and as the table reads them (the learned weights when installed, else the
  bundled ones);
- --fine-tune DATA: also what a laptop can do with the same photo log,
  `python -m vision.training.retrain --extra-set LOG --from vision/models` (every layer of
  the detector and the six classifiers fine-tuned, the public sets in DATA beside the
  table's photos; needs the `train` extra, about 35 minutes a table on two cores), and
  the rolls read with those weights too ("fine-tuned"; whether the held-out check would
  take them is said).

Printed per table and overall: what was kept and learned, whether the check installed
the weights, and for each reader the Event die found and its face right, Soldier dice
right, rolls played right / asked / played wrong (vision_event_tables.Counts), CPU
milliseconds a frame (median; the table's reader repeats the bundled or the learned
one's reads), and why the rolls asked were asked. The Event die's
calibration is left as it was, so the difference is the Soldier dice's learning alone
(the Event faces the players give are learned by benchmarks/vision_event_tables.py).

By default the fifteen tables 100015-100029, which the reader's notes compare readers on
(vision/training/README.md); --start K --tables N reads N from 100000 + K, to split them
between processes.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as on the table

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vision_adapt import _mark
from vision_event_tables import (
    CACHE,
    FIRST_TABLE,
    MAX_EVENT_PICTURES,
    Counts,
    calibrate,
    load,
    read_rolls,
    rendered,
    score_roll,
    table_frames,
    table_scene,
)

READERS = ("bundled", "learned", "as the table reads")


def keep_roll(log, name: str, image: np.ndarray, reading, labels: list[dict], profile,
              tap_error: float | None, rng) -> bool:
    """Keep a roll the players answered in the photo log, as the table does; False when
    their answer leaves a choice (not kept)."""
    from companion.controller.marks import MarkError, PhotoMarks
    from vision.locate import mark_box
    from vision.photolog import label_dice

    roll = [lab["value"] for lab in labels if lab["kind"] != "event"]
    event = next((lab["value"] for lab in labels if lab["kind"] == "event"), None)
    if tap_error is None:
        kept = label_dice(reading.dice, roll, event)
    else:
        marks = PhotoMarks(image, list(reading.dice),
                           lambda frame, point, dice, taken: mark_box(
                               frame, point, dice, taken=taken, profile=profile))
        with contextlib.suppress(MarkError):  # more marks than a photo takes: not kept
            _mark(marks, labels, tap_error, True, rng)
        kept = marks.labels(roll, event)
    return kept is not None and log.add(image, kept, name) is not None


def play_table(frames: dict, profile, learn_from: int, tap_error: float | None, seed: int,
               fine_tune: Path | None = None, runner=None, hold_out: tuple[str, ...] = ()
               ) -> tuple[dict[str, Counts], str, bool]:
    """The game on one table: (Counts of the rolls after learning, per reader; what was
    learned, in words; whether the held-out check installed the learned weights).
    fine_tune: the public photo sets; the photo log is also learned from by fine-tuning
    every layer (vision.training.retrain, --from the bundled weights, its training
    commands run by `runner`: quietly side by side when None; the public sets named in
    `hold_out` left out), read as "fine-tuned"."""
    from vision import read_dice
    from vision.adapt import AdaptError, held_out_check, learn
    from vision.onnxnets import MODEL_DIR
    from vision.photolog import PhotoLog

    rng = np.random.default_rng(seed)
    names = sorted(n for n in frames if n.startswith("roll-"))
    work = Path(tempfile.mkdtemp(prefix="table-learning-"))
    try:
        log = PhotoLog(work / "dice-photos")
        kept = 0
        for name in names[:learn_from]:
            image, labels = frames[name]
            reading = read_dice(image, profile=profile)
            if score_roll(reading.dice, labels, reading.warnings).right:
                continue
            kept += keep_roll(log, name, image, reading, labels, profile, tap_error, rng)
        said = f"kept {kept} of {learn_from} rolls"
        # What "Learn our dice" does (vision.adapt.learn_and_install), the weights kept
        # to be read with whether installed or not.
        learned: Path | None = work / "our-dice"
        installed = False
        try:
            t0 = time.monotonic()
            got = learn(log.folder, learned, base=MODEL_DIR, profile=profile)
            took = time.monotonic() - t0
            installed, _ = held_out_check(log.folder, MODEL_DIR, learned, profile)
            said += (f"; learned from {got['photos']} of them ({got['dice']} dice) in "
                     f"{took:.0f} s, " + ("installed" if installed else "not installed"))
        except AdaptError as err:
            said += f"; nothing learned ({err})"
            learned = None
        # The table reads with the learned weights when installed, else the bundled ones:
        # those reads are one of the other two.
        after = {name: frames[name] for name in names[learn_from:]}
        bundled = read_rolls(after, profile)
        mine = Counts() if learned is None else read_rolls(after, profile, models=learned)
        counts = {"bundled": bundled, "learned": mine,
                  "as the table reads": mine if installed else bundled}
        if fine_tune is not None and len(log):
            tuned, words = fine_tuned(log.folder, work / "fine-tuned", fine_tune, profile,
                                      runner, hold_out)
            counts["fine-tuned"] = read_rolls(after, profile, models=tuned)
            said += f"; {words}"
        elif fine_tune is not None:  # no photo kept: nothing to fine-tune on
            counts["fine-tuned"] = bundled
        return counts, said, installed
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fine_tuned(log: Path, out: Path, data: Path, profile, runner=None,
               hold_out: tuple[str, ...] = ()) -> tuple[Path, str]:
    """The photo log learned from as `python -m vision.training.retrain --extra-set LOG
    --from vision/models --out OUT` does: (the model folder, what happened in words)."""
    from vision.adapt import held_out_check
    from vision.onnxnets import MODEL_DIR
    from vision.training.retrain import retrain, run_side_by_side

    if runner is None:  # the training commands' progress lines would drown the tables'
        runner = functools.partial(run_side_by_side, stdout=subprocess.DEVNULL)
    t0 = time.monotonic()
    retrain(out, data, [log], runner=runner, start=MODEL_DIR, hold_out=hold_out)
    took = time.monotonic() - t0
    taken, _ = held_out_check(log, MODEL_DIR, out, profile)
    return out, (f"fine-tuned every layer in {took / 60:.0f} min (the held-out check "
                 + ("would take them)" if taken else "would not take them)"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=15, help="how many tables")
    ap.add_argument("--start", type=int, default=15, metavar="K",
                    help=f"begin at table {FIRST_TABLE} + K (default 15)")
    ap.add_argument("--rolls", type=int, default=60, help="rolls in the game")
    ap.add_argument("--learn-from", type=int, default=40, metavar="N",
                    help="learn after this many rolls; the rest are read after learning")
    ap.add_argument("--event-pictures", type=int, default=4, choices=range(1, MAX_EVENT_PICTURES + 1),
                    metavar="N", help="pictures of each Event face the calibration learns from")
    marks = ap.add_mutually_exclusive_group()
    marks.add_argument("--tap-error", type=float, default=0.25, metavar="SIDES",
                       help="the players' taps on missed dice land up to this many sides off")
    marks.add_argument("--no-marks", action="store_true",
                       help="the players only type the roll; no marks on the photo")
    ap.add_argument("--fine-tune", type=Path, metavar="DATA",
                    help="also fine-tune every layer on the photo log with the public photo "
                         "sets in DATA (vision.training.retrain --from; the `train` extra, "
                         "about 35 minutes a table on two cores)")
    ap.add_argument("--cache", type=Path, default=CACHE)
    args = ap.parse_args()
    if not 0 < args.learn_from < args.rolls:
        ap.error("--learn-from must be more than 0 and fewer than --rolls")
    cv2.setNumThreads(1)
    tables = []
    for k in range(args.start, args.start + args.tables):
        scene = table_scene(k)
        tables.append((k, scene, table_frames(scene, k, args.rolls, MAX_EVENT_PICTURES)))
    if args.fine_tune is not None:
        try:
            import torch  # noqa: F401
        except ImportError:
            print("--fine-tune needs the train extra (pip install '.[train]')", file=sys.stderr)
            return 2
        from vision.training.data import SETS

        missing = [name for name in SETS if not (args.fine_tune / name / "manifest.json").is_file()]
        if missing:
            print(f"--fine-tune: the public photo sets are needed, not in {args.fine_tune}: "
                  + ", ".join(missing), file=sys.stderr)
            return 2
    tables = rendered(args.cache, tables)
    if not tables:
        return 2
    from vision.evaluate import why_text

    tap = None if args.no_marks else args.tap_error
    print(f"{len(tables)} tables, {args.rolls} rolls each: learning from the first "
          f"{args.learn_from}, players " + ("typing the roll only" if tap is None else
                                            f"marking the photo (taps up to {tap:g} sides off)"))
    readers = READERS + (("fine-tuned",) if args.fine_tune is not None else ())
    totals = {reader: Counts() for reader in readers}
    installed = 0
    for k, scene, names in tables:
        frames = load(args.cache, k, scene, names)
        assert frames is not None
        profile, _, verdict, _ = calibrate(frames, args.event_pictures)
        counts, said, yes = play_table(frames, profile, args.learn_from, tap, seed=k,
                                       fine_tune=args.fine_tune)
        installed += yes
        print(f"table {FIRST_TABLE + k} (Event die {verdict}): {said}")
        for reader in readers:
            totals[reader].add(counts[reader])
            print(f"  {reader:18s} {counts[reader].line()}")
    print(f"overall, {len(tables)} tables, rolls {args.learn_from + 1}-{args.rolls} of each; "
          f"learned weights installed on {installed}")
    for reader in readers:
        print(f"  {reader:18s} {totals[reader].line()}")
        print(f"  {'':18s} why asked (rolls; one can have several): "
              f"{why_text(totals[reader].asked_why)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
