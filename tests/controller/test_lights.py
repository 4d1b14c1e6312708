"""The LEDs following the table, frame by frame on the recording strip: step flashes that a
camera-status change does not cut short, and the advisor's hint on the tray LEDs."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.controller import GameStore, Table
from companion.controller.lights import TableLights, hint_position
from companion.ledview import scene_from_snapshot
from hardware.leds import LedLayout, RecordingStrip, render_scene
from hardware.leds.driver import LedDriver
from hardware.leds.render import FLASH_SECONDS

LAYOUT = LedLayout.default(60)  # turn 0..4, armies 5..34, dragon 35..39, tray 40..59


class Rig:
    """A table, its lights on a recording strip, and a clock the test moves."""

    def __init__(self, table: Table, *, hint: bool = False) -> None:
        self.table = table
        self.now = [100.0]
        self.strip = RecordingStrip(LAYOUT.count)
        self.driver = LedDriver(self.strip, LAYOUT)
        self.lights = TableLights(self.driver, scene_from_snapshot=scene_from_snapshot,
                                  clock=lambda: self.now[0], hint=hint)
        table.subscribe(self.lights.update)
        self.lights.update(table.state())

    def frames(self, seconds: float, *, fps: int = 20, at: dict | None = None) -> list:
        """The strip's colours at each tick for `seconds`; `at` = {tick: action} runs mid-way."""
        out = []
        for i in range(int(seconds * fps)):
            if at and i in at:
                at[i]()
            self.driver.tick(self.now[0] + i / fps)
            out.append(self.strip.last)
        return out

    def unflashed(self, t: float) -> list:
        """The same scene without its flash, rendered at `t`."""
        return render_scene(dataclasses.replace(self.driver.scene, flash=None), t, LAYOUT)


