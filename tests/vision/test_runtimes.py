"""The reader's networks run by onnxruntime or by OpenCV DNN: same files, same reads."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from vision import read_dice
from vision.onnxnets import _load, _onnxruntime_installed, model_dir, runtime

pytest.importorskip("onnxruntime")  # a dependency of the package; the fallback is tested too


def _reads(frames, monkeypatch, which):
    monkeypatch.setenv("DICE_RUNTIME", which)
    return [read_dice(frame) for frame in frames]


def test_both_runtimes_read_the_bundled_photos_alike(samples, monkeypatch):
    frames = [image for photos in samples.values() for _, image, _ in photos]
    ort, ocv = _reads(frames, monkeypatch, "onnxruntime"), _reads(frames, monkeypatch, "opencv")
    dice = 0
    for a, b in zip(ort, ocv):
        assert [(d.kind, d.value, d.box, d.color) for d in a.dice] == \
               [(d.kind, d.value, d.box, d.color) for d in b.dice]
        assert np.allclose([d.confidence for d in a.dice], [d.confidence for d in b.dice],
                           atol=1e-3)
        assert [w.code for w in a.warnings] == [w.code for w in b.warnings]
        dice += len(a.dice)
    assert dice > 50  # the photos hold dice: the comparison is not of empty readings


@pytest.mark.parametrize("name, shape", [
    ("detector.onnx", (2, 3, 152, 200)),  # any batch and frame size (a multiple of 4)
    ("faces.onnx", (5, 3, 36, 36)),
    ("faces_b.onnx", (1, 3, 36, 36)),
    ("faces_c.onnx", (3, 3, 36, 36)),
    ("faces_d.onnx", (1, 3, 36, 36)),
    ("faces_e.onnx", (4, 3, 36, 36)),  # wider (first layer 16 channels)
    ("faces_f.onnx", (1, 3, 36, 36)),
])
def test_bundled_networks_take_any_batch_in_both_runtimes(name, shape):
    x = np.random.default_rng(0).uniform(-0.5, 0.5, shape).astype(np.float32)
    path = str(model_dir() / name)
    a, b = _load(path, "onnxruntime", 1).run(x), _load(path, "opencv", 1).run(x)
    assert a.shape[0] == shape[0] and a.shape == b.shape
    assert np.abs(a - b).max() < 1e-3


def test_a_network_onnxruntime_cannot_load_runs_on_opencv(monkeypatch, caplog):
    import vision.onnxnets as nets

    def broken(path, threads):
        raise RuntimeError("onnxruntime says no")

    monkeypatch.setattr(nets, "OrtNet", broken)
    nets._load.cache_clear()
    try:
        net = nets._load(str(model_dir() / "faces.onnx"), "onnxruntime", 1)
    finally:
        nets._load.cache_clear()
    assert isinstance(net, nets.OpenCVNet) and "using OpenCV DNN" in caplog.text
    assert net.run(np.zeros((1, 3, 36, 36), np.float32)).shape == (1, 8)


def test_runtime_follows_the_environment_and_falls_back_to_opencv(monkeypatch):
    monkeypatch.delenv("DICE_RUNTIME", raising=False)
    assert runtime() == "onnxruntime"
    monkeypatch.setenv("DICE_RUNTIME", " OpenCV ")
    assert runtime() == "opencv"
    monkeypatch.setenv("DICE_RUNTIME", "tensorflow")
    with pytest.raises(ValueError, match="DICE_RUNTIME must be one of onnxruntime, opencv"):
        runtime()
    monkeypatch.delenv("DICE_RUNTIME")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    _onnxruntime_installed.cache_clear()
    try:
        assert runtime() == "opencv"
    finally:
        _onnxruntime_installed.cache_clear()


def test_an_opencv_net_shared_by_threads_gives_each_its_own_answer():
    import threading

    net = _load(str(model_dir() / "faces.onnx"), "opencv", 1)
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-0.5, 0.5, (4, 3, 36, 36)).astype(np.float32) for _ in range(2)]
    expected = [net.run(x) for x in inputs]
    wrong = []

    def hammer(i):
        for _ in range(200):
            if not np.array_equal(net.run(inputs[i]), expected[i]):
                wrong.append(i)

    threads = [threading.Thread(target=hammer, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
