"""vision.training.retrain: the whole recipe in one command, checked without torch (the
training steps are stood in for by copies of the bundled networks; the temperature
fit runs for real on the bundled sample photos)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vision.onnxnets import MODEL_DIR
from vision.training import retrain

SAMPLES = Path(__file__).resolve().parents[2] / "vision" / "samples"
# The bundled samples hold two of the public sets: the others are held out here.
NOT_BUNDLED = [s for s in retrain.SETS if not (SAMPLES / s).is_dir()]


def _value(command, flag):
    return command[command.index(flag) + 1]


class _StandInTrainer:
    """Runs each stage like run_side_by_side, but a training command only writes what
    train.py would (the bundled networks), recording what it was asked."""

    def __init__(self):
        self.commands = []
        self.stages = []  # how many commands each call ran side by side

    def __call__(self, commands):
        self.stages.append(len(commands))
        for c in commands:
            self.commands.append(list(c))
            if "vision.training.train" in c:
                out = Path(_value(c, "--out"))
                name = "detector.onnx" if "--det-only" in c else "faces.onnx"
                assert name == "detector.onnx" or (out / "detector.onnx").is_file()
                shutil.copy(MODEL_DIR / name, out / name)
            else:
                subprocess.run(c, check=True, cwd=retrain.REPO)


def _photos(tmp_path):
    extra = tmp_path / "dice-photos"
    shutil.copytree(SAMPLES / "matteop65-train", extra)
    return extra


def test_retrain_runs_the_recipe_with_the_table_photos(tmp_path):
    extra, out = _photos(tmp_path), tmp_path / "models"
    trainer = _StandInTrainer()
    assert retrain.retrain(out, SAMPLES, [extra], runner=trainer, hold_out=NOT_BUNDLED) == out
    trains = [c for c in trainer.commands if "vision.training.train" in c]
    assert len(trains) == 7 and all(_value(c, "--extra-set") == str(extra) for c in trains)
    calibrate = [c for c in trainer.commands if "vision.training.calibrate" in c]
    for c in trains + calibrate:  # held-out sets are neither trained on nor fitted on
        assert [c[i + 1] for i, a in enumerate(c) if a == "--hold-out"] == NOT_BUNDLED
    detector, *members = trains
    assert trainer.stages == [1, 2, 2, 2, 1]  # the classifiers two at a time, a core each
    assert "--det-only" in detector and _value(detector, "--det-steps") == "5000"
    assert _value(detector, "--seed") == "4"
    assert [(_value(c, "--seed"), _value(c, "--face-steps")) for c in members] == [
        ("7", "8000"), ("5", "8000"), ("3", "8000"), ("11", "8000"), ("13", "12000"),
        ("17", "12000")]
    assert [_value(c, "--face-width") if "--face-width" in c else None for c in members] == [
        None, None, None, None, "16", "16"]  # the last two wider, as shipped
    assert all("--skip-det" in c and _value(c, "--threads") == "1" for c in members)
    # A model folder the reader takes: the members' temperatures fitted on the photos.
    assert sorted(p.name for p in out.iterdir()) == [
        "detector.onnx", "faces.json", "faces.onnx", "faces_b.onnx", "faces_c.onnx",
        "faces_d.onnx", "faces_e.onnx", "faces_f.onnx", "train_meta.json"]
    members = json.loads((out / "faces.json").read_text())["members"]
    shipped = json.loads((MODEL_DIR / "faces.json").read_text())["members"]
    assert [m["file"] for m in members] == [m["file"] for m in shipped]  # as the reader reads
    assert [m["file"] for m in members if m.get("first")] == [  # read first, as shipped
        m["file"] for m in shipped if m.get("first")] == ["faces_e.onnx", "faces_f.onnx"]
    assert all(0.3 <= m["temperature"] <= 5 for m in members)
    meta = json.loads((out / "train_meta.json").read_text())
    assert meta["extra_sets"] == [str(extra)] and meta["detector"]["steps"] == 5000


def test_retrain_smoke_scale_and_bad_folders(tmp_path):
    plan = retrain.stages(tmp_path, SAMPLES, [tmp_path / "x"], scale=0.01)
    assert [_value(plan[0][0], "--det-steps")] + [_value(c, "--face-steps") for c in plan[1]] \
        == ["50", "80", "80", "80", "80", "120", "120"]
    with pytest.raises(FileNotFoundError, match="not a labelled photo folder"):
        retrain.retrain(tmp_path / "m", SAMPLES, [tmp_path / "nothing"], runner=_StandInTrainer())
    extra = _photos(tmp_path)
    with pytest.raises(FileNotFoundError, match="public photo sets are needed"):
        retrain.retrain(tmp_path / "m", SAMPLES, [extra], runner=_StandInTrainer())
    with pytest.raises(FileNotFoundError, match="public photo sets are needed"):
        retrain.retrain(tmp_path / "m", tmp_path, [extra], runner=_StandInTrainer(),
                        hold_out=NOT_BUNDLED)
    assert retrain.main(["--extra-set", str(tmp_path / "nothing"), "--out",
                         str(tmp_path / "m"), "--data", str(SAMPLES)]) == 2


def test_a_failing_step_stops_the_recipe():
    ok = [sys.executable, "-c", "pass"]
    retrain.run_side_by_side([ok, ok])
    with pytest.raises(RuntimeError, match="failed .exit 3."):
        retrain.run_side_by_side([ok, [sys.executable, "-c", "raise SystemExit(3)"]])


def test_fine_tuning_starts_each_network_from_the_folder_given(tmp_path):
    plan = retrain.stages(tmp_path, SAMPLES, [], start=MODEL_DIR)
    (detector,), members = plan[0], plan[1]
    assert _value(detector, "--init-det") == str(MODEL_DIR / "detector.onnx")
    assert _value(detector, "--det-steps") == str(retrain.FINE_TUNE["detector"])
    assert [_value(c, "--init-faces") for c in members] == [
        str(MODEL_DIR / m["file"]) for m in retrain.MEMBERS]
    assert {_value(c, "--face-steps") for c in members} == {str(retrain.FINE_TUNE["members"])}
    assert {_value(c, "--lr") for c in (detector, *members)} == {str(retrain.FINE_TUNE["lr"])}
    assert {_value(c, "--keep") for c in members} == {str(retrain.FINE_TUNE["keep"])}
    assert "--keep" not in detector
    # With the options the bundled networks were fine-tuned with: every set drawn alike
    for c in (detector, *members):
        assert _value(c, "--balance") == "0" and _value(c, "--new-background") == "0.3"
    scratch = retrain.stages(tmp_path, SAMPLES, [])
    assert not any("--init-det" in c or "--init-faces" in c or "--lr" in c or "--keep" in c
                   or "--balance" in c for stage in scratch for c in stage)
    mine = retrain.stages(tmp_path, SAMPLES, [], start=MODEL_DIR, recipe=("--balance", "0.5"))
    assert {_value(c, "--balance") for c in (*mine[0], *mine[1])} == {"0.5"}
    assert not any("--new-background" in c for c in (*mine[0], *mine[1]))
    out = tmp_path / "tuned"
    retrain.retrain(out, SAMPLES, [], runner=_StandInTrainer(), hold_out=NOT_BUNDLED,
                    start=MODEL_DIR)
    meta = json.loads((out / "train_meta.json").read_text())
    assert meta["fine_tuned_from"] == str(MODEL_DIR)
    assert meta["recipe"] == list(retrain.FINE_TUNE_RECIPE)
    assert meta["detector"]["steps"] == retrain.FINE_TUNE["detector"]
    before = {m["file"]: m["temperature"]
              for m in json.loads((MODEL_DIR / "faces.json").read_text())["members"]}
    after = json.loads((out / "faces.json").read_text())["members"]
    assert all(m["temperature"] >= before[m["file"]] for m in after)  # never surer than before
    # A folder without the networks to start from is refused before anything runs.
    trainer = _StandInTrainer()
    with pytest.raises(FileNotFoundError, match="not a model folder to start from"):
        retrain.retrain(tmp_path / "m", SAMPLES, [], runner=trainer, hold_out=NOT_BUNDLED,
                        start=tmp_path)
    assert trainer.commands == []
    assert retrain.main(["--from", str(tmp_path), "--out", str(tmp_path / "m"),
                         "--data", str(SAMPLES), *[a for s in NOT_BUNDLED
                                                    for a in ("--hold-out", s)]]) == 2


def test_fine_tuned_temperatures_are_never_below_the_ones_started_from(tmp_path):
    before, new = tmp_path / "before.json", tmp_path / "new.json"
    before.write_text(json.dumps({"members": [{"file": "faces.onnx", "temperature": 0.97},
                                              {"file": "faces_b.onnx", "temperature": 1.07}]}))
    new.write_text(json.dumps({"members": [{"file": "faces.onnx", "temperature": 0.81},
                                           {"file": "faces_b.onnx", "temperature": 1.2},
                                           {"file": "faces_c.onnx", "temperature": 0.5}],
                               "fitted_on": "validation photos"}))
    retrain.keep_temperatures(new, before)
    got = json.loads(new.read_text())
    assert [m["temperature"] for m in got["members"]] == [0.97, 1.2, 0.5]
    assert got["fitted_on"] == "validation photos"
    retrain.keep_temperatures(new, tmp_path / "missing.json")  # nothing to keep: unchanged
    assert json.loads(new.read_text()) == got


def test_recipe_options_given_are_added_after_the_default_ones(tmp_path, monkeypatch):
    """retrain --recipe: the options go after the recipe's (with --from, the fine-tuning's),
    so `--recipe="--device cuda"` keeps the fine-tuning's options and one given again wins
    (vision.training.train reads the last)."""
    asked = []

    def fake(out, data, extra, **kw):
        asked.append(kw["recipe"])
        return out

    monkeypatch.setattr(retrain, "retrain", fake)
    common = ["--out", str(tmp_path / "m"), "--data", str(SAMPLES), "--no-compare"]
    assert retrain.main([*common, "--from", str(MODEL_DIR), "--recipe", "--balance 0.5"]) == 0
    assert retrain.main([*common, "--recipe", "--device cuda"]) == 0
    assert retrain.main(common) == 0
    assert asked == [(*retrain.FINE_TUNE_RECIPE, "--balance", "0.5"),
                     (*retrain.RECIPE, "--device", "cuda"), retrain.RECIPE]
