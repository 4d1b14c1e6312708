"""The Pi install files: the systemd unit (package data) and scripts/install-pi."""
from __future__ import annotations

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
