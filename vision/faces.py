"""Reading the upward face of each found die with a small CNN (onnxruntime or OpenCV DNN).

Each candidate is cut from the full-resolution frame (1.25 x its face side, so the
whole face and a little surrounding), shrunk to 36x36, the other candidates painted
over in the tray's colour (a neighbour's pips must not count), and classified, together with
the same crop turned a quarter turn (a die face reads the same either way; a candidate
both views read as the same die face, in the other two quarter turns too), by the
independently trained classifiers faces.json lists (six since the thirty-sixth session,
two of them wider): classes are the faces 1-6, "a face without pips"
(blank / symbol: the Event die) and "not a die". Confidence is the mean of the members'
temperature-calibrated softmax of their logits averaged over the views, capped when any
view disagrees, so an unsure read is reported as unsure. The members faces.json marks
"first" (the two wide ones, since the fiftieth session) read every candidate before the
others, and a candidate they read surely alike in both views (FIRST_SURE) is read so: the
others read only the rest. A member may carry a "head": its last layer refitted on a
table's own dice (vision/adapt.py), read from a small .npz beside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnxnets import load_meta, load_net, model_dir, stamp

FEATURES = "features"  # a classifier's output: what its last layer reads (vision/adapt.py)

CROP = 36
CROP_SCALE = 1.25
NO_PIPS = 6  # class index of a face without pips
NOT_DIE = 7  # class index of "not a die"
CHOICES = 3  # at most this many faces offered for a die the players are asked about
CHOICE_SHARE = 0.02  # ... each at least this share of the pip faces' probability
DISAGREE_CAP = 0.5  # confidence ceiling when the two views read different faces
NEIGHBOUR_HALF = 0.4  # a neighbouring die is painted over in a square this many sides wide / 2


def face_matrix(center: tuple[float, float], side: float, *, angle: float = 0.0,
                flip: bool = False, size: int = CROP) -> np.ndarray:
    """2x3 affine: the square of `side` px around `center` (turned by `angle` degrees,
    optionally mirrored) onto a size x size crop."""
    cx, cy = center
    m = np.vstack([cv2.getRotationMatrix2D((cx, cy), angle, size / side), [0, 0, 1]])
    if flip:
        m = m @ np.array([[-1, 0, 2 * cx], [0, 1, 0], [0, 0, 1]], np.float64)
    m[:2, 2] += np.array([size / 2 - cx, size / 2 - cy])
    return m[:2]


def warp(frame: np.ndarray, m: np.ndarray, size: int) -> np.ndarray:
    """The size x size BGR crop the affine `m` (face_matrix) cuts from the frame."""
    return cv2.warpAffine(frame, m, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def tray_colour(frame: np.ndarray) -> tuple[float, float, float]:
    """The frame's median colour (every 8th pixel): what lies between the dice."""
    return tuple(float(v) for v in np.median(frame[::8, ::8].reshape(-1, 3), axis=0))


def paint_neighbours(crop: np.ndarray, m: np.ndarray, own: tuple[float, float, float],
                     others: np.ndarray, fill: tuple[float, float, float]) -> np.ndarray:
    """The crop (cut with the affine `m`, see face_matrix) with the other dice painted
    over in `fill`, so a neighbour's pips cannot be counted as this die's.

    own: (cx, cy, side) of the die read, in frame pixels; its face square is never
    painted, even where a touching neighbour's square overlaps it. others: (k, 3) rows
    (cx, cy, side) of the other dice (or candidates) in frame pixels; those whose centre
    lies within the die's face, or the die's within theirs, are left alone."""
    pts = np.asarray(others, np.float64).reshape(-1, 3)
    # One inside the other's face (a pip taken for a die, a die and a piece of it) is
    # not a neighbour: painting it would leave a lone pip looking like a die showing 1.
    apart = np.max(np.abs(pts[:, :2] - np.asarray(own[:2])), axis=1)
    pts = pts[apart >= 0.5 * np.maximum(pts[:, 2], own[2])]
    if not len(pts):
        return crop
    size = crop.shape[0]
    k = float(np.hypot(m[0, 0], m[0, 1]))  # crop pixels per frame pixel
    xy = pts[:, :2] @ m[:, :2].T + m[:, 2]
    half = NEIGHBOUR_HALF * pts[:, 2] * k
    near = np.all(np.abs(xy - size / 2) < size / 2 + half[:, None], axis=1)
    if not near.any():
        return crop
    out = crop.copy()
    for (x, y), h in zip(xy[near], half[near]):
        out[max(0, int(y - h)):max(0, int(np.ceil(y + h))),
            max(0, int(x - h)):max(0, int(np.ceil(x + h)))] = fill
    (ox, oy), oh = np.asarray(own[:2]) @ m[:, :2].T + m[:, 2], 0.5 * own[2] * k
    y0, y1 = max(0, int(oy - oh)), max(0, int(np.ceil(oy + oh)))
    x0, x1 = max(0, int(ox - oh)), max(0, int(np.ceil(ox + oh)))
    out[y0:y1, x0:x1] = crop[y0:y1, x0:x1]
    return out


