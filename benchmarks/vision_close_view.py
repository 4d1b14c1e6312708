"""The dice reader when the camera is close: dice much bigger in the frame than in the photos.

    .venv/bin/python benchmarks/vision_close_view.py [--data DIR] [--zoom Z ...] [--limit N]
                                                     [--more-pixels]

The middle 1/Z of each labelled photo (its width and height) is blown up to the photo's
size, so every die is Z times bigger, as under a camera hung low over a small tray or in
a phone photo of a few dice. Photos where the cut crosses a labelled die are left out
(half a die is no label). With --more-pixels the whole photo is blown up Z times
instead: the same view from a camera with Z times the resolution (a 640x480 photo at
Z = 2 as the Pi camera's 1280x960), every die Z times bigger in a frame Z times wider. Read with the default profile (no calibration) and, as a
second line, with the die size `calibrate` measures on that frame
(calibration.finding.detector_die_side). Columns as in vision_accuracy.py.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import _line, data_arguments, data_sets, timed_read


def more_pixels(image: np.ndarray, labels: list[dict], zoom: float
                ) -> tuple[np.ndarray, list[dict]]:
    """The photo as a camera of `zoom` times its resolution would take it, labels moved."""
    big = cv2.resize(image, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    return big, [dict(lab, bbox=[v * zoom for v in lab["bbox"]]) for lab in labels]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.add_argument("--zoom", type=float, nargs="+", default=[1.5, 2.0, 3.0])
    ap.add_argument("--more-pixels", action="store_true",
                    help="blow the whole photo up (a camera of Z times the resolution)")
    args = ap.parse_args()
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from calibration.finding import detector_die_side
    from calibration.profile import default_profile
    from vision import read_dice
    from vision.evaluate import Tally, close_up

    what = "each whole photo" if args.more_pixels else "the middle of each photo"
    print(f"close view: {what} enlarged, data {args.data}, one core")
    read_dice(np.full((480, 640, 3), 128, np.uint8))
    for folder in sets:
        entries = json.loads((folder / "manifest.json").read_text())["images"]
        entries = entries[:args.limit] if args.limit else entries
        photos = [(cv2.imread(str(folder / e["file"])), e["dice"]) for e in entries]
        for zoom in args.zoom:
            plain, calibrated = Tally(), Tally()
            unmeasured = 0
            for image, labels in photos:
                cut = more_pixels(image, labels, zoom) if args.more_pixels else \
                    close_up(image, labels, zoom)
                if cut is None:
                    continue
                big, inside = cut
                side = detector_die_side(big)
                unmeasured += side is None
                profile = dataclasses.replace(default_profile(), die_side=side)
                plain.add(timed_read(big, inside))
                calibrated.add(timed_read(big, inside, profile))
            print(_line(f"{folder.name} x{zoom:g}, no calibration", plain), flush=True)
            print(_line(f"{folder.name} x{zoom:g}, die size", calibrated)
                  + (f"  ({unmeasured} frames without a die size)" if unmeasured else ""),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
