"""The dice reader on dice the picture's edge cuts through: a tray not wholly in view.

    .venv/bin/python benchmarks/vision_cut_dice.py [--data DIR] [--limit N] [--all]

Each labelled validation photo (--all: every photo; --limit: the first N of each set,
default 12) is read whole. Every die read right and surely there (0.8 or more, the
table's play threshold) is then cut through by the frame: the photo is cropped so that a
given share of the die's face lies beyond the left, right, top or bottom edge, and read
again with the default profile. Printed per share cut off: how the cut die is read then
(sure right, sure wrong, asked: below the play threshold, lost: no die read there) and
the median share of its face out of the frame as the reader measures it (`reader.face_out`:
the read box, grown to the frame's dice' median side where it touches the edge, since the
box of a die cut through shrinks to what is left); then the sure reads again by that share,
the quantity the reader asks at (`reader.CUT_FACE`).
Data as in vision_accuracy.py.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from vision_accuracy import chosen_entries, data_arguments, data_sets

SHARES = (0.2, 0.3, 0.4, 0.5, 0.6)
EDGES = ("left", "right", "top", "bottom")
# The face's share out of the frame, as bins: (upper bound, name).
OUT_BINS = ((0.1, "under 0.1"), (0.3, "0.1-0.3"), (0.4, "0.3-0.4"), (float("inf"), "0.4 and more"))


def cut_through(image: np.ndarray, box, edge: str, share: float
                ) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The photo cropped so `share` of the die's face `box` lies beyond `edge`, and the
    crop's offset (x, y) in the photo; None when what is left is under two dice wide."""
    x, y, w, h = box
    if edge == "right":
        crop, off = image[:, :int(x + w * (1 - share))], (0, 0)
    elif edge == "left":
        left = int(x + w * share)
        crop, off = image[:, left:], (left, 0)
    elif edge == "bottom":
        crop, off = image[:int(y + h * (1 - share))], (0, 0)
    else:
        top = int(y + h * share)
        crop, off = image[top:], (0, top)
    if min(crop.shape[:2]) < 2 * max(w, h):
        return None
    return np.ascontiguousarray(crop), off


def bin_of(out: float) -> str:
    return next(name for bound, name in OUT_BINS if out < bound)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    data_arguments(ap)
    ap.set_defaults(limit=12)
    ap.add_argument("--all", action="store_true", help="every photo, not only the validation ones")
    args = ap.parse_args()
    sets = data_sets(args.data)
    if not sets:
        return 2
    cv2.setNumThreads(1)
    from vision import read_dice
    from vision.evaluate import is_right, match
    from vision.reader import CUT_FACE, face_out, typical_side
    from vision.types import PLAY_CONFIDENCE

    print(f"dice cut through by the picture's edge, data {args.data}, "
          f"{'all' if args.all else 'validation'} photos, at most {args.limit} a set; "
          f"the reader asks about dice whose face is {CUT_FACE} or more out")
    for folder in sets:
        entries = chosen_entries(folder, args.all, args.limit)
        by_share: dict[float, Counter] = defaultdict(Counter)
        outs: dict[float, list[float]] = defaultdict(list)
        by_out: dict[str, Counter] = defaultdict(Counter)
        dice = 0
        for e in entries:
            image = cv2.imread(str(folder / e["file"]))
            if image is None:
                continue
            whole = read_dice(image).dice
            for li, di in match(whole, e["dice"]):
                die, value = whole[di], e["dice"][li]["value"]
                if die.kind != "soldier" or die.confidence < PLAY_CONFIDENCE or not is_right(die, value):
                    continue
                dice += 1
                side = max(die.box[2], die.box[3])
                for share in SHARES:
                    for edge in EDGES:
                        cut = cut_through(image, die.box, edge, share)
                        if cut is None:
                            continue
                        crop, (ox, oy) = cut
                        cx, cy = die.center[0] - ox, die.center[1] - oy
                        cut_dice = read_dice(crop).dice
                        near = [d for d in cut_dice
                                if abs(d.center[0] - cx) < 0.6 * side and abs(d.center[1] - cy) < 0.6 * side]
                        if not near:
                            by_share[share]["lost"] += 1
                            continue
                        read = min(near, key=lambda d: np.hypot(d.center[0] - cx, d.center[1] - cy))
                        out = face_out(read.box, crop.shape, typical_side(cut_dice))
                        outs[share].append(out)
                        if read.confidence < PLAY_CONFIDENCE:
                            by_share[share]["asked"] += 1
                            continue
                        kind = "sure right" if is_right(read, value) else "sure wrong"
                        by_share[share][kind] += 1
                        by_out[bin_of(out)][kind] += 1
        print(f"{folder.name}: {len(entries)} photos, {dice} dice read surely and right whole")
        for share in SHARES:
            c = by_share[share]
            med = float(np.median(outs[share])) if outs[share] else 0.0
            print(f"  {share:.0%} of the face cut off: sure right {c['sure right']}  "
                  f"sure wrong {c['sure wrong']}  asked {c['asked']}  lost {c['lost']}  "
                  f"face out median {med:.2f}", flush=True)
        for _, name in OUT_BINS:
            c = by_out[name]
            print(f"  sure reads whose face is {name} out: right {c['sure right']}  "
                  f"wrong {c['sure wrong']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
