"""Learning a table's own dice on the Pi: refit each face classifier's last layer, no torch.

The reader's networks learned from two public photo sets; dice unlike both (the game
box's own dice) read about half right (vision/training/README.md). The table keeps the
frames whose roll the players checked (vision/photolog.py, DATA/dice-photos). From
those, `learn` refits the last layer (a linear map from the numbers the classifier
pools from a crop, its "features": 432, or 576 for the wider ones, to the 8 classes) of
every classifier, with numpy in seconds; the detector and the layers below stay as
trained. Then:

- crops: every detector candidate of a checked photo, found as the reader finds them
  (the profile's rotation, tray and die size; light evened out), labelled with the face
  the players gave, or "not a die" when it lies on no labelled die; a labelled die the
  detector missed is cut at its label. Each crop counts in all 8 turns and mirrorings.
- anchors: the same from the labelled sample photos bundled with the package (dice the
  shipped networks know), so what they read well is not forgotten; and the new layer is
  pulled towards the trained one (L2).
- honesty: each member's softmax temperature is refitted on crops it did not learn from
  (5-fold, by photo), so a refitted layer that is still unsure of the table's dice says
  so; it is never set below the trained member's own (never surer than before).

The result is a model folder (vision/models with each member's head, MEMBER.head.npz,
and new temperatures in faces.json) that `models = "DIR"` under [camera] or
$DICE_MODELS points the reader at. The photo log's held-out fifth ("split": "test") is
never learned from: `learn` scores the bundled and the new weights on it.
Measured: benchmarks/vision_adapt.py.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detect import DieDetector
from vision.evaluate import GROW, Tally, match, score
from vision.faces import CROP, FEATURES, NO_PIPS, NOT_DIE, FaceReader
from vision.onnxnets import MODEL_DIR, load_meta, load_net
from vision.types import Die

SAMPLES = Path(__file__).resolve().parent / "samples"  # the bundled labelled photos
L2 = 1e-2  # pull of the refitted layer towards the trained one
STEPS = 600  # Adam steps (full batch)
RATE = 0.01
FOLDS = 5  # for the temperature: each crop scored by a layer fitted without its photo,
FOLD_STEPS = 200  # ... in fewer steps (the same temperatures as with STEPS, in a third of the time)
MIN_DICE = 20  # labelled dice (not held out) needed to learn from
# A die the detector missed is cut at its label's box and 1.4 times as wide. A table's
# labels are the reader's boxes, often smaller than the public sets' (byler: 0.92 of them
# with the bundled detector, 0.72 with one trained on matteop65 only); cut at those boxes
# alone, learning from the same 87 byler photos read 105 of 158 validation dice against
# 118 with byler's own boxes, and with both cuts 117 (byler's boxes: 115).
MISSED_CUTS = (1.0, 1.4)


class AdaptError(ValueError):
    """The photos or the model folder cannot be learned from (said in a sentence)."""


@dataclass
class Crops:
    """Labelled crops of some photos: each member's features (n, 8 views, K), the
    class of each crop (0-5 faces, 6 no pips, 7 not a die) and which photo it is from."""

    features: list[list[np.ndarray]] = field(default_factory=list)
    classes: list[np.ndarray] = field(default_factory=list)
    photos: list[np.ndarray] = field(default_factory=list)

    def arrays(self) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
        members = len(self.features[0]) if self.features else 0
        return ([np.concatenate([f[m] for f in self.features]) for m in range(members)],
                np.concatenate(self.classes), np.concatenate(self.photos))


def label_class(value: Any) -> int:
    """The classifier's class of a label's value: faces 1-6, else the Event die's faces."""
    if isinstance(value, int) and 1 <= value <= 6:
        return value - 1
    if value in ("blank", "dragon", "rally"):
        return NO_PIPS
    raise AdaptError(f"a label is a face 1-6, blank, dragon or rally, not {value!r}")


