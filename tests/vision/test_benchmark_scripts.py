"""The dice-reader benchmarks run end to end (on the bundled photos, a few of each set)
and say clearly when the data is missing, so they cannot rot between runs."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vision

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
SAMPLES = Path(vision.__file__).resolve().parent / "samples"


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args],
                          check=False, capture_output=True, text=True, timeout=300, cwd=REPO)


@pytest.mark.parametrize("script, lines", [("vision_accuracy.py", 4), ("vision_wide_view.py", 4),
                                           ("vision_close_view.py", 12)])
def test_benchmark_prints_a_line_per_set(script, lines):
    done = _run(script, "--data", str(SAMPLES), "--limit", "2")
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if " correct " in r and "ms/frame median" in r]
    assert len(rows) == lines, done.stdout
    assert any(r.startswith("byler-2019-12-08") for r in rows)
    if script == "vision_accuracy.py":  # what the phones are asked, after each line
        from vision.evaluate import ASKED

        asked = [r for r in done.stdout.splitlines() if f"asked (read below {ASKED:g})" in r]
        assert len(asked) == lines and all("choices a die)" in r for r in asked), done.stdout
        rolls = [r for r in done.stdout.splitlines() if "rolls: played right" in r]
        assert len(rolls) == lines, done.stdout
        sweep = [r for r in done.stdout.splitlines() if "at play threshold  0.6: " in r]
        assert len(sweep) == lines and all(" 0.99: " in r for r in sweep), done.stdout


def test_wide_view_same_size_keeps_the_photo_size_and_shrinks_the_dice():
    import numpy as np
    from vision_wide_view import shrink, widen

    photo = np.zeros((480, 640, 3), np.uint8)
    labels = [{"value": 3, "bbox": [100.0, 50.0, 40.0, 40.0]}]
    big, moved, tray = widen(photo, labels, 1.5)
    assert big.shape[:2] == (720, 960) and moved[0]["bbox"][:2] == [100.0 + 160, 50.0 + 120]
    small, shrunk, tray = shrink(big, moved, tray, (640, 480))
    assert small.shape[:2] == (480, 640)
    assert shrunk[0]["bbox"] == pytest.approx([(100 + 160) / 1.5, (50 + 120) / 1.5, 40 / 1.5,
                                               40 / 1.5])
    assert tray[0] == pytest.approx((160 / 1.5, 120 / 1.5))
    done = _run("vision_wide_view.py", "--data", str(SAMPLES), "--limit", "1", "--same-size",
                "--factor", "1.5")
    assert done.returncode == 0, done.stderr
    assert "shrunk to the photo's size" in done.stdout
    assert sum(" correct " in r for r in done.stdout.splitlines()) == 4, done.stdout


def test_robustness_benchmark_prints_every_change_per_set():
    from vision_robustness import CHANGES

    done = _run("vision_robustness.py", "--data", str(SAMPLES), "--all", "--limit", "1")
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if " correct " in r and " missed " in r]
    assert len(rows) == 2 * len(CHANGES), done.stdout
    assert sum(r.startswith("matteop65-train") for r in rows) == len(CHANGES)


def test_cut_dice_benchmark_cuts_the_share_asked_through_each_edge():
    from vision_cut_dice import SHARES, cut_through

    image = np.zeros((480, 640, 3), np.uint8)
    box = (300.0, 200.0, 40.0, 40.0)
    right, off = cut_through(image, box, "right", 0.25)
    assert right.shape[1] == 330 and off == (0, 0)  # 10 of the 40 px beyond the edge
    left, off = cut_through(image, box, "left", 0.25)
    assert left.shape[1] == 640 - 310 and off == (310, 0)
    top, off = cut_through(image, box, "top", 0.5)
    assert top.shape[0] == 480 - 220 and off == (0, 220)
    assert cut_through(image, (10.0, 200.0, 40.0, 40.0), "right", 0.5) is None  # too little left
    done = _run("vision_cut_dice.py", "--data", str(SAMPLES), "--all", "--limit", "1")
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if "of the face cut off: sure right" in r]
    assert len(rows) == 2 * len(SHARES), done.stdout
    counts = [int(n) for r in rows for n in re.findall(r"(?:right|wrong|asked|lost) (\d+)", r)]
    assert sum(counts) > 0, done.stdout
    assert sum("sure reads whose face is" in r for r in done.stdout.splitlines()) == 8


def test_close_view_with_more_pixels_enlarges_whole_photos():
    from vision_close_view import more_pixels

    image = np.zeros((480, 640, 3), np.uint8)
    big, labels = more_pixels(image, [{"value": 3, "bbox": [10.0, 20.0, 30.0, 40.0]}], 2.0)
    assert big.shape == (960, 1280, 3) and labels == [{"value": 3, "bbox": [20.0, 40.0, 60.0, 80.0]}]
    done = _run("vision_close_view.py", "--data", str(SAMPLES), "--limit", "1", "--zoom", "2",
                "--more-pixels")
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if " x2, " in r and "ms/frame median" in r]
    assert len(rows) == 4 and "each whole photo enlarged" in done.stdout, done.stdout


def test_runtimes_benchmark_reads_alike_with_both():
    done = _run("vision_runtimes.py", "--data", str(SAMPLES), "--limit", "2")
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if "CPU ms/frame median" in r]
    assert len(rows) == 4 and sum(" onnxruntime " in r for r in rows) == 2, done.stdout
    assert done.stdout.count("dice read differently: 0,") == 2, done.stdout


def test_adapt_benchmark_learns_one_set_and_scores_its_validation_photos(tmp_path):
    import json
    import shutil

    # The bundled photos are all validation photos: a set with 10 to learn from.
    table = tmp_path / "table-dice"
    shutil.copytree(SAMPLES / "byler-2019-12-08", table)
    manifest = json.loads((table / "manifest.json").read_text())
    for i, e in enumerate(manifest["images"]):
        e["split"] = "test" if i < 2 else "train"
    (table / "manifest.json").write_text(json.dumps(manifest))
    done = _run("vision_adapt.py", "--data", str(tmp_path), "--table", "table-dice",
                "--photos", "0")
    assert done.returncode == 0, done.stderr
    assert "anchors byler-2019-12-08, matteop65-train;" in done.stdout
    assert "learned from 10 photos" in done.stdout
    # Only what a photo log would keep: the bundled weights read these photos well, so
    # few are kept, and too few dice to learn from is said, not an error.
    done = _run("vision_adapt.py", "--data", str(tmp_path), "--table", "table-dice",
                "--as-kept", "--tray", "0,0,640,640")
    assert done.returncode == 0, done.stderr
    assert "the photo log would keep" in done.stdout, done.stdout
    rows = [r for r in done.stdout.splitlines() if " correct " in r and " wrong>=0.9 " in r]
    assert len(rows) == 2 and "learned in" in rows[1], done.stdout
    # A tray over the top half: the dice below it are missed, so no photo would be kept
    # unless the players mark them on the photo (--marks), which settles them.
    done = _run("vision_adapt.py", "--data", str(tmp_path), "--table", "table-dice",
                "--as-kept", "--tray", "0,0,640,320", "--marks", "0.45", "--photos", "0")
    assert done.returncode == 0, done.stderr
    kept = re.search(r"would keep (\d+) of the 10 training photos", done.stdout)
    marked = re.search(r"off: (\d+); their boxes' centres ([\d.]+) die sides", done.stdout)
    assert kept and marked, done.stdout
    assert int(kept.group(1)) >= 5 and int(marked.group(1)) >= 10, done.stdout
    assert float(marked.group(2)) < 0.25, done.stdout  # the boxes fit the dice tapped


@pytest.mark.parametrize("script", ["vision_accuracy.py", "vision_wide_view.py",
                                    "vision_robustness.py", "vision_close_view.py",
                                    "vision_runtimes.py", "vision_adapt.py",
                                    "vision_cut_dice.py"])
def test_benchmark_says_when_the_data_is_missing(script, tmp_path):
    done = _run(script, "--data", str(tmp_path / "nothing"))
    assert done.returncode == 2 and "No dice data found" in done.stdout


def test_leave_one_source_out_reads_each_set_with_its_own_fold(tmp_path):
    import json
    import shutil

    from vision.onnxnets import MODEL_DIR

    folds = tmp_path / "folds"
    for name in ("byler-2019-12-08", "matteop65-train"):  # stand-in folds: the bundled nets
        shutil.copytree(MODEL_DIR, folds / name)
        meta = json.loads((folds / name / "train_meta.json").read_text())
        (folds / name / "train_meta.json").write_text(json.dumps(meta | {"hold_out": [name]}))
    done = _run("vision_loso.py", "--data", str(SAMPLES), "--folds", str(folds), "--limit", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [r for r in done.stdout.splitlines() if "(held out)" in r and " correct " in r]
    assert [r.split()[0] for r in rows] == ["byler-2019-12-08", "matteop65-train"]
    rolls = [r for r in done.stdout.splitlines() if "rolls: played right" in r]
    # byler read twice: as photographed, and cut to its tray as a camera over it sees it
    assert len(rolls) == 3 and all(r.endswith("of 2") for r in rolls), done.stdout
    inside = [r for r in done.stdout.splitlines() if " cut to its tray " in r]
    assert len(inside) == 1 and inside[0].split()[0] == "byler-2019-12-08", done.stdout
    # a fold that saw the set it is to read is no fold; a missing one is said so
    meta = json.loads((folds / "matteop65-train" / "train_meta.json").read_text())
    (folds / "matteop65-train" / "train_meta.json").write_text(json.dumps(meta | {"hold_out": []}))
    shutil.rmtree(folds / "byler-2019-12-08")
    done = _run("vision_loso.py", "--data", str(SAMPLES), "--folds", str(folds), "--limit", "1")
    assert done.returncode == 1
    assert "byler-2019-12-08: no fold models" in done.stdout
    assert "matteop65-train: the models in" in done.stdout
    assert "not trained without matteop65-train" in done.stdout


def test_leave_one_source_out_reads_rune55_with_the_shipped_models_that_never_saw_it(tmp_path):
    import shutil

    data = tmp_path / "data"  # byler's sample photos standing in for a rune55 set
    shutil.copytree(SAMPLES / "byler-2019-12-08", data / "rune55-gray-topdown")
    done = _run("vision_loso.py", "--data", str(data), "--folds", str(tmp_path / "no-folds"),
                "--limit", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rune55-gray-topdown (held out)" in done.stdout
    assert "read with the shipped models, trained without rune55-gray-topdown" in done.stdout


def test_surfaces_benchmark_lays_the_dice_on_every_tray():
    from vision_surfaces import COLOURS, moved, trays

    done = _run("vision_surfaces.py", "--data", str(SAMPLES), "--limit", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert sum(" found " in r and " right " in r for r in lines) == 2 * (2 * len(COLOURS) + 2)
    assert sum(r.startswith("  worst tray: ") for r in lines) == 2
    # the dice keep their pixels; the tray around them is the new one
    image = np.full((120, 160, 3), 250, np.uint8)
    image[40:80, 60:100] = (0, 0, 200)  # a red die on a white tray
    entry = {"dice": [{"value": 1, "bbox": [60, 40, 40, 40]}]}
    tray = trays(120, 160)["plain black"]
    out = moved(image, entry, "byler-2019-12-08", tray)
    assert (out[55:65, 75:85] == (0, 0, 200)).all() and (out[:10, :10] == tray[:10, :10]).all()


def test_a_tray_is_given_as_a_name_and_a_rectangle_and_the_photo_cut_to_it():
    import argparse

    from vision_loso import cut_to, tray_argument

    assert tray_argument("set=0,0,640,560") == ("set", (0.0, 0.0, 640.0, 560.0))
    for bad in ("set", "set=1,2,3", "=0,0,1,1", "set=0,0,a,1", "set=5,0,1,1"):
        with pytest.raises(argparse.ArgumentTypeError):
            tray_argument(bad)
    frame = np.zeros((640, 640, 3), np.uint8)
    labels = [{"value": 2, "bbox": [100, 200, 30, 30]}, {"value": 5, "bbox": [300, 590, 20, 20]}]
    cut, kept = cut_to(frame, labels, (50, 100, 640, 560))
    assert cut.shape == (460, 590, 3)
    assert kept == [{"value": 2, "bbox": [50, 100, 30, 30]}]  # moved; the lip's one left out
    assert labels[0]["bbox"] == [100, 200, 30, 30]  # the set's own labels untouched


def test_the_two_rune55_sets_are_one_source_held_out_together():
    from vision_loso import source_of

    assert source_of("rune55-gray-topdown") == source_of("rune55-oblique") == "rune55"
    assert source_of("byler-2019-12-08") == "byler-2019-12-08"


def test_more_event_pictures_leave_the_other_frames_of_a_rendered_table_as_they_were():
    """--event-pictures N: N pictures of each Event face, the first two and every roll
    the same as with two (the cached renders stay valid), the rest new spots."""
    import vision_event_tables as tables

    scene = tables.table_scene(0)
    two = dict(tables.table_frames(scene, 0, 5))
    four = dict(tables.table_frames(scene, 0, 5, event_pictures=4))
    one = dict(tables.table_frames(scene, 0, 5, event_pictures=1))
    assert set(four) - set(two) == {f"event-{f}-{i}" for f in tables.FACES for i in (2, 3)}
    assert all(four[name] == dice for name, dice in two.items())
    assert set(two) - set(one) == {f"event-{f}-1" for f in tables.FACES}
    assert all(two[name] == dice for name, dice in one.items())
    spots = {(four[f"event-dragon-{i}"][0].x, four[f"event-dragon-{i}"][0].y) for i in range(4)}
    assert len(spots) == 4


def test_a_cached_table_frame_is_named_alike_under_numpy_1_and_2():
    """A rendered frame's cache name hashes its table and dice, which hold numpy scalars:
    written as numpy 1 writes them whichever numpy runs, so a cache stays valid."""
    import vision_event_tables as tables

    assert tables.stable_repr((np.float64(0.5), [np.int64(3)], "red")) == "(0.5, [3], 'red')"
    # numpy 1 and 2 compute some of a table's numbers a last bit apart
    assert tables.stable_repr(0.9875365147716106) == tables.stable_repr(0.9875365147716105)
    assert tables.stable_repr({"x": -12.5e-07, "n": 3}) == "{'x': -1.25e-06, 'n': 3}"
    scene = tables.table_scene(0)
    _, dice = tables.table_frames(scene, 0, 1)[-1]
    assert "np." not in tables.stable_repr((scene, dice))


def test_a_roll_played_wrong_is_told_die_by_die():
    """vision_event_tables -v: each labelled die with what it was read as, the wrong
    ones marked, and dice read that no label has."""
    import vision_event_tables as tables

    from vision.types import Die

    labels = [{"kind": "soldier", "set": "red", "value": 2, "bbox": [10, 10, 20, 20]},
              {"kind": "event", "set": "event", "value": "rally", "bbox": [60, 10, 20, 20]}]
    dice = [Die("soldier", 2, (20.0, 20.0), (10, 10, 20, 20), 0.97, "red"),
            Die("event", "blank", (70.0, 20.0), (60, 10, 20, 20), 0.91),
            Die("soldier", 5, (150.0, 150.0), (140, 140, 20, 20), 0.95, "red")]
    text = tables.wrong_text(dice, labels)
    assert text == ("red 2: soldier 2 red 0.97; event rally: event blank 0.91 <-; "
                    "1 not a labelled die")


def _sample_rolls(count: int) -> dict:
    """The bundled byler photos as a table's rolls (vision_table_learning's frames):
    {"roll-NN": (frame, labels with their kind)}."""
    import json

    import cv2

    folder = SAMPLES / "byler-2019-12-08"
    entries = json.loads((folder / "manifest.json").read_text())["images"][:count]
    return {f"roll-{i:02d}": (cv2.imread(str(folder / e["file"])),
                              [{**lab, "kind": "soldier"} for lab in e["dice"]])
            for i, e in enumerate(entries)}


def test_a_roll_the_players_answer_is_kept_as_the_table_keeps_it(tmp_path):
    """vision_table_learning: a roll with a die the camera missed is kept with that die
    when the players tap it on the photo, and not when they only type the roll (the
    table cannot tell where the missing die lies)."""
    import vision_table_learning as learning

    from vision import read_dice
    from vision.photolog import PhotoLog

    image, labels = _sample_rolls(1)["roll-00"]
    reading = read_dice(image)
    assert len(reading.dice) == len(labels)  # read whole; now the camera misses one
    missed = type(reading)(reading.dice[1:], reading.warnings)
    rng = np.random.default_rng(0)
    typed, marked = PhotoLog(tmp_path / "typed"), PhotoLog(tmp_path / "marked")
    assert not learning.keep_roll(typed, "roll-00", image, missed, labels, None, None, rng)
    assert learning.keep_roll(marked, "roll-00", image, missed, labels, None, 0.25, rng)
    kept = marked.manifest()["images"]
    assert len(typed) == 0 and len(kept) == 1
    assert sorted(d["value"] for d in kept[0]["dice"]) == sorted(lab["value"] for lab in labels)


def test_a_table_learns_from_its_first_rolls_and_reads_the_rest(monkeypatch):
    """vision_table_learning.play_table: the rolls not played right before learning are
    kept and learned from; the rolls after are read by every reader, the table's own
    being the learned weights only when the held-out check installs them."""
    import vision_table_learning as learning

    from vision import adapt, photolog

    monkeypatch.setattr(adapt, "MIN_DICE", 1)
    monkeypatch.setattr(photolog, "held_out", lambda file: file.endswith("roll-00.jpg"))
    frames = _sample_rolls(6)
    # One die of every roll labelled another face: no roll can be played right, and the
    # players mark that die's face on the photo.
    wrong = {name: (image, [{**labels[0], "value": labels[0]["value"] % 6 + 1}, *labels[1:]])
             for name, (image, labels) in frames.items()}
    counts, said, installed = learning.play_table(wrong, None, 4, 0.25, seed=0)
    # roll-00 is held out for the check
    assert re.match(r"kept 4 of 4 rolls; learned from 3 of them \(\d+ dice\)", said), said
    assert said.endswith(", installed" if installed else ", not installed")
    assert set(counts) == set(learning.READERS)
    for reader, c in counts.items():
        assert c.rolls == 2 and c.right == 0, reader
        assert len(c.ms) == 2
    table = counts["as the table reads"]
    same = counts["learned" if installed else "bundled"]
    assert (table.soldiers_right, table.asked, table.wrong) == (same.soldiers_right, same.asked,
                                                                  same.wrong)


def test_the_fine_tuned_reader_reads_with_what_retrain_made_of_the_photo_log(monkeypatch):
    """vision_table_learning --fine-tune: the kept photos go to vision.training.retrain
    (--from the bundled weights, as an extra set), and the rolls after are read with the
    model folder it makes. Training is stood in for by copies of the bundled networks, and
    the temperature fit by made-up temperatures, so the folder read with can be told."""
    import json
    import shutil

    import vision_table_learning as learning

    from vision import adapt, photolog
    from vision.onnxnets import MODEL_DIR
    from vision.training import retrain

    monkeypatch.setattr(adapt, "MIN_DICE", 1)
    monkeypatch.setattr(photolog, "held_out", lambda file: file.endswith("roll-00.jpg"))
    commands = []

    def stand_in(stage):  # what each command would write, from the bundled networks
        for c in stage:
            commands.append(list(c))
            out = Path(c[c.index("--out") + 1]) if "--out" in c else Path(c[c.index("--models") + 1])
            if "vision.training.calibrate" in c:
                meta = json.loads((MODEL_DIR / "faces.json").read_text())
                for m in meta["members"]:
                    m["temperature"] = 100.0
                (out / "faces.json").write_text(json.dumps(meta))
            else:
                name = "detector.onnx" if "--det-only" in c else "faces.onnx"
                shutil.copy(MODEL_DIR / name, out / name)

    read_with = []  # the temperatures of each model folder the rolls after are read with
    read_rolls = learning.read_rolls

    def recorded(frames, profile, models=None, **kw):
        meta = json.loads(((models or MODEL_DIR) / "faces.json").read_text())
        read_with.append({m["temperature"] for m in meta["members"]})
        return read_rolls(frames, profile, models=models, **kw)

    monkeypatch.setattr(learning, "read_rolls", recorded)
    frames = _sample_rolls(6)
    wrong = {name: (image, [{**labels[0], "value": labels[0]["value"] % 6 + 1}, *labels[1:]])
             for name, (image, labels) in frames.items()}
    held = tuple(s for s in retrain.SETS if not (SAMPLES / s).is_dir())
    counts, said, _ = learning.play_table(wrong, None, 4, 0.25, seed=0, fine_tune=SAMPLES,
                                          runner=stand_in, hold_out=held)
    assert re.search(r"; fine-tuned every layer in \d+ min \(the held-out check would (not )?"
                     r"take them\)$", said), said
    trains = [c for c in commands if "vision.training.train" in c]
    assert len(trains) == 1 + len(retrain.MEMBERS)
    assert all("--init-det" in c or "--init-faces" in c for c in trains)  # --from the bundled
    logs = {c[c.index("--extra-set") + 1] for c in trains}
    assert len(logs) == 1 and Path(logs.pop()).name == "dice-photos"
    assert read_with[-1] == {100.0} and {100.0} not in read_with[:-1]  # bundled, learned
    tuned = counts["fine-tuned"]
    assert (tuned.rolls, tuned.asked) == (2, 2)  # every die unsure


def test_tables_not_rendered_are_named_and_left_out_without_blender(tmp_path, monkeypatch,
                                                                     capsys):
    """vision_event_tables.rendered (both table benchmarks): without the render extra,
    a table missing from the cache is named and left out, and cached ones are kept."""
    import cv2
    import vision_event_tables as tables

    monkeypatch.setitem(sys.modules, "bpy", None)  # import bpy fails
    scene = tables.table_scene(0)
    table = (0, scene, tables.table_frames(scene, 0, 1))
    assert tables.rendered(tmp_path, [table]) == []
    assert "table(s) 100000 not rendered" in capsys.readouterr().out
    for name, dice in table[2]:  # now cached (a frame is done when its labels are written)
        path = tables.frame_path(tmp_path, 0, name, scene, dice)
        path.parent.mkdir(parents=True, exist_ok=True)
        assert cv2.imwrite(str(path), np.zeros((8, 8, 3), np.uint8))
        path.with_suffix(".json").write_text('{"dice": []}')
    assert tables.rendered(tmp_path, [table]) == [table]


def test_pi_budget_times_the_calibrated_demo_table() -> None:
    """pi_budget's calibrated line reads each of the demo's roll frames (the roll and what
    is left of it), at the size asked for, with the demo's profile, once a repeat."""
    import pi_budget

    from companion.demo import load_demo

    rolls = [p for p in load_demo().frames() if p.name.startswith("roll-")]
    times = pi_budget.bench_calibrated((320, 240), 1)
    assert len(times) == len(rolls) > 20
    assert all(t > 0 for t in times)
