"""Looking at the Pi's hardware without taking it over: for `dragon-farkle doctor`.

Each probe answers one question (which board, which cameras libcamera lists, is SPI on,
is a GPIO pin free) and never raises: a failure is part of the answer. The file system
root, the command runner and the libraries are injectable, so tests ask a fake Pi.
"""
from __future__ import annotations

import grp
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPI_PINS = {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI (the strip)",
            11: "SPI0 SCLK"}
Runner = Callable[[Sequence[str]], tuple[int, str]]


def run_command(args: Sequence[str]) -> tuple[int, str]:
    """(exit status, stdout) of a short command; 127 when it is not installed."""
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, str(exc)
    return done.returncode, done.stdout.strip()


def list_cameras() -> list[dict[str, Any]]:
    """libcamera's cameras through Picamera2 (opens none); raises ImportError without it."""
    from picamera2 import Picamera2  # type: ignore[import-not-found]

    return list(Picamera2.global_camera_info())


def pin_free(pin: int) -> str | None:
    """None when GPIO `pin` can be claimed now (and is let go at once), else why not."""
    try:
        from gpiozero import DigitalInputDevice

        DigitalInputDevice(pin).close()
    except Exception as exc:  # noqa: BLE001 - GPIOPinInUse, lgpio "GPIO busy", BadPinFactory
        return f"{type(exc).__name__}: {exc}"
    return None


@dataclass
class Pi:
    """What the doctor looks at; every part can be replaced by a test."""

    root: Path = Path("/")
    run: Runner = run_command
    cameras: Callable[[], list[dict[str, Any]]] = list_cameras
    pin_free: Callable[[int], str | None] = pin_free
    groups: Callable[[], list[str]] = field(
        default_factory=lambda: lambda: [grp.getgrgid(g).gr_name for g in os.getgroups()])

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def model(self) -> str | None:
        """The board's name ("Raspberry Pi 4 Model B Rev 1.4"), or None: not a Raspberry Pi."""
        for where in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
            try:
                text = self.path(where).read_bytes().rstrip(b"\0").decode(errors="replace")
            except OSError:
                continue
            if "Raspberry Pi" in text:
                return text.strip()
        return None

    def architecture(self) -> str:
        """The userland's architecture as dpkg names it (arm64, armhf, amd64), else the
        machine's: a 64-bit kernel can run a 32-bit Raspberry Pi OS."""
        status, out = self.run(["dpkg", "--print-architecture"])
        if status == 0 and out:
            return out.split()[0]
        import platform
        import struct

        return f"{platform.machine()} ({8 * struct.calcsize('P')}-bit Python)"

    def spi_device(self) -> tuple[bool, str | None]:
        """(does /dev/spidev0.0 exist, the group that owns it)."""
        device = self.path("/dev/spidev0.0")
        try:
            gid = device.stat().st_gid
        except OSError:
            return False, None
        try:
            return True, grp.getgrgid(gid).gr_name
        except KeyError:
            return True, str(gid)

    def service(self, name: str = "dragon-farkle") -> tuple[str, str]:
        """(active state, enabled state) from systemctl: "active", "failed", "inactive",
        "missing" (no such unit) or "unknown" (no systemctl)."""
        status, active = self.run(["systemctl", "is-active", f"{name}.service"])
        if status == 127:
            return "unknown", "unknown"
        _, enabled = self.run(["systemctl", "is-enabled", f"{name}.service"])
        if active in ("inactive", "unknown", "") and enabled in ("", "not-found"):
            return "missing", "missing"
        return active or "unknown", enabled or "unknown"

    def wifi(self) -> tuple[str | None, str | None] | None:
        """(connection name, type) active on wlan0 or else any active one; (None, None) when
        nothing is connected; None without NetworkManager."""
        status, out = self.run(["nmcli", "-t", "--escape", "no", "-f", "TYPE,DEVICE,NAME",
                                "connection", "show", "--active"])
        if status == 127:
            return None
        rows = [line.split(":", 2) for line in out.splitlines() if line.count(":") >= 2]
        rows = [r for r in rows if r[0] != "loopback"]
        rows.sort(key=lambda r: r[1] != "wlan0")
        return (rows[0][2], rows[0][0]) if rows else (None, None)

    def spidev_bufsiz(self) -> int:
        from hardware.leds.neopixel import kernel_bufsiz

        return kernel_bufsiz(self.path("/sys/module/spidev/parameters/bufsiz"))