def _turns(crops: np.ndarray) -> np.ndarray:
    """(n, 8, 3, S, S): each crop as is, a quarter turn clockwise (the reader's second
    view: vision.faces.VIEWS), the other two turns, and the four mirrored."""
    turns = [np.rot90(crops, k, axes=(2, 3)) for k in (0, 3, 2, 1)]
    turns += [t[..., ::-1] for t in turns]
    return np.stack(turns, 1)


def upright_view(frame: np.ndarray, profile: Any) -> tuple[np.ndarray, int, Any, Any]:
    """The frame as the reader's networks see it (turned upright, light evened out), the
    profile's rotation, and the detector's scale and region (vision.reader.read_dice)."""
    from vision.reader import _ROTATE, detection_view, even_light

    rotation = int(getattr(profile, "rotation", 0) or 0)
    upright = even_light(cv2.rotate(frame, _ROTATE[rotation]) if rotation in _ROTATE else frame)
    return (upright, rotation, *detection_view(profile, rotation, frame.shape))


def photo_crops(frame: np.ndarray, labels: Sequence[dict], faces: FaceReader,
                detector: DieDetector, profile: Any = None) -> tuple[list[np.ndarray], np.ndarray]:
    """Each member's features (n, 8, K) of a labelled photo's crops, and their classes."""
    from vision.reader import _raw_geometry, _to_upright

    upright, rotation, scale, region = upright_view(frame, profile)
    cands = detector.detect(upright, scale=scale, region=region)
    dice = [Die("soldier", None, *_raw_geometry(c, rotation, frame.shape), 0.0) for c in cands]
    centers, sides, classes = [], [], []
    matched = {di: li for li, di in match(dice, list(labels))}
    for di, (c, d) in enumerate(zip(cands, dice)):
        if di in matched:
            classes.append(label_class(labels[matched[di]]["value"]))
        elif any(_inside(d.center, lab["bbox"]) for lab in labels):
            continue  # a second candidate on a labelled die: neither a face nor "not a die"
        else:
            classes.append(NOT_DIE)
        centers.append(c.center)
        sides.append(c.side)
    for li, lab in enumerate(labels):
        if li not in matched.values():  # missed by the detector: cut at the label
            x, y, w, h = (float(v) for v in lab["bbox"])
            up = _to_upright(np.array([[x + w / 2, y + h / 2]]), rotation, frame.shape)[0]
            for scale in MISSED_CUTS:
                centers.append((float(up[0]), float(up[1])))
                sides.append(max(w, h) * scale)
                classes.append(label_class(lab["value"]))
    if not centers:
        return [], np.zeros(0, int)
    feats = []
    turned: dict[int, np.ndarray] = {}  # members reading crops of one size share them
    for path, _, size in faces.members:
        if size not in turned:
            blob = faces.blob(upright, centers, sides, size, faces.paint)
            first = blob.reshape(len(centers), -1, *blob.shape[1:])[:, 0]
            turned[size] = np.ascontiguousarray(_turns(first).reshape(-1, *first.shape[1:]))
        f = load_net(path).outputs(turned[size], [FEATURES])[0]
        feats.append(f.reshape(len(centers), 8, -1).astype(np.float32, copy=False))
    return feats, np.array(classes)


def _inside(point: tuple[float, float], bbox: Sequence[float]) -> bool:
    x, y, w, h = bbox
    return (abs(point[0] - x - w / 2) <= w * (1 + GROW) / 2
            and abs(point[1] - y - h / 2) <= h * (1 + GROW) / 2)


def labelled_photos(folder: Path, split: str | None = None
                    ) -> Iterator[tuple[np.ndarray, list[dict]]]:
    """(frame, labels) of every photo of a labelled set (a photo log, or a bundled sample
    set); with `split`, only those whose "split" is that ("test": the held-out fifth)."""
    for e in json.loads((folder / "manifest.json").read_text())["images"]:
        if split is None or e.get("split", "train") == split:
            frame = cv2.imread(str(folder / e["file"]))
            if frame is not None:
                yield frame, e["dice"]


