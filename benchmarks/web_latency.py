"""Latency of live updates with 10 phones connected to a real waitress server, then a
crowd, the size of each update, and how fast the table code can be guessed.

    .venv/bin/python benchmarks/web_latency.py [--phones 10] [--rounds 60] [--guessing 30]

Two paths, each timed until the new state has arrived on a connected phone's
event stream (every phone counts, so one round gives `phones` samples):
  settled frame: a settled frame handed to the controller (the camera read is
      excluded: a fake camera hands over a ready frame, a fake reader returns a fixed
      reading) -> roll checked by the engine, evidence JPEG, SQLite commit, broadcast;
  tap: a phone's POST /api/steps -> the update on the other phones.
The advisor is on (its answer is part of every state), as at the table; `--no-advisor`
measures without it. A third line times the advice alone (advise() per state change).
Target: median under 100 ms on the 2-core build machine.

Then (issue 22): a crowd of 50 pages (live streams, or polling /api/state where the
table refuses more streams) and 20 half-open connections while a phone taps (target:
tap answered in under 100 ms median, every page follows); the bytes of one live update
in a 100-step game of four (target: under 20 KB); and wrong table codes tried as fast as
the table lets one address, then 50 addresses, for `--guessing` seconds each (codes
tested per second, and what a search of all 10,000 four-digit codes takes at that rate).
"""
from __future__ import annotations

import argparse
import http.client
import json
import logging
import random
import socket
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from http.cookiejar import CookieJar
from urllib.request import HTTPCookieProcessor, Request, build_opener

import numpy as np

from companion.controller import CameraLoop, GameStore, Table
from companion.controller.advisor import TableAdvisor
from vision.types import Die, Reading
from web import create_app
from web.broadcast import for_phones
from web.serving import make_server, stop

PIN = "1111"
FACES = [1, 2, 2, 4, 4, 5]


@dataclass
class Status:
    state: str
    frame: np.ndarray | None = None


class ReadyCamera:
    """A camera whose frame is already captured (the read itself is not timed)."""

    def __init__(self) -> None:
        rng = np.random.default_rng(1)
        self.frame = rng.integers(0, 255, (480, 640, 3), dtype=np.uint8)

    def read(self) -> np.ndarray:
        return self.frame


class AlwaysSettled:
    def update(self, frame: np.ndarray, t: float) -> Status:
        return Status("settled", frame)


def fixed_reader(frame: np.ndarray) -> Reading:
    dice = [Die("soldier", f, (80 + 90 * i, 200), (60 + 90 * i, 180, 40, 40), 0.97) for i, f in enumerate(FACES)]
    dice.append(Die("event", "blank", (560, 400), (540, 380, 40, 40), 0.97))
    return Reading(dice=tuple(dice), warnings=())


class Phone(threading.Thread):
    """One SSE client: records when each state version arrived."""

    def __init__(self, port: int, arrivals: dict[int, list[float]], cond: threading.Condition) -> None:
        super().__init__(daemon=True)
        self.port, self.arrivals, self.cond = port, arrivals, cond
        self.ready = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", "/stream/events")
        resp = conn.getresponse()
        version = None
        while True:
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                version = int(line[4:])
            elif line.startswith(b"data: ") and version is not None:
                now = time.perf_counter()
                with self.cond:
                    self.arrivals.setdefault(version, []).append(now)
                    self.cond.notify_all()
                self.ready.set()


def wait_for(version: int, phones: int, arrivals: dict[int, list[float]], cond: threading.Condition) -> list[float]:
    with cond:
        ok = cond.wait_for(lambda: len(arrivals.get(version, [])) >= phones, timeout=10)
    if not ok:
        raise RuntimeError(f"state {version} did not reach all {phones} phones within 10 s")
    return arrivals[version]


def post(opener, base: str, path: str, body: dict) -> dict:
    req = Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with opener.open(req, timeout=10) as r:
        return json.loads(r.read())


