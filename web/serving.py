"""Serving the app with waitress, sized and guarded for a table of phones on open Wi-Fi.

Each open live stream holds a waitress thread, so streams are capped below the pool: a
few threads are always free for taps and page loads, and extra pages are told to poll
(web/stream.py). waitress has no header timeout and no per-address limit, so the server
here adds both to its channel: a client that trickles its request is cut off after
`request_timeout` seconds, and one address holds at most PER_ADDRESS connections. The
channel also notes when each request's first byte arrived, for the app to refuse taps
that waited so long that their phone gave up (web/guard.py).
"""
from __future__ import annotations

import logging
import re
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from flask import Flask
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import WSGITask

from web.guard import LOCAL_ADDRESS, STARTED

log = logging.getLogger(__name__)

SPARE_THREADS = 8  # never taken by live streams: taps and page loads always find one free
PER_ADDRESS = 64  # open connections one address may hold (a phone uses a handful)
CONNECTIONS = 500  # waitress's default is 100: 110 slow clients locked everyone out
MAX_BODY = 64 * 1024  # also Flask's MAX_CONTENT_LENGTH, which answers with a sentence
MAX_HEADERS = 32 * 1024


def streams_for(phones: int) -> int:
    """Live streams served at once: two per phone (a reload or a second tab), at least 8."""
    return max(8, 2 * phones)


def threads_for(phones: int) -> int:
    """The pool: every stream's thread plus SPARE_THREADS for everything else."""
    return streams_for(phones) + SPARE_THREADS


class TimedParser(HTTPRequestParser):
    """waitress's request parser, noting when the request's first byte arrived."""

    def __init__(self, adj: Any) -> None:
        super().__init__(adj)
        self.started = time.monotonic()


class TimedTask(WSGITask):
    """Puts the request's first-byte time and the address it came in on into the environ."""

    def get_environment(self) -> dict[str, Any]:
        if self.environ is None:
            environ = super().get_environment()
            environ[STARTED] = getattr(self.request, "started", None)
            environ[LOCAL_ADDRESS] = getattr(self.channel, "local_address", None)
        return self.environ


class TableChannel(HTTPChannel):
    """One connection: timed requests, and refused at once past PER_ADDRESS per address."""

    parser_class = TimedParser
    task_class = TimedTask

    def __init__(self, server: Any, sock: socket.socket, addr: Any, adj: Any, map: Any = None) -> None:
        try:
            self.local_address: str | None = str(sock.getsockname()[0])
        except OSError:
            self.local_address = None
        super().__init__(server, sock, addr, adj, map)
        host = addr[0] if isinstance(addr, tuple) else addr
        same = sum(1 for c in list(server.active_channels.values())
                   if isinstance(c.addr, tuple) and c.addr[0] == host)
        if same > PER_ADDRESS:
            server.note_refused(host)
            self.will_close = True


class TableServer(TcpWSGIServer):
    """waitress's TCP server with TableChannel and a request timeout in its maintenance."""

    channel_class = TableChannel
    request_timeout = 10.0
    _refused_logged = 0.0

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        cutoff = time.monotonic() - self.request_timeout
        for channel in list(self.active_channels.values()):
            request = channel.request  # the request being received, not yet complete
            if request is not None and not request.completed and getattr(request, "started", cutoff) < cutoff:
                log.info("closed a connection from %s: its request took over %.0f s to arrive",
                         channel.addr[0] if isinstance(channel.addr, tuple) else channel.addr,
                         self.request_timeout)
                channel.will_close = True

    def note_refused(self, host: str) -> None:
        if time.monotonic() - self._refused_logged > 60:
            self._refused_logged = time.monotonic()
            log.warning("refusing connections from %s: it holds %d already", host, PER_ADDRESS)


def keepalive_options() -> list[tuple[int, int, int]]:
    """TCP options that find a phone gone without a word (walked off, Wi-Fi lost) within
    about a minute, so its stream's thread is freed: keep-alive probes, and a send limit."""
    options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPIDLE", 20), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 4),
                        ("TCP_USER_TIMEOUT", 30_000)):
        if hasattr(socket, name):  # Linux has them all; macOS some
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


def connection_limit(wanted: int = CONNECTIONS) -> int:
    """`wanted`, or fewer where the process may not open that many files; the soft limit
    is raised towards the hard one first (a Pi's services start with 1024)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = wanted + 200  # the database, the camera, the advisor's files, the log
        if soft != resource.RLIM_INFINITY and soft < need:
            raised = need if hard == resource.RLIM_INFINITY else min(need, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        return wanted if soft == resource.RLIM_INFINITY else max(16, min(wanted, soft - 200))
    except (OSError, ValueError):
        return min(wanted, 100)


def make_server(app: Flask, *, host: str = "0.0.0.0", port: int = 8000, phones: int = 12,
                threads: int | None = None, request_timeout: float = 10.0) -> Any:
    """A waitress server (not yet running); `.run()` serves, `.close()` stops.

    The app's live streams are capped at `threads - SPARE_THREADS` (`threads` defaults to
    threads_for(phones)). With a host name that resolves to several addresses, the first
    is served."""
    pool = threads or threads_for(phones)
    app.extensions["dragon_farkle"].broadcaster.limit = max(0, pool - SPARE_THREADS)
    adj = Adjustments(
        host=host,
        port=port,
        threads=pool,
        channel_timeout=60,  # idle keep-alive connections
        cleanup_interval=1,  # how often the request timeout is checked
        connection_limit=connection_limit(),
        asyncore_use_poll=True,  # select() stops at file number 1024
        channel_request_lookahead=1,  # reads on while a request waits: a phone that gave up is seen
        max_request_body_size=MAX_BODY,
        max_request_header_size=MAX_HEADERS,
        ident="dragon-farkle",
        clear_untrusted_proxy_headers=True,
    )
    adj.socket_options = keepalive_options()  # no keyword for it: waitress's default is NODELAY only
    server = TableServer(app, map={}, adj=adj, sockinfo=adj.listen[0])
    server.request_timeout = float(request_timeout)
    return server


def stop(server: Any, app: Flask) -> None:
    """End every live stream, let the server's threads finish, then close it, and every
    connection with it so that `run()` returns. Closed first, a thread finishing later
    wakes the closed server's loop by writing a byte into a file number that may by then
    belong to another file (a database)."""
    app.extensions["dragon_farkle"].broadcaster.close_all()
    server.task_dispatcher.shutdown(timeout=5)
    for channel in list(server.active_channels.values()):
        channel.will_close = True  # closed by the server's loop on its next turn
    server.close()


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
