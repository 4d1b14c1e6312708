"""LEDs following the table, table buttons, and the serve composition (no real devices)."""
from __future__ import annotations

import pytest

from companion.config import Config, LedConfig
from companion.controller import Table
from companion.controller.lights import TableLights, settable_positions
from companion.controller.runtime import build_runtime, camera_settings, load_keeper, press
from companion.ledview import scene_from_snapshot
from hardware.leds import LedLayout, RecordingStrip
from hardware.leds.driver import LedDriver


@pytest.fixture
def lights(table: Table):
    strip = RecordingStrip(60)
    driver = LedDriver(strip, LedLayout.default(60))
    now = [100.0]
    lights = TableLights(driver, scene_from_snapshot=scene_from_snapshot, clock=lambda: now[0])
    table.subscribe(lights.update)
    lights.update(table.state())
    return lights, driver, strip, now


def test_leds_show_whose_turn_and_flash_on_a_farkle(table, lights):
    _, driver, strip, now = lights
    assert driver.scene.current == 0 and driver.scene.flash is None
    driver.tick(now[0])
    jane = strip.last
    table.apply_steps([{"action": "recruit"}, {"roll": [2, 2, 3, 4, 6, 6], "event": "blank"}])
    assert driver.scene.flash == "farkle" and driver.scene.current == 1  # Joseph's turn now
    driver.tick(now[0] + 0.1)
    assert strip.last != jane
    # a camera-status change is not a new step: the same flash, not restarted
    now[0] += 50
    table.set_camera("manual", "unplugged")
    assert driver.scene.flash == "farkle" and driver.scene.flash_started == 100.0


def test_leds_know_the_armies(table, lights):
    _, driver, _, _ = lights
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 1, 2, 3, 4], "event": "blank"},
                       {"set_aside": [1, 1, 1]}, {"action": "stop"}])
    assert [p[2] for p in driver.scene.players] == [1000, 0]
    assert driver.scene.players[0][1] == (255, 0, 0)  # Jane's red dice


def test_settable_positions_come_from_the_last_reading():
    state = {"phase": "set_aside", "options": [[1], [5], [1, 5]],
             "last_read": {"width": 640, "dice": [
                 {"kind": "soldier", "value": 1, "center": [64, 10]},
                 {"kind": "soldier", "value": 2, "center": [320, 10]},
                 {"kind": "soldier", "value": 5, "center": [576, 10]},
                 {"kind": "event", "value": "blank", "center": [300, 10]}]}}
    assert settable_positions(state) == (0.1, 0.9)
    assert settable_positions(state | {"phase": "decide"}) == ()
    # with calibrated LED positions: the tray LED nearest each die
    from calibration.profile import LedPosition
    from hardware.leds import Segment

    tray = Segment(10, 5)  # LEDs 10..14 along the tray edge
    leds = [LedPosition(10 + i, 60.0 + 130 * i, 0.0) for i in range(5)]
    assert settable_positions(state, leds=leds, tray=tray) == (0.0, 1.0)
    reverse = Segment(10, 5, reverse=True)
    assert settable_positions(state, leds=leds, tray=reverse) == (0.0, 1.0)
    leds_mid = [LedPosition(12, 70.0, 0.0), LedPosition(13, 580.0, 0.0)]
    assert settable_positions(state, leds=leds_mid, tray=tray) == (0.5, 0.75)


def test_buttons_roll_stop_and_undo(table):
    press(table, "stop")  # nothing to stop: a notice on the page, nothing changes
    assert table.state()["pending"]["kind"] == "notice" and table.position().endswith(":0")
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                       {"set_aside": [1, 5]}])
    press(table, "roll")
    assert table.state()["phase"] == "roll" and table.state()["history"][-1]["source"] == "button"
    press(table, "undo")
    assert table.state()["phase"] == "decide"
    press(table, "undo_long")
    assert table.state()["pending"]["kind"] == "undo"
    press(table, "stop")
    assert table.state()["army"]["Jane"] == 150