def set_crops(folder: Path, faces: FaceReader, detector: DieDetector, profile: Any = None,
              *, split: str | None = None) -> Crops:
    """Labelled crops of the photos of a set (labelled_photos)."""
    out = Crops()
    for n, (frame, labels) in enumerate(labelled_photos(folder, split)):
        feats, classes = photo_crops(frame, labels, faces, detector, profile)
        if len(classes):
            out.features.append(feats)
            out.classes.append(classes)
            out.photos.append(np.full(len(classes), n))
    return out


def fit_head(x: np.ndarray, y: np.ndarray, weight: np.ndarray, bias: np.ndarray, *,
             l2: float = L2, steps: int = STEPS) -> tuple[np.ndarray, np.ndarray]:
    """A last layer (weight (8, K), bias (8,)) fitted to features x (n, K) and classes y
    by softmax cross-entropy, starting from and pulled towards (l2) the given one."""
    x = x.astype(np.float32, copy=False)  # twice as fast as float64, and as good here
    w0, w, b = weight.astype(np.float32), weight.astype(np.float32), bias.astype(np.float32)
    onehot = np.eye(w.shape[0], dtype=np.float32)[y]
    moments = [np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)]
    for t in range(1, steps + 1):
        z = x @ w.T + b
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        g = (p - onehot) / len(y)
        grads = (g.T @ x + 2 * l2 * (w - w0), g.sum(0))
        for k, (param, grad) in enumerate(zip((w, b), grads)):
            m, v = moments[2 * k], moments[2 * k + 1]
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad ** 2
            param -= RATE * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w.astype(np.float64), b.astype(np.float64)


