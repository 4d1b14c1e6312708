"""Serving the app with waitress: enough threads for every phone's live stream."""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from flask import Flask


def threads_for(phones: int) -> int:
    """Each open event stream holds a waitress thread: phones + 4 spare, at least 16."""
    return max(16, phones + 4)


def make_server(app: Flask, *, host: str = "0.0.0.0", port: int = 8000, phones: int = 12) -> Any:
    """A waitress server (not yet running); `.run()` serves, `.close()` stops."""
    from waitress import create_server

    return create_server(
        app,
        host=host,
        port=port,
        threads=threads_for(phones),
        channel_timeout=60,
        ident="dragon-farkle",
        clear_untrusted_proxy_headers=True,
    )


# Bridges of containers and virtual machines: no phone reaches the table there.
VIRTUAL_INTERFACES = ("docker", "br-", "veth", "virbr", "lxc", "podman")


def lan_address() -> str:
    """This machine's address on the local network (for the printed join link)."""
    return lan_addresses()[0]


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses that phones can reach, the one of its default route
    first; ["127.0.0.1"] when there is none.

    The default route's address comes from a UDP connect (no packet is sent). A Pi that
    makes its own Wi-Fi network (scripts/pi-hotspot) has no default route: its address
    on that network (10.42.0.1) then comes from the interfaces themselves."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET address: nothing is sent
            found.append(str(s.getsockname()[0]))
        except OSError:
            pass  # no route out: an offline network of its own
    for address in interface_addresses():
        if address not in found:
            found.append(address)
    return found or ["127.0.0.1"]


def interface_addresses(ip_output: str | None = None) -> list[str]:
    """The global IPv4 addresses of the interfaces that are up (Linux `ip -4 -o addr`),
    or [] where `ip` is missing (macOS: the default route's address is enough there)."""
    if ip_output is None:
        ip = shutil.which("ip")
        if ip is None:
            return []
        try:
            ip_output = subprocess.run([ip, "-4", "-o", "addr", "show", "scope", "global", "up"],
                                       capture_output=True, text=True, timeout=5,
                                       check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return []
    found = re.findall(r"^\d+:\s+(\S+)\s+inet (\d+\.\d+\.\d+\.\d+)/", ip_output, re.MULTILINE)
    return [a for name, a in found
            if not a.startswith("127.") and not name.startswith(VIRTUAL_INTERFACES)]


def local_name(*, avahi_pid: Path = Path("/run/avahi-daemon/pid")) -> str | None:
    """The machine's name on the local network (HOSTNAME.local), when something answers
    for it: avahi (running on Raspberry Pi OS) or macOS itself; else None."""
    name = socket.gethostname().split(".")[0]
    if not re.fullmatch(r"[A-Za-z0-9-]{1,63}", name):
        return None
    return f"{name}.local" if sys.platform == "darwin" or avahi_pid.exists() else None
