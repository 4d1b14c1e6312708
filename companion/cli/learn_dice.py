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
import sys
from pathlib import Path
from typing import Any


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


def run(args: argparse.Namespace) -> int:
    from companion.config import load_config
    from companion.controller.runtime import OUR_DICE, load_keeper, models_folder
    from vision.adapt import AdaptError, learn, learn_and_install, score_set

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
    try:
        if args.out:
            got = learn(photos, Path(args.out), base=base, profile=profile)
            tally = score_set(photos, Path(args.out), profile)
            print(f"Learned from {got['photos']} photos ({got['dice']} dice); on the "
                  f"{tally.images} photos held out, {tally.correct}/{tally.labelled} right. "
                  f"Written to {args.out} (not installed): `models = \"{args.out}\"` under "
                  "[camera] uses them.")
            return 0
        outcome = learn_and_install(photos, data / OUR_DICE, base=base, current=current,
                                    profile=profile)
    except (AdaptError, OSError) as err:
        print(f"dragon-farkle learn-dice: {err}", file=sys.stderr)
        return 2
    print("\n".join(outcome.lines))
    if not outcome.installed:
        print(f"The weights in use are unchanged ({current}).")
        return 1
    where = data / OUR_DICE
    if config.camera.models:
        print(f"Installed as {where}, but `models` under [camera] names other weights, "
              "which `serve` uses instead: remove that line to use these.")
    else:
        print(f"Installed as {where}: `dragon-farkle serve` reads dice with them from its "
              "next start.")
    return 0
