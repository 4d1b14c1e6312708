"""Distilling the reader's classifiers into one (vision/training/distil.py): the teacher
is the reader as it reads a die, its targets capped as the reader caps, and the student
learns them."""
import json
import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import DieDetector
from vision.faces import CROP, DISAGREE_CAP, FaceReader
from vision.onnxnets import MODEL_DIR, OrtNet
from vision.training.distil import (
    agreement,
    capped_targets,
    member_targets,
    teacher_reads,
    train_student,
    turned,
)


def _frame_and_dice():
    samples = Path(__file__).resolve().parents[2] / "vision" / "samples"
    image = cv2.imread(str(min(samples.rglob("*.jpg"))))
    cands = DieDetector(MODEL_DIR / "detector.onnx").detect(image)
    assert len(cands) >= 3
    return image, [c.center for c in cands], [c.side for c in cands]


def test_the_teacher_reads_crops_as_the_reader_reads_the_frame() -> None:
    image, centers, sides = _frame_and_dice()
    faces = FaceReader(MODEL_DIR)
    by_frame = faces.read(image, centers, sides)
    crops = np.stack(faces.crops(image, centers, sides, CROP))
    probs, agree = teacher_reads(faces, crops)
    assert np.allclose(probs, [r.probs for r in by_frame], atol=1e-6)
    assert list(agree) == [r.agree for r in by_frame]
    assert faces.read_crops({CROP: []}) == []


def test_one_member_is_read_alone_as_the_reader_would_read_it() -> None:
    image, centers, sides = _frame_and_dice()
    entry = json.loads((MODEL_DIR / "faces.json").read_text())["members"][2]
    alone = FaceReader(MODEL_DIR, [entry])
    crops = np.stack(alone.crops(image, centers, sides, CROP))
    probs = member_targets(MODEL_DIR, entry["file"], crops)
    assert np.allclose(probs, [r.probs for r in alone.read(image, centers, sides)], atol=1e-6)
    assert not np.allclose(probs, teacher_reads(FaceReader(MODEL_DIR), crops)[0], atol=1e-3)
    with pytest.raises(SystemExit, match="not one of the classifiers"):
        member_targets(MODEL_DIR, "faces_z.onnx", crops)


def test_agreement_counts_shared_and_confident_mistakes() -> None:
    one, two, three = np.eye(8)[[1, 2, 3]]
    probs = np.array([[one, one, two, 0.5 * one + 0.5 * three],   # member A
                      [one, two, two, 0.5 * one + 0.5 * three]])  # member B
    labels = np.array([1, 1, 3, 1])
    a = agreement(probs, labels)
    # crop 0 right and sure; crop 1 split (mean top 0.5, the first class, right);
    # crop 2 both the same wrong face at 1.0; crop 3 both unsure, right
    assert a == {"right": 0.75, "differ": 0.25, "same_wrong": 0.25, "sure_wrong": 0.25}
    assert agreement(probs[:1], labels)["differ"] == 0.0
    with pytest.raises(ValueError, match="members, n, classes"):
        agreement(probs[:, :3], labels)


def test_agree_reads_a_bank_with_every_folder(tmp_path: Path, capsys, monkeypatch) -> None:
    from vision.training import distil
    image, centers, sides = _frame_and_dice()
    crops = np.stack(FaceReader(MODEL_DIR).crops(image, centers, sides, CROP))
    labels = teacher_reads(FaceReader(MODEL_DIR), crops)[0].argmax(1)
    labels[0] = (labels[0] + 1) % 6  # the six's read of crop 0 made a wrong label, so
    # twins that read it as the six do share a mistake there
    np.savez(tmp_path / "probe.npz", crops=crops, labels=labels)
    twins = tmp_path / "twins"  # the same classifier twice: never differs
    twins.mkdir()
    entry = json.loads((MODEL_DIR / "faces.json").read_text())["members"][0]
    for name in ("faces.onnx", "faces_b.onnx"):
        shutil.copy(MODEL_DIR / entry["file"], twins / name)
    (twins / "faces.json").write_text(json.dumps(
        {"members": [dict(entry, file="faces.onnx"), dict(entry, file="faces_b.onnx")]}))
    monkeypatch.setattr(sys, "argv", ["distil", "agree", "--bank", str(tmp_path / "probe.npz"),
                                      "--models", str(MODEL_DIR), "--models", str(twins)])
    distil.main()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{len(crops)} crops of ")
    assert out[1].startswith(f"{MODEL_DIR}: right together ")
    assert out[2].startswith(f"{twins}: right together ") and "a pair differs 0.0%" in out[2]
    mine = distil.folder_agreement(twins, crops, labels)
    assert mine["differ"] == 0.0 and mine["same_wrong"] == pytest.approx(1 - mine["right"])
    assert mine["right"] < 1.0


def test_agree_refuses_a_folder_that_is_not_a_model_folder_before_reading(
        tmp_path: Path, capsys, monkeypatch) -> None:
    from vision.training import distil
    np.savez(tmp_path / "probe.npz", crops=np.zeros((1, CROP, CROP, 3), np.uint8),
             labels=np.zeros(1, np.int64))
    monkeypatch.setattr(sys, "argv", ["distil", "agree", "--bank", str(tmp_path / "probe.npz"),
                                      "--models", str(MODEL_DIR), "--models", str(tmp_path)])
    with pytest.raises(SystemExit):
        distil.main()
    out = capsys.readouterr()
    assert "has no faces.json: not a model folder" in out.err and "crops of" not in out.out


