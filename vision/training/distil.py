"""Teach one small classifier what the reader's six classifiers read together.

    python -m vision.training.distil bank --out BANK.npz --count 60000 --seed 1
                                          [--data ../shared/data/dice] [--extra-set DIR ...]
                                          [--hold-out NAME ...] [--teacher vision/models]
    python -m vision.training.distil train --bank BANK.npz [--bank ...] --out DIR
                                           [--steps 8000] [--width 12] [--init ONNX]
                                           [--member FILE]
    python -m vision.training.distil agree --bank PROBE.npz --models DIR [--models DIR ...]

The reader reads every die with six classifiers in up to four quarter turns
(vision.faces.FaceReader); that is most of a frame's time. Here the reader itself is the
teacher: `bank` cuts training crops as vision.training.train cuts them (its dice, hard
negatives mined with the teacher's detector, background spots, the crop sets, with the
shipped recipe's new surfaces, colour swaps and photometric changes) and has the teacher
read each one as it reads a die at the table (FaceReader.read_crops). Where the teacher's
views or members disagree, the reader caps its confidence at DISAGREE_CAP; the target
is capped the same way (the top class's probability lowered to the cap, the rest
raised in proportion), so the student learns to be unsure where the six are. `train`
fits one classifier (nets.FaceNet) to those targets (soft cross-entropy; --label-weight
adds the crops' own labels), each crop turned a random quarter turn and mirrored at
times (the teacher read all four turns), and exports DIR/faces.onnx. Fit its
temperature with vision.training.calibrate and read with it as with any model folder.
With --member FILE the student learns that one classifier of the teacher's instead (its
own reads of the bank's crops, uncapped): six narrower students of the six members keep
the members' differences, which one student of all six loses (vision/training/README.md,
forty-fourth session).
`agree` reads a bank of crops no classifier trained on (cut with `bank --hold-out` of
every other source) with each classifier of each model folder alone and prints how
often they read right together, how often two of them differ, and how often all of them
give the same wrong face: the six are safe on dice none of them saw only where they make
different mistakes (forty-fifth session). It needs no torch; `bank` and `train` do (the
`train` extra).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from vision.faces import CROP, DISAGREE_CAP, FaceReader
from vision.onnxnets import model_dir

BATCH = 512  # crops the teacher reads at once


def capped_targets(probs: np.ndarray, agree: np.ndarray, cap: float = DISAGREE_CAP
                   ) -> np.ndarray:
    """(n, 8) targets: the teacher's probabilities, where its reads disagree (`agree`
    False) with the top class lowered to `cap` and the other classes raised in proportion
    to what they had (evenly where they had nothing), as the reader caps its confidence."""
    t = np.asarray(probs, np.float64).copy()
    for i in np.flatnonzero(~np.asarray(agree, bool)):
        k = int(t[i].argmax())
        if t[i, k] <= cap:
            continue
        rest = t[i].sum() - t[i, k]
        others = np.arange(t.shape[1]) != k
        t[i, others] = (t[i, others] / rest if rest > 1e-12
                        else np.full(others.sum(), 1.0 / others.sum())) * (1.0 - cap)
        t[i, k] = cap
    return t.astype(np.float32)


def teacher_reads(teacher: FaceReader, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(probs (n, 8), agree (n,)) of the reader's classifiers on uint8 crops (n, S, S, 3),
    S the members' input side."""
    probs, agree = [], []
    for a in range(0, len(crops), BATCH):
        part = list(crops[a:a + BATCH])
        reads = teacher.read_crops({size: part for _, _, size in teacher.members})
        probs += [r.probs for r in reads]
        agree += [r.agree for r in reads]
    return np.asarray(probs, np.float32), np.asarray(agree, bool)


def agreement(probs: np.ndarray, labels: np.ndarray, sure: float = 0.9) -> dict[str, float]:
    """What `probs` (members, n, 8), each member's read of n crops, says about the
    members together against the crops' `labels` (n,): `right`, the share whose mean
    probability's top class is the label; `differ`, the share a pair of members reads
    with different top classes (the mean over pairs); `same_wrong`, the share every member
    gives the same top class and it is wrong; `sure_wrong`, the share whose mean top
    probability is at least `sure` and wrong."""
    probs = np.asarray(probs, np.float64)
    labels = np.asarray(labels)
    if probs.ndim != 3 or probs.shape[1] != len(labels) or len(labels) == 0:
        raise ValueError(f"probs must be (members, n, classes) for {len(labels)} labels, "
                         f"not {probs.shape}")
    tops = probs.argmax(2)
    mean = probs.mean(0)
    wrong = mean.argmax(1) != labels
    m = len(probs)
    pairs = [np.mean(tops[i] != tops[j]) for i in range(m) for j in range(i + 1, m)]
    return {"right": float(np.mean(~wrong)),
            "differ": float(np.mean(pairs)) if pairs else 0.0,
            "same_wrong": float(np.mean((tops == tops[0]).all(0) & (tops[0] != labels))),
            "sure_wrong": float(np.mean(wrong & (mean.max(1) >= sure)))}


