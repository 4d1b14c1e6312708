"""The Pi install files: the systemd unit (package data) and scripts/install-pi."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from companion.config import load_config, pi_config_text

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install-pi"


def unit_text() -> str:
    return (resources.files("hardware") / "systemd" / "dragon-farkle.service").read_text()


def rendered_unit(tmp_path: Path, exec_ok: bool = True) -> Path:
    """The unit as install-pi writes it, pointing at a stand-in app folder."""
    app = tmp_path / "app"
    binary = app / ".venv" / "bin" / "dragon-farkle"
    binary.parent.mkdir(parents=True)
    if exec_ok:
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)
    text = unit_text()
    for key, value in {"USER": "root", "GROUP": "root", "APPDIR": str(app),
                       "CONFIG": str(tmp_path / "companion.toml")}.items():
        text = text.replace(f"@{key}@", value)
    path = tmp_path / "dragon-farkle.service"
    path.write_text(text)
    return path


def test_unit_has_the_service_shape():
    text = unit_text()
    for line in (
        "Restart=on-failure",
        "KillSignal=SIGINT",
        "SupplementaryGroups=video gpio spi",
        "ExecStart=@APPDIR@/.venv/bin/dragon-farkle serve --config @CONFIG@",
        "User=@USER@",
        "WantedBy=multi-user.target",
    ):
        assert f"\n{line}\n" in text, line


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_analyze_verifies_the_unit(tmp_path):
    result = subprocess.run(["systemd-analyze", "verify", str(rendered_unit(tmp_path))],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_analyze_catches_a_missing_program(tmp_path):
    result = subprocess.run(["systemd-analyze", "verify", str(rendered_unit(tmp_path, exec_ok=False))],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0 and "not executable" in result.stderr


@pytest.mark.skipif(not SCRIPT.exists(), reason="scripts/install-pi is only in a checkout")
def test_install_script_is_valid_bash_and_fills_every_placeholder():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
    script = SCRIPT.read_text()
    for placeholder in set(re.findall(r"@[A-Z]+@", unit_text())):
        assert f"s|{placeholder}|" in script, placeholder
    for needed in ("python3-picamera2", "python3-lgpio", "--no-install-recommends",
                   "--system-site-packages", "[pi]", "do_spi 0", "core_freq=500",
                   "companion.config --pi", "systemctl enable"):
        assert needed in script, needed


def test_the_pi_configuration_the_script_writes_loads(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text(pi_config_text())
    assert load_config(path).camera.spec == "picamera"


HOTSPOT = SCRIPT.parent / "pi-hotspot"
FAKE_NMCLI = """#!/bin/sh
# nmcli as far as pi-hotspot uses it: each call logged, connections kept in a file
echo "$*" >> "$LOG"
case "$1 $2" in
  "-t -f") cat "$STATE" 2>/dev/null ;;
  "connection add") echo "$8" >> "$STATE" ;;  # con-name NAME
  "connection delete") grep -vx "$3" "$STATE" > "$STATE.new"; mv "$STATE.new" "$STATE" ;;
esac
"""


def run_hotspot(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    nmcli = tmp_path / "nmcli"
    nmcli.write_text(FAKE_NMCLI)
    nmcli.chmod(0o755)
    apt = tmp_path / "apt-get"  # logs what it would install
    apt.write_text('#!/bin/sh\necho "apt-get $*" >> "$LOG"\n')
    apt.chmod(0o755)
    log = tmp_path / "log"
    (tmp_path / "data").mkdir(exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "NMCLI": str(nmcli), "APT_GET": str(apt), "LOG": str(log),
           "STATE": str(tmp_path / "state"), "STATE_DIR": str(tmp_path / "data")}
    result = subprocess.run(["bash", str(HOTSPOT), *args], capture_output=True, text=True,
                            env=env, timeout=60, check=False)
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return result, calls


@pytest.mark.skipif(not HOTSPOT.exists(), reason="scripts/pi-hotspot is only in a checkout")
@pytest.mark.skipif(os.geteuid() != 0, reason="pi-hotspot refuses to run without root")
def test_the_pi_hotspot_is_a_wpa2_access_point_that_yields_to_known_networks(tmp_path):
    result, calls = run_hotspot(tmp_path, "Our table", "dragons!")
    assert result.returncode == 0, result.stderr
    if shutil.which("dnsmasq", path="/usr/sbin:/usr/bin:/sbin:/bin") is None:
        assert "apt-get install -y --no-install-recommends dnsmasq-base" in calls
    add = next(c for c in calls if c.startswith("connection add"))
    for words in ("ifname wlan0 con-name dragon-farkle ssid Our table",
                  "connection.autoconnect yes connection.autoconnect-priority -10",
                  "802-11-wireless.mode ap", "ipv4.method shared ipv4.addresses 10.42.0.1/24",
                  "wifi-sec.key-mgmt wpa-psk wifi-sec.proto rsn", "wifi-sec.psk dragons!"):
        assert words in add, words
    assert not any(c.startswith("connection up") for c in calls)  # not now: SSH stays up
    assert "http://10.42.0.1:8000/" in result.stdout and "password: dragons!" in result.stdout
    # for the phones' Table tab, readable by the table's user only
    wifi = tmp_path / "data" / "wifi.json"
    assert json.loads(wifi.read_text()) == {"name": "Our table", "password": "dragons!"}
    assert wifi.stat().st_mode & 0o777 == 0o640
    # again, now, with a random password: the old connection is replaced, then opened
    result, calls = run_hotspot(tmp_path, "--now")
    assert result.returncode == 0, result.stderr
    calls = [c for c in calls if not c.startswith("apt-get")]
    assert calls[1] == "connection delete dragon-farkle"
    assert "ssid dragon-farkle" in calls[2] and calls[-1] == "connection up dragon-farkle"
    password = re.search(r"password: (\S+)\)", result.stdout).group(1)
    assert len(password) == 10 and f"wifi-sec.psk {password}" in calls[2]
    result, calls = run_hotspot(tmp_path, "--off")
    assert result.returncode == 0 and calls[-1] == "connection delete dragon-farkle"
    assert (tmp_path / "state").read_text() == "" and not wifi.exists()


@pytest.mark.skipif(not HOTSPOT.exists(), reason="scripts/pi-hotspot is only in a checkout")
@pytest.mark.skipif(os.geteuid() != 0, reason="pi-hotspot refuses to run without root")
@pytest.mark.parametrize(("args", "words"), [
    (("table", "short"), "8 to 63 characters"),
    (("x" * 33,), "1 to 32 characters"),
    (("--bogus",), "unknown option"),
])
def test_the_pi_hotspot_refuses_bad_input_and_changes_nothing(tmp_path, args, words):
    result, calls = run_hotspot(tmp_path, *args)
    assert result.returncode == 2 and words in result.stderr
    assert calls == []


@pytest.mark.skipif(not HOTSPOT.exists(), reason="scripts/pi-hotspot is only in a checkout")
def test_the_pi_hotspot_help_is_its_header_comment(tmp_path):
    result, calls = run_hotspot(tmp_path, "--help")
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and calls == []
    assert lines[0].startswith("# Let the Pi open its own Wi-Fi network")
    assert all(line.startswith("#") for line in lines) and "dry run" in lines[-1]


FAKE_TOOL = """#!/bin/sh
# a stand-in for one system tool: logs how it was called
echo "$(basename "$0") $*" >> "$LOG"
case "$(basename "$0") $1" in
  "dpkg --print-architecture") echo "$ARCH" ;;
