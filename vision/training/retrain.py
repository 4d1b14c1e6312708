"""One command for new weights that have also seen a table's own dice.

    python -m vision.training.retrain --extra-set DATA/dice-photos --out DIR
                                      [--profile PROFILE] [--data ../shared/data/dice]

The table keeps labelled photos of its own dice (vision/photolog.py). This runs the
shipped recipe (vision/training/README.md) with those photos added, their held-out
fifth excepted: the detector (5,000 steps, seed 4); then the six face classifiers
(8,000 steps, seeds 7, 5, 3 and 11; then two wider ones, 12,000 steps, seeds 13 and 17),
two at a time side by side on one thread each, each mining its hard negatives with that
detector; then each classifier's softmax temperature, fitted on the public validation
photos. About 45 minutes on a 2-core laptop (the two wider classifiers about 17 of them);
needs the `train` extra (torch). DIR is then a model folder like vision/models.
Last, the new weights and the bundled ones are scored side by side on the public
validation photos and on the table's held-out photos (benchmarks/vision_accuracy.py), so
you can see whether the new ones read better before using them (`DICE_MODELS=DIR`, or
`models = "DIR"` in the configuration file's [camera] section).

--from MODELS fine-tunes that model folder's networks (vision/models: the bundled ones)
instead of training new ones from scratch: FINE_TUNE's fewer steps at a lower learning
rate, about a quarter of the time (vision/training/README.md, seventeenth session), each
classifier held to its own right reads (train --keep) and never given a temperature
below the one it had (keep_temperatures; twentieth session), with the options the bundled
networks were fine-tuned with (FINE_TUNE_RECIPE: every photo set drawn alike, so the
table's few photos count, new backgrounds and colour swaps; forty-seventh session).

--steps-scale shrinks every training (0.01: a minute's smoke test of the whole chain,
weights not worth using).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from vision.training.data import SETS

REPO = Path(__file__).resolve().parents[2]
DETECTOR = {"seed": 4, "steps": 5000}
# The shipped recipe's options of vision.training.train, given to every training command
# (both networks); a leave-one-source-out fold adds --hold-out (benchmarks/vision_loso.py).
RECIPE: tuple[str, ...] = ()
# The reader's six classifiers (vision/models/faces.json; more than two since the
# thirty-fifth session: independently trained members disagree where a die is hard, and
# the table asks). The last two are wider (train --face-width), train longer, and read
# every candidate first (vision.faces.FIRST_SURE: a die both read surely is not read by
# the others).
MEMBERS = ({"file": "faces.onnx", "seed": 7, "steps": 8000},
           {"file": "faces_b.onnx", "seed": 5, "steps": 8000},
           {"file": "faces_c.onnx", "seed": 3, "steps": 8000},
           {"file": "faces_d.onnx", "seed": 11, "steps": 8000},
           {"file": "faces_e.onnx", "seed": 13, "steps": 12000, "width": 16, "first": True},
           {"file": "faces_f.onnx", "seed": 17, "steps": 12000, "width": 16, "first": True})
SIDE_BY_SIDE = 2  # classifiers trained at once (one core each)
# Fine-tuning trained weights (--from): fewer steps at a lower peak learning rate, each
# classifier held to its own right reads (train --keep); the temperatures the started-from
# classifiers had are kept when the new ones come out lower (sharper): never surer than before.
FINE_TUNE = {"detector": 1500, "members": 3000, "lr": 1e-3, "keep": 1.0}
# ... and the options of vision.training.train the bundled networks were last fine-tuned
# with (vision/models/train_meta.json; --crop-share reads the crop sets in dice-crops beside
# --data, where they are). Fine-tuned with RECIPE's instead (every photo drawn alike: the
# big public sets drown a table's few photos), the bundled detector forgot dice it had
# read: on the first 40 rolls of the rendered table 100016 it missed 71 of 203 dice
# after 1,500 steps, against 5 before; with these options and the table's photos, 11
# (5 with the rune55 sets held out too, as they were for the bundled networks;
# vision/training/README.md, forty-seventh session).
FINE_TUNE_RECIPE: tuple[str, ...] = ("--new-background", "0.3", "--colour-swap", "0.1",
                                     "--crop-share", "0.1", "--balance", "0")

Runner = Callable[[Sequence[Sequence[str]]], None]


def _steps(n: int, scale: float) -> int:
    return max(10, round(n * scale))


def _train(*args: object) -> list[str]:
    return [sys.executable, "-m", "vision.training.train", *(str(a) for a in args)]


def step_counts(scale: float, start: Path | None) -> list[int]:
    """Training steps of the detector, then of each member: the recipe's, or FINE_TUNE's
    when fine-tuning the folder `start`, times `scale`."""
    if start is not None:
        full = [FINE_TUNE["detector"], *[FINE_TUNE["members"]] * len(MEMBERS)]
    else:
        full = [DETECTOR["steps"], *[m["steps"] for m in MEMBERS]]
    return [_steps(n, scale) for n in full]


def recipe_for(start: Path | None) -> tuple[str, ...]:
    """The training options by default: FINE_TUNE_RECIPE when fine-tuning the model folder
    `start`, else RECIPE."""
    return FINE_TUNE_RECIPE if start is not None else RECIPE


def stages(out: Path, data: Path, extra: Sequence[Path], scale: float = 1.0,
           hold_out: Sequence[str] = (), recipe: Sequence[str] | None = None,
           start: Path | None = None) -> list[list[list[str]]]:
    """The recipe's commands, stage by stage; the commands of one stage run side by side.
    `hold_out`: sets never trained on, nor used to fit the temperatures. `start`: a model
    folder whose networks are fine-tuned (FINE_TUNE) instead of trained from scratch.
    `recipe`: training options (None: recipe_for(start))."""
    recipe = recipe_for(start) if recipe is None else recipe
    held = [a for name in hold_out for a in ("--hold-out", name)]
    sets = [a for d in extra for a in ("--extra-set", d)] + held + list(recipe)
    steps = step_counts(scale, start)
    tune = ["--lr", FINE_TUNE["lr"]] if start is not None else []
    detector = _train("--data", data, "--out", out, "--det-only", "--det-steps", steps[0],
                      "--seed", DETECTOR["seed"], *sets, *tune,
                      *(["--init-det", start / "detector.onnx"] if start is not None else []))
    members = [_train("--data", data, "--out", out / f"member-{m['seed']}", "--skip-det",
                      "--face-steps", n, "--seed", m["seed"], "--threads", 1, *sets, *tune,
                      *(["--face-width", m["width"]] if "width" in m else []),
                      *(["--init-faces", start / m["file"], "--keep", FINE_TUNE["keep"]]
                        if start is not None else []))
               for m, n in zip(MEMBERS, steps[1:])]
    calibrate = [sys.executable, "-m", "vision.training.calibrate", "--models", str(out),
                 "--data", str(data), *[a for m in MEMBERS for a in ("--member", m["file"])],
                 *held]
    return [[detector], members, [calibrate]]


def keep_temperatures(new: Path, before: Path) -> None:
    """Raise each member's temperature in the faces.json `new` to its namesake's in
    `before` where it came out lower. A classifier fine-tuned to new dice is less sure of
    the validation photos than it should be, and surer of dice it never saw: fitted
    again, the twentieth session's pair came out at 0.81 and 0.85 against 0.97 and 1.071,
    and from low angles (held out) played 3.86% of rolls wrong against 2.78% with the
    temperatures before (vision/training/README.md)."""
    if not before.is_file():
        return
    old = {m["file"]: float(m.get("temperature", 1.0))
           for m in json.loads(before.read_text()).get("members", [])}
    meta = json.loads(new.read_text())
    for m in meta.get("members", []):
        if m["file"] in old and float(m.get("temperature", 1.0)) < old[m["file"]]:
            m["temperature"] = old[m["file"]]
    new.write_text(json.dumps(meta, indent=1) + "\n")


def mark_first(path: Path) -> None:
    """Mark the members MEMBERS reads first ("first": true) in the faces.json `path`, which
    the temperature fit wrote without the marks."""
    first = {m["file"] for m in MEMBERS if m.get("first")}
    meta = json.loads(path.read_text())
    for m in meta.get("members", []):
        if m["file"] in first:
            m["first"] = True
    path.write_text(json.dumps(meta, indent=1) + "\n")


def run_side_by_side(commands: Sequence[Sequence[str]], stdout: int | None = None) -> None:
    """Run the commands at once (in the repository, so `-m vision...` finds this code);
    raise when one fails. stdout: where their output goes (subprocess.DEVNULL: nowhere;
    None: this process's)."""
    procs = [subprocess.Popen(list(c), cwd=REPO, stdout=stdout) for c in commands]
    codes = [p.wait() for p in procs]
    for c, code in zip(commands, codes):
        if code:
            raise RuntimeError(f"this step failed (exit {code}): {' '.join(c)}")


def retrain(out: Path, data: Path, extra: Sequence[Path], *, scale: float = 1.0,
            runner: Runner = run_side_by_side, hold_out: Sequence[str] = (),
            recipe: Sequence[str] | None = None, start: Path | None = None) -> Path:
    """Train a model folder `out` with the extra sets, never seeing the sets named in
    `hold_out`, from scratch or by fine-tuning the model folder `start`; the folder is
    returned."""
    if start is not None:
        for name in ("detector.onnx", *(m["file"] for m in MEMBERS)):
            if not (start / name).is_file():
                raise FileNotFoundError(f"{start} is not a model folder to start from (no {name})")
    for d in extra:
        if not (Path(d) / "manifest.json").is_file():
            raise FileNotFoundError(f"{d} is not a labelled photo folder (no manifest.json)")
    for name in SETS:
        if name not in hold_out and not (data / name / "manifest.json").is_file():
            raise FileNotFoundError(f"the public photo sets are needed too: no {data / name}")
    out.mkdir(parents=True, exist_ok=True)
    recipe = recipe_for(start) if recipe is None else recipe
    detector, members, calibrate = stages(out, data, extra, scale, hold_out, recipe, start)
    runner(detector)
    for m in MEMBERS:  # each member mines its hard negatives with the detector
        (out / f"member-{m['seed']}").mkdir(exist_ok=True)
        shutil.copy(out / "detector.onnx", out / f"member-{m['seed']}" / "detector.onnx")
    for i in range(0, len(members), SIDE_BY_SIDE):
        runner(members[i:i + SIDE_BY_SIDE])
    for m in MEMBERS:
        shutil.copy(out / f"member-{m['seed']}" / "faces.onnx", out / m["file"])
    runner(calibrate)
    if start is not None:
        keep_temperatures(out / "faces.json", start / "faces.json")
    mark_first(out / "faces.json")
    steps = step_counts(scale, start)
    meta = {"detector": {**DETECTOR, "steps": steps[0]},
            **{m["file"]: {"seed": m["seed"], "steps": n, "face_width": m.get("width", 12)}
               for m, n in zip(MEMBERS, steps[1:])},
            "fine_tuned_from": str(start) if start is not None else None,
            "learning_rate": FINE_TUNE["lr"] if start is not None else None,
            "keep": FINE_TUNE["keep"] if start is not None else None,
            "extra_sets": [str(d) for d in extra], "trained_on_validation": False,
            "hold_out": list(hold_out), "recipe": list(recipe),
            "command": "python -m vision.training.retrain (vision/training/README.md)"}
    (out / "train_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    for m in MEMBERS:
        shutil.rmtree(out / f"member-{m['seed']}")
    return out


def compare(out: Path, data: Path, extra: Sequence[Path], profile: Path | None) -> None:
    """The new weights and the bundled ones, scored on the same photos."""
    bench = [sys.executable, str(REPO / "benchmarks" / "vision_accuracy.py")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(  # this code, not another installed copy
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for label, models in (("bundled weights", None), ("new weights", out)):
        pick = ["--models", str(models)] if models else []
        print(f"\n== {label} ==", flush=True)
        subprocess.run([*bench, "--data", str(data), *pick], check=True, env=env)
        for d in extra:
            subprocess.run([*bench, "--data", str(d), *pick,
                            *(["--profile", str(profile)] if profile else [])],
                           check=True, env=env)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--extra-set", action="append", default=[], type=Path, metavar="DIR",
                    help="a table's labelled photos (DATA/dice-photos), or a rendered set; "
                         "repeatable")
    ap.add_argument("--hold-out", action="append", default=[], metavar="NAME",
                    help="never train on this public set (repeatable)")
    ap.add_argument("--recipe", help="options for vision.training.train, after the shipped "
                    "recipe's (with --from, the fine-tuning's), so one given again wins (one "
                    "string, e.g. \"--device cuda\" or \"--new-background 0.5\")")
    ap.add_argument("--out", type=Path, required=True, help="the new model folder")
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "dice",
                    help="the public photo sets (default: ../shared/data/dice)")
    ap.add_argument("--profile", type=Path, help="the table's calibration profile, to score "
                    "its photos as the table reads them")
    ap.add_argument("--from", dest="start", type=Path, metavar="MODELS",
                    help="fine-tune this model folder's networks (e.g. vision/models, the "
                         "bundled ones) instead of training new ones from scratch: "
                         f"{FINE_TUNE['detector']:,} and {FINE_TUNE['members']:,} steps at a "
                         f"peak learning rate of {FINE_TUNE['lr']:g}, about a quarter of the time")
    ap.add_argument("--steps-scale", type=float, default=1.0)
    ap.add_argument("--no-compare", action="store_true", help="skip the scoring at the end")
    args = ap.parse_args(argv)
    try:
        recipe = recipe_for(args.start) + tuple((args.recipe or "").split())
        out = retrain(args.out.resolve(), args.data.resolve(),
                      [d.resolve() for d in args.extra_set], scale=args.steps_scale,
                      hold_out=args.hold_out, recipe=recipe,
                      start=args.start.resolve() if args.start else None)
    except (FileNotFoundError, RuntimeError) as e:
        print(f"retrain: {e}", file=sys.stderr)
        return 2
    print(f"new weights in {out}")
    if not args.no_compare:
        try:
            compare(out, args.data.resolve(), [d.resolve() for d in args.extra_set],
                    args.profile)
        except subprocess.CalledProcessError as e:
            print(f"retrain: the weights are made, but scoring them failed: {e}",
                  file=sys.stderr)
            return 1
    print(f"\nto read with them: DICE_MODELS={out}, or models = \"{out}\" under [camera] in "
          "the configuration file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
