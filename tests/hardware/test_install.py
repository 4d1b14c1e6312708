"""The Pi install files: the systemd unit (package data) and scripts/install-pi."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
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
    systemctl = tmp_path / "systemctl"  # logs what it would enable
    systemctl.write_text('#!/bin/sh\necho "systemctl $*" >> "$LOG"\n')
    systemctl.chmod(0o755)
    log = tmp_path / "log"
    for folder in ("data", "systemd", "sbin"):
        (tmp_path / folder).mkdir(exist_ok=True)
    env = {"PATH": "/usr/bin:/bin", "NMCLI": str(nmcli), "APT_GET": str(apt), "LOG": str(log),
           "STATE": str(tmp_path / "state"), "STATE_DIR": str(tmp_path / "data"),
           "SYSTEMCTL": str(systemctl), "SYSTEMD_DIR": str(tmp_path / "systemd"),
           "SBIN": str(tmp_path / "sbin")}
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
    # the way back to the home Wi-Fi: a root-owned copy of the script, run by a timer
    assert (tmp_path / "sbin" / "dragon-farkle-wifi-return").stat().st_mode & 0o777 == 0o755
    service = (tmp_path / "systemd" / "dragon-farkle-wifi.service").read_text()
    assert f"ExecStart={tmp_path}/sbin/dragon-farkle-wifi-return" in service
    assert (tmp_path / "systemd" / "dragon-farkle-wifi.timer").exists()
    assert "systemctl enable --now dragon-farkle-wifi.timer" in calls
    assert "http://10.42.0.1:8000/" in result.stdout and "password: dragons!" in result.stdout
    # for the phones' Table tab, readable by the table's user only
    wifi = tmp_path / "data" / "wifi.json"
    assert json.loads(wifi.read_text()) == {"name": "Our table", "password": "dragons!"}
    assert wifi.stat().st_mode & 0o777 == 0o640
    # again, now, with a random password: the old connection is replaced, then opened
    result, calls = run_hotspot(tmp_path, "--now")
    assert result.returncode == 0, result.stderr
    calls = [c for c in calls if not c.startswith(("apt-get", "systemctl"))]
    assert calls[1] == "connection delete dragon-farkle"
    assert "ssid dragon-farkle" in calls[2] and calls[-1] == "connection up dragon-farkle"
    password = re.search(r"password: (\S+)\)", result.stdout).group(1)
    assert len(password) == 10 and f"wifi-sec.psk {password}" in calls[2]
    result, calls = run_hotspot(tmp_path, "--off")
    assert result.returncode == 0 and "connection delete dragon-farkle" in calls
    assert (tmp_path / "state").read_text() == "" and not wifi.exists()
    assert "systemctl disable --now dragon-farkle-wifi.timer" in calls
    assert not any(list((tmp_path / d).iterdir()) for d in ("systemd", "sbin"))


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


WIFI_RETURN = SCRIPT.parent / "pi-wifi-return"
# nmcli as far as pi-wifi-return uses it, over a JSON file: the profiles NetworkManager
# keeps, the one active on wlan0, the networks in range. Like NetworkManager it finds no
# network while the device is an access point (it does not scan then), and it cannot bring
# up a Wi-Fi profile whose network is not in range.
FAKE_NMCLI_STATE = """#!{python}
import json, os, sys
path = os.environ["NM_STATE"]
nm = json.load(open(path))
args = sys.argv[1:]
open(os.environ["LOG"], "a").write("nmcli " + " ".join(args) + "\\n")
def save():
    json.dump(nm, open(path, "w"))
def mode(name):
    return nm["profiles"].get(name, {{}}).get("mode", "infrastructure")
if args[:2] == ["-g", "GENERAL.CONNECTION"]:
    print(nm["active"])
elif args[:4] == ["-t", "--escape", "no", "-f"] and args[4:] == ["TYPE,NAME", "connection", "show"]:
    for name in nm["profiles"]:
        print("802-11-wireless:" + name)
elif args[0] == "-g" and args[2:4] == ["connection", "show"]:
    field = args[1].split(".")[-1]
    print(nm["profiles"][args[4]].get(field, {{"autoconnect": "yes", "autoconnect-priority": 0,
                                             "mode": "infrastructure"}}.get(field, "")))
elif args[:2] == ["device", "disconnect"]:
    nm["active"] = ""
    save()
elif "wifi" in args and "list" in args:
    if mode(nm["active"]) != "ap":
        print("\\n".join(nm["visible"]))
elif args[:2] == ["connection", "up"]:
    name = args[2]
    if mode(name) != "ap" and nm["profiles"][name]["ssid"] not in nm["visible"]:
        print("Error: Connection activation failed: No network with SSID found.", file=sys.stderr)
        sys.exit(10)
    nm["active"] = name
    save()
else:
    sys.exit("fake nmcli: unexpected call " + " ".join(args))
