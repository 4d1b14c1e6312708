"""Train the die detector and the face classifier, export both to ONNX.

    python -m vision.training.train --data ../shared/data/dice --out DIR [--all]

Without --all the validation photos (data.is_validation) are never seen. Needs torch
and onnx (`pip install -e '.[train]'`); run-time inference uses OpenCV's DNN module.
"""
from __future__ import annotations

import argparse
import copy
import json
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.faces import CROP, CROP_SCALE, face_matrix, paint_neighbours, tray_colour, warp
from vision.training import augment, data, synth
from vision.training.nets import FACE_CLASSES, Detector, FaceNet, freeze_norms, load_onnx

DET_W, STRIDE = 320, 4  # network input width for a whole frame; output grid step
PATCH = 160  # training patches: the net is fully convolutional
BIG_DICE = [0.0, 2.0]  # share of detector patches zoomed in further, and how far (--det-big)
SMALL_DICE = [0.0, 0.7]  # share of detector patches zoomed out further, and how far (--det-small)
NOT_DIE = FACE_CLASSES - 1
LR = [3e-3]  # peak learning rate of both networks' one-cycle schedule (--lr)
INIT: dict[str, str] = {}  # "det", "faces": ONNX file each network starts from (--init-det, --init-faces)
DEVICE = [torch.device("cpu")]  # where the networks train (--device); samples are made on the CPU


def _start(net: torch.nn.Module, key: str) -> torch.nn.Module:
    """`net` as initialised, or from the trained weights named by INIT[key], its batch
    norms frozen (nets.load_onnx)."""
    if key not in INIT:
        return net
    print(f"{key}: starting from {INIT[key]}", flush=True)
    return freeze_norms(load_onnx(net, INIT[key]))


ANY_ANGLE = [False]  # every set's photos turned any angle, the angled webcam's too (--any-angle)
SWAP = [0.0]  # chance of a sample's colours inverted, shuffled or taken away (--colour-swap)
NEW_BG = [0.0]  # chance of a sample's surface replaced by a new one (--new-background)
CROPS = [0.0]  # share of the classifier's dice taken from the crop sets (--crop-share)
KEEP = [0.0]  # weight of the started-from classifier's own reads where it reads right (--keep)
KEEP_T = 2.0  # softmax temperature of those reads


def recolour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """With --colour-swap P: with chance P, augment.swap_colours (else no rng drawn)."""
    if SWAP[0] and rng.random() < SWAP[0]:
        return augment.swap_colours(img, rng)
    return img


