"""Strip backends: pixel buffer, recording fake, neopixel_spi (fake module), gpiozero (mock pins)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

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


class RecordingSPI:
    """busio.SPI as neopixel_spi uses it (try_lock/unlock/configure/write), keeping the bytes."""

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


def wire_bytes(frame: bytes) -> list[int]:
    """The colour bytes a WS2812B reads from one SPI frame (0xF0 = bit 1, 0xC0 = bit 0)."""
    bits = [1 if b == 0b11110000 else 0 for b in frame if b in (0b11110000, 0b11000000)]
    return [int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8)]


def test_neopixel_spi_strip_writes_corrected_frames_and_blanks_on_close():
    import neopixel_spi

    spi = RecordingSPI()
    strip = NeoPixelSpiStrip(4, brightness=1.0, gamma=1.0, spi=spi, module=neopixel_spi)
    strip.show([(10, 20, 30)] * 4)
    assert wire_bytes(spi.writes[-1]) == [20, 10, 30] * 4  # GRB on the wire
    strip.close()
    strip.close()
    assert wire_bytes(spi.writes[-1]) == [0] * 12


def test_the_real_neopixel_spi_library_gets_grb_bytes():
    import neopixel_spi

    spi = RecordingSPI()
    strip = NeoPixelSpiStrip(3, brightness=0.5, gamma=1.0, spi=spi, module=neopixel_spi)
    strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 200)])
    assert wire_bytes(spi.writes[-1]) == [0, 128, 0, 128, 0, 0, 0, 0, 100]  # G, R, B per LED, half
    strip.close()
    assert not any(b == 0b11110000 for b in spi.writes[-1])  # all off


def test_neopixel_spi_refuses_a_bad_pixel_order():
    import neopixel_spi

    with pytest.raises(StripConfigError, match="pixel_order"):
        NeoPixelSpiStrip(10, pixel_order="XYZ", spi=RecordingSPI(), module=neopixel_spi)


# ---- the whole stack on a faked kernel: spidev_kernel.py runs it in a fresh process ----

KERNEL = Path(__file__).with_name("spidev_kernel.py")
needs_blinka_pi = pytest.mark.skipif(
    importlib.util.find_spec("gpiod") is None,
    reason="Blinka's Raspberry Pi pins need gpiod (the test extra installs it on Linux)")


def on_fake_kernel(runs: list[dict], **kernel) -> list[dict]:
    """Each run's {opened, transfers (bytes), error}: our strip, neopixel_spi, PixelBuf, Blinka's
    board.SPI() and Adafruit_PureIO as installed, with only /dev/spidev0.0 faked."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BLINKA_", "SPI_BUFSIZE"))}
    out = subprocess.run([sys.executable, str(KERNEL), json.dumps({"runs": runs, **kernel})],
                         capture_output=True, text=True, timeout=120, env=env,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.splitlines()[-1])
    for result in results:
        result["transfers"] = [bytes.fromhex(t) for t in result["transfers"]]
    return results


RGB_FRAME = [(255, 0, 0), (0, 255, 0), (0, 0, 200)]


@needs_blinka_pi
def test_every_pixel_order_the_configuration_accepts_drives_the_real_library():
    # neopixel_spi defines constants only for RGB, GRB, RGBW and GRBW; PixelBuf parses any order
    orders = ["GRB", "RGB", "BRG", "RBG", "GBR", "BGR"]
    results = on_fake_kernel([{"count": 3, "order": o, "frames": [RGB_FRAME]} for o in orders])
    for order, result in zip(orders, results):
        assert result["opened"], result.get("error")
        sent = wire_bytes(result["transfers"][0])
        expected = [value for r, g, b in RGB_FRAME for value in
                    (dict(zip("RGB", (r, g, b)))[c] for c in order)]
        assert sent == expected, order


@needs_blinka_pi
def test_a_frame_is_one_spi_transfer_and_longer_strips_are_refused():
    fits, tears = on_fake_kernel([{"count": 165, "frames": [[(9, 9, 9)] * 165]},
                                  {"count": 166, "frames": [[(9, 9, 9)] * 166]}])
    # the frame, then dark twice on close (our off(), then the library's deinit())
    assert fits["opened"] and len(fits["transfers"]) == 3
    assert all(len(t) == 24 * 165 + 128 <= 4096 for t in fits["transfers"])
    # 166 LEDs: 4112 bytes, which Adafruit_PureIO would split into two transfers (a torn frame)
    assert not tears["opened"] and tears["error_type"] == "StripConfigError"
    assert "at most 165 LEDs" in tears["error"] and "spidev.bufsiz=32768" in tears["error"]
    assert tears["transfers"] == []


@needs_blinka_pi
def test_a_bigger_spidev_buffer_takes_a_longer_strip_in_one_transfer():
    (long,) = on_fake_kernel([{"count": 300, "frames": [[(1, 2, 3)] * 300]}], bufsiz=32768)
    assert long["opened"], long.get("error")
    assert [len(t) for t in long["transfers"]] == [24 * 300 + 128] * 3


@needs_blinka_pi
def test_spi_switched_off_or_a_missing_gpio_package_is_a_clear_strip_error():
    (off,) = on_fake_kernel([{"count": 10}], spi=False)
    assert off["error_type"] == "StripError" and "raspi-config nonint do_spi 0" in off["error"]
    (no_gpiod,) = on_fake_kernel([{"count": 10}], missing=["gpiod"])
    assert no_gpiod["error_type"] == "StripError"
    assert "sudo apt install python3-libgpiod" in no_gpiod["error"]


@needs_blinka_pi
def test_the_pi_5_board_opens_the_same_spi_bus():
    (pi5,) = on_fake_kernel([{"count": 3, "frames": [RGB_FRAME]}], board="RASPBERRY_PI_5")
    assert pi5["opened"] and wire_bytes(pi5["transfers"][0])[:3] == [0, 255, 0]


def test_neopixel_spi_without_spi_here_is_a_clear_error():
    # On this machine there is no /dev/spidev0.0 (or Blinka finds no Raspberry Pi).
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
