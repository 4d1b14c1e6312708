"""Latency of live updates with 10 phones connected to a real waitress server.

    .venv/bin/python benchmarks/web_latency.py [--phones 10] [--rounds 60]

Two paths, each timed until the new state has arrived on a connected phone's
event stream (every phone counts, so one round gives `phones` samples):
  settled frame: a settled frame handed to the controller (the camera read is
      excluded: a fake camera hands over a ready frame, a fake reader returns a fixed
      reading) -> roll checked by the engine, evidence JPEG, SQLite commit, broadcast;
  tap: a phone's POST /api/steps -> the update on the other phones.
The advisor is on (its answer is part of every state), as at the table; `--no-advisor`
measures without it. A third line times the advice alone (advise() per state change).
Target: median under 100 ms on the 2-core build machine.
"""
from __future__ import annotations

import argparse
import http.client
import json
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
from web.serving import make_server

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phones", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--no-advisor", action="store_true", help="the table without the advisor")
    args = ap.parse_args()

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
    app.extensions["dragon_farkle"].broadcaster.close_all()
    time.sleep(0.2)
    server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
