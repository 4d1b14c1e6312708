"""`dragon-farkle doctor`: on this laptop as it is, and on fake Pis (files, commands, libraries)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from companion.cli import main
from companion.cli.doctor import examine
from companion.config import ButtonConfig, CameraConfig, Config, LedConfig, ServerConfig
from hardware.probe import Pi

pytestmark = pytest.mark.hardware


def test_doctor_runs_on_a_laptop_and_says_it_is_not_a_pi(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    status = main(["doctor", "--no-led-test"])
    out = capsys.readouterr().out
    assert status in (0, 1)  # 1 only when something here needs fixing
    assert "not a Raspberry Pi" in out and "System: 64-bit" in out
    assert "Camera: the demo game" in out and "Address: " in out
    lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(lines) >= 9 and all(line[2:6] in ("ok  ", "FIX ", "--  ") for line in lines)


def test_doctor_reports_a_bad_configuration_file(capsys, tmp_path):
    bad = tmp_path / "companion.toml"
    bad.write_text("[leds]\ncount = 0\n")
    assert main(["doctor", "--config", str(bad)]) == 2
    assert "leds.count must be a positive integer" in capsys.readouterr().err


@dataclass
class FakePi(Pi):
    """A Pi 4 on a fake file system, with fake commands and libraries."""

    answers: dict[str, tuple[int, str]] = field(default_factory=dict)
    spi: tuple[bool, str | None] = (True, "spi")
    bufsiz: int = 4096

    def __post_init__(self) -> None:
        self.run = self._answer

    def _answer(self, args):
        return self.answers.get(" ".join(args[:2]), (127, "not installed"))

    def spi_device(self):
        return self.spi

    def spidev_bufsiz(self) -> int:
        return self.bufsiz


def a_pi(tmp_path: Path, **kwargs) -> FakePi:
    model = tmp_path / "proc" / "device-tree" / "model"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\0")
    answers = {
        "dpkg --print-architecture": (0, "arm64"),
        "systemctl is-active": (0, "active"),
        "systemctl is-enabled": (0, "enabled"),
        "nmcli -t": (0, "802-11-wireless:wlan0:HomeNet\nloopback:lo:lo"),
    }
    answers.update(kwargs.pop("answers", {}))
    defaults = {"root": tmp_path, "cameras": lambda: [{"Model": "imx708", "Num": 0}],
                "pin_free": lambda pin: None, "groups": lambda: ["pi", "spi"]}
    return FakePi(answers=answers, **{**defaults, **kwargs})


def pi_config(tmp_path: Path, **leds) -> Config:
    return Config(camera=CameraConfig(spec="picamera"),
                  leds=LedConfig(**{"backend": "neopixel_spi", "count": 60, **leds}),
                  buttons=ButtonConfig(enabled=True),
                  server=ServerConfig(data_dir=tmp_path / "data"))


def by_topic(findings) -> dict[str, tuple[str, str]]:
    return {f.topic: (f.status, f.text) for f in findings}


def test_a_healthy_pi_4_is_all_ok(tmp_path):
    found = by_topic(examine(a_pi(tmp_path), pi_config(tmp_path),
                             addresses=lambda: ["192.168.1.20"]))
    assert found["Board"] == ("ok", "Raspberry Pi 4 Model B Rev 1.4")
    assert found["System"] == ("ok", "64-bit (arm64)")
    assert found["Camera"] == ("ok", "Camera Module 3 (imx708)")
    assert found["SPI"] == ("ok", "on (/dev/spidev0.0, group spi)")
    assert found["LEDs"][0] == "note" and "the service drives them" in found["LEDs"][1]
    assert found["Buttons"] == ("ok", "roll GPIO5, stop GPIO6, undo GPIO13 (held by the running service)")
    assert found["Service"] == ("ok", "the dragon-farkle service runs and starts at boot")
    assert found["Network"][0] == "ok" and "HomeNet" in found["Network"][1]
    assert found["Address"][0] == "ok" and "http://192.168.1.20:8000/" in found["Address"][1]


def test_a_pi_with_everything_wrong_says_what_to_do_for_each(tmp_path):
    pi = a_pi(tmp_path, cameras=list, spi=(False, None),
              pin_free=lambda pin: "GPIOPinInUse: pin 5 is already in use" if pin == 5 else None,
              answers={"dpkg --print-architecture": (0, "armhf"),
                       "systemctl is-active": (3, "failed"),
                       "nmcli -t": (0, "")})
    found = by_topic(examine(pi, pi_config(tmp_path), led_test=False,
                             addresses=lambda: ["127.0.0.1"]))
    assert {topic for topic, (status, _) in found.items() if status == "fix"} == {
        "System", "Camera", "SPI", "Buttons", "Service", "Network", "Address"}
    assert "Raspberry Pi OS (64-bit)" in found["System"][1]
    assert "ribbon cable" in found["Camera"][1]
    assert "raspi-config nonint do_spi 0" in found["SPI"][1]
    assert "GPIO5 (roll)" in found["Buttons"][1] and "already in use" in found["Buttons"][1]
    assert "journalctl -u dragon-farkle" in found["Service"][1]
    assert "pi-hotspot --now" in found["Network"][1]


def test_doctor_checks_the_strip_length_and_the_button_pins_against_spi(tmp_path):
    found = by_topic(examine(a_pi(tmp_path), pi_config(tmp_path, count=200)))
    assert found["LEDs"][0] == "fix" and "takes 165 LEDs" in found["LEDs"][1]
    bigger = a_pi(tmp_path / "b", bufsiz=32768)
    assert by_topic(examine(bigger, pi_config(tmp_path, count=200)))["LEDs"][0] == "note"
    config = pi_config(tmp_path)
    config = Config(camera=config.camera, leds=config.leds, server=config.server,
                    buttons=ButtonConfig(enabled=True, roll=10))
    found = by_topic(examine(a_pi(tmp_path / "c"), config))
    assert found["Buttons"][0] == "fix" and "SPI0 MOSI" in found["Buttons"][1]


def test_doctor_names_the_table_network_a_missing_picamera2_and_a_stopped_service(tmp_path):
    def no_picamera2():
        raise ImportError("No module named 'picamera2'")

    pi = a_pi(tmp_path, cameras=no_picamera2, groups=lambda: ["pi"],
              answers={"nmcli -t": (0, "802-11-wireless:wlan0:dragon-farkle"),
                       "systemctl is-active": (3, "inactive")})
    found = by_topic(examine(pi, pi_config(tmp_path), led_test=False))
    assert "sudo apt install python3-picamera2" in found["Camera"][1]
    assert found["Network"] == ("ok", ("the table's own Wi-Fi network is open (dragon-farkle): "
                                       "phones join it"))
    assert found["Service"] == ("fix", "inactive: sudo systemctl start dragon-farkle")
    assert found["Buttons"] == ("ok", "roll GPIO5, stop GPIO6, undo GPIO13: pins free")
    assert "not in the spi group" in found["SPI"][1] and found["SPI"][0] == "ok"
    assert found["LEDs"] == ("note", "neopixel_spi: not tested (--no-led-test)")


def test_the_doctor_claims_a_free_pin_for_a_moment_with_real_gpiozero(mock_factory):
    from gpiozero import Button

    from hardware.probe import pin_free

    assert pin_free(5) is None
    held = Button(5)
    assert "GPIOPinInUse" in (pin_free(5) or "")
    held.close()
    assert pin_free(5) is None


GPIO_LEDS = ({"kind": "rgbled", "pins": [17, 27, 22], "segment": "turn"},)


def test_the_led_test_frame_goes_to_the_configured_leds(tmp_path, mock_factory):
    from gpiozero import Button

    pi = a_pi(tmp_path, answers={"systemctl is-active": (3, "inactive")})
    config = pi_config(tmp_path, backend="gpio", gpio=GPIO_LEDS)
    found = by_topic(examine(pi, config, sleep=lambda s: None))
    assert found["LEDs"][0] == "ok" and found["LEDs"][1].startswith("gpio took a test frame")
    assert mock_factory.pin(27).state == 0  # green lit, then all off again
    assert any(s.state for s in mock_factory.pin(27).states)
    held = Button(17)  # another program holds the red pin: the strip's own error, as a fix
    found = by_topic(examine(a_pi(tmp_path / "b", answers={"systemctl is-active": (3, "inactive")}),
                             config, sleep=lambda s: None))
    assert found["LEDs"][0] == "fix" and "gpio rgbled on pins [17, 27, 22]" in found["LEDs"][1]
    held.close()
