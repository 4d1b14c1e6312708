"""Training the top-face network (vision.topface): where a found die's top face is.

The reader's detector marks a die's upward face from a frame shrunk to about 20 px a
die; its square is often off the face, most on dice seen slanted. The face classifier
reads a die cut round its top face better: on the 30 rendered tables of
benchmarks/vision_event_tables.py, the Soldier dice read right at 0.8 or more went from
1,493 to 1,622 of 2,325 when cut at their labelled top face instead of the detector's
square (vision/training/README.md, the thirty-ninth session).

This trains a small network to say, from a cut round a candidate (vision.topface.cut),
where the top face is. Examples come from rendered frames whose dice have their top
face labelled (`top_bbox`: python -m vision.training.render, or the Event-die frames of
vision/training/event_faces.py render). Each labelled die gives:

- the detector's own candidate on it, when it found one (its real errors), and
- JITTERS squares placed round the top face at random: mostly a little off (as the
  detector is), some up to MAX_OFF face sides, sides from 0.7 to 1.4 times the face's.

Each cut is taken at a random quarter turn, maybe mirrored (the answer turns with it),
and its colours are changed at random (channels swapped, brightness and contrast, grey,
blur), so no body colour or tray is learned; each training batch is then turned,
mirrored and its channels swapped again at random (turned), so the few thousand cuts
of a few hundred frames are seen in many more ways. The last tenth of each folder's frames is
kept for the check, which prints how far the squares are from the top face before and
after (in face sides) for the detector's candidates.

    python -m vision.training.topface --renders DIR [--renders DIR2 ...] --out MODELS
    DICE_TOPFACE=MODELS/topface.onnx .venv/bin/python benchmarks/vision_event_tables.py
"""
from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np

from vision import topface
from vision.topface import SIZE, WINDOW
from vision.training.event_faces import _cached

JITTERS = 3  # random squares round each labelled top face
MAX_OFF = 0.35  # the farthest a random square's centre lies from the face's (face sides)
SIDES = (0.7, 1.4)  # a random square's side, relative to the face's
MATCH = 0.6  # a detector candidate this many face sides from a labelled face is on it
CHECK_SHARE = 0.1  # the last tenth of each folder's frames: the check


def labelled_frames(folder: Path) -> list[tuple[Path, list[dict]]]:
    """(image, dice labels) of every rendered frame in `folder` (the renderer's
    images/ and labels/, or NAME.jpg beside NAME.json), by name; dice without a
    labelled top face are left out."""
    out = []
    for js in sorted(folder.rglob("*.json")):
        try:
            data = json.loads(js.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict) or "dice" not in data:
            continue
        image = folder / data["file"] if "file" in data else js.with_suffix(".jpg")
        dice = [d for d in data["dice"] if d.get("top_bbox")]
        if image.is_file() and dice:
            out.append((image, dice))
    return out


def face_of(label: dict) -> tuple[np.ndarray, float]:
    """A labelled top face's centre and side (the larger of its box's sides, as the
    detector was trained: vision/training/data.py labels_of)."""
    x, y, w, h = (float(v) for v in label["top_bbox"])
    return np.array([x + w / 2, y + h / 2]), max(w, h)


def random_square(center: np.ndarray, side: float, rng: np.random.Generator
                  ) -> tuple[np.ndarray, float]:
    """A square round a top face as a detector might give it: mostly a little off,
    sometimes far."""
    if rng.random() < 0.7:
        off = np.clip(rng.normal(0.0, 0.08, 2), -MAX_OFF, MAX_OFF)
    else:
        off = rng.uniform(-MAX_OFF, MAX_OFF, 2)
    ratio = float(np.clip(np.exp(rng.normal(0.0, 0.15)), *SIDES))
    return center + off * side, side * ratio


def target(m: np.ndarray, face: np.ndarray, face_side: float, side: float) -> np.ndarray:
    """The answer for a cut made with affine `m` (topface.cut_matrix) round a square of
    `side`: the face centre's offset from the cut's centre (candidate sides, in the
    cut's own axes) and log(face side / side)."""
    q = m @ np.array([face[0], face[1], 1.0])
    d = (q - SIZE / 2) * WINDOW / SIZE
    return np.array([d[0], d[1], math.log(face_side / side)], np.float32)


