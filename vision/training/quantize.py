"""Make an 8-bit copy of a model folder: the same networks with int8 weights and
activations (onnxruntime's static quantization, QDQ format, per-channel weights).

    .venv/bin/python -m vision.training.quantize --out DIR [--models DIR] [--data DIR]
                                                  [--photos N] [--nets faces|all]
                                                  [--method minmax|percentile|entropy]
                                                  [--weights int7|int8|uint8]

The copy's activation ranges are fitted on what the networks see while the reader
reads photos: the training photos of byler and matteop65 (never the validation photos,
never rune55, which no shipped classifier trained on), every input each network is
given by `read_dice` recorded and fed to the quantizer. --nets faces (the default)
quantizes the face classifiers only; all quantizes the detector too. The rest of the
folder (faces.json, the top-face network, ...) is copied as it is, so the copy is read
with DICE_MODELS=DIR by every benchmark. Measure it (benchmarks/vision_accuracy.py
--models DIR, benchmarks/pi_budget.py) before shipping it: int8 changes every read a
little. --method: how an activation's range is fitted from those inputs: minmax (the
default: from the least to the greatest value seen), percentile (the central
PERCENTILE % of the values, so a rare outlier does not coarsen every step) or entropy
(the range whose 8-bit histogram loses least). Needs onnx and onnxruntime (the train
extra).

--weights: int7 (the default) stores the weights as int8 using 7 bits of it, int8 all 8,
uint8 as unsigned bytes. Full int8 weights times uint8 activations are summed in pairs
into 16 bits by x86 CPUs with AVX2 but no VNNI (many laptops), which overflows: there
the networks' answers change (the six classifiers' top classes on the reader's crops of
the bundled photos, against the float networks': 92.4-98.1% the same with int8 weights,
98.5-99.9% with int7 and with uint8, on an AMD EPYC with AVX2). A Pi's ARM cores and
VNNI CPUs sum without overflow, but a model folder must read the same on every machine
the product runs on.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from vision.onnxnets import MODEL_DIR

REPO = Path(__file__).resolve().parents[2]
CALIBRATION_SETS = ("byler-2019-12-08", "matteop65-train")
OPSET = 13  # per-channel weights need DequantizeLinear's axis (opset 13)
METHODS = ("minmax", "percentile", "entropy")
PERCENTILE = 99.999  # of an activation's values kept inside its range (--method percentile)
WEIGHTS = ("int7", "int8", "uint8")  # --weights
BATCH = 64  # inputs a calibration batch (the histogram methods need batches of one size)


def record_inputs(models: Path, data: Path, photos: int, detector: bool, *,
                  validation: bool = False) -> dict[str, list[np.ndarray]]:
    """Every input read_dice gives each face classifier of `models` (and with `detector`
    the detector: its inputs are whole frames) by file name, while it reads up to `photos`
    training photos of each CALIBRATION_SETS set (with `validation` its validation photos
    too: for checking a copy, never for fitting one)."""
    os.environ["DICE_MODELS"] = str(models)
    os.environ["DICE_RUNTIME"] = "onnxruntime"
    from vision import onnxnets, read_dice
    from vision.training.data import load_set

    seen: dict[str, list[np.ndarray]] = defaultdict(list)
    run, outputs = onnxnets.OrtNet.run, onnxnets.OrtNet.outputs

    def recorded(method):
        def wrapper(self, blob, *rest):
            name = Path(self.path).name
            if name.startswith("faces") or detector:
                seen[name].append(np.array(blob, np.float32))
            return method(self, blob, *rest)
        return wrapper

    onnxnets.OrtNet.run, onnxnets.OrtNet.outputs = recorded(run), recorded(outputs)
    try:
        for name in CALIBRATION_SETS:
            if not (data / name).is_dir():
                raise SystemExit(f"calibration set missing: {data / name}")
            chosen = [p for p in load_set(data, name) if validation or not p.val]
            step = max(1, len(chosen) // photos)
            for photo in chosen[::step][:photos]:
                read_dice(photo.image)
    finally:
        onnxnets.OrtNet.run, onnxnets.OrtNet.outputs = run, outputs
    return seen


def equal_batches(inputs: list[np.ndarray], size: int = BATCH) -> list[np.ndarray]:
    """The input batches `inputs` cut again into batches of `size` inputs each (fewer when
    there are fewer in all), the last one filled up from the first inputs: every input is
    seen, a few of them twice."""
    every = np.concatenate(inputs)
    size = min(size, len(every))
    whole = -(-len(every) // size) * size
    every = np.concatenate([every, every[:whole - len(every)]])
    return [every[k:k + size] for k in range(0, whole, size)]


def quantize_net(source: Path, target: Path, inputs: list[np.ndarray], work: Path,
                 method: str = "minmax", weights: str = "int7") -> None:
    """Write an 8-bit copy of the network `source` to `target`, its activation ranges fitted
    on `inputs` (the network's input batches) by `method` (METHODS), its weights stored as
    `weights` (WEIGHTS)."""
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weight type {weights!r}: one of {', '.join(WEIGHTS)}")
    if method not in METHODS:
        raise ValueError(f"unknown calibration method {method!r}: one of {', '.join(METHODS)}")
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    model = onnx.load(str(source))
    name = model.graph.input[0].name
    if max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) < OPSET:
        model = version_converter.convert_version(model, OPSET)
    upgraded = work / source.name
    onnx.save(model, str(upgraded))

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.batches = iter(equal_batches(inputs))

        def get_next(self):
            batch = next(self.batches, None)
            return None if batch is None else {name: batch}

    calibrate = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
                 "entropy": CalibrationMethod.Entropy}[method]
    extra = {"CalibPercentile": PERCENTILE} if method == "percentile" else {}
    quantize_static(str(upgraded), str(target), Batches(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QUInt8 if weights == "uint8" else QuantType.QInt8,
                    reduce_range=weights == "int7", per_channel=True,
                    calibrate_method=calibrate, extra_options=extra)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="the 8-bit model folder to write")
    ap.add_argument("--models", type=Path, default=MODEL_DIR, help="the folder to copy")
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "dice",
                    help="the labelled photo sets (default ../shared/data/dice)")
    ap.add_argument("--photos", type=int, default=60, help="calibration photos per set")
    ap.add_argument("--nets", choices=("faces", "all"), default="faces")
    ap.add_argument("--method", choices=METHODS, default="minmax",
                    help="how activation ranges are fitted (default minmax)")
    ap.add_argument("--weights", choices=WEIGHTS, default="int7",
                    help="how weights are stored (default int7: reads the same on every CPU)")
    args = ap.parse_args(argv)
    if args.out.resolve() == args.models.resolve():
        raise SystemExit("--out must be a new folder, not the one copied")
    seen = record_inputs(args.models, args.data, args.photos, args.nets == "all")
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.out / ".opset"
    work.mkdir(exist_ok=True)
    for path in sorted(args.models.iterdir()):
        if path.is_file():
            shutil.copy2(path, args.out / path.name)
    for name in sorted(seen):
        batches = seen[name]
        print(f"{name}: {len(batches)} input batches, {sum(len(b) for b in batches)} inputs",
              flush=True)
        quantize_net(args.models / name, args.out / name, batches, work, args.method, args.weights)
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
