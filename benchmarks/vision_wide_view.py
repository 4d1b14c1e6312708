"""The dice reader when the camera sees much more than the dice: a wide view.

    .venv/bin/python benchmarks/vision_wide_view.py [--data DIR] [--factor F] [--same-size]
                                                    [--limit N]

Each labelled photo is put in the middle of a frame F times wider and taller (default 2;
round it, the photo mirrored and blurred beyond recognition), so every die is F times smaller
relative to the frame, as when the camera hangs higher over a big table. With --same-size
that frame is shrunk back to the photo's size: the same camera mode hung F times higher,
each die F times fewer pixels wide (a 640x480 camera high over the tray). Printed per set:
the reader with no calibration (the frame shrunk to 320 px wide, looked at again at
twice that when the dice found are small), and with
what `calibrate` measures: the tray (the photo's rectangle) and the dice's size, measured
by calibration's own `detector_die_side` on the wide frame itself. Columns as in vision_accuracy.py.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import _line, data_arguments, data_sets, timed_read


def widen(image: np.ndarray, labels: list[dict], factor: float):
    h, w = image.shape[:2]
    bh, bw = round((factor - 1) * h), round((factor - 1) * w)
    top, left = bh // 2, bw // 2
    big = cv2.copyMakeBorder(image, top, bh - top, left, bw - left, cv2.BORDER_REFLECT)
    big = cv2.GaussianBlur(big, (0, 0), 0.05 * max(h, w))  # the table round it, no dice in it
    big[top:top + h, left:left + w] = image
    moved = [dict(lab, bbox=[lab["bbox"][0] + left, lab["bbox"][1] + top, *lab["bbox"][2:]])
             for lab in labels]
    tray = ((left, top), (left + w, top), (left + w, top + h), (left, top + h))
    return big, moved, tuple((float(x), float(y)) for x, y in tray)


def shrink(frame: np.ndarray, labels: list[dict], tray, size: tuple[int, int]):
    """The frame, its labels and tray scaled to `size` (w, h)."""
    k = size[0] / frame.shape[1]
    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return (small, [dict(lab, bbox=[v * k for v in lab["bbox"]]) for lab in labels],
            tuple((x * k, y * k) for x, y in tray))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.add_argument("--factor", type=float, default=2.0)
    ap.add_argument("--same-size", action="store_true",
                    help="shrink the wide frame back to the photo's size (dice fewer pixels)")
    args = ap.parse_args()
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from calibration.finding import detector_die_side
    from calibration.profile import default_profile
    from vision import read_dice
    from vision.evaluate import Tally
    from vision.training.data import read_manifest

    shrunk = ", shrunk to the photo's size" if args.same_size else ""
    print(f"wide view: photos in frames {args.factor:g}x wider and taller{shrunk}, "
          f"data {args.data}, one core")
    read_dice(np.full((480, 640, 3), 128, np.uint8))
    for folder in sets:
        entries = read_manifest(folder)["images"]
        plain, calibrated = Tally(), Tally()
        unmeasured = 0
        for entry in entries[:args.limit] if args.limit else entries:
            image = cv2.imread(str(folder / entry["file"]))
            big, labels, tray = widen(image, entry["dice"], args.factor)
            if args.same_size:
                big, labels, tray = shrink(big, labels, tray, image.shape[1::-1])
            side = detector_die_side(big)  # what `calibrate` measures on a frame of dice
            unmeasured += side is None
            profile = dataclasses.replace(default_profile(), tray=tray, die_side=side)
            plain.add(timed_read(big, labels))
            calibrated.add(timed_read(big, labels, profile))
        print(_line(f"{folder.name}, no calibration", plain))
        print(_line(f"{folder.name}, tray + die size", calibrated)
              + (f"  ({unmeasured} photos without a die size)" if unmeasured else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
