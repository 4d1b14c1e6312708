"""The dice reader under the changes a real table brings: dim or harsh light, a warm
lamp, a blurred or noisy camera, heavy JPEG compression.

    .venv/bin/python benchmarks/vision_robustness.py [--data DIR] [--all] [--limit N]

Each labelled validation photo (the ones no shipped model was trained on; --all: every
photo) is changed as below, then read with the default profile. Printed per set and
change: dice read correctly / labelled, missed, false dice, wrong with confidence
>= 0.9, and dice read with confidence under 0.5 (asked on the phones). Data as in
vision_accuracy.py.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import chosen_entries, data_arguments, data_sets


def _gain(k: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda im: cv2.convertScaleAbs(im, alpha=k)


def _gamma(g: float) -> Callable[[np.ndarray], np.ndarray]:
    lut = np.clip(255 * (np.arange(256) / 255) ** g, 0, 255).astype(np.uint8)
    return lambda im: cv2.LUT(im, lut)


def _tint(b: float, g: float, r: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda im: np.clip(im * np.array([b, g, r]), 0, 255).astype(np.uint8)


def _noise(sigma: float) -> Callable[[np.ndarray], np.ndarray]:
    def f(im: np.ndarray) -> np.ndarray:
        rng = np.random.default_rng(int(im[::37, ::41].sum()))  # the same noise every run
        return np.clip(im + rng.normal(0, sigma, im.shape), 0, 255).astype(np.uint8)
    return f


def _motion(length: int) -> Callable[[np.ndarray], np.ndarray]:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0 / length
    return lambda im: cv2.filter2D(im, -1, kernel)


def _defocus(diameter: float) -> Callable[[np.ndarray], np.ndarray]:
    """A lens focused at another distance spreads each point over a disc (not a Gaussian).
    A Camera Module 3 left at its default focus (about 1 m) over dice 40 cm below: a disc
    about 2.5 px wide in a 640x480 frame, 3.7 px in 1280x720 (README, "On the Raspberry Pi")."""
    size = int(np.ceil(diameter)) | 1
    yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
    # each pixel's share of the disc, estimated on a 5x5 grid inside it
    sub = (np.arange(5) + 0.5) / 5 - 0.5
    kernel = np.zeros((size, size), np.float32)
    for dy in sub:
        for dx in sub:
            kernel += ((yy + dy) ** 2 + (xx + dx) ** 2 <= (diameter / 2) ** 2)
    kernel /= kernel.sum()
    return lambda im: cv2.filter2D(im, -1, kernel)


def _jpeg(quality: int) -> Callable[[np.ndarray], np.ndarray]:
    def f(im: np.ndarray) -> np.ndarray:
        _, buf = cv2.imencode(".jpg", im, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return f


CHANGES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "as photographed": lambda im: im,
    "dim (x0.5)": _gain(0.5),
    "very dim (x0.3)": _gain(0.3),
    "bright (x1.4)": _gain(1.4),
    "low contrast (gamma 0.6)": _gamma(0.6),
    "warm lamp": _tint(0.7, 0.9, 1.1),
    "cold light": _tint(1.15, 1.0, 0.8),
    "sensor noise (sd 12)": _noise(12.0),
    "focus blur (sigma 1.5)": lambda im: cv2.GaussianBlur(im, (0, 0), 1.5),
    "out of focus (disc 2.5 px)": _defocus(2.5),
    "out of focus (disc 3.7 px)": _defocus(3.7),
    "motion blur (7 px)": _motion(7),
    "JPEG quality 25": _jpeg(25),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.add_argument("--all", action="store_true", help="every photo, not only the validation ones")
    args = ap.parse_args()
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision import read_dice
    from vision.evaluate import Tally, score

    print(f"dice reader under changed light and camera, data {args.data}, "
          f"{'all' if args.all else 'validation'} photos")
    for folder in sets:
        entries = chosen_entries(folder, args.all, args.limit)
        photos = [(cv2.imread(str(folder / e["file"])), e["dice"]) for e in entries]
        for name, change in CHANGES.items():
            t = Tally()
            for image, labels in photos:
                t.add(score(read_dice(change(image)).dice, labels))
            print(f"{folder.name:<18} {name:<26} correct {t.correct}/{t.labelled} "
                  f"({100 * t.correct / max(t.labelled, 1):.1f}%)  missed {t.missed}  "
                  f"false {t.false}  wrong>=0.9 {t.wrong_confident}  unsure {t.unsure}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