def test_profile_camera_settings_use_picamera2_names():
    import dataclasses

    from calibration.profile import CameraSettings, default_profile

    profile = dataclasses.replace(default_profile(), camera=CameraSettings(8000, 1.5, (1.8, 1.4), 2.5))
    assert camera_settings(profile) == {"ExposureTime": 8000, "AnalogueGain": 1.5,
                                        "ColourGains": (1.8, 1.4), "LensPosition": 2.5}
    assert camera_settings(default_profile()) is None


def test_runtime_without_camera_with_recorded_leds(tmp_path):
    config = Config(leds=LedConfig(backend="fake", count=30))
    runtime = build_runtime(config, data_dir=tmp_path, camera="none",
                            keeper=load_keeper(None, tmp_path))
    assert runtime.camera_loop is None and runtime.buttons is None
    runtime.start()
    runtime.table.new_game({"players": ["A", "B"]})
    runtime.stop()
    strip = runtime.lights.driver.strip
    assert isinstance(strip, RecordingStrip) and strip.frames
    assert strip.frames[-1] == tuple([(0, 0, 0)] * 30)  # turned off on the way out


@pytest.fixture
def mock_factory():
    """gpiozero's own MockFactory as the default pin factory, for the test."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    saved, Device.pin_factory = Device.pin_factory, MockFactory(pin_class=MockPWMPin)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


def test_leds_and_buttons_that_fail_to_start_leave_the_table_playing(tmp_path, mock_factory):
    # An LED pin and a button pin already claimed (gpiozero's GPIOPinInUse; on a Pi lgpio's
    # "GPIO busy"; for the strip, no SPI or Blinka not loading): each used to stop `serve`,
    # which systemd then restarted in a loop. A camera fault already let the game go on;
    # these now do too.
    from gpiozero import Button

    from companion.config import ButtonConfig

    held = [Button(pin, pin_factory=mock_factory) for pin in (5, 17)]  # another program's
    config = Config(leds=LedConfig(backend="gpio", count=30, gpio=(
                        {"kind": "rgbled", "pins": [17, 27, 22], "segment": "turn"},)),
                    buttons=ButtonConfig(enabled=True, roll=5))
    runtime = build_runtime(config, data_dir=tmp_path, camera="none",
                            keeper=load_keeper(None, tmp_path))
    assert runtime.lights is None and runtime.buttons is None
    notice = runtime.table.state()["pending"]
    assert notice["kind"] == "notice"
    assert notice["reason"].startswith("The LEDs are off: gpio rgbled on pins [17, 27, 22]")
    assert "The table buttons do not work:" in notice["reason"] and "dragon-farkle doctor" in notice["reason"]
    runtime.start()
    runtime.table.new_game({"players": ["A", "B"]})
    runtime.table.apply_steps([{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}])
    assert runtime.table.state()["phase"] == "set_aside"
    runtime.stop()
    for button in held:
        button.close()


def test_a_camera_reopened_gets_the_profiles_latest_lock(table, tmp_path):
    # An unplugged Pi camera is opened again with what the profile holds then: exposure
    # and focus locked after the table started must not be lost on a replug.
    from calibration.profile import CameraSettings
    from companion.controller.runtime import open_camera_loop

    opened = []

    class Config:
        spec = "picamera"

        def open(self, settings=None):
            opened.append(settings)  # and no camera: the loop starts without one

    keeper = load_keeper(None, tmp_path)
    loop = open_camera_loop(table, Config(), keeper)
    keeper._replace(camera=CameraSettings(8000, 1.5, (1.8, 1.4), 2.5))  # as lock_exposure does
    loop.reopen()
    assert opened == [None, {"ExposureTime": 8000, "AnalogueGain": 1.5, "ColourGains": (1.8, 1.4),
                             "LensPosition": 2.5}]