def nll(z: np.ndarray, y: np.ndarray, t: float) -> float:
    """Mean negative log-likelihood of classes y under softmax(z / t)."""
    s = z / t
    s = s - s.max(1, keepdims=True)
    logp = s - np.log(np.exp(s).sum(1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


def best_temperature(z: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature (0.3-5) that fits logits z (n, 8) to classes y best."""
    grid = np.exp(np.linspace(np.log(0.3), np.log(5), 200))
    return float(grid[np.argmin([nll(z, y, g) for g in grid])])


def _training_set(table: Crops, anchors: Crops, member: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (n * 8 views, K), classes, photo of each row (anchors: -1)."""
    tf, ty, tp = table.arrays()
    xs, ys, ps = [tf[member]], [ty], [tp]
    if anchors.features:
        af, ay, _ = anchors.arrays()
        xs.append(af[member])
        ys.append(ay)
        ps.append(np.full(len(ay), -1))
    x = np.concatenate(xs)
    views = x.shape[1]
    return (x.reshape(-1, x.shape[2]), np.repeat(np.concatenate(ys), views),
            np.repeat(np.concatenate(ps), views))


def member_head(table: Crops, anchors: Crops, member: int, weight: np.ndarray,
                bias: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """One member's refitted layer and temperature: the layer from all crops, the
    temperature from each table crop's logits under a layer fitted without its photo
    (the reader's two views averaged, as at play time)."""
    x, y, photo = _training_set(table, anchors, member)
    tf, ty, tp = table.arrays()
    held = np.unique(tp)
    folds = np.array_split(np.random.default_rng(0).permutation(held), min(FOLDS, len(held)))
    z = np.zeros((len(ty), weight.shape[0]))
    for fold in folds:
        w, b = fit_head(x[~np.isin(photo, fold)], y[~np.isin(photo, fold)], weight, bias,
                        steps=FOLD_STEPS)
        rows = np.isin(tp, fold)
        z[rows] = (tf[member][rows][:, :2] @ w.T + b).mean(1)
    w, b = fit_head(x, y, weight, bias)
    return w, b, best_temperature(z, ty)


def trained_head(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A classifier's own last layer (weight (8, K), bias (8,)), read from its ONNX file
    by OpenCV DNN (needs no onnx package) and checked against the network's output."""
    net = cv2.dnn.readNetFromONNX(str(path))
    if FEATURES not in net.getUnconnectedOutLayersNames():
        raise AdaptError(f"{path.name} has no '{FEATURES}' output: run "
                         f"python -m vision.training.add_features {path.parent}")
    last = [n for n in net.getLayerNames() if net.getLayer(n).type in ("Gemm", "InnerProduct")]
    if len(last) != 1:
        raise AdaptError(f"{path.name}: not a face classifier with one linear last layer")
    weight = net.getParam(last[0], 0).astype(np.float64)
    bias = net.getParam(last[0], 1).astype(np.float64).ravel()
    blob = np.random.default_rng(0).uniform(-0.5, 0.5, (4, 3, CROP, CROP)).astype(np.float32)
    net.setInput(blob)
    z, f = net.forward(["y", FEATURES])
    if weight.shape != (z.shape[1], f.shape[1]) or not np.allclose(
            f @ weight.T + bias, z, atol=1e-3):
        raise AdaptError(f"{path.name}: its last layer could not be read back")
    return weight, bias


def score_set(folder: Path, models: Path, profile: Any = None, split: str = "test") -> Tally:
    """How the reader with `models` reads a labelled set's `split` photos, each photo
    scored as a roll too (vision.evaluate.roll_outcome)."""
    from vision.reader import read_dice

    total = Tally()
    for frame, labels in labelled_photos(folder, split):
        # The folder is passed, not set in $DICE_MODELS: the camera may be reading meanwhile.
        reading = read_dice(frame, profile=profile, models=models)
        total.add(score(list(reading.dice), labels, reading.warnings))
    return total


def replace_folder(new: Path, dest: Path) -> None:
    """Put the folder `new` in the place of `dest` (which may be in use by the reader):
    the old one is moved aside first and removed last, so `dest` is missing only between
    two renames."""
    old = dest.with_name(f".{dest.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if dest.exists():
        dest.rename(old)
    new.rename(dest)
    shutil.rmtree(old, ignore_errors=True)


def learn(photos: Path, out: Path, *, base: Path = MODEL_DIR, profile: Any = None,
          anchors: Sequence[Path] | None = None) -> dict[str, Any]:
    """Refit the last layers of `base`'s classifiers on the photo log `photos` (its
    photos not held out) plus the anchor sets (default: the bundled samples), and write
    the model folder `out`. Returns what it learned from and the temperatures."""
    photos, out, base = Path(photos), Path(out), Path(base)
    if not (photos / "manifest.json").is_file():
        raise AdaptError(f"{photos} holds no labelled photos (no manifest.json)")
    if out.resolve() == base.resolve():
        raise AdaptError("write the new weights to another folder than the ones they start from")
    learned = [e for e in json.loads((photos / "manifest.json").read_text())["images"]
               if e.get("split", "train") == "train"]
    dice = sum(len(e["dice"]) for e in learned)
    if dice < MIN_DICE:
        raise AdaptError(f"{photos} has {dice} checked dice to learn from; "
                         f"at least {MIN_DICE} are needed (play a few more rolls)")
    meta = load_meta(str(base / "faces.json"))
    members = [dict(m) for m in (meta.get("members") or [{"file": "faces.onnx",
                                                        "temperature": 1.0}])]
    heads = [trained_head(base / m["file"]) for m in members]
    anchor_sets = [SAMPLES / d for d in sorted(os.listdir(SAMPLES))] if anchors is None \
        else [Path(a) for a in anchors]
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(base, tmp, ignore=shutil.ignore_patterns("*.head.npz"))
    try:
        detector = DieDetector(base / "detector.onnx")
        faces = FaceReader(base, [{**m, "head": None} for m in members])
        table = set_crops(photos, faces, detector, profile, split="train")
        if not table.classes:
            raise AdaptError(f"none of the photos in {photos} could be read")
        anchor = Crops()
        for folder in anchor_sets:
            part = set_crops(folder, faces, detector, None)
            anchor.features += part.features
            anchor.classes += part.classes
            anchor.photos += part.photos
        for i, (m, (w0, b0)) in enumerate(zip(members, heads)):
            w, b, t = member_head(table, anchor, i, w0, b0)
            # Never surer than the trained layer was fitted to be: the base weights may
            # have seen these photos (then the folds' logits are too sure of them).
            t = max(t, float(m.get("temperature", 1.0)))
            head = Path(m["file"]).with_suffix(".head.npz").name
            np.savez(tmp / head, weight=w.astype(np.float32), bias=b.astype(np.float32))
            m.update(head=head, temperature=round(t, 4))
        (tmp / "faces.json").write_text(json.dumps({
            "members": members, "adapted_from": str(base), "learned_on": str(photos),
            "photos": len(learned), "dice": dice, "anchors": [str(a) for a in anchor_sets],
            "fitted_on": "the photos' crops, 5-fold by photo (vision/adapt.py)"},
            indent=1) + "\n")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    replace_folder(tmp, out)
    return {"photos": len(learned), "dice": dice,
            "temperatures": [m["temperature"] for m in members]}


def no_worse(new: Tally, old: Tally) -> bool:
    """Whether new weights read the held-out photos at least as well as the old ones:
    as many dice right, no more read wrong with confidence >= 0.9, and no more rolls
    the table would play wrong."""
    return (new.correct >= old.correct and new.wrong_confident <= old.wrong_confident
            and new.rolls_wrong <= old.rolls_wrong)


def _tally_line(name: str, t: Tally) -> str:
    return (f"{name} {t.correct}/{t.labelled} right, {t.missed} missed, {t.false} false, "
            f"{t.wrong_confident} wrong and sure (>= 0.9); as rolls, {t.rolls_right} played "
            f"right, {t.rolls_asked} asked, {t.rolls_wrong} played wrong")


@dataclass
class Outcome:
    """What learn_and_install did: whether the new weights are in place, and what to tell
    the players (one sentence a line)."""

    installed: bool
    lines: list[str]


def learn_and_install(photos: Path, dest: Path, *, base: Path, current: Path,
                      profile: Any = None) -> Outcome:
    """Learn from the photo log `photos` starting from `base` (learn), read its held-out
    photos with the weights in use (`current`) and with the new ones, and put the new
    ones in `dest` only when they read those photos no worse (no_worse). Raises
    AdaptError (a sentence) when there is nothing to learn from."""
    photos, dest = Path(photos), Path(dest)
    work = dest.with_name(f".{dest.name}.new")
    started = time.monotonic()
    got = learn(photos, work, base=base, profile=profile)
    took = time.monotonic() - started
    lines = [f"Learned from {got['photos']} photos ({got['dice']} dice) in {took:.0f} s."]
    ok, checked = held_out_check(photos, current, work, profile)
    lines += checked
    if ok:
        replace_folder(work, dest)
        return Outcome(True, lines)
    shutil.rmtree(work, ignore_errors=True)
    return Outcome(False, lines)


def held_out_check(photos: Path, current: Path, new: Path, profile: Any = None
                   ) -> tuple[bool, list[str]]:
    """Whether the weights in `new` may replace those in use (`current`): they read the
    photo log's held-out photos no worse (no_worse); and what to tell the players."""
    old, fresh = score_set(photos, current, profile), score_set(photos, new, profile)
    lines = []
    if old.labelled:
        lines += [f"On the {old.images} photos held out from learning:",
                  _tally_line("weights in use:", old), _tally_line("new weights:", fresh)]
    if old.labelled and no_worse(fresh, old):
        return True, lines
    lines.append("Not installed: " + ("they read the held-out photos worse." if old.labelled
                 else "no photos are held out to check them on yet (a fifth of the kept "
                      "photos are): play more rolls and try again."))
    return False, lines
