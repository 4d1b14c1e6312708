"""`dragon-farkle read IMAGE... [--profile FILE] [--json] [--overlay DIR]`: read dice in photos."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("read", help="read the dice in photos of the tray",
                              description="Find every die in each photo and read its face.")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (jpg, png, ...)")
    p.add_argument("--profile", metavar="FILE", help="calibration profile (folder or profile.json)")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--overlay", metavar="DIR", help="write each photo with the reading drawn on it")
    p.set_defaults(func=run)


def _text(path: str, reading: Any) -> str:
    lines = [f"{path}: {len(reading.dice)} dice"]
    for d in reading.dice:
        value = "?" if d.value is None else d.value
        color = f" {d.color}" if d.color else ""
        lines.append(f"  {d.kind:<7} {value!s:<6} conf {d.confidence:.2f}{color} "
                     f"at ({d.center[0]:.0f}, {d.center[1]:.0f})")
    lines += [f"  warning: {w.message}" for w in reading.warnings]
    return "\n".join(lines)


def _draw(frame: Any, reading: Any) -> Any:
    try:
        from vision.overlay import draw_reading
    except ImportError:  # the calib branch's overlay is not merged: plain boxes
        import cv2

        out = frame.copy()
        for d in reading.dice:
            x, y, w, h = d.box
            cv2.rectangle(out, (x, y), (x + w, y + h), (0, 200, 0), 2)
            cv2.putText(out, str(d.value), (x, y - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (0, 200, 0), 2)
        return out
    return draw_reading(frame, reading)


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision import read_dice
    from vision.types import PLAY_CONFIDENCE

    profile = None
    if args.profile:
        from calibration.profile import load_profile

        try:
            profile = load_profile(args.profile)
        except (OSError, ValueError) as e:
            print(f"cannot load profile {args.profile}: {e}", file=sys.stderr)
            return 2
    overlay = Path(args.overlay) if args.overlay else None
    if overlay:
        overlay.mkdir(parents=True, exist_ok=True)
    status = 0
    for path in args.images:
        frame = cv2.imread(path)
        if frame is None:
            print(f"cannot read image {path} (missing or not a picture)", file=sys.stderr)
            status = 1
            continue
        reading = read_dice(frame, profile=profile)
        if args.json:
            # play_confidence: the table plays a die read at least this surely and asks
            # the phones below it, so a tool can work out what the table would do.
            print(json.dumps({"image": path, **reading.to_json(),
                              "play_confidence": PLAY_CONFIDENCE}))
        else:
            print(_text(path, reading))
        if overlay:
            cv2.imwrite(str(overlay / (Path(path).stem + ".png")), _draw(frame, reading))
    return status