esac
exit 0
"""


def dry_run_install(tmp_path: Path, *, arch: str = "arm64",
                    model: str = "Raspberry Pi 5 Model B Rev 1.0") -> tuple[subprocess.CompletedProcess, list[str], Path]:
    """scripts/install-pi from a copy of the checkout, every system tool it calls faked:
    (result, the tools' calls in order, the boot config it edits)."""
    app = tmp_path / "app"
    (app / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, app / "scripts" / "install-pi")
    (app / "hardware" / "systemd").mkdir(parents=True)
    (app / "hardware" / "systemd" / "dragon-farkle.service").write_text(unit_text())
    python = app / ".venv" / "bin" / "python"  # the venv exists; its python writes the config
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "venv-python $*" >> "$LOG"\necho "[camera]"\n')
    python.chmod(0o755)
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for tool in ("dpkg", "apt-get", "sudo", "raspi-config", "usermod", "systemctl",
                 "systemd-analyze"):
        (fakes / tool).write_text(FAKE_TOOL)
        (fakes / tool).chmod(0o755)
    log, boot, model_file = tmp_path / "log", tmp_path / "config.txt", tmp_path / "model"
    boot.write_text("dtparam=audio=on\n")
    model_file.write_bytes(model.encode() + b"\0")  # /proc/device-tree/model ends in a NUL
    env = {"PATH": f"{fakes}:/usr/bin:/bin", "LOG": str(log), "ARCH": arch, "APP_USER": "nobody",
           "CONFIG": str(tmp_path / "etc" / "companion.toml"), "UNIT": str(tmp_path / "unit"),
           "STATE_DIR": str(tmp_path / "state"), "BOOT_CONFIG": str(boot),
           "MODEL_FILE": str(model_file)}
    result = subprocess.run(["bash", str(app / "scripts" / "install-pi")], capture_output=True,
                            text=True, env=env, timeout=60, check=False)
    calls = log.read_text().splitlines() if log.exists() else []
    return result, calls, boot


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="install-pi refuses to run without root")


@needs_root
def test_install_pi_refuses_a_32_bit_system_before_changing_anything(tmp_path):
    result, calls, _ = dry_run_install(tmp_path, arch="armhf")
    assert result.returncode == 1
    assert "64-bit" in result.stderr and "armhf" in result.stderr
    assert calls == ["dpkg --print-architecture"]  # no apt, no venv, no service


@needs_root
def test_install_pi_brings_every_gpio_package_blinka_imports(tmp_path):
    result, calls, _ = dry_run_install(tmp_path)
    assert result.returncode == 0, result.stderr
    install = next(c for c in calls if c.startswith("apt-get install"))
    for package in ("python3-picamera2", "python3-lgpio", "python3-libgpiod",
                    "python3-rpi-lgpio", "--no-install-recommends"):
        assert package in install.split(), package
    assert "systemctl enable dragon-farkle.service" in calls


@needs_root
@pytest.mark.parametrize(("model", "fixed"), [
    ("Raspberry Pi 4 Model B Rev 1.5", True),
    ("Raspberry Pi Compute Module 4 Rev 1.0", True),
    ("Raspberry Pi 400 Rev 1.1", True),
    ("Raspberry Pi 5 Model B Rev 1.0", False),
])
def test_install_pi_steadies_the_core_clock_on_every_bcm2711_board(tmp_path, model, fixed):
    result, _, boot = dry_run_install(tmp_path, model=model)
    assert result.returncode == 0, result.stderr
    assert ("core_freq=500\ncore_freq_min=500" in boot.read_text()) is fixed