def test_a_disagreeing_read_becomes_a_capped_target() -> None:
    probs = np.array([[0.9, 0.06, 0.04, 0, 0, 0, 0, 0],
                      [0.9, 0.06, 0.04, 0, 0, 0, 0, 0],
                      [1.0, 0, 0, 0, 0, 0, 0, 0],
                      [0.4, 0.3, 0.3, 0, 0, 0, 0, 0]], np.float32)
    t = capped_targets(probs, np.array([True, False, False, False]))
    assert np.allclose(t[0], probs[0])  # agreeing views: the teacher's own probabilities
    assert t[1, 0] == pytest.approx(DISAGREE_CAP)
    assert t[1, 1] / t[1, 2] == pytest.approx(0.06 / 0.04)  # the rest keeps its order
    assert np.allclose(t[2, 1:], (1 - DISAGREE_CAP) / 7)  # nothing else had any: even
    assert np.allclose(t[3], probs[3])  # already under the cap
    assert np.allclose(t.sum(1), 1.0)


def test_turned_crops_are_the_same_crops_turned() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (20, CROP, CROP, 3), dtype=np.uint8)
    y = turned(x, np.random.default_rng(1))
    for a, b in zip(x, y):
        variants = [np.rot90(a, k) for k in range(4)]
        variants += [v[:, ::-1] for v in variants]
        assert any(np.array_equal(b, v) for v in variants)
    assert not np.array_equal(x, y)


def test_the_student_learns_the_teachers_targets(tmp_path: Path) -> None:
    """Crops of one flat colour each: the teacher's targets say class 0 for dark ones and
    class 7 for light ones; a short training follows them (a student that ignored its
    targets reads both alike)."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    rng = np.random.default_rng(2)
    n = 400
    dark = rng.random(n) < 0.5
    level = np.where(dark, rng.integers(0, 60, n), rng.integers(190, 255, n))
    crops = np.repeat(level[:, None, None, None], CROP * CROP * 3, 1).reshape(
        n, CROP, CROP, 3).astype(np.uint8)
    probs = np.zeros((n, 8), np.float32)
    probs[dark, 0], probs[~dark, 7] = 1.0, 1.0
    bank = tmp_path / "bank.npz"
    np.savez(bank, crops=crops, labels=np.where(dark, 0, 7), probs=probs,
             agree=np.ones(n, bool), teacher="test", hold_out=np.asarray([], dtype=str))
    train_student([bank], tmp_path / "student", 150, 4, 0, None, 3e-3, 0.0, 1)
    net = OrtNet(str(tmp_path / "student" / "faces.onnx"), 1)
    probe = np.concatenate([np.full((1, 3, CROP, CROP), v / 255.0 - 0.5, np.float32)
                            for v in (20, 230)])
    z = net.run(probe)
    assert z.argmax(1).tolist() == [0, 7]
    assert (tmp_path / "student" / "distil_meta.json").is_file()
    other = tmp_path / "other.npz"
    np.savez(other, crops=crops, labels=np.where(dark, 0, 7), probs=probs,
             agree=np.ones(n, bool), teacher="another", hold_out=np.asarray([], dtype=str))
    with pytest.raises(SystemExit, match="different teachers"):
        train_student([bank, other], tmp_path / "mixed", 5, 4, 0, None, 3e-3, 0.0, 1)
    with pytest.raises(SystemExit, match="no such bank"):
        train_student([tmp_path / "absent.npz"], tmp_path / "none", 5, 4, 0, None, 3e-3, 0.0, 1)
    assert not (tmp_path / "mixed").exists() and not (tmp_path / "none").exists()


def test_a_bank_holds_the_recipes_crops_and_the_teachers_reads(tmp_path: Path) -> None:
    """A small bank cut from the bundled byler photos, given as a table's own set (the
    bundled photos are validation photos, never trained on): every crop with its label and
    the reader's own read of it."""
    pytest.importorskip("torch")
    from vision.training import train
    from vision.training.distil import make_bank

    samples = Path(__file__).resolve().parents[2] / "vision" / "samples" / "byler-2019-12-08"
    table = tmp_path / "table-photos"
    shutil.copytree(samples, table)
    manifest = json.loads((table / "manifest.json").read_text())
    for entry in manifest["images"]:
        entry.pop("split", None)
    (table / "manifest.json").write_text(json.dumps(manifest))
    bank = tmp_path / "bank.npz"
    make_bank(bank, 60, 0, tmp_path / "no-public-sets", (table,), ("rune55-oblique",),
              MODEL_DIR)
    with np.load(bank) as b:
        crops, labels, probs, agree = b["crops"], b["labels"], b["probs"], b["agree"]
        assert str(b["teacher"]) == str(MODEL_DIR.resolve())
        assert list(b["hold_out"]) == ["rune55-oblique"]
    assert crops.shape == (60, CROP, CROP, 3) and crops.dtype == np.uint8
    assert set(labels.tolist()) <= set(range(8)) and len(set(labels.tolist())) > 1
    again, seen = teacher_reads(FaceReader(MODEL_DIR), crops)
    assert np.allclose(probs, again, atol=1e-6) and np.array_equal(agree, seen)
    assert np.mean(probs.argmax(1) == labels) > 0.5  # the teacher reads most of them right
    assert (train.NEW_BG[0], train.SWAP[0], train.CROPS[0], train.BALANCE[0]) == (0, 0, 0, 1)
    with pytest.raises(SystemExit, match="no training photos"):
        make_bank(tmp_path / "none.npz", 5, 0, tmp_path / "no-public-sets", (), (), MODEL_DIR)
    assert train.NEW_BG[0] == 0  # the recipe's settings do not outlive a failed bank
