"""Many pages open at once must never starve the taps (issue 22, finding 3): live streams
are capped below the server's threads (extra pages are answered 503 and poll), a page
that went away frees its thread, and a tap that waited past its phone's patience is not
played late. Speed is measured by benchmarks/web_latency.py; these check that it works."""
from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from companion.controller import GameStore, Table
from web import create_app

PIN = "2468"


def phone_address(n: int) -> tuple[str, int]:
    """A source address of its own for phone n (127.0.0.10+n): the server limits the
    connections one address may hold, and each phone at a table has its own."""
    address = f"127.0.0.{10 + n}"
    try:
        with socket.socket() as s:
            s.bind((address, 0))
    except OSError:
        pytest.skip("needs the whole 127.0.0.0/8 on the loopback (Linux)")
    return (address, 0)


def quiet_app(tmp_path, **config):
    """An app over a table without the advisor (nothing computed in the background)."""
    table = Table(GameStore(tmp_path / "games.sqlite3"))
    table.new_game({"players": ["Jane", "Joseph"]})
    return create_app({"DATA_DIR": str(tmp_path), "TABLE": table, "TABLE_PIN": PIN,
                       "SSE_KEEPALIVE": 1.0, **config})


class Tapper:
    """A joined phone sending taps as the page does (JSON, its cookie)."""

    def __init__(self, port: int) -> None:
        self.port, self.cookie = port, ""

    def post(self, path: str, body: dict, timeout: float = 5.0) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json",
                                                     "Cookie": self.cookie})
        r = conn.getresponse()
        if r.getheader("Set-Cookie"):
            self.cookie = r.getheader("Set-Cookie").split(";")[0]
        data = json.loads(r.read())
        conn.close()
        return r.status, data


class Page(threading.Thread):
    """A phone's page: follows the table by its live stream, or polls /api/state when the
    stream is refused (503), as the page (live.js) does; `versions` is every version it has seen."""

    def __init__(self, port: int, n: int = 0) -> None:
        super().__init__(daemon=True)
        self.port, self.versions, self.refused = port, set(), None
        self.source = phone_address(n)
        self.ready, self.stop = threading.Event(), threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=self.source)
        conn.request("GET", "/stream/events")
        r = conn.getresponse()
        self.refused = r.status == 503
        if self.refused:
            assert r.getheader("Retry-After")
            r.read()
            while not self.stop.is_set():
                poll = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10,
                                                  source_address=self.source)
                poll.request("GET", "/api/state")
                self.versions.add(json.loads(poll.getresponse().read())["version"])
                poll.close()
                self.ready.set()
                self.stop.wait(0.5)
            return
        while not self.stop.is_set():
            line = r.fp.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                self.versions.add(int(line[4:]))
                self.ready.set()


def half_open(port: int, n: int) -> socket.socket:
    """A connection whose request never finishes (a phone that went away mid-request)."""
    s = socket.create_connection(("127.0.0.1", port), source_address=phone_address(n))
    s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    return s


def test_fifty_pages_and_twenty_half_open_connections_still_leave_taps_answered(tmp_path, serve):
    app = quiet_app(tmp_path)
    server = serve(app, phones=12)
    port = server.effective_port
    stuck = [half_open(port, n) for n in range(20)]
    pages = [Page(port, n) for n in range(50)]
    try:
        for page in pages:
            page.start()
        for page in pages:
            assert page.ready.wait(15), "a page got no first state"
        tapper = Tapper(port)
        assert tapper.post("/api/join", {"pin": PIN})[0] == 200
        for i in range(6):
            status, state = tapper.post("/api/steps" if i % 2 == 0 else "/api/undo",
                                        {"action": "recruit"} if i % 2 == 0 else {})
            assert status == 200, state
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(state["version"] in p.versions for p in pages):
            time.sleep(0.1)
        assert all(state["version"] in p.versions for p in pages), "a page did not follow the game"
        limit = app.extensions["dragon_farkle"].broadcaster.limit
        assert limit < server.adj.threads  # streams never take the whole pool
        assert sum(1 for p in pages if not p.refused) == limit  # the others poll
    finally:
        for page in pages:
            page.stop.set()
        for s in stuck:
            s.close()


def test_a_page_that_went_away_frees_its_stream(tmp_path, serve):
    app = quiet_app(tmp_path)
    broadcaster = app.extensions["dragon_farkle"].broadcaster
    server = serve(app, threads=10)  # 2 streams
    port = server.effective_port
    first = socket.create_connection(("127.0.0.1", port))
    first.sendall(b"GET /stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    second = Page(port)
    second.start()
    assert second.ready.wait(5) and not second.refused
    assert first.recv(100).startswith(b"HTTP/1.1 200")
    # a phone that vanishes without a word (Wi-Fi gone) is found by TCP keep-alive probes
    assert all(c.socket.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
               for c in list(server.active_channels.values()))
    third = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    third.request("GET", "/stream/events")
    refused = third.getresponse()
    assert refused.status == 503 and refused.getheader("Retry-After") == "10"
    assert "live pages" in json.loads(refused.read())["error"]
    first.close()  # the phone reloads: its stream ends without waiting for a failed write
    deadline = time.monotonic() + 5
    while broadcaster.clients > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert broadcaster.clients == 1
    second.stop.set()


def hold_every_thread(server) -> list[socket.socket]:
    """Occupy the whole pool with requests to /hold (a view the test adds that waits)."""
    held = []
    for _ in range(server.adj.threads):
        s = socket.create_connection(("127.0.0.1", server.effective_port))
        s.sendall(b"GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        held.append(s)
    time.sleep(0.5)
    return held


def raw_tap(port: int, cookie: str, body: dict) -> socket.socket:
    data = json.dumps(body).encode()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /api/steps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              + f"Cookie: {cookie}\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
    return s


@pytest.mark.parametrize("phone_gives_up", [True, False])
def test_a_tap_the_phone_gave_up_on_is_not_played_late(tmp_path, serve, phone_gives_up):
    app = quiet_app(tmp_path, TAP_MAX_AGE=1.0)
    release = threading.Event()
    app.add_url_rule("/hold", "hold", lambda: (release.wait(20), "held")[1])
    table = app.extensions["dragon_farkle"].table
    server = serve(app)
    tapper = Tapper(server.effective_port)
    assert tapper.post("/api/join", {"pin": PIN})[0] == 200
    held = hold_every_thread(server)
    tap = raw_tap(server.effective_port, tapper.cookie, {"action": "recruit"})
    if phone_gives_up:
        time.sleep(0.3)
        tap.close()  # the page stopped waiting (or was closed): its request is dropped
        time.sleep(0.5)  # (the server sees the closed connection before a thread is free)
    else:
        time.sleep(1.5)  # queued past TAP_MAX_AGE: refused when its turn comes
    release.set()
    if not phone_gives_up:
        tap.settimeout(5)
        answer = http.client.HTTPResponse(tap)
        answer.begin()
        assert answer.status == 409 and "not played" in json.loads(answer.read())["error"]
        tap.close()
    time.sleep(0.5)
    assert table.state()["phase"] == "choose_action" and table.game.steps == []
    for s in held:
        s.close()
    assert tapper.post("/api/steps", {"action": "recruit"})[0] == 200  # a fresh tap is played
