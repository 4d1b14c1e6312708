"""The demo game: its record, its frames, and the camera following the game at the table."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.controller.demo import DemoDirector, left_frame
from companion.demo import STRAYS, DemoGame, folder, load_demo, plan
from companion.records import load_record, replay_record


class ShowingCamera:
    """Records what the director asks the replay camera to show."""

    def __init__(self) -> None:
        self.shown: list[tuple[int, float]] = []

    def show(self, index: int, *, after: float = 0.0) -> None:
        self.shown.append((index, after))


@pytest.fixture
def demo(tmp_path) -> DemoGame:
    """The bundled demo's record and rolls (the frames are not needed to choose them)."""
    record = load_record(folder() / "game.json")
    return DemoGame(tmp_path, record, plan(record))


@pytest.fixture
def followed(table, demo):
    """The table (Jane red, Joseph blue, as the phone page sets up) with a director."""
    camera = ShowingCamera()
    director = DemoDirector(demo, table, lambda: camera)
    table.subscribe(director.update)

    def names() -> list[str]:
        return [demo.frames()[i].name for i, _ in camera.shown]

    return table, camera, names


def moves(demo: DemoGame) -> list[dict]:
    return [s for s in demo.record.steps if "expect" not in s]


def test_the_demo_is_a_whole_game_the_engine_accepts():
    demo = load_demo()  # checks frames.json against game.json, and that every frame is there
    result = replay_record(demo.record)
    assert result.ok, result.describe()
    assert result.state.winner is not None  # played to the end
    assert {r.color for r in demo.rolls} == set(demo.record.setup["colors"].values())
    assert [r.number for r in demo.rolls if r.stray] == list(STRAYS)


def test_the_demo_frames_are_vga_jpegs_of_a_few_megabytes():
    demo = load_demo()
    frames = demo.frames()
    assert len(frames) == 1 + len(demo.rolls) + sum(r.left is not None for r in demo.rolls)
    assert all(cv2.imread(str(p)).shape == (480, 640, 3) for p in frames[:3])
    assert sum(p.stat().st_size for p in frames) < 4_000_000


def test_frames_json_says_what_the_record_plays():
    listed = json.loads((folder() / "frames.json").read_text())["rolls"]
    rolls = plan(load_record(folder() / "game.json"))
    assert [r["roll"] for r in listed] == [list(r.roll) for r in rolls]
    first = rolls[0]
    assert (first.player, first.color, first.set_aside, first.left) == (
        "Jane", "red", (1, 4, 4, 4), (2, 6))
    eaten = next(r for r in rolls if r.event == "dragon" and r.left)
    assert eaten.set_aside is None  # the Dragon took the scoring dice: no set-aside step


def test_on_script_the_camera_shows_each_roll_then_the_dice_left(followed, demo):
    table, camera, names = followed
    for step in moves(demo):
        table.apply_step(step)
    wanted = []
    for roll in demo.rolls:
        wanted += [roll.frame] + ([roll.left_frame] if roll.left_frame else [])
    assert names() == [name.split("/")[1] for name in wanted]
    assert table.state()["phase"] == "game_over"
    pauses = {after for i, after in camera.shown if "left" not in demo.frames()[i].name}
    assert pauses == {1.5}  # each roll comes to rest once the player has thrown


def test_the_first_roll_is_shown_once_recruit_is_tapped(followed):
    table, camera, names = followed
    assert camera.shown == []  # choosing an action: the tray stays as it is
    table.apply_step({"action": "recruit"})
    assert names() == ["roll-01.jpg"]
    table.refresh()  # any other change at the same point shows nothing new
    assert names() == ["roll-01.jpg"]


def test_off_script_the_next_roll_that_fits_is_shown(followed):
    table, _camera, names = followed
    for step in ({"action": "recruit"}, {"roll": [1, 4, 4, 4, 2, 6], "event": "blank"},
                 {"set_aside": [1]}):  # the demo sets aside 1 4 4 4
        table.apply_step(step)
    assert names() == ["roll-01.jpg"]  # no "left" frame: it would show the wrong dice
    table.apply_step({"action": "roll"})
    # five red dice next: the demo's first roll of five of Jane's dice
    assert names()[-1] == "roll-16.jpg"
    for step in ({"roll": [1, 1, 4, 6, 2], "event": "blank"}, {"set_aside": [1, 1]},
                 {"action": "stop"}, {"action": "recruit"}):
        table.apply_step(step)
    assert names()[-1] == "roll-03.jpg"  # Joseph's first roll, on script again


def test_another_colour_or_count_still_gets_a_frame(store, demo):
    from companion.controller import Table

    table = Table(store)
    camera = ShowingCamera()
    table.subscribe(DemoDirector(demo, table, lambda: camera).update)
    table.new_game({"players": ["Ann", "Bo"], "colors": {"Ann": "green", "Bo": "yellow"}})
    table.apply_step({"action": "recruit"})
    assert camera.shown and camera.shown[-1][0] == demo.index("frames/roll-01.jpg")


