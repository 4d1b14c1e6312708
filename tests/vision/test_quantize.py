"""The 8-bit model copy (vision/training/quantize.py): a quantized classifier still runs
and reads as the float one does."""
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime.quantization")

from vision.onnxnets import MODEL_DIR, OrtNet
from vision.training.quantize import METHODS, quantize_net


@pytest.mark.parametrize("method", METHODS)
def test_an_int8_classifier_reads_as_the_float_one(tmp_path: Path, method: str) -> None:
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-0.5, 0.5, (16, 3, 36, 36)).astype(np.float32) for _ in range(4)]
    source = MODEL_DIR / "faces.onnx"
    target = tmp_path / "faces.onnx"
    quantize_net(source, target, inputs, tmp_path, method)
    assert target.stat().st_size < source.stat().st_size / 2  # int8 weights
    float_net, int8_net = OrtNet(str(source), 1), OrtNet(str(target), 1)
    probe = rng.uniform(-0.5, 0.5, (32, 3, 36, 36)).astype(np.float32)
    a, b = float_net.run(probe), int8_net.run(probe)
    assert b.shape == a.shape
    assert not np.array_equal(a, b)  # it really is another network
    assert np.mean(a.argmax(1) == b.argmax(1)) >= 0.9


def test_an_unknown_calibration_method_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown calibration method"):
        quantize_net(MODEL_DIR / "faces.onnx", tmp_path / "faces.onnx",
                     [np.zeros((1, 3, 36, 36), np.float32)], tmp_path, "median")
    assert not (tmp_path / "faces.onnx").exists()