def recolour(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The cut with its colours changed at random (no body colour or tray is learned)."""
    out = crop
    if rng.random() < 0.5:
        out = out[:, :, rng.permutation(3)]
    if rng.random() < 0.1:
        grey = cv2.cvtColor(np.ascontiguousarray(out), cv2.COLOR_BGR2GRAY)
        out = cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if rng.random() < 0.5:
        a, b = rng.uniform(0.6, 1.4), rng.uniform(-40, 40)
        out = np.clip(out.astype(np.float32) * a + b, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    return np.ascontiguousarray(out)


def examples(frames: list[tuple[Path, list[dict]]], rng: np.random.Generator, *,
             jitters: int = JITTERS, augment: bool = True
             ) -> dict[str, np.ndarray]:
    """Cuts (n, SIZE, SIZE, 3) uint8, answers (n, 3), and whether each came from the
    detector (n,) of the frames' labelled dice (see the module's docstring)."""
    from vision.detect import DieDetector
    from vision.reader import even_light

    detector = DieDetector()
    cuts, answers, real = [], [], []
    for image_path, dice in frames:
        frame = cv2.imread(str(image_path))
        if frame is None:
            continue
        up = even_light(frame)
        cands = detector.detect(up, top_faces=False)  # its own squares, whatever is shipped
        for label in dice:
            face, face_side = face_of(label)
            squares = []
            for c in cands:
                gap = float(np.hypot(*(np.asarray(c.center) - face)))
                if gap < MATCH * face_side and 0.6 < c.side / face_side < 1.6:
                    squares.append((np.asarray(c.center, np.float64), float(c.side), True))
                    break
            squares += [(*random_square(face, face_side, rng), False) for _ in range(jitters)]
            for center, side, from_detector in squares:
                turn = int(rng.integers(4)) * 90 if augment else 0
                flip = bool(augment and rng.random() < 0.5)
                m = topface.cut_matrix(center, side, angle=turn, flip=flip)
                crop = topface.cut(up, m)
                cuts.append(recolour(crop, rng) if augment else crop)
                answers.append(target(m, face, face_side, side))
                real.append(from_detector)
    return {"cuts": np.array(cuts, np.uint8).reshape(-1, SIZE, SIZE, 3),
            "answers": np.array(answers, np.float32).reshape(-1, 3),
            "real": np.array(real, bool)}


def split(by_folder: dict[Path, list]) -> tuple[list, list]:
    """(training frames, check frames) of each folder's labelled_frames: the last
    CHECK_SHARE of each folder's are the check."""
    train, check = [], []
    for folder, frames in by_folder.items():
        if not frames:
            raise SystemExit(f"no rendered frames with labelled top faces in {folder}")
        k = max(1, round(len(frames) * CHECK_SHARE))
        train += frames[:-k]
        check += frames[-k:]
    return train, check


def errors(answers: np.ndarray, predicted: np.ndarray | None = None) -> np.ndarray:
    """Each square's distance from the top face's centre, in face sides: as it was
    (predicted None), or after the network's correction."""
    d = answers[:, :2].astype(np.float64)
    side_ratio = np.exp(answers[:, 2].astype(np.float64))  # face side / candidate side
    if predicted is not None:
        d = d - predicted[:, :2]
    return np.hypot(d[:, 0], d[:, 1]) / side_ratio


def describe(name: str, e: np.ndarray) -> str:
    return (f"{name}: median {np.median(e):.3f}, over 0.1 {np.mean(e > 0.1):.1%}, "
            f"over 0.15 {np.mean(e > 0.15):.1%}, over 0.25 {np.mean(e > 0.25):.1%} (n={len(e)})")


def turned(x, y, turns: int, flip: bool):
    """A batch of cuts (torch (N, 3, SIZE, SIZE)) and their answers (N, 3) turned a
    quarter `turns` times (np.rot90's sense) and then, when `flip`, mirrored left to
    right: each training batch is shown at a new angle. Pixel centres are at whole
    coordinates (as cv2.warpAffine has them) and the cut's centre at SIZE / 2, so a
    turn moves the centre by one pixel; the answers follow exactly."""
    import torch

    turns %= 4
    q = y[:, :2] * (SIZE / WINDOW) + SIZE / 2  # the face centre, in the cut's pixels
    for _ in range(turns):
        q = torch.stack([q[:, 1], SIZE - 1 - q[:, 0]], 1)
    if turns:
        x = torch.rot90(x, turns, dims=(2, 3))
    if flip:
        q = torch.stack([SIZE - 1 - q[:, 0], q[:, 1]], 1)
        x = torch.flip(x, dims=(3,))
    return x, torch.cat([(q - SIZE / 2) * (WINDOW / SIZE), y[:, 2:]], 1)


