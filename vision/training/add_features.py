"""Give a model folder's face classifiers their "features" output, which vision/adapt.py needs.

    python -m vision.training.add_features DIR [DIR ...]

vision/adapt.py learns a table's own dice by refitting each classifier's last layer on
the features that layer reads (the pooled 3x3 cells: 432 numbers for a classifier of
width 12, 576 for the shipped wider ones). train.py exports them as a second output,
"features"; classifiers exported before that have only the logits. This adds the
output to every member listed in DIR/faces.json (else faces.onnx) that lacks it: the
graph and weights are unchanged, the logits come out as before. Needs the `onnx`
package (the `train` extra).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

FEATURES = "features"


def add_features(path: Path) -> bool:
    """Add the "features" output (the input of the final Gemm) to the ONNX file `path`;
    False when it already has it."""
    import onnx
    from onnx import helper

    model = onnx.load(str(path))
    if any(o.name == FEATURES for o in model.graph.output):
        return False
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    if len(gemms) != 1 or gemms[0].output[0] != model.graph.output[0].name:
        raise ValueError(f"{path}: not a face classifier (one final Gemm layer)")
    gemm = gemms[0]
    model.graph.node.append(helper.make_node("Identity", [gemm.input[0]], [FEATURES]))
    model.graph.output.append(helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT,
                                                            ["n", "k"]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folders", type=Path, nargs="+")
    for folder in ap.parse_args().folders:
        meta = folder / "faces.json"
        members = (json.loads(meta.read_text()).get("members") if meta.is_file() else None) \
            or [{"file": "faces.onnx"}]
        for m in members:
            done = add_features(folder / m["file"])
            print(f"{folder / m['file']}: {'features added' if done else 'already has them'}")


if __name__ == "__main__":
    main()
