"""A scripted game through LedDriver onto the RecordingStrip, frame by frame."""
from __future__ import annotations

import threading

import pytest

from hardware.leds import LedDriver, LedLayout, RecordingStrip, Scene, Segment, StripError
from hardware.leds.render import DRAGON_HURT, RED

pytestmark = pytest.mark.hardware

JANE, JOSEPH = (255, 0, 0), (0, 0, 255)
LAYOUT = LedLayout(count=24, turn=Segment(0, 2), armies=(Segment(2, 10),), dragon=Segment(12, 2),
                   tray=Segment(14, 10))
OFF = (0, 0, 0)


def game() -> list[tuple[float, Scene]]:
    """(time, scene) as the controller would set them during a short game."""
    players = [("Jane", JANE, 0), ("Joseph", JOSEPH, 0)]
    return [
        (0.0, Scene(players=players, current=0)),
        (2.0, Scene(players=players, current=0, settable=[0.0, 1.0])),  # Jane rolled: two dice to take
        (4.0, Scene(players=[("Jane", JANE, 2000), ("Joseph", JOSEPH, 0)], current=1,
                    flash="bank", flash_started=4.0)),
        (8.0, Scene(players=[("Jane", JANE, 2000), ("Joseph", JOSEPH, 0)], current=1,
                    flash="farkle", flash_started=8.0)),
        (12.0, Scene(players=[("Jane", JANE, 5000), ("Joseph", JOSEPH, 0)], current=0,
                     dragon_damage=1, dragon_health=2, flash="dragon", flash_started=12.0)),
        (16.0, Scene(players=[("Jane", JANE, 5000), ("Joseph", JOSEPH, 0)], winner=0,
                     dragon_damage=2, dragon_health=2, flash="win", flash_started=16.0)),
    ]


def play(ticks_per_second: int = 8) -> tuple[RecordingStrip, dict[float, tuple]]:
    strip = RecordingStrip(LAYOUT.count)
    driver = LedDriver(strip, LAYOUT)
    script = game()
    at: dict[float, tuple] = {}
    for n in range(20 * ticks_per_second):
        now = n / ticks_per_second
        for start, scene in script:
            if start == now:
                driver.scene = scene
        driver.tick(now)
        at[now] = strip.last
    driver.close()
    return strip, at


def test_colours_shown_for_a_scripted_game():
    strip, at = play()
    # Jane to roll (0.625 s: the breathing turn light at its peak): her colour on the turn LEDs, empty army bars, dragon whole.
    assert at[0.625][0:2] == (JANE, JANE)
    assert at[0.625][2:12] == ((15, 0, 0),) * 5 + ((0, 0, 15),) * 5
    # Jane's roll: LEDs next to the two scoring dice, in her colour.
    assert at[2.625][14] == JANE and at[2.625][23] == JANE and at[2.625][15:23] == (OFF,) * 8
    # Bank: a gold wipe over the whole strip, then Jane's bar at 2000 of 5000 (2 of 5 LEDs).
    assert at[4.125][0] != OFF and at[4.125][23] == OFF  # the wipe has not reached the end yet
    assert at[5.5][2:7] == (JANE, JANE, (15, 0, 0), (15, 0, 0), (15, 0, 0))
    assert at[5.5][0] != JANE  # now Joseph's turn
    # Joseph's Farkle: red blinks on and off.
    assert at[8.125] == (RED,) * 24 and at[8.375] == (OFF,) * 24 and at[8.625] == (RED,) * 24
    assert at[9.625][2:4] == (JANE, JANE)  # flash over: the game picture is back
    # Final Battle: one of two dragon counters hurt.
    assert at[14.5][12] == DRAGON_HURT
    # Jane wins: her colour chases round the strip and never stops.
    assert JANE in at[19.875] and JOSEPH not in at[19.875]
    # Closing the driver turned every LED off.
    assert strip.last == (OFF,) * 24


def test_unchanged_frames_are_not_resent():
    strip = RecordingStrip(LAYOUT.count)
    players = [("Jane", JANE, 1000)]
    driver = LedDriver(strip, LedLayout(count=24, armies=(Segment(0, 10),)), Scene(players=players))
    sent = [driver.tick(t / 10) for t in range(10)]
    assert sent == [True] + [False] * 9 and len(strip.frames) == 1


class FlakyStrip(RecordingStrip):
    def __init__(self, count):
        super().__init__(count)
        self.fail = True

    def _write(self, pixels):
        if self.fail and any(p != OFF for p in pixels):
            raise StripError("spi: write failed")
        super()._write(pixels)


def test_a_failing_write_is_counted_and_retried(caplog):
    caplog.set_level("INFO", logger="hardware.leds.driver")
    strip = FlakyStrip(24)
    driver = LedDriver(strip, LAYOUT, Scene(players=[("Jane", JANE, 1000)], current=0))
    assert driver.tick(0.6) is False and driver.errors == 1
    for _ in range(89):  # three seconds of frames with the strip gone
        driver.tick(0.6)
    assert driver.errors == 90
    assert caplog.text.count("spi: write failed") == 1  # logged once, not 30 times a second
    strip.fail = False
    assert driver.tick(0.6) is True
    assert "working again after 90 failed frames" in caplog.text


def test_run_ticks_until_stopped_then_turns_off():
    strip = RecordingStrip(LAYOUT.count)
    driver = LedDriver(strip, LAYOUT, Scene(players=[("Jane", JANE, 1000)], current=0))
    stop = threading.Event()
    times = iter(range(1000))

    def clock():
        now = next(times) / 10
        if now >= 1.0:
            stop.set()
        return now

    driver.run(stop, fps=1000, clock=clock)
    assert len(strip.frames) > 3 and strip.closed and strip.last == (OFF,) * 24


def test_layout_and_strip_must_agree():
    with pytest.raises(StripError, match="24 LEDs but the strip 10"):
        LedDriver(RecordingStrip(10), LAYOUT)
