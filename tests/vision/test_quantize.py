"""The 8-bit model copy (vision/training/quantize.py): a quantized classifier still runs
and reads as the float one does."""
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime.quantization")

from vision.onnxnets import MODEL_DIR, OrtNet
from vision.training.quantize import (
    METHODS,
    WEIGHTS,
    equal_batches,
    quantize_net,
    record_inputs,
)


@pytest.mark.parametrize("method,weights", [(m, "int7") for m in METHODS]
                         + [("minmax", w) for w in WEIGHTS if w != "int7"])
def test_an_int8_classifier_reads_as_the_float_one(tmp_path: Path, method: str,
                                                   weights: str) -> None:
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-0.5, 0.5, (16, 3, 36, 36)).astype(np.float32) for _ in range(4)]
    source = MODEL_DIR / "faces.onnx"
    target = tmp_path / "faces.onnx"
    quantize_net(source, target, inputs, tmp_path, method, weights)
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
    with pytest.raises(ValueError, match="unknown weight type"):
        quantize_net(MODEL_DIR / "faces.onnx", tmp_path / "faces.onnx",
                     [np.zeros((1, 3, 36, 36), np.float32)], tmp_path, "minmax", "int4")
    assert not (tmp_path / "faces.onnx").exists()


def test_calibration_batches_are_cut_again_to_one_size() -> None:
    inputs = [np.full((n, 3, 4, 4), n, np.float32) for n in (5, 1, 3)]
    batches = equal_batches(inputs, 4)
    assert [len(b) for b in batches] == [4, 4, 4]
    seen = np.concatenate(batches)[:, 0, 0, 0]
    assert list(seen[:9]) == [5] * 5 + [1] + [3] * 3  # every input once, in order
    assert list(seen[9:]) == [5, 5, 5]  # then the first ones again
    assert [len(b) for b in equal_batches(inputs[1:2], 4)] == [1]


def test_the_default_copy_reads_the_readers_own_crops_as_the_float_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the crops read_dice cuts from the bundled photos, the 8-bit copy's top class is
    the float network's almost always, on whatever CPU runs the tests (full int8 weights
    fail this on x86 with AVX2 and no VNNI: 92.8% on an AMD EPYC)."""
    monkeypatch.setenv("DICE_MODELS", str(MODEL_DIR))  # record_inputs sets both; restored after
    monkeypatch.setenv("DICE_RUNTIME", "onnxruntime")
    samples = Path(__file__).resolve().parents[2] / "vision" / "samples"
    seen = record_inputs(MODEL_DIR, samples, 30, False, validation=True)  # all they are
    name = "faces_f.onnx"  # the widest member, the one int8 sums overflowed most
    inputs = np.concatenate(seen[name])
    assert len(inputs) >= 200
    quantize_net(MODEL_DIR / name, tmp_path / name, seen[name], tmp_path)
    a = OrtNet(str(MODEL_DIR / name), 1).run(inputs)
    b = OrtNet(str(tmp_path / name), 1).run(inputs)
    assert np.mean(a.argmax(1) == b.argmax(1)) >= 0.98
