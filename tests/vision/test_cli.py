"""`dragon-farkle read`: JSON lines, text, overlays and errors."""
from __future__ import annotations

import json
import subprocess
import sys

import cv2

from companion.cli import main
from companion.controller.interpret import MIN_CONFIDENCE


def test_json_output_shape(sample_paths, capsys):
    paths = sample_paths[:2]
    assert main(["read", *paths, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    for path, line in zip(paths, lines):
        obj = json.loads(line)
        assert list(obj) == ["image", "dice", "warnings", "play_confidence"]
        assert obj["image"] == path
        assert obj["play_confidence"] == MIN_CONFIDENCE  # what the table plays at
        assert obj["dice"]
        for d in obj["dice"]:
            assert set(d) == {"kind", "value", "center", "box", "confidence", "color"}
            assert d["kind"] in ("soldier", "event")
            assert d["value"] in (1, 2, 3, 4, 5, 6, "blank", "dragon", "rally", None)
            assert len(d["center"]) == 2 and len(d["box"]) == 4 and 0 <= d["confidence"] <= 1


def test_text_output_and_overlay(sample_paths, tmp_path, capsys):
    assert main(["read", sample_paths[0], "--overlay", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "dice" in out and "conf" in out
    written = list((tmp_path / "out").iterdir())
    assert len(written) == 1 and cv2.imread(str(written[0])) is not None


def test_unreadable_image_is_reported_and_others_still_read(sample_paths, tmp_path, capsys):
    bad = tmp_path / "not-a-photo.jpg"
    bad.write_text("hello")
    assert main(["read", str(bad), sample_paths[0], "--json"]) == 1
    cap = capsys.readouterr()
    assert "cannot read image" in cap.err and str(bad) in cap.err
    assert len(cap.out.strip().splitlines()) == 1


def test_bad_profile_is_a_clear_error(sample_paths, tmp_path, capsys):
    prof = tmp_path / "profile.json"
    prof.write_text("{not json")
    assert main(["read", sample_paths[0], "--profile", str(prof)]) == 2
    assert "cannot load profile" in capsys.readouterr().err


def test_a_reader_that_stops_early_ends_the_command_quietly(sample_paths):
    # `dragon-farkle read *.jpg | head -1`: the pipe closes while photos are still read.
    script = "import sys; from companion.cli import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", script, "read", *sample_paths[:3]]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the first photo is read (loading the models takes longer)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipe" not in err, err
