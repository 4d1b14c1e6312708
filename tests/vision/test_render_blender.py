"""Real renders with Blender (the `render` extra): skipped where bpy is not installed
(CI does not install it). Each check runs in its own process: bpy keeps one global
scene and writes to the process's stdout from C."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("bpy") is None,
                       reason="Blender as a Python module (bpy, the `render` extra) is not "
                              "installed"),
]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_renders_agree_with_blender_and_their_labels(tmp_path):
    done = _run(str(Path(__file__).with_name("render_check.py")), cwd=tmp_path)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["projection_px"] < 0.01  # our camera is Blender's camera
    assert result["faces"] and all(want == up for want, up in result["faces"]), result["faces"]
    assert result["n_dice"] >= 3
    assert min(result["iou"]) > 0.7, result["iou"]  # seen box ~ the die's outline
    assert all(result["inside"])  # the top face lies within the die
    assert result["same_labels"] and result["same_image"] < 1.0  # deterministic
    assert result["pinned"] == [["1", "rally"], ["6", "rally"]]
    assert result["pinned_builds"] == 0


def test_the_speed_benchmark_runs():
    done = _run(str(REPO / "benchmarks" / "render_speed.py"), "--frames", "1", "--samples", "1",
                cwd=REPO)
    rows = [r for r in done.stdout.splitlines() if "s/frame median" in r]
    assert [r.split()[0] for r in rows] == ["mixed", "dragon-farkle", "pinned"], done.stdout


def test_the_command_writes_a_set_and_resumes_it(tmp_path):
    out = tmp_path / "set"
    args = ("-m", "vision.training.render", "--out", str(out), "--count", "1", "--seed", "2",
            "--kind", "dragon-farkle", "--samples", "1")
    first = _run(*args, cwd=tmp_path)
    assert "1 of 1 dragon-farkle frames to render" in first.stdout
    m = json.loads((out / "manifest.json").read_text())
    entry = m["images"][0]
    image = cv2.imread(str(out / entry["file"]))
    assert image.shape == (entry["height"], entry["width"], 3) == (480, 640, 3)
    assert entry["dice"] and all(set(d) >= {"value", "bbox", "top_bbox", "kind", "set"}
                                 for d in entry["dice"])
    assert sum(d["kind"] == "event" for d in entry["dice"]) <= 1
    again = _run(*args, cwd=tmp_path)
    assert "0 of 1 dragon-farkle frames to render" in again.stdout
