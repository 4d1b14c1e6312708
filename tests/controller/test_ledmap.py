"""Mapping tray LEDs to the camera picture by lighting them one at a time."""
from __future__ import annotations

import numpy as np
import pytest

from companion.controller.calibrate import CalibrationError, ProfileKeeper
from companion.controller.ledmap import light_spot, map_leds
from hardware.leds import LedLayout, RecordingStrip, render_scene
from hardware.leds.driver import LedDriver


class TrayCamera:
    """Sees the tray LEDs of `driver` as bright dots along the top of the picture
    (LED k of the tray at x = 40 + 25k); LEDs in `hidden` are out of view."""

    def __init__(self, driver, hidden=()):
        self.driver, self.hidden = driver, set(hidden)

    def __call__(self):
        frame = np.full((240, 640, 3), 30, np.uint8)
        pixels = render_scene(self.driver.scene, 0.0, self.driver.layout)
        for k, index in enumerate(self.driver.layout.tray.indices()):
            if k not in self.hidden and pixels[index] != (0, 0, 0):
                frame[16:25, 36 + 25 * k:45 + 25 * k] = 250
        return frame


def driver_of(count=60):
    return LedDriver(RecordingStrip(count), LedLayout.default(count))


def test_light_spot_finds_the_new_light_or_nothing():
    dark = np.full((100, 100, 3), 20, np.uint8)
    lit = dark.copy()
    lit[40:47, 60:67] = 240
    assert light_spot(dark, lit) == pytest.approx((63.0, 43.0), abs=1.0)
    assert light_spot(dark, dark.copy()) is None


def test_every_visible_tray_led_is_mapped_in_order():
    driver = driver_of()
    found = map_leds(driver, TrayCamera(driver, hidden={3}), wait=0, sleep=lambda s: None)
    tray = list(driver.layout.tray.indices())
    assert [i for i, _, _ in found] == [i for k, i in enumerate(tray) if k != 3]
    for (index, x, y) in found:
        k = tray.index(index)
        assert x == pytest.approx(40 + 25 * k, abs=1.5) and y == pytest.approx(20, abs=1.5)


def test_the_keeper_saves_the_positions_and_gives_the_game_lights_back(tmp_path, table):
    from calibration.profile import default_profile
    from companion.controller.lights import TableLights
    from companion.ledview import scene_from_snapshot

    driver = driver_of()
    keeper = ProfileKeeper(default_profile(), tmp_path / "profile")
    with pytest.raises(CalibrationError, match="No LED strip"):
        keeper.map_leds(TrayCamera(driver), table.state())
    keeper.lights = TableLights(driver, scene_from_snapshot=scene_from_snapshot)
    summary = keeper.map_leds(TrayCamera(driver), table.state(), wait=0, sleep=lambda s: None)
    assert summary["leds"] == len(list(driver.layout.tray.indices()))
    assert keeper.lights.leds == keeper.profile.leds
    assert driver.scene.players  # the game's scene is back
    with pytest.raises(CalibrationError, match="did not see"):
        keeper.map_leds(TrayCamera(driver, hidden=range(100)), table.state(), wait=0,
                        sleep=lambda s: None)
