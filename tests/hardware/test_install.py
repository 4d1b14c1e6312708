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