def summary(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"{name:<34} median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   max {ms[-1]:6.1f} ms   (n={len(ms)})"


def advice_ms(table: Table, rounds: int = 200) -> list[float]:
    """Time the table's advice for a state after a roll (what each state change adds)."""
    table.apply_steps([{"action": "recruit"}, {"roll": FACES, "event": "blank"}])
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        table.advisor.advice(table.state_obj)
        out.append((time.perf_counter() - start) * 1000)
    return out


def source(n: int) -> tuple[str, int]:
    """Phone n's own address on the loopback (a table's phones each have their own)."""
    return (f"127.0.0.{10 + n}", 0)


class CrowdPage(threading.Thread):
    """A page as web/static/live.js keeps it: the live stream, or polling every 2 s when refused."""

    def __init__(self, port: int, n: int, seen: dict[int, dict[int, float]], cond: threading.Condition) -> None:
        super().__init__(daemon=True)
        self.port, self.n, self.seen, self.cond = port, n, seen, cond
        self.refused: bool | None = None
        self.ready, self.stop = threading.Event(), threading.Event()

    def saw(self, version: int) -> None:
        with self.cond:
            self.seen.setdefault(version, {}).setdefault(self.n, time.perf_counter())
            self.cond.notify_all()
        self.ready.set()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120, source_address=source(self.n))
        conn.request("GET", "/stream/events")
        resp = conn.getresponse()
        self.refused = resp.status == 503
        if not self.refused:
            while line := resp.fp.readline():
                if line.startswith(b"id: "):
                    self.saw(int(line[4:]))
            return
        resp.read()
        while not self.stop.is_set():
            poll = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=source(self.n))
            poll.request("GET", "/api/state")
            self.saw(json.loads(poll.getresponse().read())["version"])
            poll.close()
            self.stop.wait(2.0)


class HalfOpen(threading.Thread):
    """`count` connections that send half a request and never finish it, each opened again
    when the server cuts it off, so there are always `count` of them."""

    def __init__(self, port: int, count: int) -> None:
        super().__init__(daemon=True)
        self.port, self.count, self.reopened = port, count, 0
        self.stop = threading.Event()

    def open(self, n: int) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), source_address=source(100 + n))
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        return s

    def run(self) -> None:
        socks = [self.open(n) for n in range(self.count)]
        while not self.stop.wait(0.5):
            for n, s in enumerate(socks):
                try:
                    gone = s.recv(1) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    s.close()
                    socks[n] = self.open(n)
                    self.reopened += 1
        for s in socks:
            s.close()


def crowd(rounds: int, phones: int = 12) -> None:
    """50 pages and 20 half-open connections on the server `serve --phones` makes; a phone taps."""
    data = tempfile.mkdtemp(prefix="df-crowd-")
    table = Table(GameStore(f"{data}/games.sqlite3"))
    table.new_game({"players": ["Jane", "Joseph"]})
    app = create_app({"DATA_DIR": data, "TABLE": table, "TABLE_PIN": PIN})
    server = make_server(app, host="127.0.0.1", port=0, phones=phones)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    stuck = HalfOpen(port, 20)
    stuck.start()
    seen: dict[int, dict[int, float]] = {}
    cond = threading.Condition()
    pages = [CrowdPage(port, n, seen, cond) for n in range(50)]
    for page in pages:
        page.start()
    for page in pages:
        page.ready.wait(10)
    tapper = build_opener(HTTPCookieProcessor(CookieJar()))
    base = f"http://127.0.0.1:{port}"
    post(tapper, base, "/api/join", {"pin": PIN})
    tap_ms: list[float] = []
    follow_ms: dict[bool, list[float]] = {False: [], True: []}
    for i in range(rounds):
        start = time.perf_counter()
        state = post(tapper, base, "/api/steps" if i % 2 == 0 else "/api/undo",
                     {"action": "recruit"} if i % 2 == 0 else {})
        tap_ms.append((time.perf_counter() - start) * 1000)
        version = state["version"]
        with cond:
            if not cond.wait_for(lambda v=version: len(seen.get(v, {})) >= len(pages), timeout=15):
                raise RuntimeError(f"state {version} did not reach every page within 15 s")
            for page in pages:
                follow_ms[bool(page.refused)].append((seen[version][page.n] - start) * 1000)
        time.sleep(0.3)
    streams = sum(1 for p in pages if not p.refused)
    print(f"crowd: 50 pages ({streams} live streams, {50 - streams} refused 503 and polling every 2 s), "
          f"20 half-open connections, --phones {phones}: waitress {server.adj.threads} threads, {rounds} taps")
    print(summary("tap answered (50 pages open)", tap_ms))
    print(summary("tap -> page on a live stream", follow_ms[False]))
    if follow_ms[True]:
        print(summary("tap -> page polling /api/state", follow_ms[True]))
    print(f"  (half-open connections cut off by the server's 10 s request timeout and opened "
          f"again: {stuck.reopened})")
    stuck.stop.set()
    for page in pages:
        page.stop.set()
    stop(server, app)


