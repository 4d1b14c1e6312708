"""The dice reader's networks run by onnxruntime and by OpenCV DNN, side by side.

    .venv/bin/python benchmarks/vision_runtimes.py [--data DIR] [--limit N]

Every photo is read by both runtimes in one process on one core, in turn (which one goes
first alternates), so a busy machine slows both alike. Printed per set and runtime: CPU
milliseconds per frame (median, p95) and dice read right; then how many dice the two
readings differ on (face, box or colour) and the largest confidence difference.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import data_arguments, data_sets

RUNTIMES = ("onnxruntime", "opencv")


def read_with(runtime: str, frame: np.ndarray):
    """(reading, CPU ms) of the frame with the networks run by `runtime`."""
    from vision import read_dice

    os.environ["DICE_RUNTIME"] = runtime
    c0 = time.process_time()
    reading = read_dice(frame)
    return reading, 1000 * (time.process_time() - c0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    args = ap.parse_args()
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision.evaluate import score
    from vision.training.data import read_manifest

    print(f"dice reader, onnxruntime against OpenCV DNN, data {args.data}, one core")
    blank = np.full((480, 640, 3), 128, np.uint8)
    for runtime in RUNTIMES:
        read_with(runtime, blank)  # load the models before timing
    for folder in sets:
        manifest = read_manifest(folder)
        entries = manifest["images"][:args.limit] if args.limit else manifest["images"]
        ms: dict[str, list[float]] = {r: [] for r in RUNTIMES}
        right = dict.fromkeys(RUNTIMES, 0)
        labelled = differ = 0
        gap = 0.0
        for i, entry in enumerate(entries):
            frame = cv2.imread(str(folder / entry["file"]))
            readings = {}
            for runtime in (RUNTIMES if i % 2 else RUNTIMES[::-1]):
                readings[runtime], t = read_with(runtime, frame)
                ms[runtime].append(t)
                right[runtime] += score(readings[runtime].dice, entry["dice"]).correct
            labelled += len(entry["dice"])
            a, b = (readings[r].dice for r in RUNTIMES)
            differ += abs(len(a) - len(b)) + sum(
                (x.value, x.box, x.color) != (y.value, y.box, y.color) for x, y in zip(a, b))
            gap = max([gap] + [abs(x.confidence - y.confidence) for x, y in zip(a, b)])
        for runtime in RUNTIMES:
            t = np.array(ms[runtime])
            print(f"{folder.name:<20} {runtime:<12} {len(entries):>4} img  correct "
                  f"{right[runtime]}/{labelled}  CPU ms/frame median {np.median(t):.1f} "
                  f"p95 {np.percentile(t, 95):.1f}")
        print(f"{folder.name:<20} dice read differently: {differ}, largest confidence "
              f"difference {gap:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
