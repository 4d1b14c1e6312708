"""Fit each face classifier's softmax temperature on the validation photos.

    python -m vision.training.calibrate --models DIR [--member FILE[:CROP] ...]
                                        [--data ../shared/data/dice]

Runs the reader's own detector and classifier (OpenCV DNN, as at play time) on the
validation photos only; matched detections are labelled with their face, unmatched ones
"not a die"; for each member (default: the members already listed in DIR/faces.json,
else faces.onnx) the temperature minimising the negative log-likelihood is written to
DIR/faces.json. CROP is the member's input side in pixels (default 36). Needs no torch.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vision.adapt import best_temperature, nll
from vision.detect import DieDetector
from vision.evaluate import match
from vision.faces import CROP, MORE_VIEWS, NO_PIPS, NOT_DIE, VIEWS, FaceReader
from vision.types import Die


def collect(models: Path, data: Path, members: list[dict], hold_out: tuple[str, ...] = ()
            ) -> tuple[list[np.ndarray], np.ndarray]:
    """Each member's mean logits over its views (all four quarter turns, as the reader
    reads a die) for every detection on the validation photos of the sets not in
    `hold_out`, and the detections' true classes (a face without pips, the Event die's,
    is class 7). The detections are the reader's (vision.reader): the light evened out,
    the frame looked at from further away or closer when its dice are too big or too
    small for the default scale (read_at_the_right_scale, judged by these members at the
    temperatures given). Taken at the default scale alone, as before, the shipped
    detector (which never saw rune55) found rune55's big dice as hundreds of pips, read
    as 1s and labelled "not a die", and every temperature went to its bound (5.0); with
    rune55 held out the shipped members' temperatures move by about 1% (faces_e 0.785 ->
    0.774)."""
    import cv2

    from vision.reader import even_light, read_at_the_right_scale
    from vision.training.data import SETS, is_validation, read_manifest

    det, faces = DieDetector(models / "detector.onnx"), FaceReader(models, members)
    zs: list[list[np.ndarray]] = [[] for _ in members]
    ys = []
    for name in SETS:
        if name in hold_out or not (data / name / "manifest.json").is_file():
            continue
        manifest = read_manifest(data / name)
        for e in manifest["images"]:
            if not is_validation(name, e):
                continue
            image = even_light(cv2.imread(str(data / name / e["file"])))
            cands, _ = read_at_the_right_scale(det, faces, image, det.detect(image), None)
            if not cands:
                continue
            centers, sides = [c.center for c in cands], [c.side for c in cands]
            for i in range(len(members)):
                zs[i].append(faces.logits(image, centers, sides, i,
                                          views=VIEWS + MORE_VIEWS).mean(0))
            dice = [Die("soldier", None, c.center, c.box, 0.0) for c in cands]
            target = np.full(len(cands), NOT_DIE)
            for li, di in match(dice, e["dice"]):
                value = e["dice"][li]["value"]
                target[di] = value - 1 if isinstance(value, int) else NO_PIPS
            ys.append(target)
    return [np.concatenate(z) for z in zs], np.concatenate(ys)


def fit(z: np.ndarray, y: np.ndarray) -> float:
    t = best_temperature(z, y)
    p = np.exp(z / t - (z / t).max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    pred, conf = p.argmax(1), p.max(1)
    wrong = pred != y
    print(f"{len(y)} detections ({(y != NOT_DIE).sum()} dice), temperature {t:.3f}, "
          f"NLL {nll(z, y, 1.0):.4f} -> {nll(z, y, t):.4f}; wrong {wrong.sum()}, "
          f"wrong with conf>=0.9 {(wrong & (conf >= 0.9)).sum()}")
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--models", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice"))
    ap.add_argument("--member", action="append", default=[], metavar="FILE[:CROP]")
    ap.add_argument("--hold-out", action="append", default=[], metavar="NAME",
                    help="leave this set's validation photos out (a leave-one-source-out fold)")
    args = ap.parse_args()
    meta_path = args.models / "faces.json"
    old = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    if args.member:
        members = []
        for m in args.member:
            file, _, crop = m.partition(":")
            members.append({"file": file, "temperature": 1.0, "crop": int(crop or CROP)})
    else:
        members = old.get("members") or [{"file": "faces.onnx", "temperature": 1.0}]
    zs, y = collect(args.models, args.data, members, tuple(args.hold_out))
    for m, z in zip(members, zs):
        print(m["file"], end=": ")
        m["temperature"] = round(fit(z, y), 4)
    meta_path.write_text(json.dumps(
        {"members": members, "fitted_on": "validation photos; vision/training/calibrate.py"},
        indent=1) + "\n")


if __name__ == "__main__":
    main()
