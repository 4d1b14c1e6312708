"""Slow clients cannot lock the phones out (issue 22, finding 8): a request that takes
too long to arrive is cut off, the connection limit is far above waitress's 100, and one
address cannot hold more than a phone's share of connections."""
from __future__ import annotations

import http.client
import socket
import time

from tests.web.test_many_phones import phone_address
from web import create_app

PIN = "2468"


def trickle(port: int, n: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), source_address=phone_address(n))
    s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return s


def closed(s: socket.socket, within: float) -> bool:
    """Whether the server closed `s` within `within` seconds (a byte sent now and then)."""
    s.settimeout(0.2)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            s.sendall(b"x")
            if s.recv(1) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_a_request_that_trickles_in_is_cut_off(tmp_path, serve):
    server = serve(create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN}), request_timeout=1)
    slow = trickle(server.effective_port, 0)
    assert closed(slow, within=4)
    slow.close()


def test_110_slow_clients_leave_the_table_answering(tmp_path, serve):
    server = serve(create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN}))
    assert server.adj.connection_limit >= 500
    slow = [trickle(server.effective_port, n) for n in range(110)]
    try:
        time.sleep(0.5)
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=5)
        conn.request("GET", "/api/state")
        assert conn.getresponse().status == 200
    finally:
        for s in slow:
            s.close()


def test_one_address_holds_at_most_its_share_of_connections(tmp_path, serve):
    from web.serving import PER_ADDRESS

    server = serve(create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN}))
    port = server.effective_port
    mine = [socket.create_connection(("127.0.0.1", port), source_address=phone_address(0))
            for _ in range(PER_ADDRESS)]
    extra = socket.create_connection(("127.0.0.1", port), source_address=phone_address(0))
    assert closed(extra, within=3)  # refused at once
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=phone_address(1))
    conn.request("GET", "/api/state")
    assert conn.getresponse().status == 200  # another phone is served
    for s in [*mine, extra]:
        s.close()
