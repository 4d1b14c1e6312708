"""`dragon-farkle leds --preview RECORD --png FILE`: one row of LEDs per step, read back from the PNG."""
from __future__ import annotations

import json
from importlib import resources

import cv2
import pytest

from companion.cli import main
from companion.cli.leds import LABEL_WIDTH, preview_rows, wiring_frames
from hardware.leds import LedLayout
from hardware.leds.render import RED

CELL = 10
RECORD = {
    "title": "Ann banks 100, Bo farkles",
    "setup": {"players": ["Ann", "Bo"], "colors": {"Ann": [0, 200, 0], "Bo": "blue"}},
    "steps": [
        {"action": "recruit"},
        {"roll": [1, 2, 3, 4, 6, 6], "event": "blank"},
        {"expect": {"phase": "set_aside"}},
        {"set_aside": [1]},
        {"action": "stop"},
        {"action": "recruit"},
        {"roll": [2, 3, 4, 6, 6, 2], "event": "blank"},
    ],
}


def led(image, row, index, rows_offset=CELL + 6):
    """BGR colour at the centre of LED `index` in picture row `row`."""
    y = rows_offset + row * CELL + CELL // 2
    x = LABEL_WIDTH + index * CELL + CELL // 2
    b, g, r = image[y, x]
    return int(r), int(g), int(b)


def same_hue(pixel, color):
    """The colour at 60-100 % brightness (the turn light breathes)."""
    return all(0.6 * c - 1 <= p <= c + 1 for p, c in zip(pixel, color))


@pytest.fixture
def record_file(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    return path


def test_preview_png_shows_every_step(tmp_path, record_file, capsys):
    out = tmp_path / "leds.png"
    assert main(["leds", "--preview", str(record_file), "--png", str(out), "--count", "60",
                 "--cell", str(CELL)]) == 0
    assert "7 rows" in capsys.readouterr().out  # start + 6 applied steps (the expect is skipped)
    image = cv2.imread(str(out))
    assert image.shape == (CELL + 6 + 7 * CELL, LABEL_WIDTH + 60 * CELL, 3)
    green, blue = (0, 200, 0), (0, 40, 255)  # "blue" by name is a slightly lighter LED blue
    assert same_hue(led(image, 0, 0), green)  # start: Ann's turn light (breathing, so dimmer)
    tray = LedLayout.default(60).tray
    lit = [i for i in range(tray.start, tray.start + tray.length) if led(image, 2, i) == green]
    assert len(lit) == 1  # after her roll: one LED by the only scoring die (the 1)
    assert not same_hue(led(image, 4, 0), green)  # bank: the gold wipe
    assert same_hue(led(image, 5, 0), blue)  # Bo's turn
    assert all(led(image, 6, i) == RED for i in range(60))  # Bo's Farkle


def test_preview_rows_match_the_layout():
    rows = preview_rows(RECORD["setup"], RECORD["steps"], LedLayout.default(30))
    assert [len(r.pixels) for r in rows] == [30] * 7
    assert rows[0].label == "start" and rows[-1].label.startswith("7. ")


def test_every_bundled_record_previews(tmp_path):
    folder = resources.files("companion") / "records_examples"
    records = sorted(p for p in folder.iterdir() if p.name.endswith(".json"))
    assert records
    for path in records:
        out = tmp_path / (path.name + ".png")
        assert main(["leds", "--preview", str(path), "--png", str(out)]) == 0, path.name
        assert cv2.imread(str(out)) is not None


def test_errors_are_reported_not_raised(tmp_path, record_file, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"setup": {"players": ["A", "B"]}, "steps": [{"action": "stop"}]}))
    assert main(["leds", "--preview", str(bad), "--png", str(tmp_path / "x.png")]) == 2
    assert "step 1" in capsys.readouterr().err
    assert main(["leds", "--preview", str(tmp_path / "none.json"), "--png", str(tmp_path / "x.png")]) == 2
    config = tmp_path / "companion.toml"
    config.write_text("[leds]\ncount = 0\n")
    assert main(["leds", "--preview", str(record_file), "--png", str(tmp_path / "x.png"),
                 "--config", str(config)]) == 2
    assert "companion.toml: leds.count must be a positive integer" in capsys.readouterr().err
    assert main(["leds", "--preview", str(record_file), "--png", str(tmp_path / "x.txt")]) == 2


def test_wiring_frames_light_each_segment_then_each_led():
    layout = LedLayout.default(20)
    frames = wiring_frames(layout)
    names = [label for label, _ in frames[:4]]
    assert names == ["segment turn: LEDs 0..0", "segment dragon: LEDs 11..13",
                     "segment tray: LEDs 14..19", "segment armies[0]: LEDs 1..10"]
    assert [i for i, p in enumerate(frames[1][1]) if p != (0, 0, 0)] == [11, 12, 13]
    walk = frames[4:]
    assert len(walk) == 20
    assert all(p[i] == (255, 255, 255) and sum(map(sum, p)) == 765 for i, (_, p) in enumerate(walk))


def test_wiring_command_runs_on_the_configured_strip(capsys):
    assert main(["leds", "--wiring", "--count", "12", "--step", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("segment turn") and out[-1] == "LED 11"


def test_leds_needs_a_mode(capsys):
    assert main(["leds"]) == 2
    assert "--preview RECORD --png FILE, or --wiring" in capsys.readouterr().err