def train(data: dict[str, np.ndarray], *, steps: int, seed: int, threads: int,
          width: int, lr: float = 2e-3, batch: int = 128):
    """The trained network (TopFaceNet) on `data` (examples)."""
    import torch

    from vision.training.nets import TopFaceNet

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    net = TopFaceNet(width=width, size=SIZE)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    x_all = torch.from_numpy(data["cuts"])
    y_all = torch.from_numpy(data["answers"])
    rng = np.random.default_rng(seed)
    t0 = time.time()
    net.train()
    for step in range(steps):
        idx = torch.from_numpy(rng.integers(0, len(x_all), batch))
        x = x_all[idx].permute(0, 3, 1, 2).float() / 255.0 - 0.5
        x, y = turned(x, y_all[idx], int(rng.integers(4)), bool(rng.random() < 0.5))
        if rng.random() < 0.5:  # and in other colours
            x = x[:, torch.from_numpy(rng.permutation(3))]
        loss = torch.nn.functional.smooth_l1_loss(net(x), y, beta=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0 or step == steps - 1:
            print(f"  step {step}: loss {loss.item():.4f} ({time.time() - t0:.0f} s)", flush=True)
    return net.eval()


def predict(net, cuts: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        out = [net(torch.from_numpy(cuts[i:i + 512]).permute(0, 3, 1, 2).float() / 255.0 - 0.5)
               for i in range(0, len(cuts), 512)]
    return torch.cat(out).numpy() if out else np.zeros((0, 3), np.float32)


def export(net, out: Path) -> None:
    """Write the network as ONNX (input "x" (N, 3, SIZE, SIZE), output "y" (N, 3))."""
    import torch

    torch.onnx.export(net, torch.zeros(2, 3, SIZE, SIZE), str(out), input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}},
                      opset_version=11, dynamo=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--renders", type=Path, action="append", required=True, metavar="DIR",
                    help="a folder of rendered frames with labelled top faces (repeatable)")
    ap.add_argument("--out", type=Path, required=True, help="folder for topface.onnx")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=12)
    ap.add_argument("--jitters", type=int, default=JITTERS)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cache", type=Path, metavar="DIR",
                    help="keep the cut examples here (named by folders, seed and jitters)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    by_folder = {p: labelled_frames(p) for p in args.renders}
    train_frames, check_frames = split(by_folder)
    tag = "-".join(f"{p.name}{len(f)}" for p, f in by_folder.items())

    def at(what: str) -> Path | None:
        return (args.cache / f"topface-{what}-{tag}-{args.seed}-{args.jitters}-{SIZE}.npz"
                if args.cache else None)

    t0 = time.time()
    data = _cached(at("train"), lambda: examples(train_frames, np.random.default_rng(args.seed),
                                                 jitters=args.jitters))
    check = _cached(at("check"), lambda: examples(check_frames, np.random.default_rng(args.seed + 1),
                                                  jitters=1, augment=False))
    print(f"{len(train_frames)} frames, {len(data['cuts'])} cuts ({data['real'].sum()} the "
          f"detector's); check {len(check_frames)} frames, {len(check['cuts'])} cuts "
          f"({time.time() - t0:.0f} s)", flush=True)
    net = train(data, steps=args.steps, seed=args.seed, threads=args.threads, width=args.width)
    got = predict(net, check["cuts"])
    for name, sel in (("the detector's squares", check["real"]), ("random squares", ~check["real"])):
        if sel.any():
            print(describe(f"{name}, as found", errors(check["answers"][sel])))
            print(describe(f"{name}, corrected", errors(check["answers"][sel], got[sel])))
            size = np.abs(check["answers"][sel, 2] - got[sel, 2])
            print(f"  {name}: side off by a median {np.expm1(np.median(size)):.1%} corrected, "
                  f"{np.expm1(np.median(np.abs(check['answers'][sel, 2]))):.1%} as found")
    args.out.mkdir(parents=True, exist_ok=True)
    export(net, args.out / topface.FILE)
    print(f"wrote {args.out / topface.FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
