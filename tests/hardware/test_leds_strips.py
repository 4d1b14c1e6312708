"""Strip backends: pixel buffer, recording fake, neopixel_spi (fake module), gpiozero (mock pins)."""
from __future__ import annotations

import types

import pytest

from hardware.leds import (
    LedLayout,
    NullStrip,
    PixelBuffer,
    RecordingStrip,
    Segment,
    StripConfig,
    StripConfigError,
    StripError,
    open_strip,
)
from hardware.leds.gpio import GpioDevice, GpioLeds
from hardware.leds.neopixel import NeoPixelSpiStrip

pytestmark = pytest.mark.hardware


def test_pixel_buffer_applies_brightness_and_gamma():
    assert PixelBuffer(2, brightness=0.5).correct([(255, 100, 0)]) == [(128, 50, 0), (0, 0, 0)]
    assert PixelBuffer(1, gamma=2.2).correct([(128, 255, 0)]) == [(56, 255, 0)]
    assert PixelBuffer(1).correct([(300, -5, 7)]) == [(255, 0, 7)]
    with pytest.raises(StripConfigError, match="3 colours for a strip of 2"):
        PixelBuffer(2).correct([(0, 0, 0)] * 3)
    with pytest.raises(StripConfigError, match="brightness"):
        PixelBuffer(2, brightness=1.5)


def test_recording_strip_records_frames_and_goes_dark_on_close():
    strip = RecordingStrip(3, brightness=0.5)
    strip.show([(255, 0, 0), (0, 255, 0)])
    assert strip.frames == [((128, 0, 0), (0, 128, 0), (0, 0, 0))]
    strip.close()
    strip.close()
    assert strip.last == ((0, 0, 0),) * 3 and len(strip.frames) == 2
    with pytest.raises(StripError, match="closed"):
        strip.show([(1, 1, 1)])


class FakeNeoPixelSPI:
    """adafruit_neopixel_spi.NeoPixel_SPI's buffer API (slice assignment, show, deinit)."""

    def __init__(self, spi, n, *, pixel_order, brightness, auto_write):
        self.args = (spi, n, pixel_order, brightness, auto_write)
        self.buf = [(0, 0, 0)] * n
        self.shown: list[list] = []
        self.deinits = 0

    def __setitem__(self, index, value):
        self.buf[index] = list(value)

    def show(self):
        self.shown.append(list(self.buf))

    def deinit(self):
        self.deinits += 1


def fake_neopixel_module():
    module = types.SimpleNamespace(GRB="GRB", RGB="RGB", BRG="BRG", RBG="RBG", GBR="GBR", BGR="BGR")
    module.made = []

    def make(*args, **kwargs):
        module.made.append(FakeNeoPixelSPI(*args, **kwargs))
        return module.made[-1]

    module.NeoPixel_SPI = make
    return module


def test_neopixel_spi_strip_writes_corrected_frames_and_blanks_on_close():
    module = fake_neopixel_module()
    strip = NeoPixelSpiStrip(4, brightness=1.0, gamma=1.0, spi="SPI0", module=module)
    device = module.made[0]
    assert device.args == ("SPI0", 4, "GRB", 1.0, False)
    strip.show([(10, 20, 30)] * 4)
    assert device.shown == [[(10, 20, 30)] * 4]
    strip.close()
    strip.close()
    assert device.shown[-1] == [(0, 0, 0)] * 4 and device.deinits == 1


def test_neopixel_spi_limits():
    module = fake_neopixel_module()
    with pytest.raises(StripConfigError, match="more than 170"):
        NeoPixelSpiStrip(200, spi="SPI0", module=module)
    with pytest.raises(StripConfigError, match="pixel_order"):
        NeoPixelSpiStrip(10, pixel_order="XYZ", spi="SPI0", module=module)


def test_neopixel_spi_without_the_library_or_spi_is_a_clear_error():
    # On this machine either the library is missing or board.SPI() has no /dev/spidev0.0.
    with pytest.raises(StripError, match="neopixel_spi"):
        open_strip(StripConfig(backend="neopixel_spi", count=10))


LAYOUT = LedLayout(count=20, turn=Segment(0, 2), armies=(Segment(2, 10),), dragon=Segment(12, 3))