def new_table(tmp_path, name: str, advisor=None) -> Table:
    table = Table(GameStore(tmp_path / f"{name}.sqlite3"), advisor=advisor)
    table.new_game({"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}})
    return table


@pytest.mark.parametrize(("roll", "flash"), [
    ({"roll": [2, 2, 3, 4, 1, 6], "event": "rally"}, "rally"),   # no event yet: only the step says so
    ({"roll": [1, 1, 3, 4, 5, 6], "event": "dragon"}, "dragon"),
])
def test_a_dragon_or_rally_roll_flashes_the_strip(tmp_path, roll, flash):
    rig = Rig(new_table(tmp_path, "t"))
    rig.table.apply_step({"action": "recruit"})
    rig.now[0] = 200.0
    rig.table.apply_step(roll)
    assert rig.driver.scene.flash == flash and rig.driver.scene.flash_started == 200.0
    frames = rig.frames(FLASH_SECONDS[flash] + 0.5)
    plain = [rig.unflashed(200.0 + i / 20) for i in range(len(frames))]
    playing = int(FLASH_SECONDS[flash] * 20)
    assert all(frames[i] != tuple(plain[i]) for i in range(0, playing, 5))  # the flash shows ...
    assert frames[playing + 2:] == [tuple(p) for p in plain[playing + 2:]]  # ... then ends


def test_a_camera_status_change_does_not_cut_a_flash_short(tmp_path):
    steady, disturbed = Rig(new_table(tmp_path, "a")), Rig(new_table(tmp_path, "b"))
    for rig in (steady, disturbed):
        rig.table.apply_steps([{"action": "recruit"}, {"roll": [2, 2, 3, 4, 1, 6], "event": "rally"}])
    changes = {5: lambda: disturbed.table.set_camera("manual", "The camera was unplugged."),
               12: lambda: disturbed.table.set_camera("camera", "")}
    assert disturbed.frames(2.0, at=changes) == steady.frames(2.0)
    assert disturbed.driver.scene.flash == "rally"  # the same flash, same start: not restarted
    assert disturbed.driver.scene.flash_started == steady.driver.scene.flash_started


def rolled_by_camera(table: Table, fakes, faces: list[int]) -> None:
    table.apply_step({"action": "recruit"})
    verdict = table.handle_reading(fakes.reading(faces), np.zeros((480, 640, 3), np.uint8))
    assert verdict.kind == "apply"


def test_the_advisor_hint_pulses_at_the_recommended_die(store, advisor_cache, fakes):
    from companion.controller.advisor import TableAdvisor

    table = Table(store, advisor=TableAdvisor(advisor_cache))
    table.new_game({"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}})
    assert table.advisor.wait(60)
    rig = Rig(table, hint=True)
    rolled_by_camera(table, fakes, [1, 1, 2, 3, 5, 6])  # dice at x = 60, 140, ... 460 of 640
    state = table.state()
    assert state["advice"]["hint"]["dice"] == [1]  # keep one 1 and roll on
    assert rig.driver.scene.hint == pytest.approx(60 / 640) == hint_position(state)
    led = LAYOUT.tray.start + round(60 / 640 * (LAYOUT.tray.length - 1))
    pulse = [frame[led] for frame in rig.frames(1.0)]
    assert all(r == g == b > 0 for r, g, b in pulse) and len(set(pulse)) > 3  # white, pulsing
    other = LAYOUT.tray.start + round(140 / 640 * (LAYOUT.tray.length - 1))
    assert rig.strip.last[other] == (255, 0, 0)  # the other settable 1: Jane's red


def test_no_hint_unless_switched_on_in_the_config_and_on_the_page(store, advisor_cache, fakes):
    from companion.controller.advisor import TableAdvisor

    table = Table(store, advisor=TableAdvisor(advisor_cache))
    table.new_game({"players": ["Jane", "Joseph"]})
    assert table.advisor.wait(60)
    off, on = Rig(table, hint=False), Rig(table, hint=True)
    rolled_by_camera(table, fakes, [1, 1, 2, 3, 5, 6])
    assert off.driver.scene.hint is None and on.driver.scene.hint is not None
    table.set_settings({"advisor": False})
    assert on.driver.scene.hint is None


def test_hint_position_needs_the_recommended_dice_in_the_reading():
    state = {"phase": "set_aside", "advice": {"hint": {"dice": [1, 1, 5], "card": None}},
             "last_read": {"width": 600, "dice": [
                 {"kind": "soldier", "value": 5, "center": [540, 0]},
                 {"kind": "soldier", "value": 1, "center": [60, 0]},
                 {"kind": "soldier", "value": 1, "center": [300, 0]},
                 {"kind": "soldier", "value": 4, "center": [420, 0]}]}}
    assert hint_position(state) == pytest.approx(0.5)  # the middle one of 1, 1, 5
    state["advice"]["hint"]["dice"] = [1, 1, 1]
    assert hint_position(state) is None  # the camera does not see three 1s
    assert hint_position(state | {"advice": None}) is None


def test_a_die_the_camera_asks_about_blinks_until_it_is_marked(tmp_path, fakes):
    from companion.controller.lights import asked_positions
    from hardware.leds.render import ASK

    table = new_table(tmp_path, "asked")
    rig = Rig(table)
    table.apply_step({"action": "recruit"})
    read = fakes.reading([1, 2, 2, 4, 4], "blank")  # dice at x = 60, 140, ... 380 of 640
    unsure = fakes.soldier(3, 460.0, conf=0.4, choices=(3, 5))
    verdict = table.handle_reading(type(read)(dice=(*read.dice, unsure), warnings=()),
                                   np.zeros((480, 640, 3), np.uint8))
    assert verdict.kind == "ask"
    assert rig.driver.scene.asked == pytest.approx((460 / 640,), abs=1e-3)
    assert rig.driver.scene.asked == asked_positions(table.state())
    led = LAYOUT.tray.start + round(460 / 640 * (LAYOUT.tray.length - 1))
    blink = {frame[led] for frame in rig.frames(1.0)}
    assert blink == {ASK, (0, 0, 0)}
    table.mark_pending({"x": 460 / 640, "y": 100 / 480, "face": 5})  # the players settle it
    assert rig.driver.scene.asked == ()
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert rig.driver.scene.asked == ()


def test_asked_positions_follow_the_calibrated_tray_leds():
    from types import SimpleNamespace

    from companion.controller.lights import asked_positions

    state = {"pending": {"photo_size": [640, 480], "unsure": [
        {"x": 0.1, "y": 0.9, "marked": None}, {"x": 0.9, "y": 0.1, "marked": 4}]}}
    leds = [SimpleNamespace(index=i, x=x, y=480.0) for i, x in ((40, 600.0), (59, 40.0))]
    # the strip runs right to left under the tray: the die at the left is near LED 59
    assert asked_positions(state, leds=leds, tray=LAYOUT.tray) == (1.0,)
    assert asked_positions(state) == pytest.approx((0.1,))  # no calibration: x in the frame
    assert asked_positions({"pending": None}) == ()
