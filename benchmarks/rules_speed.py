"""Rules engine speed: legal set-asides of all 923 distinct rolls, and Final Battle simulations.

Run: .venv/bin/python benchmarks/rules_speed.py [--runs 1000000]
Targets (one core): all 923 rolls' options < 1 ms after start-up; 1,000,000 battles < 2 s.
"""
from __future__ import annotations

import argparse
import os
import random
import time
from itertools import combinations_with_replacement
from statistics import median


def pin_one_core() -> str:
    """Measure on one core, as the targets say."""
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity)"


def bench_options(repeats: int) -> None:
    start = time.perf_counter()
    from companion.rules import get_table, options_for
    from companion.rules.scoring import lookup

    table = get_table("default")
    lookup(table)
    startup = time.perf_counter() - start
    rolls = [list(r) for n in range(1, 7) for r in combinations_with_replacement(range(1, 7), n)]
    for roll in rolls:
        random.shuffle(roll)  # unsorted faces, as a camera reports them
    assert len(rolls) == 923
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for roll in rolls:
            options_for(roll, table)
        times.append(time.perf_counter() - t)
    best, mid = min(times), median(times)
    print(f"options: start-up (import + lookup over 923 rolls) {startup * 1000:.0f} ms")
    print(f"options: all 923 distinct rolls in {mid * 1000:.3f} ms median, {best * 1000:.3f} ms best "
          f"(target < 1 ms); {923 / mid:,.0f} rolls per second")


def bench_battles(runs: int) -> None:
    from companion.rules import get_table
    from companion.simulate import outcome_tables, simulate_final_battle

    t = time.perf_counter()
    outcome_tables(get_table("default"))
    build = time.perf_counter() - t
    times = []
    for seed in range(3):
        t = time.perf_counter()
        stats = simulate_final_battle(5000, runs=runs, seed=seed)
        times.append(time.perf_counter() - t)
    mid = median(times)
    print(f"simulate: outcome tables (55,986 rolls) built once in {build * 1000:.0f} ms")
    print(f"simulate: {runs:,} Final Battles (army 5,000) in {mid:.3f} s median (target < 2 s for 1M); "
          f"{runs / mid:,.0f} battles per second; win rate {stats.win_rate:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1_000_000, help="battles per timing (default 1,000,000)")
    parser.add_argument("--repeats", type=int, default=200, help="timings of the 923 rolls (default 200)")
    args = parser.parse_args()
    print(pin_one_core())
    bench_options(args.repeats)
    bench_battles(args.runs)


if __name__ == "__main__":
    main()
