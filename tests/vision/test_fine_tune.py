"""Fine-tuning starts from trained weights (vision.training.nets.load_onnx): the torch
networks, loaded from the bundled ONNX files, compute what those files compute. Needs
torch (the `train` extra); skipped without it."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from vision.onnxnets import MODEL_DIR
from vision.training.nets import Detector, FaceNet, freeze_norms, load_onnx


@pytest.mark.parametrize("name, make, shape", [
    ("detector.onnx", Detector, (1, 3, 96, 128)),
    ("faces.onnx", FaceNet, (4, 3, 36, 36)),
    ("faces_b.onnx", FaceNet, (4, 3, 36, 36)),
])
def test_loaded_networks_compute_what_the_onnx_files_compute(name, make, shape):
    x = np.random.default_rng(1).uniform(-0.5, 0.5, shape).astype(np.float32)
    session = ort.InferenceSession(str(MODEL_DIR / name))
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    net = freeze_norms(load_onnx(make(), str(MODEL_DIR / name)).train())
    with torch.no_grad():  # in training mode, the frozen norms still use their statistics
        got = net(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-3 * np.abs(want).max()
    fresh = make()
    with torch.no_grad():
        assert np.abs(fresh.eval()(torch.from_numpy(x)).numpy() - want).max() > 0.1


def test_weights_of_another_width_are_refused():
    with pytest.raises(ValueError, match="another width"):
        load_onnx(FaceNet(width=16), str(MODEL_DIR / "faces.onnx"))
    with pytest.raises(ValueError, match="convolutions"):
        load_onnx(FaceNet(), str(MODEL_DIR / "detector.onnx"))


def test_kept_reads_hold_the_classifier_only_where_it_read_right():
    """--keep: the pull towards the started-from classifier's reads is zero where the
    new logits equal them, grows as they drift, and ignores the samples it read wrong."""
    from vision.training.train import kept_reads

    t = torch.tensor([[4.0, 0.0, 0.0], [0.0, 3.0, 0.0]])
    y_right, y_mixed = torch.tensor([0, 1]), torch.tensor([0, 2])  # the second read wrong
    assert float(kept_reads(t.clone(), t, y_right)) == pytest.approx(0.0, abs=1e-6)
    drifted = torch.tensor([[0.0, 4.0, 0.0], [0.0, 3.0, 0.0]])
    assert float(kept_reads(drifted, t, y_right)) > 0.5
    wrong_only = torch.tensor([[4.0, 0.0, 0.0], [5.0, 0.0, 0.0]])  # drifts only on the second
    assert float(kept_reads(wrong_only, t, y_mixed)) == pytest.approx(0.0, abs=1e-6)
    assert float(kept_reads(drifted, t, torch.tensor([2, 2]))) == 0.0  # it read neither right
    z = drifted.clone().requires_grad_(True)
    kept_reads(z, t, y_right).backward()
    assert float(z.grad[0, 0]) < 0 < float(z.grad[0, 1])  # pulled back towards class 0
    assert float(z.grad[1].abs().sum()) == pytest.approx(0.0, abs=1e-6)


def test_balanced_negatives_draw_every_photo_set_alike(monkeypatch):
    """--balance-negatives: with --balance 0, the classifier's hard negatives and the
    photos of its background spots come from each set equally often, however many
    renders there are; without the flag every negative and photo is drawn alike."""
    from types import SimpleNamespace

    from vision.training import train

    pool = [(SimpleNamespace(set="renders"), None, None)] * 90 + [
        (SimpleNamespace(set="photos"), None, None)] * 10
    negatives = [(None, 0, 0, 1, None, "renders")] * 300 + [(None, 0, 0, 1, None, "photos")] * 20
    monkeypatch.setattr(train, "BALANCE", [0.0])
    monkeypatch.setattr(train, "BALANCE_NEGATIVES", [False])
    assert train.negative_weights(pool, negatives) == (None, None)
    monkeypatch.setattr(train, "BALANCE_NEGATIVES", [True])
    spots = train.negative_weights(pool, negatives)
    rng = np.random.default_rng(3)
    photos = [pool[train._pick(pool, spots[0], rng)][0].set for _ in range(4000)]
    drawn = [negatives[train._pick(negatives, spots[1], rng)][-1] for _ in range(4000)]
    assert 0.45 < photos.count("photos") / 4000 < 0.55
    assert 0.45 < drawn.count("photos") / 4000 < 0.55
    monkeypatch.setattr(train, "BALANCE", [1.0])  # no balance asked for: nothing to weigh
    assert train.negative_weights(pool, negatives) == (None, None)