def update_bytes(steps: int = 100) -> None:
    """Bytes of each live update over a game of four, and of the full state they replace."""
    data = tempfile.mkdtemp(prefix="df-bytes-")
    table = Table(GameStore(f"{data}/games.sqlite3"))
    names = ["Jane", "Joseph", "Anna", "Bert"]
    table.new_game({"players": names, "colors": dict(zip(names, ["red", "blue", "green", "yellow"]))})
    rng = random.Random(1)
    sizes, full = [], 0
    for _ in range(steps):
        st = table.state()
        if st["phase"] == "roll":
            step = {"roll": [rng.randint(1, 6) for _ in range(st["dice_in_hand"])],
                    "event": rng.choice(["blank"] * 4 + ["dragon", "rally"])}
        else:
            step = rng.choice([s for s in st["legal"] if not s.get("needs") and "use" not in s and "adjust" not in s])
        st = table.apply_step(step)
        sizes.append(len(json.dumps(for_phones(st), separators=(",", ":")).encode()))
        full = len(json.dumps(st, separators=(",", ":")).encode())
    print(f"bytes per live update, {steps}-step game of 4: median {statistics.median(sizes) / 1024:.1f} KB   "
          f"max {max(sizes) / 1024:.1f} KB   at step {steps} {sizes[-1] / 1024:.1f} KB "
          f"(the whole state with history and stats: {full / 1024:.1f} KB)")


def full_search(codes: int, addresses: int) -> float:
    """Seconds to try `codes` codes from `addresses` addresses in turn, each try made as
    soon as the table's limiter allows (its clock stepped, not waited for)."""
    from web.joinlimit import JoinLimiter

    now = [0.0]
    limiter, tried = JoinLimiter(clock=lambda: now[0]), 0
    while tried < codes:
        wait = limiter.admit(f"10.0.{tried % addresses // 256}.{tried % addresses % 256}")
        now[0] += wait
        tried += wait == 0
    return now[0]


