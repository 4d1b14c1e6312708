"""Serving the app with waitress: enough threads for every phone's live stream."""
from __future__ import annotations

import socket
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


def lan_address() -> str:
    """This machine's address on the local network (for the printed join link)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET address: no packet is sent for UDP connect
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"
