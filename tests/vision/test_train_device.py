"""`train --device`: the networks train where asked, and a GPU that is not there is a
clear error before any photo is loaded. Needs torch (the `train` extra); skipped without it."""
from __future__ import annotations

import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from vision.training import train


def test_a_gpu_that_is_not_there_is_refused_before_loading_anything(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(train.data, "load_all", lambda *a, **k: pytest.fail("loaded photos"))
    monkeypatch.setattr(sys, "argv", ["train", "--out", str(tmp_path), "--device", "cuda"])
    with pytest.raises(SystemExit) as e:
        train.main()
    assert e.value.code == 2
    assert "torch sees no CUDA GPU here" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
    monkeypatch.setattr(sys, "argv", ["train", "--out", str(tmp_path), "--device", "gpu"])
    with pytest.raises(SystemExit):
        train.main()
    assert "not a device torch knows" in capsys.readouterr().err
    assert train.DEVICE[0].type == "cpu"  # left as it was for whatever trains next


def test_the_exported_network_is_taken_off_the_training_device(tmp_path, monkeypatch):
    """export copies a network trained elsewhere to the CPU first (the ONNX trace runs
    on CPU tensors), and the file computes what the network computes."""
    ort = pytest.importorskip("onnxruntime")
    net = train.FaceNet(12, 36)
    moved = []
    real_cpu = torch.nn.Module.cpu

    def cpu(self):
        moved.append(self)
        return real_cpu(self)
    monkeypatch.setattr(torch.nn.Module, "cpu", cpu)
    path = tmp_path / "faces.onnx"
    train.export(net, (1, 3, 36, 36), path)
    assert net in moved
    x = np.random.default_rng(0).uniform(-0.5, 0.5, (2, 3, 36, 36)).astype(np.float32)
    session = ort.InferenceSession(str(path))
    got = session.run(["y"], {"x": x})[0]
    with torch.no_grad():
        want = net.eval()(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4


def test_keep_without_a_classifier_to_keep_is_refused(tmp_path, monkeypatch, capsys):
    """--keep holds a fine-tune to the started-from classifier's reads: without
    --init-faces there is none, and that is said before any photo is loaded."""
    monkeypatch.setattr(train.data, "load_all", lambda *a, **k: pytest.fail("loaded photos"))
    for extra in (["--keep", "1"], ["--keep", "-1", "--init-faces", "x.onnx"]):
        monkeypatch.setattr(sys, "argv", ["train", "--out", str(tmp_path), *extra])
        with pytest.raises(SystemExit) as e:
            train.main()
        assert e.value.code == 2
        assert "--keep needs --init-faces" in capsys.readouterr().err
