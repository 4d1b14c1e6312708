"""Buttons through gpiozero's mock pins: roll, stop, undo and the long undo press."""
from __future__ import annotations

import time

import pytest

from hardware.buttons import ButtonConfigError, Buttons

pytestmark = pytest.mark.hardware


def wait_for(predicate, timeout=1.0):
    """gpiozero may call handlers on its own thread: poll briefly."""
    end = time.monotonic() + timeout
    while not predicate() and time.monotonic() < end:
        time.sleep(0.005)
    return predicate()


@pytest.fixture
def pressed(mock_factory, clock):
    got: list[str] = []
    buttons = Buttons({"roll": 5, "stop": 6, "undo": 13}, got.append, long_press=1.5,
                      bounce_time=None, pin_factory=mock_factory, clock=clock)
    yield got, buttons
    buttons.close()


def press(factory, pin, clock=None, hold=0.1):
    factory.pin(pin).drive_low()
    if clock is not None:
        clock.advance(hold)
    factory.pin(pin).drive_high()


def test_roll_and_stop(pressed, mock_factory):
    got, _ = pressed
    press(mock_factory, 5)
    press(mock_factory, 6)
    assert wait_for(lambda: got == ["roll", "stop"])


def test_short_and_long_undo(pressed, mock_factory, clock):
    got, _ = pressed
    press(mock_factory, 13, clock, hold=0.3)
    press(mock_factory, 13, clock, hold=2.0)
    press(mock_factory, 13, clock, hold=1.49)
    assert wait_for(lambda: got == ["undo", "undo_long", "undo"])


def test_undo_fires_on_release_not_on_press(pressed, mock_factory, clock):
    got, buttons = pressed
    mock_factory.pin(13).drive_low()
    assert buttons.is_pressed("undo")
    time.sleep(0.02)
    assert got == []
    clock.advance(3)
    mock_factory.pin(13).drive_high()
    assert wait_for(lambda: got == ["undo_long"])


def test_a_failing_handler_does_not_break_the_buttons(mock_factory, clock):
    calls = []

    def handler(name):
        calls.append(name)
        raise RuntimeError("app bug")

    buttons = Buttons({"roll": 5}, handler, bounce_time=None, pin_factory=mock_factory, clock=clock)
    press(mock_factory, 5)
    press(mock_factory, 5)
    assert wait_for(lambda: calls == ["roll", "roll"])
    buttons.close()


def test_close_is_idempotent_and_frees_the_pins(mock_factory, clock):
    buttons = Buttons({"roll": 5, "stop": None}, lambda n: None, pin_factory=mock_factory, clock=clock)
    buttons.close()
    buttons.close()
    Buttons({"roll": 5}, lambda n: None, pin_factory=mock_factory).close()  # pin 5 is free again


@pytest.mark.parametrize(
    ("pins", "message"),
    [
        ({"jump": 5}, "unknown button 'jump'"),
        ({"roll": 40}, "GPIO numbers 0-27"),
        ({"roll": 5, "stop": 5}, "share a pin"),
    ],
)
def test_bad_pins_are_refused(pins, message, mock_factory):
    with pytest.raises(ButtonConfigError, match=message):
        Buttons(pins, lambda n: None, pin_factory=mock_factory)


def test_long_undo_fires_while_still_held(mock_factory):
    got: list[str] = []
    buttons = Buttons({"undo": 13}, got.append, long_press=0.05, bounce_time=None,
                      pin_factory=mock_factory)
    mock_factory.pin(13).drive_low()
    assert wait_for(lambda: got == ["undo_long"])  # the page can ask before the button is let go
    mock_factory.pin(13).drive_high()
    time.sleep(0.05)
    assert got == ["undo_long"]  # releasing adds nothing
    buttons.close()