@dataclass(frozen=True)
class FaceRead:
    """One candidate's classification.

    label: 1-6 (pips), "nopips" (a die face without pips) or "none" (not a die).
    confidence: calibrated probability of `label`.
    probs: the 8 class probabilities (faces 1-6, no pips, not a die).
    agree: whether the two views had the same top class.
    """

    label: int | str
    confidence: float
    probs: tuple[float, ...]
    agree: bool

    @property
    def die_probability(self) -> float:
        return 1.0 - self.probs[NOT_DIE]

    def choices(self, share: float = CHOICE_SHARE, most: int = CHOICES) -> tuple[int, ...]:
        """The pip faces worth offering when the players are asked about this die: the
        label first when it is a face, then the likeliest others, each holding at least
        `share` of the pip faces' probability; at most `most`."""
        p = np.asarray(self.probs[:6], np.float64)
        total = float(p.sum())
        if total <= 0:
            return ()
        order = [int(k) for k in np.argsort(-p, kind="stable") if p[k] >= share * total]
        if isinstance(self.label, int) and self.label - 1 in order:
            order.remove(self.label - 1)
            order.insert(0, self.label - 1)
        return tuple(k + 1 for k in order[:most])


VIEWS: tuple[int | None, ...] = (None, cv2.ROTATE_90_CLOCKWISE)  # every candidate
# A candidate both views read as the same die face is looked at in the other two
# quarter turns as well, so a face the networks read surely is read so in all four: on
# photos of dice no network learned from (rune55), 66 rolls played wrong instead of 93.
MORE_VIEWS: tuple[int | None, ...] = (cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)
# The members faces.json marks "first" read every candidate first, in VIEWS; a candidate
# every one of their views reads as the same pip face, at least this surely together, is
# read so, and the other members and turns read only the rest (FaceReader.read_crops): on
# the rune55 photos no network learned from, the two wide members settle 77% of the dice
# straight down and 11% from low angles so, more rolls are played right and none more
# wrong (vision/training/README.md, fiftieth session).
FIRST_SURE = 0.999


def load_head(path: str) -> tuple[np.ndarray, np.ndarray]:
    """A refitted last layer: (weight (8, K), bias (8,)) float32, from an .npz file."""
    return _load_head(path, stamp(path))


@lru_cache(maxsize=8)
def _load_head(path: str, _stamp: int) -> tuple[np.ndarray, np.ndarray]:
    if not Path(path).is_file():
        raise FileNotFoundError(f"classifier head missing: {path}")
    with np.load(path) as f:
        weight, bias = f["weight"].astype(np.float32), f["bias"].astype(np.float32)
    if weight.ndim != 2 or weight.shape[0] != 8 or bias.shape != (8,):
        raise ValueError(f"{path}: a head is an (8, K) weight and an (8,) bias")
    return weight, bias


def _views(crop: np.ndarray, views: tuple[int | None, ...]) -> list[np.ndarray]:
    return [crop if v is None else cv2.rotate(crop, v) for v in views]