def test_an_undo_or_an_open_question_keeps_the_tray_as_it_is(followed, fakes):
    table, _camera, names = followed
    table.apply_step({"action": "recruit"})
    table.handle_reading(fakes.reading([1, 4, 4, 4, 2, 6], "blank", color="red"),
                         np.zeros((480, 640, 3), np.uint8))
    assert table.state()["phase"] == "set_aside"
    table.undo()  # back to the roll: the dice still lie there, nothing is thrown again
    assert names() == ["roll-01.jpg"]
    table.apply_step({"roll": [1, 4, 4, 4, 2, 6], "event": "blank"})
    table.apply_step({"set_aside": [1, 4, 4, 4]})
    table.apply_step({"action": "roll"})
    assert names() == ["roll-01.jpg", "roll-01-left.jpg", "roll-02.jpg"]
    table.handle_reading(fakes.reading([5], "blank", color="red"),
                         np.zeros((480, 640, 3), np.uint8))  # one die short
    assert table.state()["pending"]["kind"] == "roll"
    table.ask("notice", "something else")  # a notice replaces the question: not a roll asked
    table.dismiss()
    assert names()[-1] == "roll-02.jpg"


def test_a_restarted_table_shows_the_roll_it_waits_for(store, demo):
    from companion.controller import Table

    table = Table(store)
    table.new_game(dict(demo.record.setup))
    table.apply_steps(moves(demo)[:4])  # Jane sets aside and rolls again
    again = Table(store)  # the table restarted
    camera = ShowingCamera()
    director = DemoDirector(demo, again, lambda: camera)
    director.update(again.state())
    assert camera.shown == [(demo.index("frames/roll-02.jpg"), 1.5)]


def test_left_frames_only_where_the_tray_shows_the_game(demo):
    steps = moves(demo)
    upto_set_aside = steps[:3]  # recruit, roll 1, the demo's set-aside
    assert left_frame(demo, upto_set_aside, 2, "red").number == 1
    other = [*steps[:2], {"set_aside": [1]}]
    assert left_frame(demo, other, 5, "red") is None
    dragon = steps[:steps.index({"roll": [2, 2, 2, 3, 4, 6], "event": "dragon"}) + 1]
    assert left_frame(demo, dragon, 3, "red").left == (3, 4, 6)


def test_the_default_table_plays_the_demo_with_its_tables_profile(tmp_path):
    from companion.config import load_config
    from companion.controller.runtime import build_runtime, demo_profile, load_keeper

    config = load_config(None)
    keeper = load_keeper(None, tmp_path, fallback=demo_profile(config.camera))
    profile = keeper.profile
    assert set(profile.colors) == {"red", "blue"} and profile.event is not None
    assert profile.tray is not None and keeper.path == tmp_path / "profile"  # changes go there
    runtime = build_runtime(config, data_dir=tmp_path, camera=None, keeper=keeper)
    try:
        camera = runtime.camera_loop.camera
        assert camera.hold is None and camera.paths == load_demo().frames()
        assert runtime.demo is not None and runtime.demo.camera() is camera
        runtime.table.new_game({"players": ["Jane", "Joseph"],
                                "colors": {"Jane": "red", "Joseph": "blue"}})
        runtime.table.apply_step({"action": "recruit"})
        assert runtime.demo.frame_for(runtime.table.state()) == ("frames/roll-01.jpg", 1.5)
    finally:
        runtime.stop()


def test_a_folder_of_photos_is_still_played_in_turn(tmp_path):
    from companion.config import load_config
    from companion.controller.runtime import build_runtime, demo_profile, load_keeper

    photos = [tmp_path / "tray" / f"{i}.png" for i in range(3)]
    photos[0].parent.mkdir()
    for i, path in enumerate(photos):
        cv2.imwrite(str(path), np.full((48, 64, 3), 60 * (i + 1), np.uint8))
    config = load_config(None)
    spec = f"replay:{photos[0].parent}"
    camera_config = type(config.camera)(spec=spec)
    assert demo_profile(camera_config) is None and not camera_config.is_demo
    runtime = build_runtime(config, data_dir=tmp_path, camera=spec,
                            keeper=load_keeper(None, tmp_path))
    try:
        assert runtime.demo is None and runtime.camera_loop.camera.hold == 4.0
        assert runtime.camera_loop.camera.paths == photos
    finally:
        runtime.stop()


@pytest.mark.slow
def test_the_demo_played_through_the_real_reader_stays_on_the_record():
    """benchmarks/demo_game.py: the bundled frames read by the shipped reader with the demo
    table's profile, on the real table and camera loop. The camera never plays a roll the
    record does not have, plays the first roll and most of the others itself, and the game
    ends as recorded."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "demo_game.py"
    done = subprocess.run([sys.executable, str(script), "--json"], capture_output=True,
                          text=True, timeout=1200, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["off_script"] == [] and out["winner"] == "Jane", out
    assert 1 in out["played"], out  # what a newcomer sees first: Recruit, and the camera plays
    assert 2 * len(out["played"]) > out["rolls"], out