def guessing(seconds: float, addresses: int) -> None:
    """Wrong codes at /api/join as fast as the table answers, from `addresses` addresses."""
    data = tempfile.mkdtemp(prefix="df-join-")
    app = create_app({"DATA_DIR": data, "TABLE_PIN": PIN, "TABLE": Table(GameStore(f"{data}/games.sqlite3"))})
    server = make_server(app, host="127.0.0.1", port=0)
    threading.Thread(target=server.run, daemon=True).start()
    counts = {403: 0, 429: 0}
    start = time.perf_counter()
    n = 0
    while time.perf_counter() - start < seconds:
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10,
                                          source_address=source(n % addresses))
        conn.request("POST", "/api/join", json.dumps({"pin": f"{n % 10000:04d}" if n % 10000 != int(PIN) else "0"}),
                     {"Content-Type": "application/json"})
        status = conn.getresponse().status
        conn.close()
        counts[status] = counts.get(status, 0) + 1
        n += 1
    print(f"join guesses from {addresses} address{'es' if addresses > 1 else ''}, {seconds:.0f} s: "
          f"{n / seconds:,.0f} requests/s answered, {counts[403]} codes tested ({counts[403] / seconds:.2f}/s), "
          f"{counts[429]} refused 429 untested; all 10,000 codes at the table's pace: "
          f"{full_search(10_000, addresses) / 3600:,.1f} h")
    stop(server, app)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phones", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--no-advisor", action="store_true", help="the table without the advisor")
    ap.add_argument("--guessing", type=float, default=30, help="seconds of wrong codes per run (0: skip)")
    ap.add_argument("--crowd-phones", type=int, default=12, help="serve --phones for the crowd (12: the default)")
    args = ap.parse_args()
    logging.getLogger("web").setLevel(logging.ERROR)  # the refused codes and taps are the point here
    logging.getLogger("waitress").setLevel(logging.ERROR)

    data = tempfile.mkdtemp(prefix="df-bench-")
    advisor = None if args.no_advisor else TableAdvisor(f"{data}/advisor")
    table = Table(GameStore(f"{data}/games.sqlite3"), advisor=advisor)
    table.new_game({"players": ["Jane", "Joseph"]})
    build = time.perf_counter()
    table.state()  # asks for the game's advisor tables: built in the background
    if advisor is not None and advisor.wait(120):
        print(f"advisor tables built in the background in {time.perf_counter() - build:.2f} s")
    app = create_app({"DATA_DIR": data, "TABLE": table, "TABLE_PIN": PIN, "SSE_KEEPALIVE": 15})
    server = make_server(app, host="127.0.0.1", port=0, phones=args.phones)
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    base = f"http://127.0.0.1:{port}"

    arrivals: dict[int, list[float]] = {}
    cond = threading.Condition()
    phones = [Phone(port, arrivals, cond) for _ in range(args.phones)]
    for p in phones:
        p.start()
    for p in phones:
        p.ready.wait(10)
    loop = CameraLoop(table, ReadyCamera(), reader=fixed_reader, settler=AlwaysSettled())
    tapper = build_opener(HTTPCookieProcessor(CookieJar()))
    post(tapper, base, "/api/join", {"pin": PIN})

    table.apply_step({"action": "recruit"})
    frame_ms: list[float] = []
    for n in range(args.rounds + 1):  # round 0 warms up (first JPEG encode, first commit): not counted
        start = time.perf_counter()
        loop.step()
        version = table.version
        times = [(t - start) * 1000 for t in wait_for(version, args.phones, arrivals, cond)]
        frame_ms += times if n else []
        table.undo()
        wait_for(table.version, args.phones, arrivals, cond)
    table.undo()

    tap_ms: list[float] = []
    for i in range(args.rounds):
        start = time.perf_counter()
        state = post(tapper, base, "/api/steps" if i % 2 == 0 else "/api/undo",
                     {"action": "recruit"} if i % 2 == 0 else {})
        tap_ms += [(t - start) * 1000 for t in wait_for(state["version"], args.phones, arrivals, cond)]

    print(f"web latency, {args.phones} phones on SSE, waitress {server.adj.threads} threads, "
          f"{args.rounds} rounds per path")
    print(summary("settled frame -> phone", frame_ms))
    print(summary("tap (POST /api/steps) -> phones", tap_ms))
    if advisor is not None:
        print(summary("advice per state change", advice_ms(table)))
    stop(server, app)
    crowd(args.rounds, args.crowd_phones)
    update_bytes()
    if args.guessing > 0:
        guessing(args.guessing, 1)
        guessing(args.guessing, 50)
    from web.joinlimit import JoinLimiter

    print(f"all 10^8 eight-digit codes (--code-length 8), at the whole table's pace: "
          f"{JoinLimiter().full_search_seconds(10**8) / 3.156e7:,.0f} years")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