def folder_agreement(models: Path, crops: np.ndarray, labels: np.ndarray
                     ) -> dict[str, float]:
    """`agreement` of the classifiers in `models`/faces.json, each read alone on the
    crops as the reader reads a die."""
    files = [m["file"] for m in json.loads((models / "faces.json").read_text())["members"]]
    return agreement(np.stack([member_targets(models, f, crops) for f in files]), labels)


def make_bank(out: Path, count: int, seed: int, data_root: Path, extra: tuple[Path, ...],
              hold_out: tuple[str, ...], teacher_dir: Path) -> None:
    """`count` training crops (the shipped recipe's: train.face_sample and its changes),
    their labels and the teacher's reads, in one .npz."""
    import torch

    from vision.training import train

    torch.manual_seed(seed)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    teacher = FaceReader(teacher_dir)
    sizes = {size for _, _, size in teacher.members}
    if sizes != {CROP}:
        raise SystemExit(f"the teacher's members read {sorted(sizes)} px crops; this needs {CROP}")
    # The shipped recipe (vision/models/train_meta.json): --new-background 0.3
    # --colour-swap 0.1 --crop-share 0.1 --balance 0; train's settings as they were after.
    settings = (train.NEW_BG, train.SWAP, train.CROPS, train.BALANCE)
    before = [v[0] for v in settings]
    for v, recipe in zip(settings, (0.3, 0.1, 0.1, 0.0)):
        v[0] = recipe
    try:
        crops, labels = _cut(count, data_root, extra, hold_out, teacher_dir, rng)
    finally:
        for v, old in zip(settings, before):
            v[0] = old
    t0 = time.time()
    probs, agree = teacher_reads(teacher, crops)
    print(f"read by the teacher in {time.time() - t0:.0f} s: its top class is the label for "
          f"{np.mean(probs.argmax(1) == labels):.1%}, its reads agree on {agree.mean():.1%}",
          flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, crops=crops, labels=labels, probs=probs, agree=agree,
                        teacher=str(teacher_dir.resolve()),
                        hold_out=np.asarray(hold_out, dtype=str))


