"""The rendered set on disk and its command: resumable, mergeable, clear on bad input.

Rendering itself is replaced by a fake here (Blender is an optional extra); the real
renders are checked in test_render_blender.py."""
from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from vision.training.render import __main__ as cli
from vision.training.render import frames, manifest


@pytest.fixture
def fake_render(monkeypatch):
    """make_frame without Blender: a grey picture with the frame's real labels' shape."""
    made = []

    def make_frame(kind, number, *, per_table=1, samples=4):
        made.append((kind, number))
        image = np.full((48, 64, 3), number % 255, np.uint8)
        die = {"value": 1 + number % 6, "bbox": [1.0, 2.0, 10.0, 10.0],
               "top_bbox": [2.0, 3.0, 8.0, 8.0], "kind": "soldier", "set": "red",
               "visible": 1.0}
        return frames.Roll(image, b"\xff\xd8fake-jpeg" + bytes([number % 255]), [die], [],
                           {"tray": "hex"})

    monkeypatch.setattr(frames, "stage", lambda threads=1: None)
    monkeypatch.setattr(frames, "make_frame", make_frame)
    return made


def test_a_set_is_written_with_its_manifest_and_licence(tmp_path, fake_render):
    assert cli.main(["--out", str(tmp_path), "--count", "3", "--seed", "10"]) == 0
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert [e["file"] for e in m["images"]] == [f"images/mixed-00000{n}.jpg" for n in (10, 11, 12)]
    assert m["n_images"] == 3 and m["n_dice"] == 3 and m["license"].startswith("MIT")
    e = m["images"][0]
    assert (e["width"], e["height"], e["kind"], e["frame"], e["table"]) == (64, 48, "mixed", 10, 10)
    assert (tmp_path / e["file"]).read_bytes().startswith(b"\xff\xd8")
    assert "our own renders" in m["source"]
    assert "no photographs" in (tmp_path / "ATTRIBUTION.md").read_text()
    assert (tmp_path / "LICENSE").read_text().startswith("MIT License")


def test_a_stopped_run_resumes_with_the_frames_left(tmp_path, fake_render):
    cli.main(["--out", str(tmp_path), "--count", "2", "--seed", "0"])
    (tmp_path / "labels" / "mixed-0000001.json").unlink()  # stopped before its label
    fake_render.clear()
    cli.main(["--out", str(tmp_path), "--count", "4", "--seed", "0"])
    assert fake_render == [("mixed", 1), ("mixed", 2), ("mixed", 3)]
    assert json.loads((tmp_path / "manifest.json").read_text())["n_images"] == 4


def test_ranges_and_kinds_share_one_folder(tmp_path, fake_render):
    cli.main(["--out", str(tmp_path), "--count", "2", "--seed", "0"])
    cli.main(["--out", str(tmp_path), "--count", "2", "--seed", "5"])
    cli.main(["--out", str(tmp_path), "--count", "2", "--seed", "0", "--kind", "dragon-farkle",
              "--per-table", "2"])
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert m["n_images"] == 6
    assert {e["kind"] for e in m["images"]} == {"mixed", "dragon-farkle"}
    assert [e["table"] for e in m["images"] if e["kind"] == "dragon-farkle"] == [0, 0]


def test_a_stray_file_in_labels_is_skipped(tmp_path, fake_render):
    cli.main(["--out", str(tmp_path), "--count", "1", "--seed", "0"])
    (tmp_path / "labels" / "junk.json").write_text("{not json")
    assert manifest.collect(tmp_path)["n_images"] == 1


@pytest.mark.parametrize("args, message", [
    (["--count", "0", "--seed", "0"], "must be 1 or more"),
    (["--count", "two", "--seed", "0"], "'two' is not a whole number"),
    (["--count", "1", "--seed", "-1"], "must be 0 or more"),
    (["--count", "1", "--seed", "0", "--kind", "poker"], "invalid choice"),
])
def test_bad_arguments_are_refused_plainly(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--out", str(tmp_path / "set"), *args])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "set").exists()


def test_without_blender_the_command_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    def no_bpy(threads=1):
        raise RuntimeError("rendering needs Blender as a Python module: pip install '.[render]'")
    monkeypatch.setattr(frames, "stage", no_bpy)
    assert cli.main(["--out", str(tmp_path / "set"), "--count", "1", "--seed", "0"]) == 2
    assert "pip install '.[render]'" in capsys.readouterr().err
    assert not (tmp_path / "set").exists()


def test_importing_blender_that_is_not_there_explains_the_extra(monkeypatch):
    from vision.training.render import blender
    monkeypatch.setitem(sys.modules, "bpy", None)  # as if not installed
    with pytest.raises(RuntimeError, match=r"pip install '\.\[render\]'"):
        blender.import_bpy()


def test_an_output_path_that_is_a_file_is_refused_plainly(tmp_path, capsys, fake_render):
    target = tmp_path / "set"
    target.write_text("not a folder")
    assert cli.main(["--out", str(target), "--count", "1", "--seed", "0"]) == 2
    assert f"cannot write the set into {target}" in capsys.readouterr().err
    assert fake_render == [] and target.read_text() == "not a folder"