def resurface(img: np.ndarray, centres: np.ndarray, sides: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """With --new-background P: with chance P, the dice moved onto a new surface
    (augment.new_background; else no rng drawn)."""
    if NEW_BG[0] and rng.random() < NEW_BG[0]:
        return augment.new_background(img, centres, sides, rng)
    return img


def _rotation_range(photo: data.Photo) -> float:
    # The angled webcam's photos are turned a little only; the top-down sets any angle.
    return 20.0 if photo.set.startswith("matteop65") and not ANY_ANGLE[0] else 180.0


def det_sample(photo: data.Photo, image: np.ndarray, labels: np.ndarray,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A training patch, its dice (cx, cy, side in patch pixels) and the dice it shows
    that are not labelled (the photo's ignore boxes, the same way)."""
    h, w = image.shape[:2]
    if BIG_DICE[0] and rng.random() < BIG_DICE[0]:  # a camera close over the dice
        scale = DET_W / w * rng.uniform(1.35, BIG_DICE[1])
    elif SMALL_DICE[0] and rng.random() < SMALL_DICE[0]:  # a camera high over the dice
        scale = DET_W / w * rng.uniform(SMALL_DICE[1], 0.7)
    else:
        scale = DET_W / w * rng.uniform(0.7, 1.35)
    rot = _rotation_range(photo)
    src = (rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h)
    m = augment.affine(src, rng.uniform(-rot, rot), scale, rng.random() < 0.5,
                       (PATCH / 2, PATCH / 2))
    fill = cv2.mean(image)[:3]
    out = cv2.warpAffine(image, m, (PATCH, PATCH), flags=cv2.INTER_AREA,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    pts = augment.transform_points(m, labels[:, :2]) if len(labels) else np.zeros((0, 2))
    lab = np.concatenate([pts, labels[:, 2:3] * scale], 1) if len(labels) else np.zeros((0, 3))
    out = recolour(augment.photometric(resurface(out, lab[:, :2], lab[:, 2], rng), rng), rng)
    inside = (lab[:, 0] >= 0) & (lab[:, 0] < PATCH) & (lab[:, 1] >= 0) & (lab[:, 1] < PATCH)
    ign = photo.ignore
    if len(ign):
        ign = np.concatenate([augment.transform_points(m, ign[:, :2]), ign[:, 2:3] * scale], 1)
    return out, lab[inside], ign


NO_BOXES = np.zeros((0, 3))


def det_targets(lab: np.ndarray, ign: np.ndarray = NO_BOXES) -> np.ndarray:
    """(6, H/4, W/4): heat, log size, dx, dy, regression mask, and where no die may be
    learned as background (within a side of an unlabelled die: `ign` rows cx, cy, side)."""
    gh = gw = PATCH // STRIDE
    t = np.zeros((6, gh, gw), np.float32)
    yy, xx = np.mgrid[0:gh, 0:gw]
    for cx, cy, side in ign:
        near = np.hypot(xx + 0.5 - cx / STRIDE, yy + 0.5 - cy / STRIDE) < 0.6 * side / STRIDE
        t[5][near] = 1.0
    for cx, cy, side in lab:
        gx, gy = cx / STRIDE, cy / STRIDE
        sigma = max(0.7, side / STRIDE / 6)
        g = np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * sigma**2))
        t[0] = np.maximum(t[0], g)
        ix, iy = int(gx), int(gy)
        t[0, iy, ix] = 1.0
        t[1:5, iy, ix] = (np.log(side / 16), gx - ix, gy - iy, 1.0)
    return t


def focal(logit: torch.Tensor, target: torch.Tensor, ignore: torch.Tensor | None = None
          ) -> torch.Tensor:
    """CenterNet's focal loss on the centre heatmap; cells where `ignore` is 1 are never
    counted as background."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg_w = (1 - target) ** 4
    if ignore is not None:
        neg_w = neg_w * (1 - ignore)
    loss = -(pos * (1 - p) ** 2 * torch.log(p) + (1 - pos) * neg_w * p**2 * torch.log(1 - p))
    return loss.sum() / pos.sum().clamp(min=1)


def to_tensor(imgs: list[np.ndarray]) -> torch.Tensor:
    a = np.stack(imgs).astype(np.float32) / 255.0 - 0.5
    return torch.from_numpy(a.transpose(0, 3, 1, 2).copy())


def pool_of(photos: list[data.Photo], rng: np.random.Generator, copies: int = 1,
            solid: bool = False) -> list[tuple]:
    """Each photo as it is and `copies` times with synthetic dice pasted in (incl.
    pip-less faces; `solid`: synth.render_face's more real-looking dice)."""
    pool = []
    for p in photos:
        pool.append((p, p.image, p.labels))
        for _ in range(copies):
            img = p.image.copy()
            labels = synth.paste(img, p.labels, rng, int(rng.integers(2, 6)), event_share=0.5,
                                 solid=solid)
            pool.append((p, img, labels))
    return pool


BALANCE = [1.0]  # photo sets' draw shares go as their size to this power (--balance)
BALANCE_NEGATIVES = [False]  # the classifier's negatives drawn by those shares too


def pool_weights(pool: list[tuple]) -> np.ndarray | None:
    """Each pool item's chance to be drawn: None (uniform), or with --balance below 1
    weighted so that small photo sets are drawn more often (data.set_weights)."""
    if BALANCE[0] == 1:
        return None
    return data.set_weights([item[0].set for item in pool], BALANCE[0])


def train_detector(pool: list[tuple], steps: int, rng: np.random.Generator) -> Detector:
    net = _start(Detector(), "det").to(DEVICE[0])
    opt = torch.optim.AdamW(net.parameters(), LR[0], weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, LR[0], total_steps=steps)
    weights = pool_weights(pool)
    t0 = time.time()
    for step in range(steps):
        imgs, tgts = [], []
        for i in (rng.integers(0, len(pool), 12) if weights is None
                  else rng.choice(len(pool), 12, p=weights)):
            p, img, labels = pool[i]
            out, lab, ign = det_sample(p, img, labels, rng)
            imgs.append(out)
            tgts.append(det_targets(lab, ign))
        x, t = to_tensor(imgs).to(DEVICE[0]), torch.from_numpy(np.stack(tgts)).to(DEVICE[0])
        y = net(x)
        mask = t[:, 4:5]
        reg = (F.l1_loss(y[:, 1:4], t[:, 1:4], reduction="none") * mask).sum() / mask.sum().clamp(
            min=1)
        loss = focal(y[:, 0], t[:, 0], t[:, 5]) + reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 100 == 0:
            print(f"det {step}/{steps} loss {loss.item():.3f} {time.time() - t0:.0f}s", flush=True)
    return net.eval()


CROP_SIZE = [CROP]  # classifier input side in pixels (--crop)
FACE_SCALE = [0.85, 1.2]  # random size of a labelled die's crop, times its face (--face-scale)
AUG = [1.0]  # strength of the classifier's photometric changes (--face-aug)
PAINT = [False]  # paint the other labelled dice out of each crop, as the reader does (--paint)
_FILL: dict[int, tuple[float, float, float]] = {}


def crop(image: np.ndarray, cx: float, cy: float, side: float, angle: float = 0.0,
         flip: bool = False, own: tuple[float, float, float] | None = None,
         others: np.ndarray | None = None) -> np.ndarray:
    """The classifier's crop of `side` px around (cx, cy); with PAINT, the dice `others`
    (rows cx, cy, side, ...) painted over except the face square `own` (cx, cy, side)."""
    m = face_matrix((cx, cy), side, angle=angle, flip=flip, size=CROP_SIZE[0])
    out = warp(image, m, CROP_SIZE[0])
    if PAINT[0] and others is not None and len(others):
        if id(image) not in _FILL:
            _FILL[id(image)] = tray_colour(image)
        own = own or (cx, cy, side / CROP_SCALE)
        out = paint_neighbours(out, m, own, others[:, :3], _FILL[id(image)])
    return out


def _pick(dice: np.ndarray, cum: np.ndarray | None, rng: np.random.Generator) -> int:
    """A die's index: uniform, or by the cumulative weights `cum` (data.dark_weights)."""
    if cum is None:
        return int(rng.integers(len(dice)))
    return min(int(np.searchsorted(cum, rng.random())), len(dice) - 1)


def crop_set_sample(crops: list[data.Crop], rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """A die of the crop sets, cut as the reader cuts a die (any turn, size jittered)."""
    c = crops[rng.integers(len(crops))]
    h, w = c.image.shape[:2]
    side = c.side * CROP_SCALE * rng.uniform(*FACE_SCALE)
    cx, cy = w / 2 + rng.normal(0, 0.05 * c.side), h / 2 + rng.normal(0, 0.05 * c.side)
    return crop(c.image, cx, cy, side, rng.uniform(-180, 180), rng.random() < 0.5), c.value - 1


def face_sample(pool: list[tuple], dice: np.ndarray, negatives: list[tuple],
                rng: np.random.Generator, positives: list[tuple] = (),
                cum: np.ndarray | None = None, crops: list[data.Crop] = (),
                spots: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
                ) -> tuple[np.ndarray, int]:
    """One classifier crop: a die (uniform over all dice, so crowded photos count fully;
    half of them, when given, as the detector cut them; CROPS of them from the crop
    sets), a hard negative, or a random background spot; with --new-background, on a
    new surface at times. `spots`: cumulative weights drawing the photos of the
    background spots and the hard negatives (negative_weights), or None for uniform."""
    img, label = _face_sample(pool, dice, negatives, rng, positives, cum, crops, spots)
    if label != NOT_DIE:
        s = img.shape[0]
        return resurface(img, np.array([[s / 2, s / 2]]), np.array([s / CROP_SCALE]), rng), label
    return resurface(img, np.zeros((0, 2)), np.zeros(0), rng), label


def _face_sample(pool: list[tuple], dice: np.ndarray, negatives: list[tuple],
                 rng: np.random.Generator, positives: list[tuple] = (),
                 cum: np.ndarray | None = None, crops: list[data.Crop] = (),
                 spots: tuple[np.ndarray | None, np.ndarray | None] = (None, None)
                 ) -> tuple[np.ndarray, int]:
    r = rng.random()
    if crops and CROPS[0] and rng.random() < CROPS[0]:
        return crop_set_sample(crops, rng)
    if r < 0.31 and len(positives):
        image, cx, cy, side, value, rot = positives[rng.integers(len(positives))]
        side *= rng.uniform(0.95, 1.05)
        cx, cy = cx + rng.normal(0, 0.03 * side), cy + rng.normal(0, 0.03 * side)
        return crop(image, cx, cy, side, rng.uniform(-rot, rot), rng.random() < 0.5), value - 1
    pi, li = dice[_pick(dice, cum, rng)] if r < 0.62 else (_pick(pool, spots[0], rng), -1)
    p, img, labels = pool[pi]
    rot = _rotation_range(p)
    angle, flip = rng.uniform(-rot, rot), rng.random() < 0.5
    if li >= 0:
        cx, cy, side, value = labels[li]
        own = (cx, cy, side)
        cx, cy = cx + rng.normal(0, 0.07 * side), cy + rng.normal(0, 0.07 * side)
        side *= CROP_SCALE * rng.uniform(*FACE_SCALE)
        return (crop(img, cx, cy, side, angle, flip, own, np.delete(labels, li, 0)),
                int(value) - 1)
    if r < 0.82 and negatives:
        image, cx, cy, side, others, _ = negatives[_pick(negatives, spots[1], rng)]
        side *= rng.uniform(0.9, 1.1)
        return crop(image, cx, cy, side, angle, flip, None, others), NOT_DIE
    h, w = img.shape[:2]
    sides = labels[:, 2] if len(labels) else np.array([40.0])
    avoid = np.concatenate([labels[:, :3], p.ignore]) if len(p.ignore) else labels
    for _ in range(20):
        side = float(rng.choice(sides)) * rng.uniform(0.8, 1.25)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if not len(avoid) or np.all(np.hypot(avoid[:, 0] - cx, avoid[:, 1] - cy)
                                    > 0.75 * np.maximum(avoid[:, 2], side)):
            break
    return crop(img, cx, cy, side * CROP_SCALE, angle, flip, None, labels), NOT_DIE


def negative_weights(pool: list[tuple], negatives: list[tuple]
                     ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """With --balance-negatives (and --balance below 1): cumulative weights that draw the
    photos of the classifier's background spots and its hard negatives (mine) by the
    same set shares as its dice, so that many renders do not crowd out the real photos'
    trays, desks and lips. Otherwise (None, None): every photo and every negative alike.
    Tried in the thirty-second session: a fine-tune read as many false dice with it as
    without (training README)."""
    photos = pool_weights(pool)  # None when --balance is 1
    if not BALANCE_NEGATIVES[0] or photos is None:
        return None, None
    return (np.cumsum(photos),
            np.cumsum(data.set_weights([n[-1] for n in negatives], BALANCE[0]))
            if negatives else None)


def dice_draws(pool: list[tuple], dark: float = 1.0) -> tuple[np.ndarray, np.ndarray | None]:
    """Every labelled die of the pool as (pool item, label) index pairs, and the
    cumulative weights the classifier draws them by (None: uniformly): a dark die `dark`
    times as often as the others (data.dark_weights), and with --balance below 1 each
    photo set by its share (data.set_weights)."""
    dice = np.array([(i, j) for i, item in enumerate(pool) for j in range(len(item[2]))])
    cum = data.dark_weights([item[1:] for item in pool], dice, dark) if dark != 1 else None
    if cum is not None:  # the dark dice carry the weight `dark`, the others 1
        w = np.diff(cum, prepend=0)
        print(f"dark dice: {int(np.sum(~np.isclose(w, w.min() if dark > 1 else w.max())))}"
              f" of {len(dice)}")
    if BALANCE[0] != 1:  # each set's dice drawn by its share, dark ones still `dark` times
        w = data.set_weights([pool[i][0].set for i, _ in dice], BALANCE[0])
        w *= np.diff(cum, prepend=0) * len(dice) if cum is not None else 1.0
        cum = np.cumsum(w) / w.sum()
    return dice, cum


def changed(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A classifier crop as it is trained on: photometric changes at AUG's strength, then
    with --colour-swap its colours at times (recolour)."""
    return recolour(augment.photometric(crop, rng, AUG[0]), rng)


def garbage_photos(count: int, rng: np.random.Generator) -> list[data.Photo]:
    """`count` frames of noise and clutter with no die (synth.garbage), trained on as
    photos without labels."""
    return [data.Photo("garbage", f"garbage-{i}", synth.garbage(480, 640, rng),
                       np.zeros((0, 4), np.float32), False) for i in range(count)]


def train_faces(pool: list[tuple], negatives: list[tuple], steps: int,
                rng: np.random.Generator, width: int = 12, ema: float = 0.0,
                positives: list[tuple] = (), norm: bool = False, dark: float = 1.0,
                crops: list[data.Crop] = ()) -> torch.nn.Module:
    """The trained classifier, or with ema > 0 the exponential moving average of its
    weights (and batch-norm statistics) over the steps: steadier from run to run."""
    net = _start(FaceNet(width, CROP_SIZE[0], norm), "faces").to(DEVICE[0])
    avg = torch.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(ema),
        use_buffers=True) if ema else None
    opt = torch.optim.AdamW(net.parameters(), LR[0], weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, LR[0], total_steps=steps)
    dice, cum = dice_draws(pool, dark)
    spots = negative_weights(pool, negatives)
    teacher = _teacher(net)
    t0 = time.time()
    for step in range(steps):
        batch = [face_sample(pool, dice, negatives, rng, positives, cum, crops, spots)
                 for _ in range(64)]
        x = to_tensor([changed(b[0], rng) for b in batch]).to(DEVICE[0])
        y = torch.tensor([b[1] for b in batch], device=DEVICE[0])
        z = net(x)
        loss = F.cross_entropy(z, y)
        if teacher is not None:
            loss = loss + KEEP[0] * kept_reads(z, teacher(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if avg is not None:
            avg.update_parameters(net)
        if step % 200 == 0:
            print(f"faces {step}/{steps} loss {loss.item():.3f} {time.time() - t0:.0f}s", flush=True)
    return (avg.module if avg is not None else net).eval()


def _teacher(net: torch.nn.Module) -> torch.nn.Module | None:
    """With --keep and --init-faces: a frozen copy of the classifier `net` as started."""
    if not KEEP[0] or "faces" not in INIT:
        return None
    teacher = copy.deepcopy(net).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    return teacher


def kept_reads(z: torch.Tensor, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """How far the logits z are from the started-from classifier's t, on the samples it
    reads right (its top class is the label): the KL divergence of their softmaxes at
    KEEP_T, times KEEP_T squared. Fine-tuned with new dice, a classifier drifts off the
    photos it read well (seventeenth session); this holds it to its own reads there,
    and leaves the label alone to teach where it read wrong."""
    right = (t.argmax(dim=1) == y).float()
    if not bool(right.any()):
        return z.sum() * 0.0
    kl = F.kl_div(F.log_softmax(z / KEEP_T, dim=1), F.log_softmax(t / KEEP_T, dim=1),
                  reduction="none", log_target=True).sum(dim=1)
    return (kl * right).sum() / right.sum() * KEEP_T ** 2


PIECES = [False]  # --piece-negatives
PIECE_COUNT = [0]  # pieces the last mine() kept as negatives


def mine(det_path: Path, photos: list[data.Photo]) -> tuple[list[tuple], list[tuple]]:
    """Run the detector (low threshold) on the training photos. Returns the hard negatives
    (hits far from every labelled die; each ends with its photo set's name) and the
    detector's own crops of labelled dice (hits within half a face of a label, with its
    value), so the classifier also trains on crops placed and sized exactly as the
    reader will cut them.

    With --piece-negatives (PIECES), a hit inside a labelled die but far smaller than its
    face (under data.PIECE of its side: a pip, or a corner of the face) is a hard negative too,
    the die it is part of not painted over: the reader cuts such a piece from a big die and,
    never taught otherwise, reads a lone pip as a 1 (rune55 straight down, read by the
    thirty-fifth session's reader: 450 false dice and 273 dice read wrong are pieces).
    Not in the recipe: fewer false dice, but no more rolls played right (README.md,
    thirty-sixth session)."""
    from vision.detect import DieDetector

    det = DieDetector(det_path, threshold=0.1)
    negatives, positives = [], []
    PIECE_COUNT[0] = 0
    for p in photos:
        for c in det.detect(p.image):
            if len(p.ignore) and np.any(np.hypot(p.ignore[:, 0] - c.center[0], p.ignore[:, 1]
                                                 - c.center[1]) < p.ignore[:, 2]):
                continue  # a die that is there but not labelled: no negative
            d = np.hypot(p.labels[:, 0] - c.center[0], p.labels[:, 1] - c.center[1])
            item = (p.image, c.center[0], c.center[1], c.side * CROP_SCALE)
            if not len(d) or np.all(d > 0.75 * np.maximum(p.labels[:, 2], c.side)):
                negatives.append((*item, p.labels, p.set))
            elif PIECES[0] and (within := data.piece_of(p.labels, d, c.side)) is not None:
                negatives.append((*item, np.delete(p.labels, within, 0), p.set))
                PIECE_COUNT[0] += 1
            elif d.min() < 0.5 * p.labels[d.argmin(), 2]:
                positives.append((*item, int(p.labels[d.argmin(), 3]), _rotation_range(p)))
    return negatives, positives


def export(net: torch.nn.Module, shape: tuple[int, ...], path: Path) -> None:
    """Write `net` as ONNX. The batch size is left open, and so are the height and width
    of a fully convolutional net (a 4-d output: the detector), so that onnxruntime, which
    checks input shapes against the file, runs any frame size (OpenCV DNN does not check)."""
    net = net.cpu().eval()
    out_dims = net(torch.zeros(shape)).dim()
    axes = {0: "n", 2: "h", 3: "w"} if out_dims == 4 else {0: "n"}
    names, dynamic = ["y"], {"x": axes, "y": axes}
    if isinstance(net, FaceNet):  # also what its last layer reads (vision/adapt.py)
        net, names = WithFeatures(net).eval(), ["y", "features"]
        dynamic["features"] = {0: "n"}
    torch.onnx.export(net, torch.zeros(shape), str(path), opset_version=11,
                      input_names=["x"], output_names=names, dynamo=False,
                      dynamic_axes=dynamic)


class WithFeatures(torch.nn.Module):
    """A face classifier whose ONNX file also gives the features its last layer reads."""

    def __init__(self, net: FaceNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.net.features(x)
        return self.net.fc(f), f


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--all", action="store_true", help="train on validation photos too")
    ap.add_argument("--det-steps", type=int, default=800)
    ap.add_argument("--face-steps", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    ap.add_argument("--skip-det", action="store_true", help="reuse OUT/detector.onnx")
    ap.add_argument("--garbage", type=int, default=40,
                    help="frames of pure noise added as pictures without dice")
    ap.add_argument("--face-width", type=int, default=12, help="classifier's first layer width")
    ap.add_argument("--crop", type=int, default=CROP, help="classifier input side, a multiple of 12")
    ap.add_argument("--ema", type=float, default=0.0,
                    help="export the moving average of the classifier's weights (e.g. 0.999)")
    ap.add_argument("--face-scale", default="0.85,1.2",
                    help="LO,HI: random size of a labelled die's crop, times its face side")
    ap.add_argument("--detector-crops", action="store_true",
                    help="half the classifier's dice cut where the detector puts them")
    ap.add_argument("--input-norm", action="store_true",
                    help="classifier standardises each crop's colour channels first")
    ap.add_argument("--dark-weight", type=float, default=1.0,
                    help="sample dice with dark faces this many times as often")
    ap.add_argument("--train-share", type=float, default=1.0,
                    help="keep only this share of the training photos (a learning curve)")
    ap.add_argument("--face-aug", type=float, default=1.0,
                    help="strength of the classifier's photometric changes (1 = as shipped)")
    ap.add_argument("--paint", action="store_true",
                    help="paint the other dice out of each classifier crop (as vision.faces does)")
    ap.add_argument("--det-only", action="store_true", help="train only the detector")
    ap.add_argument("--any-angle", action="store_true",
                    help="turn the angled webcam's photos any angle too, not only +-20 degrees "
                         "(a camera mounted upside down or sideways)")
    ap.add_argument("--det-small", default="0,0.7",
                    help="SHARE,MIN: this share of detector patches zoomed out MIN-0.7 times "
                         "instead of the usual 0.7-1.35 (dice small in the frame)")
    ap.add_argument("--extra-set", action="append", default=[], type=Path, metavar="DIR",
                    help="also train on this labelled set folder (repeatable): a table's own "
                         "photos, DATA/dice-photos (vision/photolog.py); its 'test' photos "
                         "are held out like the others")
    ap.add_argument("--only-set", action="append", default=[], metavar="NAME",
                    help="train on this photo set only (repeatable): how the reader does on "
                         "dice and trays it never saw is measured on the other set")
    ap.add_argument("--det-big", default="0,2",
                    help="SHARE,MAX: this share of detector patches zoomed in 1.35-MAX times "
                         "further than the usual 0.7-1.35 (dice photographed close)")
    ap.add_argument("--colour-swap", type=float, default=0.0,
                    help="chance of a training sample's colours inverted, shuffled or made "
                         "grey (both networks): dice and trays unlike the photos'")
    ap.add_argument("--hold-out", action="append", default=[], metavar="NAME",
                    help="never train on this photo or crop set (repeatable): leave-one-source-"
                         "out folds (benchmarks/vision_loso.py)")
    ap.add_argument("--new-background", type=float, default=0.0,
                    help="chance of a training sample's dice moved onto a new surface of any "
                         "colour and texture (both networks)")
    ap.add_argument("--crop-share", type=float, default=0.0,
                    help="share of the classifier's dice taken from the single-die crop sets "
                         "(../dice-crops beside --data)")
    ap.add_argument("--balance", type=float, default=1.0,
                    help="draw each photo set as often as its size to this power (1: every "
                         "photo alike; 0: every set alike, so the renders and the big rune55 "
                         "sets do not drown byler's and matteop65's photos)")
    ap.add_argument("--piece-negatives", action="store_true",
                    help="a hit inside a labelled die, far smaller than its face (a pip), is "
                         "a hard negative for the classifier (mine)")
    ap.add_argument("--balance-negatives", action="store_true",
                    help="with --balance below 1: draw the classifier's hard negatives and "
                         "background spots by the same set shares as its dice, not every "
                         "photo alike (renders would otherwise crowd out the real photos')")
    ap.add_argument("--synth-copies", type=int, default=1,
                    help="copies of each photo with synthetic dice pasted in")
    ap.add_argument("--solid-synth", action="store_true",
                    help="synthetic dice with side faces, glints and translucent bodies")
    ap.add_argument("--lr", type=float, default=3e-3,
                    help="peak learning rate (lower when fine-tuning from --init-*)")
    ap.add_argument("--init-det", metavar="ONNX",
                    help="fine-tune the detector from these trained weights instead of "
                         "training it from scratch")
    ap.add_argument("--init-faces", metavar="ONNX",
                    help="fine-tune the classifier from these trained weights (same "
                         "--face-width and --crop)")
    ap.add_argument("--keep", type=float, default=0.0,
                    help="with --init-faces: weight of the started-from classifier's own "
                         "reads on the samples it reads right (learning without forgetting)")
    ap.add_argument("--device", default="cpu",
                    help="where the networks train: cpu, or cuda on a machine with an NVIDIA "
                         "GPU (the samples are still made on the CPU; the weights exported "
                         "are the same small ONNX networks)")
    args = ap.parse_args()
    try:
        device = torch.device(args.device)
    except RuntimeError:
        ap.error(f"--device {args.device}: not a device torch knows (cpu, cuda, cuda:1, ...)")
    if device.type == "cuda" and not torch.cuda.is_available():
        ap.error(f"--device {args.device}: torch sees no CUDA GPU here")
    DEVICE[0] = device
    if not 0 <= args.balance <= 1:
        ap.error("--balance must be between 0 and 1")
    if args.keep < 0 or (args.keep and not args.init_faces):
        ap.error("--keep needs --init-faces (the classifier whose reads are kept) and a "
                 "weight of 0 or more")
    BALANCE[0] = args.balance
    BALANCE_NEGATIVES[0] = args.balance_negatives
    PIECES[0] = args.piece_negatives
    LR[0] = args.lr
    INIT.clear()
    INIT.update({k: v for k, v in (("det", args.init_det), ("faces", args.init_faces)) if v})
    SWAP[0] = args.colour_swap
    NEW_BG[0] = args.new_background
    CROPS[0] = args.crop_share
    KEEP[0] = args.keep
    torch.set_num_threads(args.threads)
    CROP_SIZE[0] = args.crop
    AUG[0] = args.face_aug
    PAINT[0] = args.paint
    BIG_DICE[:] = [float(v) for v in args.det_big.split(",")]
    SMALL_DICE[:] = [float(v) for v in args.det_small.split(",")]
    ANY_ANGLE[0] = args.any_angle
    FACE_SCALE[:] = [float(v) for v in args.face_scale.split(",")]
    torch.manual_seed(args.seed)
    cv2.setNumThreads(1)
    rng = np.random.default_rng(args.seed)
    photos = [p for p in data.load_all(args.data, tuple(args.extra_set), tuple(args.hold_out))
              if args.all or not p.val]
    if args.only_set:
        photos = [p for p in photos if p.set in args.only_set]
    if args.train_share < 1:  # a fixed subset, by a hash of the name, the same for every seed
        photos = [p for p in photos if data.hash_share(p.file) < args.train_share]
    photos += garbage_photos(args.garbage, rng)
    print(f"training on {len(photos)} photos, {sum(len(p.labels) for p in photos)} dice")
    pool = pool_of(photos, rng, args.synth_copies, args.solid_synth)
    args.out.mkdir(parents=True, exist_ok=True)
    det_path = args.out / "detector.onnx"
    if not args.skip_det:
        export(train_detector(pool, args.det_steps, rng), (1, 3, 240, DET_W), det_path)
    if args.det_only:
        return
    negatives, positives = mine(det_path, photos)
    print(f"{len(negatives)} hard negatives ({PIECE_COUNT[0]} of them pieces of a die), "
          f"{len(positives)} detector crops of dice")
    by_set = Counter(n[-1] for n in negatives)
    print("hard negatives by set: " + ", ".join(f"{k} {v}" for k, v in by_set.most_common()))
    if not args.detector_crops:
        positives = []
    crops = data.load_crops(args.data, tuple(args.hold_out)) if args.crop_share else []
    print(f"{len(crops)} single-die crops")
    export(train_faces(pool, negatives, args.face_steps, rng, args.face_width, args.ema,
                       positives, args.input_norm, args.dark_weight, crops),
           (1, 3, args.crop, args.crop), args.out / "faces.onnx")
    meta = {"crop": args.crop, "face_width": args.face_width, "crop_scale": CROP_SCALE,
            "det_width": DET_W, "stride": STRIDE, "trained_on_validation": bool(args.all),
            "seed": args.seed, "face_steps": args.face_steps, "ema": args.ema,
            "face_scale": FACE_SCALE, "detector_crops": bool(args.detector_crops),
            "input_norm": bool(args.input_norm), "dark_weight": args.dark_weight,
            "train_share": args.train_share, "face_aug": args.face_aug, "paint": args.paint,
            "any_angle": args.any_angle, "only_set": args.only_set,
            "extra_sets": [str(p) for p in args.extra_set], "colour_swap": args.colour_swap,
            "synth_copies": args.synth_copies, "solid_synth": args.solid_synth,
            "hold_out": args.hold_out, "new_background": args.new_background,
            "crop_share": args.crop_share, "balance": args.balance,
            "balance_negatives": args.balance_negatives,
            "piece_negatives": args.piece_negatives, "lr": args.lr,
            "init_det": args.init_det, "init_faces": args.init_faces, "keep": args.keep,
            "device": args.device}
    (args.out / "train_meta.json").write_text(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
