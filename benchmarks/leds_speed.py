"""LED frame computation per tick on a 150-LED strip (target: under 1 ms on one core).

Run: python benchmarks/leds_speed.py [--count 150] [--frames 3000]
Prints, for each animation, the median and 99th-percentile time of render_scene,
and of a whole tick (render + brightness/gamma + RecordingStrip write).
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from hardware.leds import FLASH_SECONDS, LedDriver, LedLayout, RecordingStrip, Scene, render_scene

PLAYERS = [("Jane", (255, 0, 0), 2350), ("Joseph", (0, 60, 255), 4100), ("Ivan", (0, 200, 0), 650),
           ("Boble", (255, 200, 0), 5200)]


def scenes() -> dict[str, Scene]:
    base = {"players": PLAYERS, "current": 1, "dragon_damage": 1, "dragon_health": 3,
            "settable": [0.1, 0.35, 0.6, 0.9], "hint": 0.35}
    out = {"idle": Scene(**base)}
    for flash in FLASH_SECONDS:
        out[flash] = Scene(**{**base, "flash": flash, "flash_started": 0.0})
    out["won"] = Scene(**{**base, "current": None, "winner": 3})
    return out


def measure(fn, frames: int) -> tuple[float, float, float]:
    times = []
    for n in range(frames):
        start = time.perf_counter()
        fn((n % 100) * 0.01)  # always within the first second of every flash
        times.append(time.perf_counter() - start)
    times.sort()
    p90, p99 = times[int(len(times) * 0.9)], times[int(len(times) * 0.99)]
    return statistics.median(times) * 1e3, p90 * 1e3, p99 * 1e3


def full_tick(driver: LedDriver, now: float) -> None:
    """A tick that always writes (the driver skips unchanged frames; measure the worst case)."""
    driver._last = None
    driver.tick(now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--frames", type=int, default=3000)
    args = parser.parse_args()
    layout = LedLayout.default(args.count)
    print(f"LED frame computation, {args.count} LEDs, {args.frames} frames each (ms per frame)")
    print(f"{'scene':10s} {'render med':>10s} {'render p99':>10s} {'tick med':>9s} {'tick p90':>9s} "
          f"{'tick p99':>9s}")
    worst_med = worst_p90 = worst_p99 = 0.0
    for name, scene in scenes().items():
        r_med, _, r_p99 = measure(lambda now, s=scene: render_scene(s, now, layout), args.frames)
        strip = RecordingStrip(args.count, brightness=0.4, gamma=2.2)
        driver = LedDriver(strip, layout, scene)
        t_med, t_p90, t_p99 = measure(lambda now, d=driver: full_tick(d, now), args.frames)
        worst_med, worst_p90 = max(worst_med, t_med), max(worst_p90, t_p90)
        worst_p99 = max(worst_p99, t_p99)
        print(f"{name:10s} {r_med:10.3f} {r_p99:10.3f} {t_med:9.3f} {t_p90:9.3f} {t_p99:9.3f}")
    print(f"worst tick median: {worst_med:.3f} ms, p90: {worst_p90:.3f} ms (target < 1 ms); "
          f"worst p99: {worst_p99:.3f} ms")
    print(f"load average {os.getloadavg()[0]:.2f}: p99 includes time the OS gave to other processes")


if __name__ == "__main__":
    main()