def _to_blob(crops: list[np.ndarray], size: int) -> np.ndarray:
    return cv2.dnn.blobFromImages(crops, 1 / 255.0, (size, size), (127.5, 127.5, 127.5),
                                  swapRB=False, crop=False)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class FaceReader:
    """Batched face classification of all candidates of a frame.

    The model folder's faces.json lists the classifiers (independently trained, each
    with its own softmax temperature, and optionally a refitted last layer, "head");
    their calibrated probabilities are averaged, and the confidence is capped at
    DISAGREE_CAP unless every view of every member agrees.
    """

    def __init__(self, folder: str | Path | None = None,
                 members: list[dict] | None = None, *, paint: bool = True,
                 cascade: bool = True) -> None:
        """members: [{"file", "temperature", "crop", "head"}] instead of those in faces.json.
        paint: paint the other candidates out of each crop (paint_neighbours). Off where
        the question is whether candidates are whole dice at all (calibration's zooms):
        a piece of a die, its other pieces painted away, looks like a whole face.
        cascade: let the members marked "first" settle the dice they read surely
        (read_crops); off, every member reads every candidate, as the calibration does:
        it reads a few pictures once, and what it takes for a die there it learns (with
        the cascade, a rendered table's black Event die went unfound in one blank picture
        and its blank face was read less surely in play)."""
        self.paint = paint
        folder = Path(folder or model_dir())
        meta = load_meta(str(folder / "faces.json"))
        members = members or meta.get("members") or [
            {"file": "faces.onnx", "temperature": meta.get("temperature", 1.0)}]
        self.members = [(str(folder / m["file"]), float(m["temperature"]),
                         int(m.get("crop", CROP)))
                        for m in members]
        self.heads = [load_head(str(folder / m["head"])) if m.get("head") else None
                      for m in members]
        # The members read first; none when every member is marked (nothing to skip).
        marked = [i for i, m in enumerate(members) if m.get("first")] if cascade else []
        self.first = marked if len(marked) < len(members) else []

    @staticmethod
    def crops(frame: np.ndarray, centers: list[tuple[float, float]], sides: list[float],
              size: int, paint: bool = True) -> list[np.ndarray]:
        """Every candidate's size x size crop, unturned, with `paint` the other candidates
        painted over (paint_neighbours)."""
        dice = np.array([(x, y, s) for (x, y), s in zip(centers, sides)], np.float64)
        near = np.zeros((len(dice), len(dice)), bool)
        if paint and len(dice) > 1:  # j reaches into i's crop: worth painting
            gap = np.abs(dice[:, None, :2] - dice[None, :, :2]).max(axis=2)
            near = gap < (CROP_SCALE / 2) * dice[:, 2:3] + NEIGHBOUR_HALF * dice[None, :, 2]
            np.fill_diagonal(near, False)
        fill = tray_colour(frame) if near.any() else (0.0, 0.0, 0.0)
        crops = []
        for i, (c, s) in enumerate(zip(centers, sides)):
            m = face_matrix(c, s * CROP_SCALE, size=size)
            crop = warp(frame, m, size)
            crops.append(paint_neighbours(crop, m, dice[i], dice[near[i]], fill)
                         if near[i].any() else crop)
        return crops

    @staticmethod
    def blob(frame: np.ndarray, centers: list[tuple[float, float]], sides: list[float],
             size: int, paint: bool = True, views: tuple[int | None, ...] = VIEWS
             ) -> np.ndarray:
        """The network input: every candidate's crop (FaceReader.crops) in every view of
        `views`, candidate by candidate."""
        crops = FaceReader.crops(frame, centers, sides, size, paint)
        return _to_blob([v for c in crops for v in _views(c, views)], size)

    def logits(self, frame: np.ndarray, centers: list[tuple[float, float]],
               sides: list[float], member: int = 0, blob: np.ndarray | None = None,
               views: tuple[int | None, ...] = VIEWS) -> np.ndarray:
        """(views, n, 8) logits of one member: each crop in every view of `views`.
        `blob`: this member's input, when already cut (members share crops of one size)."""
        if blob is None:
            blob = self.blob(frame, centers, sides, self.members[member][2], self.paint, views)
        return self._run(member, blob, len(views))

    def _run(self, member: int, blob: np.ndarray, views: int) -> np.ndarray:
        """(views, n, 8) logits of one member on `blob`: n crops in `views` views each,
        crop by crop."""
        path = self.members[member][0]
        head = self.heads[member]
        if head is None:
            z = load_net(path).run(blob)
        else:
            weight, bias = head
            z = load_net(path).outputs(blob, [FEATURES])[0] @ weight.T + bias
        return z.reshape(len(blob) // views, views, -1).transpose(1, 0, 2)

    def read_candidates(self, frame: np.ndarray, cands: list) -> list[FaceRead]:
        """read() of detector candidates (anything with .center and .side, frame px)."""
        return self.read(frame, [c.center for c in cands], [c.side for c in cands])

    def read(self, frame: np.ndarray, centers: list[tuple[float, float]],
             sides: list[float]) -> list[FaceRead]:
        """Every candidate read in VIEWS by every member; those read as dice (any class
        but "not a die") with all those views agreeing in MORE_VIEWS too. A read's
        probabilities are the members' mean calibrated softmax of their logits averaged
        over the views."""
        if not centers:
            return []
        sizes = {size for _, _, size in self.members}  # members of one size share crops
        return self.read_crops({size: self.crops(frame, centers, sides, size, self.paint)
                                for size in sizes})

    def read_crops(self, crops: dict[int, list[np.ndarray]]) -> list[FaceRead]:
        """read() of crops already cut (FaceReader.crops, unturned): for each member's
        input side, the candidates' crops of that side, in one order.

        The members marked "first" in faces.json (the two wide ones) read every crop
        first; a crop both views of each of them read as the same pip face, at least
        FIRST_SURE surely together, is read so (settled), and the other members and
        turns read only the rest."""
        sizes = {size for _, _, size in self.members}
        n = len(crops[next(iter(sizes))])
        if not n:
            return []
        blobs = {size: _to_blob([v for c in crops[size] for v in _views(c, VIEWS)], size)
                 for size in sizes}
        known = {i: self._run(i, blobs[self.members[i][2]], len(VIEWS)) for i in self.first}
        settled = self._settled(known) if known else {}
        rest = [j for j in range(n) if j not in settled]
        if rest:
            if settled:  # the rest's rows of each blob, and of what the first members read
                views = len(VIEWS)
                blobs = {size: b.reshape(n, views, *b.shape[1:])[rest].reshape(-1, *b.shape[1:])
                         for size, b in blobs.items()}
                known = {i: z[:, rest] for i, z in known.items()}
            reads = self._read_all({size: [crops[size][j] for j in rest] for size in sizes},
                                   blobs, known)
            settled.update(zip(rest, reads))
        return [settled[j] for j in range(n)]

    def _settled(self, known: dict[int, np.ndarray]) -> dict[int, FaceRead]:
        """{crop index: read} of the crops the first members (`known`: member -> (views,
        n, 8) logits) settle: every view of each reads the same pip face, and their mean
        calibrated probability of it is at least FIRST_SURE."""
        members = list(known)
        n = next(iter(known.values())).shape[1]
        probs = self._probs([known[i].sum(axis=0) for i in members],
                            np.full(n, len(VIEWS)), members)
        tops = np.concatenate([known[i].argmax(axis=-1) for i in members])  # (views, n)
        out = {}
        for j, p in enumerate(probs):
            k = int(p.argmax())
            if k < NO_PIPS and p[k] >= FIRST_SURE and bool(np.all(tops[:, j] == k)):
                out[j] = FaceRead(k + 1, float(p[k]), tuple(float(x) for x in p), True)
        return out

    def _read_all(self, crops: dict[int, list[np.ndarray]], blobs: dict[int, np.ndarray],
                  known: dict[int, np.ndarray]) -> list[FaceRead]:
        """Every crop read by every member in VIEWS (`blobs`; `known`: the logits of the
        members that read them already), and those read as dice with all those views
        agreeing in MORE_VIEWS too."""
        sizes = {size for _, _, size in self.members}
        n = len(crops[next(iter(sizes))])
        logits = [known[i] if i in known else self._run(i, blobs[size], len(VIEWS))
                  for i, (_, _, size) in enumerate(self.members)]
        # Sums over views (n, 8) and every view's top class (n, views) of every member.
        sums = [z.sum(axis=0) for z in logits]
        tops = [list(z.argmax(axis=-1).T) for z in logits]
        count = np.full(n, len(VIEWS))
        probs = self._probs(sums, count)
        # Views that already disagree cap the read whatever the other turns say.
        dice = [j for j, p in enumerate(probs) if int(p.argmax()) != NOT_DIE
                and len({int(k) for t in tops for k in t[j]}) == 1]
        if dice and MORE_VIEWS:
            count[dice] += len(MORE_VIEWS)
            blobs = {size: _to_blob([v for j in dice for v in _views(crops[size][j], MORE_VIEWS)],
                                    size) for size in sizes}
            for i, (_, _, size) in enumerate(self.members):
                z = self._run(i, blobs[size], len(MORE_VIEWS))
                sums[i][dice] += z.sum(axis=0)
                for j, more in zip(dice, z.argmax(axis=-1).T):
                    tops[i][j] = np.concatenate([tops[i][j], more])
            probs = self._probs(sums, count)
        out = []
        for j, p in enumerate(probs):
            k = int(p.argmax())
            seen = np.concatenate([t[j] for t in tops])
            agree = bool(np.all(seen == seen[0]))
            conf = float(p[k]) if agree else min(float(p[k]), DISAGREE_CAP)
            label: int | str = k + 1 if k < 6 else ("nopips" if k == NO_PIPS else "none")
            out.append(FaceRead(label, conf, tuple(float(x) for x in p), agree))
        return out

    def _probs(self, sums: list[np.ndarray], count: np.ndarray,
               members: list[int] | None = None) -> np.ndarray:
        """(n, 8): the members' (all, or those indexed by `members`, whose view sums
        `sums` holds in that order) mean calibrated softmax of their view-averaged logits."""
        which = range(len(self.members)) if members is None else members
        p = np.zeros_like(sums[0], dtype=np.float64)
        for i, z in zip(which, sums):
            p += _softmax(z / count[:, None] / self.members[i][1])
        return p / len(sums)
