"""Render the demo game's frames and calibrate its table from rendered calibration pictures.

    .venv/bin/pip install '.[render]'      # Blender as a Python module (once)
    .venv/bin/python scripts/demo_frames.py [--out DIR] [--plan]

The default `dragon-farkle serve` replays companion/demo/game.json, a whole game of
Dragon Farkle. This writes into DIR (default companion/demo):

- frames/: the tray before the game (empty.jpg), each roll as it came to rest
  (roll-NN.jpg: the roller's Soldier dice and the Event die) and, where dice stay in the
  tray, the same once the set-aside is taken out (roll-NN-left.jpg); 640x480 JPEG, all
  on one pinned table (vision.training.render.demo);
- frames.json: what each frame shows (companion.demo.plan of game.json);
- profile/: the table's calibration profile, made as a player makes one: the
  calibration procedures (calibration.procedures.build_profile) on rendered pictures
  of the empty tray, of each player's six dice, and of the Event die alone showing each
  face three times.

Deterministic: every layout comes from the roll's number and every render from a fixed
seed (a render made again differs by at most one grey level on a few pixels: Cycles). Renders are kept in --cache (default .demo-renders/, not committed) under a hash
of what they show, so a run renders only what changed. --plan writes frames.json only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's code, not an older install's

import cv2
import numpy as np

from companion.demo import EMPTY, DemoRoll, plan
from companion.records import load_record

GAME = REPO / "companion" / "demo" / "game.json"
ABOUT = ("Pictures of the demo game (game.json), rendered by scripts/demo_frames.py with the "
         "project's own renderer (vision/training/render, Blender Cycles): no photographs or "
         "third-party art. Licence: MIT, like the project.")


class Renders:
    """Rendered JPEGs kept in a folder under a hash of the table, the dice and the seed."""

    def __init__(self, cache: Path, threads: int) -> None:
        self.cache = cache
        self.threads = threads
        self.made = 0
        cache.mkdir(parents=True, exist_ok=True)

    def jpeg(self, scene: Any, dice: list[Any], seed: int) -> bytes:
        key = hashlib.sha256(repr((scene, dice, seed)).encode()).hexdigest()[:24]
        path = self.cache / f"{key}.jpg"
        if not path.is_file():
            from vision.training.render import frames

            frames.stage(self.threads)
            start = time.time()
            roll = frames.render_roll(scene, dice, seed=seed)
            path.with_suffix(".tmp").write_bytes(roll.jpeg)
            path.with_suffix(".tmp").replace(path)
            self.made += 1
            print(f"  rendered {len(dice)} dice in {time.time() - start:.0f} s", flush=True)
        return path.read_bytes()


def picture(data: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def write_frames(out: Path, rolls: tuple[DemoRoll, ...], renders: Renders) -> None:
    from vision.training.render.demo import demo_scene, left_after, roll_dice

    scene = demo_scene()
    frames = out / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    (out / EMPTY).write_bytes(renders.jpeg(scene, [], 0))
    for roll in rolls:
        print(f"roll {roll.number}: {roll.player} {list(roll.roll)} {roll.event}", flush=True)
        dice = roll_dice(scene, roll.roll, roll.event, roll.color or "red", roll.number,
                         stray=roll.stray)
        (out / roll.frame).write_bytes(renders.jpeg(scene, dice, 2 * roll.number))
        if roll.left_frame is not None:
            taken = (Counter(roll.roll) - Counter(roll.left or ())).elements()
            left = left_after(dice, list(taken), roll.color or "red")
            (out / roll.left_frame).write_bytes(renders.jpeg(scene, left, 2 * roll.number + 1))
    wanted = {out / EMPTY} | {out / r.frame for r in rolls} | {
        out / r.left_frame for r in rolls if r.left_frame}
    for old in frames.glob("*.jpg"):
        if old not in wanted:  # a frame of an earlier version of the game
            old.unlink()


def calibrate(out: Path, renders: Renders) -> Any:
    """The table's profile from rendered calibration pictures, by the real procedures."""
    from calibration.procedures import build_profile
    from calibration.profile import save_profile
    from vision.training.render.demo import colour_dice, demo_scene, event_dice

    scene = demo_scene()
    print("calibration pictures", flush=True)
    tray = picture(renders.jpeg(scene, [], 0))
    players = {name: picture(renders.jpeg(scene, colour_dice(scene, name), 100 + k))
               for k, (name, _) in enumerate(scene.sets)}
    event = {face: [picture(renders.jpeg(scene, dice, 200 + 10 * k + i))
                    for i, dice in enumerate(shots)]
             for k, (face, shots) in enumerate(event_dice(scene).items())}
    profile = build_profile(tray=tray, players=players, event=event)
    save_profile(profile, out / "profile")
    return profile


def listing(rolls: tuple[DemoRoll, ...]) -> str:
    """frames.json: one roll a line, so a change to the game shows as a change to its rolls."""
    lines = [json.dumps(r.to_json()) for r in rolls]
    return (f'{{"about": {json.dumps(ABOUT)},\n "empty": "{EMPTY}",\n "rolls": [\n  '
            + ",\n  ".join(lines) + "\n ]}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=REPO / "companion" / "demo",
                    help="folder of the demo (default companion/demo)")
    ap.add_argument("--cache", type=Path, default=REPO / ".demo-renders",
                    help="rendered pictures kept between runs (default .demo-renders/)")
    ap.add_argument("--threads", type=int, default=1, help="render threads (default 1)")
    ap.add_argument("--plan", action="store_true", help="write frames.json only, render nothing")
    args = ap.parse_args(argv)
    rolls = plan(load_record(GAME))
    args.out.mkdir(parents=True, exist_ok=True)
    if args.out.resolve() != GAME.parent.resolve():
        shutil.copyfile(GAME, args.out / "game.json")
    (args.out / "frames.json").write_text(listing(rolls), encoding="utf-8")
    if args.plan:
        print(f"{args.out / 'frames.json'}: {len(rolls)} rolls")
        return 0
    try:
        from vision.training.render.blender import import_bpy

        import_bpy()
    except RuntimeError as err:
        print(f"demo_frames: {err}", file=sys.stderr)
        return 2
    renders = Renders(args.cache, args.threads)
    profile = calibrate(args.out, renders)
    write_frames(args.out, rolls, renders)
    count = len(list((args.out / "frames").glob("*.jpg")))
    size = sum(p.stat().st_size for p in (args.out / "frames").glob("*.jpg"))
    print(f"{args.out}: {count} frames ({size / 1e6:.1f} MB), {renders.made} rendered now; "
          f"profile: colours {', '.join(profile.colors)}, Event die "
          f"{'learned' if profile.event else 'missing'}, dice {profile.die_side or 0:.0f} px")
    return 0


if __name__ == "__main__":
    sys.exit(main())
