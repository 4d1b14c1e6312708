"""`dragon-farkle leds --preview RECORD --png FILE`: what the LED strip shows at every step.

Replays a game record and draws one row of LEDs per step into one picture, so a table
can check its layout and colours before wiring anything (and tests can check them).
`dragon-farkle leds --wiring` lights each segment and then each LED on the real strip.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LABEL_WIDTH = 300
BACKGROUND = (28, 28, 28)


@dataclass(frozen=True)
class PreviewRow:
    label: str
    pixels: list[tuple[int, int, int]]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "leds",
        help="preview what the LED strip shows for a game record",
        description="Draw the LED strip at every step of a game record, one row per step, "
        "as it would look with the configured layout.",
    )
    parser.add_argument("--preview", metavar="RECORD", type=Path,
                        help="game record (JSON, see docs/records.md) to replay")
    parser.add_argument("--png", metavar="FILE", type=Path,
                        help="picture to write (PNG), with --preview")
    parser.add_argument("--wiring", action="store_true",
                        help="instead: light each segment, then each LED in turn, on the configured "
                        "LEDs (checks the wiring and the segment positions)")
    parser.add_argument("--step", type=float, default=0.6,
                        help="seconds per --wiring frame (default 0.6)")
    parser.add_argument("--config", metavar="FILE", type=Path,
                        help="configuration file for the LED count and segments (default: built-in)")
    parser.add_argument("--count", type=int, help="use the default layout for this many LEDs instead")
    parser.add_argument("--cell", type=int, default=14, help="pixels per LED in the picture (default 14)")
    parser.add_argument("--at", type=float, default=0.1,
                        help="seconds after each step to draw (animations are time-based; default 0.1)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.config import ConfigError, load_config
    from companion.records import load_record
    from companion.rules import DragonFarkleError
    from hardware.leds import LedLayout

    try:
        config = load_config(args.config)
        layout = LedLayout.default(args.count) if args.count else config.leds.layout()
        if args.wiring:
            return run_wiring(config, layout, step=args.step)
        if args.preview is None or args.png is None:
            raise ValueError("give --preview RECORD --png FILE, or --wiring")
        if not 4 <= args.cell <= 64:
            raise ValueError(f"--cell must be from 4 to 64 pixels, got {args.cell}")
        record = load_record(args.preview)
        rows = preview_rows(record.setup, record.steps, layout, at=args.at)
        write_png(args.png, rows, layout, cell=args.cell)
    except (ConfigError, DragonFarkleError, ValueError, OSError) as exc:
        print(f"dragon-farkle leds: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.png}: {len(rows)} rows (start + one per step) x {layout.count} LEDs")
    return 0


def run_wiring(config: Any, layout: Any, *, step: float) -> int:
    """Show the wiring frames on the configured LEDs, `step` seconds each, then turn them off."""
    import dataclasses
    import time

    from hardware.leds import LedDriver, open_strip

    strip_config = dataclasses.replace(config.leds.strip_config(), count=layout.count)
    driver = LedDriver(open_strip(strip_config, layout=layout), layout)
    try:
        for label, pixels in wiring_frames(layout):
            print(label, flush=True)
            driver.strip.show(pixels)
            time.sleep(step)
    finally:
        driver.close()
    return 0


WIRING_COLORS = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 160, 0), (200, 0, 255), (0, 200, 200))


def wiring_frames(layout: Any) -> list[tuple[str, list[tuple[int, int, int]]]]:
    """Each segment lit alone in its own colour, then one white LED walking from 0 to the end."""
    frames = []
    for n, (name, seg) in enumerate(layout.named_segments()):
        pixels = [(0, 0, 0)] * layout.count
        for i in seg.indices():
            pixels[i] = WIRING_COLORS[n % len(WIRING_COLORS)]
        frames.append((f"segment {name}: LEDs {seg.start}..{seg.start + seg.length - 1}", pixels))
    for i in range(layout.count):
        pixels = [(0, 0, 0)] * layout.count
        pixels[i] = (255, 255, 255)
        frames.append((f"LED {i}", pixels))
    return frames


def preview_rows(setup: Mapping[str, Any], steps: Any, layout: Any, *, at: float = 0.1) -> list[PreviewRow]:
    """Replay `steps` from `setup`; the strip's pixels `at` seconds after the start and each step.

    `expect` checkpoints and steps marked illegal are skipped (they change nothing). Each
    step's scene starts its flash at t = 10 * step number, so rows are independent.
    """
    from companion.ledview import scene_from_snapshot
    from companion.rules import IllegalMove, apply, new_game, snapshot
    from hardware.leds import render_scene

    colors = dict(setup.get("colors") or {})
    state = new_game(dict(setup))
    scene = scene_from_snapshot(snapshot(state), colors=colors, now=0.0)
    rows = [PreviewRow("start", render_scene(scene, at, layout))]
    for n, step in enumerate(steps, start=1):
        if "expect" in step or step.get("illegal") is True:
            continue
        try:
            state, events = apply(state, step)
        except IllegalMove as exc:
            raise ValueError(f"step {n} {_short(step)} was refused: {exc}") from exc
        now = 10.0 * n
        snap = snapshot(state)
        scene = scene_from_snapshot(snap, colors=colors, events=events, step=step, now=now,
                                    settable=settable_positions(snap))
        rows.append(PreviewRow(f"{n}. {_short(step)}", render_scene(scene, now + at, layout)))
    return rows


def settable_positions(snap: Mapping[str, Any]) -> list[float]:
    """Without a camera: the last roll's dice spread evenly along the tray edge, and the
    positions of those that some legal set-aside uses (what the tray LEDs would light)."""
    roll = snap.get("last_roll") or []
    if snap.get("phase") != "set_aside" or not roll:
        return []
    usable: dict[int, int] = {}
    for option in snap.get("options") or []:
        for face in set(option):
            usable[face] = max(usable.get(face, 0), option.count(face))
    positions = []
    for k, face in enumerate(roll):
        if usable.get(face, 0) > 0:
            usable[face] -= 1
            positions.append((k + 0.5) / len(roll))
    return positions


def _short(step: Mapping[str, Any]) -> str:
    text = json.dumps(dict(step), separators=(",", ":"))
    return text if len(text) <= 44 else text[:41] + "..."


def write_png(path: Path, rows: list[PreviewRow], layout: Any, *, cell: int = 14) -> None:
    """One row of round LEDs per step, a label on the left, segment names on top."""
    import cv2
    import numpy as np

    header = cell + 6
    width = LABEL_WIDTH + layout.count * cell
    image = np.full((header + len(rows) * cell, width, 3), BACKGROUND, np.uint8)
    _draw_header(image, layout, cell)
    radius = max(1, int(cell * 0.4))
    for r, row in enumerate(rows):
        y = header + r * cell + cell // 2
        cv2.putText(image, row.label, (4, y + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (220, 220, 220), 1,
                    cv2.LINE_AA)
        for i, (red, green, blue) in enumerate(row.pixels):
            centre = (LABEL_WIDTH + i * cell + cell // 2, y)
            if (red, green, blue) == (0, 0, 0):
                cv2.circle(image, centre, radius, (70, 70, 70), 1)
            else:
                cv2.circle(image, centre, radius, (blue, green, red), -1)
    if path.suffix.lower() != ".png":
        raise ValueError(f"--png needs a file name ending in .png, got {path.name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"could not write the picture {path}")


def _draw_header(image: Any, layout: Any, cell: int) -> None:
    import cv2

    for name, seg in layout.named_segments():
        x0 = LABEL_WIDTH + seg.start * cell
        x1 = x0 + seg.length * cell - 2
        cv2.rectangle(image, (x0, cell + 1), (x1, cell + 3), (160, 160, 160), -1)
        cv2.putText(image, name, (x0 + 1, cell - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (200, 200, 200), 1,
                    cv2.LINE_AA)
