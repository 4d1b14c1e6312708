"""Render a training set: python -m vision.training.render --out DIR --count N --seed S.

Frames S to S+N-1 of the chosen kind; each frame depends only on its kind and number,
so a run stopped part way resumes with the frames left, and runs over different
ranges (`--seed 0 --count 500`, `--seed 500 --count 500`) may share one folder.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2

from vision.training.render import frames, manifest
from vision.training.render.scene import KINDS

COLLECT_EVERY = 25  # frames between rebuilds of manifest.json


def whole_number(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `low`, else a sentence saying so."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, got {value}")
        return value
    return parse


positive = whole_number(1)
natural = whole_number(0)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m vision.training.render", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, type=Path, help="folder of the set")
    p.add_argument("--count", required=True, type=positive, help="frames to render")
    p.add_argument("--seed", required=True, type=natural, help="number of the first frame")
    p.add_argument("--kind", choices=KINDS, default="mixed",
                   help="mixed: any dice, trays, tables and cameras; dragon-farkle: two "
                        "players' Soldier dice and the Event die in a felt tray under a "
                        "Pi camera; low-angle: any dice and table seen by a camera "
                        "tipped 20-40 degrees, side faces in view (default: mixed)")
    p.add_argument("--per-table", type=positive, default=1, metavar="K",
                   help="frames in a row sharing one table (tray, camera, light, dice "
                        "colours); default 1")
    p.add_argument("--samples", type=positive, default=2,
                   help="Cycles samples per pixel before denoising (default 2)")
    p.add_argument("--threads", type=positive, default=1, help="render threads (default 1)")
    p.add_argument("--overlay", action="store_true",
                   help="also write overlays/NAME.png with the labelled boxes drawn")
    return p


def overlay(image: cv2.typing.MatLike, roll: frames.Roll) -> cv2.typing.MatLike:
    """The picture with each die's box (green), top face (red), face, and ignore boxes."""
    out = image.copy()
    def rect(box: list[float], colour: tuple[int, int, int]) -> None:
        x, y, w, h = box
        cv2.rectangle(out, (int(x), int(y)), (int(x + w), int(y + h)), colour, 1)
    for d in roll.dice:
        rect(d["bbox"], (0, 255, 0))
        rect(d["top_bbox"], (0, 0, 255))
        x, y = d["bbox"][:2]
        cv2.putText(out, str(d["value"]), (int(x), max(8, int(y) - 2)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 0), 1, cv2.LINE_AA)
    for d in roll.ignore:
        rect(d["bbox"], (128, 128, 128))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        frames.stage(args.threads)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        manifest.prepare(args.out)
    except OSError as e:
        print(f"error: cannot write the set into {args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    todo = [n for n in range(args.seed, args.seed + args.count)
            if not manifest.is_done(args.out, args.kind, n)]
    print(f"{len(todo)} of {args.count} {args.kind} frames to render into {args.out}",
          flush=True)
    for i, number in enumerate(todo):
        start = time.time()
        roll = frames.make_frame(args.kind, number, per_table=args.per_table,
                                 samples=args.samples)
        h, w = roll.image.shape[:2]
        entry = {"width": w, "height": h, "kind": args.kind, "frame": number,
                 "table": number // args.per_table, "dice": roll.dice, "ignore": roll.ignore,
                 "scene": roll.scene}
        manifest.write_frame(args.out, args.kind, number, roll.jpeg, entry)
        if args.overlay:
            (args.out / "overlays").mkdir(exist_ok=True)
            name = manifest.frame_name(args.kind, number)
            cv2.imwrite(str(args.out / "overlays" / f"{name}.png"), overlay(roll.image, roll))
        print(f"{manifest.frame_name(args.kind, number)}: {len(roll.dice)} dice, "
              f"{time.time() - start:.1f} s", flush=True)
        if (i + 1) % COLLECT_EVERY == 0:
            manifest.collect(args.out)
    done = manifest.collect(args.out)
    print(f"{args.out / 'manifest.json'}: {done['n_images']} images, {done['n_dice']} dice")
    return 0


if __name__ == "__main__":
    sys.exit(main())
