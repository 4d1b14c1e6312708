"""`dragon-farkle calibrate ... --out DIR`: build a calibration profile from frames.

From image files:
    dragon-farkle calibrate --tray tray.jpg --player Ann=ann.jpg --player Bo=bo.jpg \\
        --event-face blank=b1.jpg,b2.jpg --event-face dragon=d1.jpg,d2.jpg \\
        --event-face rally=r1.jpg,r2.jpg --out my-table
or from the camera (`--camera usb:0`), which asks for each picture in turn.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

FACES = ("blank", "dragon", "rally")
STALE_FRAMES = 3


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "calibrate", help="learn the tray, dice colours and Event die into a profile",
        description="Build a calibration profile (a folder) from photos or the camera.")
    p.add_argument("--out", required=True, metavar="DIR", help="profile folder to write")
    p.add_argument("--base", metavar="DIR", help="start from this profile (keep what is not redone)")
    p.add_argument("--tray", metavar="FRAME",
                   help="photo of the empty tray (with --camera: `--tray camera` takes it)")
    p.add_argument("--rotation", type=int, choices=(0, 90, 180, 270),
                   help="clockwise turn that makes the frame upright (default: guessed from the tray)")
    p.add_argument("--player", action="append", default=[], metavar="NAME=FRAME",
                   help="a photo of one player's dice (repeat per player)")
    p.add_argument("--event-face", action="append", default=[], metavar="FACE=F1,F2",
                   help="photos of the Event die alone showing FACE (blank, dragon, rally)")
    p.add_argument("--camera", metavar="SPEC",
                   help="take the pictures with this camera (e.g. usb:0, picamera) instead; "
                        "--player takes NAME only and --event-face FACE=N (number of pictures)")
    p.set_defaults(func=run)


class _Usage(ValueError):
    pass


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not name.strip() or (not sep and what != "player"):
            raise _Usage(f"--{what} {item!r}: expected NAME=VALUE")
        out.append((name.strip(), value.strip()))
    return out


def _read_image(path: str) -> Any:
    import cv2

    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise _Usage(f"cannot read image {path!r} (missing or not a picture)")
    return img


def _from_files(args: argparse.Namespace) -> dict[str, Any]:
    players = {}
    for name, value in _pairs(args.player, "player"):
        if not value:
            raise _Usage(f"--player {name}: give a photo, as NAME=FRAME")
        players[name] = _read_image(value)
    event: dict[str, list[Any]] = {}
    for face, value in _pairs(args.event_face, "event-face"):
        if face not in FACES:
            raise _Usage(f"--event-face {face}: the face must be blank, dragon or rally")
        event.setdefault(face, []).extend(_read_image(p) for p in value.split(",") if p)
    return {"tray": _read_image(args.tray) if args.tray else None,
            "players": players, "event": event}


def _from_camera(args: argparse.Namespace) -> dict[str, Any]:
    from hardware.camera import open_camera  # only on this path: files need no hardware

    camera = open_camera(args.camera)
    try:
        def shot(prompt: str) -> Any:
            input(f"{prompt}, then press Enter ")
            for _ in range(STALE_FRAMES):  # a webcam may hand out frames queued before Enter
                camera.read()
            return camera.read()
        tray = shot("Empty the tray") if args.tray is not None or not (args.player or args.event_face) \
            else None
        players = {name: shot(f"Put {name}'s dice in the tray, apart")
                   for name, _ in _pairs(args.player, "player")}
        event: dict[str, list[Any]] = {}
        for face, count in _pairs(args.event_face, "event-face"):
            if face not in FACES:
                raise _Usage(f"--event-face {face}: the face must be blank, dragon or rally")
            n = int(count) if count.isdigit() else 3
            event[face] = [shot(f"Put only the Event die in the tray showing {face} "
                                f"(picture {i + 1} of {n}; move it a little each time)")
                           for i in range(n)]
        return {"tray": tray, "players": players, "event": event}
    finally:
        camera.close()


def run(args: argparse.Namespace) -> int:
    from calibration.procedures import build_profile, die_side_advice
    from calibration.profile import load_profile, save_profile

    try:
        base = load_profile(args.base) if args.base else None
        frames = _from_camera(args) if args.camera else _from_files(args)
        notes: list[str] = []
        profile = build_profile(base=base, tray=frames["tray"], rotation=args.rotation,
                                players=frames["players"], event=frames["event"] or None,
                                notes=notes)
        out = save_profile(profile, Path(args.out))
    except (ValueError, OSError, RuntimeError) as exc:  # bad input, or a camera failure
        print(f"calibrate: {exc}", file=sys.stderr)
        return 2
    tray = "whole frame" if profile.tray is None else f"{len(profile.tray)}-point polygon"
    print(f"wrote {out}: tray {tray}, rotation {profile.rotation}, colours "
          f"{', '.join(profile.colors) or 'generic'}, Event die "
          f"{'learned' if profile.event else 'none'}, dice "
          f"{'not measured' if profile.die_side is None else f'{profile.die_side:.0f} px wide'}")
    for note in notes:
        print(f"note: {note}")
    advice = die_side_advice(profile.die_side)
    if advice:
        print(advice)
    return 0
