"""Learning a table's own dice on the Pi (vision/adapt.py, `dragon-farkle learn-dice`).

    .venv/bin/python benchmarks/vision_adapt.py [--data DIR] [--base DIR] [--table SET]
                                                [--photos 10,20,40,0]

One public set stands in for the game box's dice (--table, default byler-2019-12-08).
For each count N (0: all), its first N training photos play the table's checked photos;
the last layers of --base's classifiers are refitted on them (with the bundled sample
photos of the other sets as anchors); then the set's validation photos, which are
never learned from, are read with --base and with the refitted weights. Printed: dice
read correctly / dice labelled, missed, false dice, wrong with confidence >= 0.9, read
with confidence < 0.5, each photo as a roll played right / asked / played wrong
(vision.evaluate.roll_outcome, at the table's play threshold), and the seconds learning
took (one process; numpy may use both cores).

--as-kept learns only from what a table's photo log would hold: the training photos the
--base reader was unsure of (a die below the table's play threshold,
vision.types.PLAY_CONFIDENCE) or got wrong, labelled as the table labels them from the
players' answer (vision.photolog.label_dice: the reader's own boxes; a photo with a die
missed or one too many is not kept).

--marks SIDES (with --as-kept) has the players mark on the photo, as the phone page lets
them, each die the camera missed with its face (a tap up to SIDES die sides off its
centre; the box comes from vision.locate) and each false die as "no die"; --fix-faces
has them give each misread die its face too. Photos the marks settle are kept as well.

--tray X0,Y0,X1,Y1 reads (learning, scoring, --as-kept) inside that rectangle only, as a
table with a calibrated tray does.

--base should be weights that never saw the --table set, or the gain is that of dice
the networks know already. The bundled weights saw both public sets, so make them with
the training recipe: `python -m vision.training.train --only-set matteop65-train ...`
(vision/training/README.md, tenth session), then
`python -m vision.training.add_features DIR`. Without --base the bundled weights are
used: that measures what learning costs on dice they already read well.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import _is_validation, data_arguments


def table_log(folder: Path, entries: list[dict], held: list[dict], where: Path) -> Path:
    """A photo log in `where` holding `entries` to learn from and `held` held out."""
    where.mkdir(parents=True)
    (where / "images").symlink_to(folder.resolve() / "images", target_is_directory=True)
    images = [{**e, "split": "train"} for e in entries] + [{**e, "split": "test"} for e in held]
    (where / "manifest.json").write_text(json.dumps({"images": images}))
    return where


TRIES = 5  # --marks: taps a player makes at most to mark one missed die


def as_kept(folder: Path, entries: list[dict], base: Path, profile=None,
            tap_error: float | None = None, fix_faces: bool = False, seed: int = 0
            ) -> tuple[list[dict], list[float], int]:
    """The entries a table's photo log would keep (see --as-kept), with its labels; with
    `tap_error` (see --marks), how far each marked die's box centre lies from its
    labelled centre, in die sides; and how many of the kept labels are wrong (a face
    other than the set's label, or a box on no labelled die)."""
    import numpy as np

    from companion.controller.marks import MarkError, PhotoMarks
    from vision import read_dice
    from vision.evaluate import ASKED  # the table asks the phones about a die read below it
    from vision.locate import mark_box

    def locate(frame, point, dice, taken):
        return mark_box(frame, point, dice, taken=taken, profile=profile, models=base)

    rng = np.random.default_rng(seed)
    kept, gaps, wrong = [], [], 0
    for e in entries:
        frame = cv2.imread(str(folder / e["file"]))
        reading = read_dice(frame, models=base, profile=profile)
        truth = [lab["value"] for lab in e["dice"]]
        read = [d.value for d in reading.dice if d.kind != "event"]
        if sorted(read, key=str) == sorted(truth, key=str) and all(
                d.confidence >= ASKED for d in reading.dice):
            continue  # read right and surely: nobody is asked, nothing is kept
        marks = PhotoMarks(frame, list(reading.dice), locate)
        if tap_error is not None:
            with contextlib.suppress(MarkError):  # more marks than a photo takes: not kept
                gaps += _mark(marks, e["dice"], tap_error, fix_faces, rng)
        labels = marks.labels(truth, None)
        if labels is not None:
            kept.append({**e, "dice": labels})
            wrong += wrong_labels(labels, e["dice"])
    return kept, gaps, wrong


def wrong_labels(kept: list[dict], truth: list[dict]) -> int:
    """Labels the photo log keeps that the set's labels contradict: matched by box centre
    (vision.evaluate.match), a different face, or a box on no labelled die."""
    from vision.evaluate import match
    from vision.types import Die

    dice = [Die("soldier", None, (x + w / 2, y + h / 2), (x, y, w, h), 1.0)
            for x, y, w, h in (lab["bbox"] for lab in kept)]
    pairs = {di: li for li, di in match(dice, truth)}
    return sum(i not in pairs or truth[pairs[i]]["value"] != lab["value"]
               for i, lab in enumerate(kept))


def _mark(marks, labels: list[dict], tap_error: float, fix_faces: bool, rng) -> list[float]:
    """The players' marks (--marks): each false die crossed out, each missed die tapped
    and given its face (a tap landing in a read die's box is seen, taken back and tried
    again), with `fix_faces` each misread die given its face. Returns the marked boxes'
    centre errors in die sides."""
    import numpy as np

    from companion.controller.marks import NONE
    from vision.evaluate import is_right, match

    h, w = marks.frame.shape[:2]
    found = {di: li for li, di in match(marks.dice, labels)}  # read die -> its label
    for i, d in enumerate(marks.dice):
        if i not in found:
            marks.tap(d.center[0] / w, d.center[1] / h, NONE)
        elif fix_faces and not is_right(d, labels[found[i]]["value"]):
            marks.tap(d.center[0] / w, d.center[1] / h, labels[found[i]]["value"])
    gaps = []
    for li, lab in enumerate(labels):
        if li in found.values():
            continue
        x, y, bw, bh = lab["bbox"]
        centre = np.array([x + bw / 2, y + bh / 2])
        for _ in range(TRIES):
            before = (list(marks.missed), dict(marks.faces))
            tap = np.clip((centre + rng.uniform(-tap_error, tap_error, 2) * max(bw, bh))
                          / (w, h), 0, 1)
            marks.tap(float(tap[0]), float(tap[1]), lab["value"])
            if len(marks.missed) > len(before[0]):
                gaps.append(float(np.hypot(*(np.array(marks.missed[-1].center) - centre))
                                  / max(bw, bh)))
                break
            marks.missed, marks.faces = before
    return gaps


def _line(name: str, t, seconds: float | None = None) -> str:
    took = "" if seconds is None else f"  learned in {seconds:.1f} s"
    return (f"{name:<36} correct {t.correct}/{t.labelled} ({100 * t.correct / max(1, t.labelled):.1f}%)"
            f"  missed {t.missed}  false {t.false}  wrong>=0.9 {t.wrong_confident}"
            f"  unsure {t.unsure}  rolls {t.rolls_right} / {t.rolls_asked} / {t.rolls_wrong}{took}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.add_argument("--base", type=Path, help="model folder to start from (default: bundled)")
    ap.add_argument("--table", default="byler-2019-12-08", help="the set standing in for a table's dice")
    ap.add_argument("--photos", default="10,20,40,0", help="photo counts to learn from (0: all)")
    ap.add_argument("--as-kept", action="store_true",
                    help="only the photos a table's photo log would keep, labelled as it would")
    ap.add_argument("--marks", type=float, metavar="SIDES",
                    help="with --as-kept: the players mark each die the camera missed, with "
                         "its face, by a tap up to SIDES die sides off its centre (0.45: a "
                         "finger on a phone), and cross out each false die "
                         "(companion.controller.marks)")
    ap.add_argument("--fix-faces", action="store_true",
                    help="with --marks: the players also give each misread die its face")
    ap.add_argument("--tray", metavar="X0,Y0,X1,Y1",
                    help="read inside this rectangle only, as a calibrated tray (byler: "
                         "0,0,640,580 leaves out the screw heads on the tray's lip)")
    args = ap.parse_args()
    profile = None
    if args.tray:
        from calibration.profile import Profile

        x0, y0, x1, y1 = (float(v) for v in args.tray.split(","))
        profile = Profile(tray=[(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    folder = args.data / args.table
    if not (folder / "manifest.json").is_file():
        print(f"No dice data found at {folder}: pass --data DIR (or set DICE_DATA) and --table SET.")
        return 2
    cv2.setNumThreads(1)
    from vision.adapt import SAMPLES, AdaptError, learn, score_set
    from vision.onnxnets import MODEL_DIR

    base = args.base or MODEL_DIR
    entries = json.loads((folder / "manifest.json").read_text())["images"]
    held = [e for e in entries if _is_validation(args.table, e)]
    train = [e for e in entries if not _is_validation(args.table, e)]
    anchors = [p for p in sorted(SAMPLES.iterdir())
               if (p / "manifest.json").is_file() and p.name != args.table]
    if args.marks is not None and not args.as_kept:
        ap.error("--marks goes with --as-kept")
    if args.as_kept:
        kept, gaps, wrong = as_kept(folder, train, base, profile, args.marks, args.fix_faces)
        print(f"the photo log would keep {len(kept)} of the {len(train)} training photos "
              f"({sum(len(e['dice']) for e in kept)} dice, {wrong} of them labelled wrong)")
        if gaps:
            import numpy as np

            print(f"dice marked by a tap up to {args.marks} die sides off: {len(gaps)}; their "
                  f"boxes' centres {np.median(gaps):.2f} die sides from the labelled ones "
                  f"(median; 90th percentile {np.percentile(gaps, 90):.2f}; "
                  f"{sum(g <= 0.25 for g in gaps)} within 0.25)")
        train = kept
    print(f"learning {args.table}'s dice from its training photos, starting from {base}; "
          f"anchors {', '.join(p.name for p in anchors)}; scored on its {len(held)} "
          f"validation photos")
    with tempfile.TemporaryDirectory() as tmp:
        log = table_log(folder, [], held, Path(tmp) / "start")
        print(_line("the weights it starts from", score_set(log, base, profile)))
        for n in sorted({min(int(v) or len(train), len(train))
                         for v in args.photos.split(",")}):
            log = table_log(folder, train[:n], held, Path(tmp) / f"log{n}")
            started = time.perf_counter()
            try:
                got = learn(log, Path(tmp) / f"models{n}", base=base, anchors=anchors,
                            profile=profile)
            except AdaptError as err:  # too few dice to learn from: say so, go on
                print(f"{n} photos: {err}")
                continue
            seconds = time.perf_counter() - started
            tally = score_set(log, Path(tmp) / f"models{n}", profile)
            print(_line(f"learned from {n} photos ({got['dice']} dice)", tally, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
