"""Shared fakes for the hardware tests: a clock, gpiozero's mock pins, photo files."""
from __future__ import annotations

import contextlib
import importlib.util
import os
from pathlib import Path

import cv2
import numpy as np
import pytest


class FakeClock:
    """A clock the test moves by hand (devices take `clock=`)."""

    def __init__(self, start: float = 100.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _load_fake_picamera2():
    """tests/hardware/fake_picamera2.py (the tests folder is not a package)."""
    path = Path(__file__).with_name("fake_picamera2.py")
    spec = importlib.util.spec_from_file_location("fake_picamera2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fake_picamera2 = _load_fake_picamera2()


@pytest.fixture
def picam(monkeypatch, clock):
    """The Picamera2 stand-in (fake_picamera2.py), on the test's clock; pipes closed after."""
    cls = fake_picamera2.FakePicamera2
    for name, value in (("instances", []), ("pipes", []), ("mono", False), ("autofocus", False),
                        ("stalled", False), ("scan_frames", 2), ("scan_ends", 2),
                        ("cameras", [{"Model": "imx219", "Num": 0, "Id": "/base/imx219@10"}])):
        monkeypatch.setattr(cls, name, value)
    monkeypatch.setattr(cls, "clock", staticmethod(clock))
    yield cls
    for read, write in cls.pipes:  # whatever the code under test left open
        read.close()
        with contextlib.suppress(OSError):
            os.close(write)


@pytest.fixture
def mock_factory():
    """gpiozero's MockFactory with PWM-capable pins, reset after the test."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    saved = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


def _make_photo(path: Path, value: int, size: tuple[int, int] = (64, 48)) -> Path:
    """Write a small BGR photo whose pixels are all `value` plus a marker square."""
    image = np.full((size[1], size[0], 3), value, np.uint8)
    image[4:12, 4:12] = (0, 0, 255)
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), image)
    return path


@pytest.fixture
def photos(tmp_path: Path) -> list[Path]:
    """Three distinct photos in tmp_path/tray/images."""
    return [_make_photo(tmp_path / "tray" / "images" / f"{i}.png", 60 * (i + 1)) for i in range(3)]


@pytest.fixture
def make_photo():
    """The photo writer: make_photo(path, value, size=(64, 48)) -> path."""
    return _make_photo