def test_gpio_rgbled_shows_the_turn_colour(mock_factory):
    leds = GpioLeds(LAYOUT, [GpioDevice("rgbled", (17, 27, 22), "turn")], pin_factory=mock_factory)
    leds.show([(255, 128, 0)] * 2)
    assert [mock_factory.pin(p).state for p in (17, 27, 22)] == pytest.approx([1.0, 128 / 255, 0.0])
    leds.close()
    assert [mock_factory.pin(p).state for p in (17, 27, 22)] == [0, 0, 0]


def test_gpio_bargraph_shows_how_much_of_the_army_bar_is_lit(mock_factory):
    pins = (5, 6, 13, 19, 26)
    leds = GpioLeds(LAYOUT, [GpioDevice("bargraph", pins, "armies[0]")], pin_factory=mock_factory)
    frame = [(0, 0, 0)] * 2 + [(255, 0, 0)] * 6 + [(15, 0, 0)] * 4 + [(0, 0, 0)] * 8
    leds.show(frame)
    assert [mock_factory.pin(p).state for p in pins] == [1, 1, 1, 0, 0]
    leds.close()
    leds.close()
    assert [mock_factory.pin(p).state for p in pins] == [0] * 5


def test_gpio_board_follows_the_segment_positions(mock_factory):
    pins = (20, 21, 16)
    device = GpioDevice("board", pins, "dragon", pwm=False)
    leds = GpioLeds(LAYOUT, [device], pin_factory=mock_factory)
    frame = [(0, 0, 0)] * 12 + [(255, 0, 0), (0, 90, 20), (255, 0, 0)] + [(0, 0, 0)] * 5
    leds.show(frame)
    assert [mock_factory.pin(p).state for p in pins] == [1, 0, 1]
    history = [s.state for s in mock_factory.pin(21).states]
    assert history == [False]  # never lit


def test_gpio_unknown_segment_is_refused_and_frees_pins(mock_factory):
    devices = [GpioDevice("rgbled", (17, 27, 22), "turn"), GpioDevice("board", (5,), "tray")]
    with pytest.raises(StripConfigError, match="segment 'tray'"):
        GpioLeds(LAYOUT, devices, pin_factory=mock_factory)
    GpioLeds(LAYOUT, devices[:1], pin_factory=mock_factory).close()  # pins still free


def test_gpio_device_checks():
    with pytest.raises(StripConfigError, match="3 pins"):
        GpioDevice("rgbled", (1, 2), "turn")
    with pytest.raises(StripConfigError, match="kind"):
        GpioDevice("lamp", (1,), "turn")


def test_open_strip_chooses_the_backend(mock_factory):
    assert isinstance(open_strip(None), RecordingStrip)
    assert isinstance(open_strip({"backend": "none", "count": 5}), NullStrip)
    gpio = open_strip(
        {"backend": "gpio", "count": 20, "gpio": [{"kind": "rgbled", "pins": [17, 27, 22], "segment": "turn"}]},
        layout=LAYOUT,
        pin_factory=mock_factory,
    )
    assert isinstance(gpio, GpioLeds)
    gpio.close()
    with pytest.raises(StripConfigError, match="unknown LED backend 'ws2801'"):
        open_strip({"backend": "ws2801"})
    with pytest.raises(StripConfigError, match="bad LED configuration"):
        open_strip({"backend": "fake", "length": 3})


class RecordingSPI:
    """busio.SPI's locking/configure/write protocol, keeping the bytes sent."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def try_lock(self) -> bool:
        return True

    def unlock(self) -> None:
        pass

    def configure(self, **kwargs) -> None:
        pass

    def write(self, buf, start=0, end=None) -> None:
        self.writes.append(bytes(buf[start:end]))


def test_the_real_neopixel_spi_library_gets_grb_bytes():
    neopixel_spi = pytest.importorskip("neopixel_spi", reason="the pi extra is not installed here")
    spi = RecordingSPI()
    strip = NeoPixelSpiStrip(3, brightness=0.5, gamma=1.0, spi=spi, module=neopixel_spi)
    strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 200)])
    bits = [1 if b == 0b11110000 else 0 for b in spi.writes[-1] if b in (0b11110000, 0b11000000)]
    sent = [int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8)]
    assert sent == [0, 128, 0, 128, 0, 0, 0, 0, 100]  # G, R, B per LED, at half brightness
    strip.close()
    assert not any(b == 0b11110000 for b in spi.writes[-1])  # all off