def _cut(count: int, data_root: Path, extra: tuple[Path, ...], hold_out: tuple[str, ...],
         teacher_dir: Path, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`count` crops as vision.training.train cuts them (its settings as they are), and
    their labels."""
    from vision.training import data, train

    photos = [p for p in data.load_all(data_root, extra, hold_out) if not p.val]
    if not photos:
        raise SystemExit(f"no training photos under {data_root} (and the extra sets)")
    photos += train.garbage_photos(40, rng)  # train --garbage's default
    pool = train.pool_of(photos, rng)
    negatives, _ = train.mine(teacher_dir / "detector.onnx", photos)
    crops_set = data.load_crops(data_root, hold_out)
    dice, cum = train.dice_draws(pool)
    print(f"{len(photos)} photos, {len(dice)} dice, {len(negatives)} hard negatives, "
          f"{len(crops_set)} single-die crops", flush=True)
    t0 = time.time()
    crops = np.empty((count, CROP, CROP, 3), np.uint8)
    labels = np.empty(count, np.int64)
    for i in range(count):
        img, label = train.face_sample(pool, dice, negatives, rng, (), cum, crops_set)
        crops[i] = train.changed(img, rng)
        labels[i] = label
    print(f"{count} crops cut in {time.time() - t0:.0f} s", flush=True)
    return crops, labels


def turned(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crops (n, S, S, 3) each turned a random quarter turn, half of them mirrored."""
    out = np.empty_like(x)
    for i, c in enumerate(x):
        c = np.rot90(c, int(rng.integers(4)))
        out[i] = c[:, ::-1] if rng.random() < 0.5 else c
    return out


def member_targets(teacher_dir: Path, member: str, crops: np.ndarray) -> np.ndarray:
    """(n, 8): one member of the teacher's (its file name in faces.json) on the crops,
    read alone as the reader reads a die (its calibrated probabilities over its views),
    not capped."""
    meta = json.loads((teacher_dir / "faces.json").read_text())
    entry = [m for m in meta.get("members", []) if m["file"] == member]
    if not entry:
        raise SystemExit(f"{member} is not one of the classifiers in {teacher_dir / 'faces.json'}")
    probs, _ = teacher_reads(FaceReader(teacher_dir, entry), crops)
    return probs


def train_student(banks: list[Path], out: Path, steps: int, width: int, seed: int,
                  init: str | None, lr: float, label_weight: float, threads: int,
                  member: str | None = None) -> None:
    """`member`: learn that one classifier of the banks' teacher (its own reads of the
    crops) instead of the six together."""
    import torch
    import torch.nn.functional as F

    from vision.training import train
    from vision.training.nets import FaceNet, freeze_norms, load_onnx

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    missing = [str(b) for b in banks if not Path(b).is_file()]
    if missing:
        raise SystemExit(f"no such bank: {', '.join(missing)} (make one with `distil bank`)")
    parts = [np.load(b) for b in banks]
    if len({(str(p["teacher"]), tuple(p["hold_out"])) for p in parts}) > 1:
        raise SystemExit("the banks were read by different teachers or hold different sets "
                         "out: a student learns from one teacher, one fold")
    crops = np.concatenate([p["crops"] for p in parts])
    labels = np.concatenate([p["labels"] for p in parts])
    if member:
        t0 = time.time()
        targets = member_targets(Path(str(parts[0]["teacher"])), member, crops)
        print(f"{member} read them in {time.time() - t0:.0f} s", flush=True)
    else:
        targets = np.concatenate([capped_targets(p["probs"], p["agree"]) for p in parts])
    print(f"{len(crops)} crops; the targets' top class is the label for "
          f"{np.mean(targets.argmax(1) == labels):.1%}", flush=True)
    net = FaceNet(width, CROP)
    if init:
        net = freeze_norms(load_onnx(net, init))
    opt = torch.optim.AdamW(net.parameters(), lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    t0 = time.time()
    for step in range(steps):
        idx = rng.integers(0, len(crops), 64)
        x = train.to_tensor(list(turned(crops[idx], rng)))
        t = torch.from_numpy(targets[idx])
        z = net(x)
        logp = F.log_softmax(z, dim=1)
        loss = -(t * logp).sum(dim=1).mean()
        if label_weight:
            loss = loss + label_weight * F.nll_loss(logp, torch.from_numpy(labels[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0:
            print(f"student {step}/{steps} loss {loss.item():.4f} {time.time() - t0:.0f}s",
                  flush=True)
    out.mkdir(parents=True, exist_ok=True)
    train.export(net.eval(), (1, 3, CROP, CROP), out / "faces.onnx")
    (out / "distil_meta.json").write_text(json.dumps(
        {"banks": [str(b) for b in banks], "crops": len(crops), "steps": steps,
         "width": width, "seed": seed, "init": init, "lr": lr, "label_weight": label_weight,
         "teacher": str(parts[0]["teacher"]), "member": member,
         "hold_out": [str(h) for h in parts[0]["hold_out"]]}, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bank", help="cut training crops and have the teacher read them")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--count", type=int, default=60000)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--data", type=Path, default=Path("../shared/data/dice"))
    b.add_argument("--extra-set", action="append", default=[], type=Path, metavar="DIR")
    b.add_argument("--hold-out", action="append", default=[], metavar="NAME")
    b.add_argument("--teacher", type=Path, default=None,
                   help="the teacher's model folder (default: the reader's)")
    t = sub.add_parser("train", help="fit one classifier to the banks' targets")
    t.add_argument("--bank", action="append", type=Path, required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--steps", type=int, default=8000)
    t.add_argument("--width", type=int, default=12)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--init", help="ONNX classifier to start from (same width)")
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--label-weight", type=float, default=0.0)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--member", metavar="FILE",
                   help="learn this one classifier of the teacher's (e.g. faces_c.onnx), "
                        "not the six together")
    g = sub.add_parser("agree", help="how the classifiers of model folders agree on a "
                                     "bank's crops")
    g.add_argument("--bank", type=Path, required=True)
    g.add_argument("--models", action="append", type=Path, required=True, metavar="DIR")
    args = ap.parse_args()
    if args.command == "agree":
        if not args.bank.is_file():
            ap.error(f"there is no bank {args.bank}")
        for folder in args.models:  # every folder checked before minutes of reading
            if not (folder / "faces.json").is_file():
                ap.error(f"{folder} has no faces.json: not a model folder")
        with np.load(args.bank) as z:
            crops, labels = z["crops"], z["labels"]
        print(f"{len(crops)} crops of {args.bank}")
        for folder in args.models:
            a = folder_agreement(folder, crops, labels)
            print(f"{folder}: right together {a['right']:.1%}, a pair differs "
                  f"{a['differ']:.1%}, all the same wrong face {a['same_wrong']:.2%}, "
                  f"wrong at 0.9 or more {a['sure_wrong']:.2%}", flush=True)
    elif args.command == "bank":
        if args.count < 1:
            ap.error("--count must be at least 1")
        make_bank(args.out, args.count, args.seed, args.data, tuple(args.extra_set),
                  tuple(args.hold_out), args.teacher or Path(model_dir()))
    else:
        if args.steps < 1:
            ap.error("--steps must be at least 1")
        train_student(args.bank, args.out, args.steps, args.width, args.seed, args.init,
                      args.lr, args.label_weight, args.threads, args.member)


if __name__ == "__main__":
    main()
