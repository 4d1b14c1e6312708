"""vision.adapt: learning a table's own dice by refitting the classifiers' last layer."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision import adapt
from vision.adapt import AdaptError, fit_head, learn, trained_head
from vision.faces import FaceReader
from vision.onnxnets import MODEL_DIR, _load

SAMPLES = Path(__file__).resolve().parents[2] / "vision" / "samples"


def table_photos(tmp_path: Path, held_out: int = 3) -> Path:
    """A photo log standing in for a table's: the bundled byler photos, the first
    `held_out` of them held out."""
    folder = tmp_path / "dice-photos"
    shutil.copytree(SAMPLES / "byler-2019-12-08", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for i, e in enumerate(manifest["images"]):
        e["split"] = "test" if i < held_out else "train"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.mark.parametrize("runtime", ["onnxruntime", "opencv"])
def test_the_features_output_is_what_the_last_layer_reads(runtime):
    weight, bias = trained_head(MODEL_DIR / "faces.onnx")
    assert weight.shape == (8, 432) and bias.shape == (8,)
    x = np.random.default_rng(1).uniform(-0.5, 0.5, (6, 3, 36, 36)).astype(np.float32)
    net = _load(str(MODEL_DIR / "faces.onnx"), runtime, 1)
    z, f = net.outputs(x, ["y", "features"])
    assert np.allclose(f @ weight.T + bias, z, atol=1e-3)
    assert np.array_equal(net.run(x), z)  # run() still gives the logits


def test_a_member_with_its_own_layer_as_head_reads_as_without(tmp_path, samples):
    members = json.loads((MODEL_DIR / "faces.json").read_text())["members"]
    for name in (m["file"] for m in members):
        weight, bias = trained_head(MODEL_DIR / name)
        np.savez(tmp_path / f"{name}.head.npz", weight=weight, bias=bias)
    plain = FaceReader(MODEL_DIR, members)
    headed = FaceReader(MODEL_DIR, [{**m, "head": str(tmp_path / f"{m['file']}.head.npz")}
                                    for m in members])
    _, image, labels = samples["byler-2019-12-08"][0]
    centers = [(x + w / 2, y + h / 2) for x, y, w, h in (lab["bbox"] for lab in labels)]
    sides = [lab["bbox"][2] for lab in labels]
    a, b = plain.read(image, centers, sides), headed.read(image, centers, sides)
    assert [r.label for r in a] == [r.label for r in b]
    assert np.allclose([r.probs for r in a], [r.probs for r in b], atol=1e-4)


def test_a_head_file_of_the_wrong_shape_is_refused(tmp_path):
    np.savez(tmp_path / "bad.npz", weight=np.zeros((5, 432)), bias=np.zeros(5))
    with pytest.raises(ValueError, match="an \\(8, K\\) weight"):
        FaceReader(MODEL_DIR, [{"file": "faces.onnx", "temperature": 1.0,
                                "head": str(tmp_path / "bad.npz")}])


def test_fit_head_learns_new_classes_and_keeps_the_old_layer_where_pulled():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 20))
    truth = rng.normal(size=(8, 20))
    y = (x @ truth.T).argmax(1)
    w0, b0 = rng.normal(size=(8, 20)), np.zeros(8)
    before = ((x @ w0.T + b0).argmax(1) == y).mean()
    w, b = fit_head(x, y, w0, b0, l2=0.0)
    assert before < 0.3 and ((x @ w.T + b).argmax(1) == y).mean() > 0.9
    w, b = fit_head(x, y, w0, b0)  # pulled towards the old layer as learn() does
    assert ((x @ w.T + b).argmax(1) == y).mean() > before + 0.4
    held, _ = fit_head(x, y, w0, b0, l2=1e4)  # pulled hard: stays where it started
    assert np.abs(held - w0).max() < 0.05


def test_learn_writes_a_model_folder_the_reader_reads_with(tmp_path, samples, monkeypatch):
    photos, out = table_photos(tmp_path), tmp_path / "our-dice"
    got = learn(photos, out, anchors=[SAMPLES / "matteop65-train"])
    manifest = json.loads((photos / "manifest.json").read_text())
    learned = [e for e in manifest["images"] if e["split"] == "train"]
    assert got["photos"] == len(learned) == 9  # the held-out photos are not learned from
    assert got["dice"] == sum(len(e["dice"]) for e in learned)
    meta = json.loads((out / "faces.json").read_text())
    shipped = json.loads((MODEL_DIR / "faces.json").read_text())["members"]
    assert [m["head"] for m in meta["members"]] == [
        m["file"].replace(".onnx", ".head.npz") for m in shipped]  # every member learns
    assert all(0.3 <= m["temperature"] <= 5 for m in meta["members"])
    # The members read first still are (the learned layers are theirs: vision.faces).
    assert [m["file"] for m in meta["members"] if m.get("first")] == [
        m["file"] for m in shipped if m.get("first")] == ["faces_e.onnx", "faces_f.onnx"]
    widths = {m["file"]: m.get("width", 12) for m in shipped}  # first layer's channels
    for m in meta["members"]:
        with np.load(out / m["head"]) as f:  # the pooled 3x3 cells of 4 x width channels
            assert f["weight"].shape == (8, 36 * widths[m["file"]])
            assert not np.allclose(f["weight"], trained_head(MODEL_DIR / m["file"])[0])
    assert (out / "detector.onnx").read_bytes() == (MODEL_DIR / "detector.onnx").read_bytes()
    assert not list(tmp_path.glob(".our-dice*"))  # written beside, then renamed
    # The reader takes the folder, and its reads on the held-out photos are scored,
    # without pointing the camera's reads at it meanwhile.
    monkeypatch.setenv("DICE_MODELS", "")
    tally = adapt.score_set(photos, out)
    assert os.environ["DICE_MODELS"] == ""
    held = [e for e in manifest["images"] if e["split"] == "test"]
    assert tally.images == 3 and tally.labelled == sum(len(e["dice"]) for e in held)
    assert tally.correct >= 0.8 * tally.labelled
    # Each held-out photo is scored as a roll too, as the table would take it.
    assert tally.rolls_right + tally.rolls_asked + tally.rolls_wrong == 3


def test_learn_says_what_is_wrong_with_its_input(tmp_path):
    with pytest.raises(AdaptError, match="no labelled photos"):
        learn(tmp_path / "nothing", tmp_path / "out")
    photos = table_photos(tmp_path, held_out=11)  # one photo left to learn from
    with pytest.raises(AdaptError, match="at least 20 are needed"):
        learn(photos, tmp_path / "out")
    with pytest.raises(AdaptError, match="another folder"):
        learn(photos, MODEL_DIR)
    assert not (tmp_path / "out").exists()


def test_a_classifier_without_features_is_named(tmp_path):
    with pytest.raises(AdaptError, match="add_features"):
        trained_head(MODEL_DIR / "detector.onnx")


def _data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    table_photos(data)
    return data


def test_learn_dice_installs_weights_that_read_the_held_out_photos_no_worse(
        tmp_path, capsys, monkeypatch):
    from companion.cli import main

    data = _data_dir(tmp_path)
    scores = {"old": adapt.Tally(labelled=30, correct=20, images=3, wrong_confident=1),
              "new": adapt.Tally(labelled=30, correct=26, images=3, wrong_confident=1)}
    monkeypatch.setattr(adapt, "score_set", lambda photos, models, profile=None:
                        scores["new" if ".our-dice.new" in str(models) else "old"])
    assert main(["learn-dice", "--data", str(data)]) == 0
    out = capsys.readouterr().out
    assert "Learned from 9 photos" in out and "26/30 right" in out and "Installed as" in out
    assert (data / "our-dice" / "faces.head.npz").is_file()
    assert not (data / ".our-dice.new").exists()
    # Weights that read worse are not installed, and the ones in use stay.
    scores["new"] = adapt.Tally(labelled=30, correct=26, images=3, wrong_confident=2)
    before = (data / "our-dice" / "faces.head.npz").read_bytes()
    assert main(["learn-dice", "--data", str(data)]) == 1
    assert "Not installed: they read the held-out photos worse" in capsys.readouterr().out
    assert (data / "our-dice" / "faces.head.npz").read_bytes() == before
    assert not (data / ".our-dice.new").exists()
    # ... nor ones that read more dice right but would play a roll wrong the old ones asked.
    scores["new"] = adapt.Tally(labelled=30, correct=28, images=3, wrong_confident=1,
                                rolls_right=1, rolls_asked=1, rolls_wrong=1)
    assert main(["learn-dice", "--data", str(data)]) == 1
    assert "1 played wrong" in capsys.readouterr().out
    assert (data / "our-dice" / "faces.head.npz").read_bytes() == before
    # Weights that read better replace the installed ones, and nothing is left beside.
    scores["new"] = adapt.Tally(labelled=30, correct=27, images=3, wrong_confident=0)
    assert main(["learn-dice", "--data", str(data)]) == 0
    assert (data / "our-dice" / "faces.head.npz").is_file()
    assert sorted(p.name for p in data.iterdir()) == ["dice-photos", "our-dice"]


def test_learn_dice_with_out_writes_without_installing(tmp_path, capsys):
    from companion.cli import main

    data = _data_dir(tmp_path)
    assert main(["learn-dice", "--data", str(data), "--out", str(tmp_path / "mine")]) == 0
    out = capsys.readouterr().out
    assert "on the 3 photos held out" in out and "not installed" in out
    assert (tmp_path / "mine" / "faces.json").is_file() and not (data / "our-dice").exists()


def test_learn_dice_without_photos_says_so(tmp_path, capsys):
    from companion.cli import main

    assert main(["learn-dice", "--data", str(tmp_path)]) == 2
    assert "holds no labelled photos" in capsys.readouterr().err


def test_a_turned_camera_gives_the_crops_of_an_upright_one(samples):
    import cv2

    from calibration.profile import Profile
    from vision.adapt import photo_crops
    from vision.detect import DieDetector
    from vision.reader import _to_raw

    detector, faces = DieDetector(MODEL_DIR / "detector.onnx"), FaceReader(MODEL_DIR)
    for _, image, labels in samples["byler-2019-12-08"][:3]:
        raw = cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)  # turned 90 clockwise: upright
        turned = []
        for lab in labels:  # the labels in the raw frame's pixels, as the photo log keeps them
            x, y, w, h = lab["bbox"]
            corners = _to_raw(np.array([[x, y], [x + w, y + h]], float), 90, raw.shape)
            lo, hi = corners.min(axis=0), corners.max(axis=0)
            turned.append({**lab, "bbox": [*map(float, lo), *map(float, hi - lo)]})
        upright_feats, upright_classes = photo_crops(image, labels, faces, detector)
        feats, classes = photo_crops(raw, turned, faces, detector, Profile(rotation=90))
        assert len(classes) > len(labels) / 2
        assert sorted(classes) == sorted(upright_classes)
        assert np.allclose(np.sort(feats[0].sum(axis=(1, 2))),
                           np.sort(upright_feats[0].sum(axis=(1, 2))), rtol=1e-3)
