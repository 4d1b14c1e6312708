"""`dragon-farkle learn-dice`: teach the reader this table's own dice, on the Pi, in seconds.

Learns from the photos the table kept of rolls the players checked (DATA/dice-photos,
vision/photolog.py) by refitting the face classifiers' last layer (vision/adapt.py),
scores the old and the new weights on the photos held out from learning, and installs
the new ones as DATA/our-dice only when they read those photos at least as well
(`serve` reads with DATA/our-dice when it exists and `models` under [camera] is not
set). With --out, the new weights are written there and not installed.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

OUR_DICE = "our-dice"  # DATA/our-dice: the learned weights `serve` picks up


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "learn-dice", help="learn this table's own dice from the rolls the players checked",
        description="Refit the dice reader on the photos in DATA/dice-photos (no torch, "
                    "seconds); install the result as DATA/our-dice if it reads the "
                    "held-out photos at least as well as the weights in use.")
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML; see the README)")
    p.add_argument("--data", metavar="DIR", help="the table's data folder (default: the "
                   "configuration's data_dir, else ./data)")
    p.add_argument("--profile", metavar="DIR", help="calibration profile the photos were "
                   "taken with (default: the one `serve` uses)")
    p.add_argument("--out", metavar="DIR", help="write the new weights here and do not install them")
    p.set_defaults(func=run)


def _line(name: str, t: Any) -> str:
    return (f"  {name:<22} {t.correct}/{t.labelled} right, {t.missed} missed, "
            f"{t.false} false, {t.wrong_confident} wrong and sure (>= 0.9)")


def no_worse(new: Any, old: Any) -> bool:
    """Whether the new weights read the held-out photos at least as well: as many dice
    right, and no more read wrong with confidence >= 0.9."""
    return new.correct >= old.correct and new.wrong_confident <= old.wrong_confident


def run(args: argparse.Namespace) -> int:
    from companion.config import load_config
    from companion.controller.runtime import load_keeper, models_folder
    from vision.adapt import AdaptError, learn, score_set

    try:
        config = load_config(args.config)
        data = Path(args.data) if args.data else config.server.data_dir
        profile = load_keeper(Path(args.profile) if args.profile else config.profile,
                              data).profile
    except (OSError, ValueError) as err:
        print(f"dragon-farkle learn-dice: {err}", file=sys.stderr)
        return 2
    photos = data / "dice-photos"
    base = models_folder(config.camera, data, learned=False)
    current = models_folder(config.camera, data)
    dest = Path(args.out) if args.out else data / OUR_DICE
    work = dest.with_name(f".{dest.name}.new") if not args.out else dest
    started = time.monotonic()
    try:
        got = learn(photos, work, base=base, profile=profile)
    except (AdaptError, OSError) as err:
        print(f"dragon-farkle learn-dice: {err}", file=sys.stderr)
        return 2
    print(f"Learned from {got['photos']} photos ({got['dice']} dice) of {photos} "
          f"in {time.monotonic() - started:.0f} s.")
    old, new = score_set(photos, current, profile), score_set(photos, work, profile)
    if not old.labelled:
        print("No held-out photos to check the new weights on yet (a fifth of the kept "
              "photos are held out): play more rolls and run this again.")
    else:
        print(f"On the {old.images} photos held out from learning:")
        print(_line("weights in use:", old))
        print(_line("new weights:", new))
    if args.out:
        print(f"Written to {dest} (not installed): `models = \"{dest}\"` under [camera] uses them.")
        return 0
    if old.labelled and no_worse(new, old):
        if dest.exists():
            shutil.rmtree(dest)
        work.rename(dest)
        if config.camera.models:
            print(f"Installed as {dest}, but `models` under [camera] names other weights, "
                  "which `serve` uses instead: remove that line to use these.")
        else:
            print(f"Installed as {dest}: `dragon-farkle serve` reads dice with them from "
                  "its next start.")
        return 0
    shutil.rmtree(work, ignore_errors=True)
    why = "they read the held-out photos worse" if old.labelled else "they cannot be checked yet"
    print(f"Not installed: {why}. The weights in use are unchanged ({current}).")
    return 1