"""


def wifi_return(tmp_path: Path, *, active: str = "dragon-farkle", visible=("HomeNet",),
                phones: int = 0, profiles=None, iw: bool = True) -> tuple[subprocess.CompletedProcess, list[str], str]:
    """Run scripts/pi-wifi-return on a fake NetworkManager and iw: (result, calls, active after)."""
    profiles = profiles if profiles is not None else {
        "dragon-farkle": {"mode": "ap", "ssid": "dragon-farkle", "autoconnect-priority": -10},
        "Home": {"ssid": "HomeNet", "autoconnect-priority": 5},
        "Cafe": {"ssid": "CafeNet"},
    }
    state = tmp_path / "nm.json"
    state.write_text(json.dumps({"active": active, "profiles": profiles, "visible": list(visible)}))
    nmcli = tmp_path / "nmcli"
    nmcli.write_text(FAKE_NMCLI_STATE.format(python=sys.executable))
    nmcli.chmod(0o755)
    fake_iw = tmp_path / "iw"
    stations = "".join(f"Station 02:00:00:00:00:0{i} (on wlan0)\\n\\tsignal: -40 dBm\\n"
                       for i in range(phones))
    fake_iw.write_text(f'#!/bin/sh\necho "iw $*" >> "$LOG"\nprintf "{stations}"\n')
    fake_iw.chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": "/usr/bin:/bin", "NMCLI": str(nmcli), "IW": str(fake_iw) if iw else "no-iw",
           "NM_STATE": str(state), "LOG": str(log), "SCAN_WAIT": "0"}
    result = subprocess.run(["bash", str(WIFI_RETURN)], capture_output=True, text=True, env=env,
                            timeout=60, check=False)
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return result, calls, json.loads(state.read_text())["active"]


@pytest.mark.skipif(not WIFI_RETURN.exists(), reason="scripts/pi-wifi-return is only in a checkout")
def test_the_pi_goes_back_to_the_home_wifi_once_it_is_in_range(tmp_path):
    # After a power cut the router was still starting: the Pi opened its own network.
    result, calls, active = wifi_return(tmp_path)
    assert result.returncode == 0, result.stderr
    assert active == "Home" and "back on the Wi-Fi network Home" in result.stdout
    assert "nmcli device disconnect wlan0" in calls  # no scans while it is an access point
    assert calls[-1] == "nmcli connection up Home ifname wlan0"


@pytest.mark.skipif(not WIFI_RETURN.exists(), reason="scripts/pi-wifi-return is only in a checkout")
def test_with_no_known_network_in_range_the_table_network_opens_again(tmp_path):
    result, calls, active = wifi_return(tmp_path, visible=("Neighbour",))
    assert result.returncode == 0, result.stderr
    assert active == "dragon-farkle" and calls[-1] == "nmcli connection up dragon-farkle ifname wlan0"
    assert not any(c.startswith("nmcli connection up Home") for c in calls)


@pytest.mark.skipif(not WIFI_RETURN.exists(), reason="scripts/pi-wifi-return is only in a checkout")
def test_the_best_known_network_in_range_is_joined(tmp_path):
    *_, active = wifi_return(tmp_path, visible=("CafeNet", "HomeNet"))
    assert active == "Home"  # autoconnect priority 5 before 0
    *_, active = wifi_return(tmp_path, visible=("CafeNet",))
    assert active == "Cafe"


@pytest.mark.skipif(not WIFI_RETURN.exists(), reason="scripts/pi-wifi-return is only in a checkout")
@pytest.mark.parametrize(("case", "kwargs"), [
    ("phones are playing on the table's network", {"phones": 2}),
    ("already on the home Wi-Fi", {"active": "Home"}),
    ("the Pi knows no other network", {"profiles": {"dragon-farkle": {"mode": "ap", "ssid": "x"}}}),
    ("no iw to count the phones", {"iw": False}),
])
def test_the_table_network_is_left_alone(tmp_path, case, kwargs):
    result, calls, active = wifi_return(tmp_path, **kwargs)
    assert result.returncode == 0, result.stderr
    assert active == kwargs.get("active", "dragon-farkle"), case
    assert not any(c.startswith(("nmcli device disconnect", "nmcli connection up")) for c in calls)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_systemd_analyze_verifies_the_wifi_return_timer(tmp_path):
    sbin = tmp_path / "sbin"
    sbin.mkdir()
    (sbin / "dragon-farkle-wifi-return").write_text("#!/bin/sh\n")
    (sbin / "dragon-farkle-wifi-return").chmod(0o755)
    folder = resources.files("hardware") / "systemd"
    service = (folder / "dragon-farkle-wifi.service").read_text().replace("@SBIN@", str(sbin))
    (tmp_path / "dragon-farkle-wifi.service").write_text(service)
    (tmp_path / "dragon-farkle-wifi.timer").write_text((folder / "dragon-farkle-wifi.timer").read_text())
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "dragon-farkle-wifi.timer"),
                             str(tmp_path / "dragon-farkle-wifi.service")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
