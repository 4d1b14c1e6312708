"""The dice reader and the table's camera step on a Pi-like budget: one core, the Pi camera's frame.

    .venv/bin/python benchmarks/pi_budget.py [--size 640x480] [--repeats 3] [--steps 120]

Pinned to one core (os.sched_setaffinity; OpenCV and onnxruntime on one thread), frames the
size the Pi camera backend delivers (640x480 by default, camera.size), made from the bundled
sample photos. Printed: CPU ms per frame of `read_dice` (median, p90): on the sample
photos, uncalibrated (a frame may be looked at from further away or closer, to find the
dice's size), and on the demo table's rolls with its calibration profile (what a live
table reads: the Event die matched, the players' colours named); and of one step of
the table's camera loop (CameraLoop.step over a replay camera, the real settler, reader,
overlay and table: frames while dice move, and the frame where they settle and are read).
With `sysbench` installed (apt), this core's single-thread score turns them into estimates
for a Raspberry Pi 4 and 5 from published single-core scores (leoncode.co.uk, sysbench 1.0.20
`cpu --threads=1`, primes to 10000, 64-bit OS: Pi 4 1477.83, Pi 5 2737.49 events/s). An
estimate until measured on a Pi: that test is integer work, while the reader's convolutions
use SIMD (AVX2 here, 128-bit NEON on the Pi), so the Pi is likely slower than estimated.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")  # before numpy / onnxruntime load

from rules_speed import pin_one_core  # this folder is on the path when run

PUBLISHED = {"Raspberry Pi 4": 1477.83, "Raspberry Pi 5": 2737.49}  # sysbench events/s, 1 thread


def stats(ms: list[float]) -> str:
    ms = sorted(ms)
    return (f"median {ms[len(ms) // 2]:6.1f} ms, p90 {ms[int(0.9 * (len(ms) - 1))]:6.1f} ms "
            f"({len(ms)} frames)")


def frames(size: tuple[int, int]) -> list:
    import cv2

    from hardware.camera.replay import bundled_samples, fit

    return [fit(cv2.imread(str(p), cv2.IMREAD_COLOR), size) for p in bundled_samples()]


def bench_reader(images: list, repeats: int, profile: Any = None) -> list[float]:
    """CPU ms per `read_dice` of each image, `repeats` times over (with `profile`: as a
    table calibrated so reads)."""
    from vision import read_dice

    if not images:
        return []
    read_dice(images[0], profile=profile)  # load the networks (and an Event die's views) first
    times = []
    for _ in range(repeats):
        for image in images:
            c0 = time.process_time()
            read_dice(image, profile=profile)
            times.append(1000 * (time.process_time() - c0))
    return times


def bench_calibrated(size: tuple[int, int], repeats: int) -> list[float]:
    """CPU ms per `read_dice` of the demo table's roll frames (companion/demo: rendered
    Dragon Farkle rolls, two players' Soldier dice and the Event die in a felt tray) with
    its calibration profile, as a calibrated table reads every settled roll."""
    import cv2

    from calibration.profile import load_profile
    from companion.demo import load_demo
    from hardware.camera.replay import fit

    demo = load_demo()
    images = [fit(cv2.imread(str(p), cv2.IMREAD_COLOR), size) for p in demo.frames()
              if p.name.startswith("roll-")]
    return bench_reader(images, repeats, load_profile(demo.profile))


def bench_table(size: tuple[int, int], steps: int) -> dict[str, list[float]]:
    """CPU ms per CameraLoop.step, by what the step did (moving/still frames, a settled read)."""
    from companion.controller import CameraLoop, GameStore, Table
    from hardware.camera import ReplayCamera
    from vision import Settler, draw_reading, read_dice

    now = [0.0]
    folder = Path(tempfile.mkdtemp())
    table = Table(GameStore(folder / "games.sqlite3"))
    table.new_game({"players": ["A", "B"]})
    camera = ReplayCamera(hold=1.5, transition=0.5, size=size, clock=lambda: now[0])
    loop = CameraLoop(table, camera, reader=read_dice, settler=Settler(), draw=draw_reading,
                      clock=lambda: now[0])
    by_state: dict[str, list[float]] = {}
    for _ in range(steps):  # 10 frames a second, as the loop runs
        c0 = time.process_time()
        state = loop.step()
        by_state.setdefault(state, []).append(1000 * (time.process_time() - c0))
        now[0] += 0.1
    camera.close()
    shutil.rmtree(folder, ignore_errors=True)
    return by_state


def sysbench_score(events: int = 20000) -> float | None:
    """This core's sysbench single-thread score in events per CPU second (the affinity is
    inherited), or None. CPU time, as for the frames: a busy machine does not skew it."""
    if shutil.which("sysbench") is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["sysbench", "cpu", "--threads=1", f"--events={events}", "--time=0",
                           "run"], capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = re.search(r"total number of events:\s*(\d+)", done.stdout)
    return int(found.group(1)) / cpu if found and cpu > 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="640x480", help="frame WxH (the Pi camera: 640x480 or 1280x720)")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the sample photos")
    parser.add_argument("--steps", type=int, default=120, help="camera-loop steps (0.1 s each)")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    pinned = pin_one_core()
    import cv2

    cv2.setNumThreads(1)
    images = frames((width, height))
    if not images:
        print("no bundled sample photos (vision/samples): nothing to measure", file=sys.stderr)
        return 1
    print(f"Pi budget: {width}x{height} frames, {pinned}, one OpenCV/onnxruntime thread")
    results = {"read_dice": bench_reader(images, args.repeats),
               "read_dice, calibrated demo table": bench_calibrated((width, height), args.repeats)}
    by_state = bench_table((width, height), args.steps)
    moving = [ms for state, times in by_state.items() if state != "settled" for ms in times]
    results["table step, dice moving/still"] = moving
    results["table step, dice settled (read)"] = by_state.get("settled", [])
    for name, times in results.items():
        if times:
            print(f"  {name:34s} {stats(times)}")
    score = sysbench_score()
    if score is None:
        print("  (install sysbench for the Raspberry Pi estimates: apt install sysbench)")
        return 0
    print(f"  this core: sysbench {score:.0f} events per CPU second")
    for board, published in PUBLISHED.items():
        factor = score / published
        line = ", ".join(f"{name.split(',')[-1].strip()} ~{factor * sorted(t)[len(t) // 2]:.0f} ms"
                         for name, t in results.items() if t)
        print(f"  estimate for a {board} (x{factor:.1f}): {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
