"""Advisor speed: time to build each table's DP tables (one core), load them, and answer.

Run: `.venv/bin/python benchmarks/advisor_speed.py` (targets: build < 2 s per table,
answer < 1 ms). Prints one line per measurement.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core, as the Pi's advisor thread gets

import statistics
import tempfile
import time
from pathlib import Path

from companion.advisor import advice as A
from companion.advisor import query as q
from companion.advisor import store
from companion.advisor.api import advise
from companion.advisor.battle import solve_battle
from companion.advisor.brawl import solve_brawl
from companion.advisor.outcomes import all_outcomes, table_unit
from companion.advisor.recruit import solve_recruit
from companion.rules import TABLES, apply, new_game, snapshot
from companion.rules.scoring import lookup


def clock(fn, *args):
    """(result, CPU seconds of this process): fair on a busy machine, one thread."""
    start = time.process_time()
    out = fn(*args)
    return out, time.process_time() - start


def build_times(name: str) -> None:
    table = TABLES[name]
    lookup.cache_clear()
    _, t_rules = clock(lookup, table)
    unit, t_unit = clock(table_unit, table)
    outs, t_out = clock(all_outcomes, table, unit)
    _, t_rec = clock(solve_recruit, outs, unit)
    _, t_brawl = clock(solve_brawl, outs)
    _, t_battle = clock(solve_battle, outs, unit)
    lookup.cache_clear()
    wall = time.perf_counter()
    _, t_total = clock(store.build_tables, table)
    wall = time.perf_counter() - wall
    print(f"build {name:8s} total {t_total:6.3f} s CPU, {wall:6.3f} s wall  (engine scoring lookup {t_rules:.3f}, "
          f"unit+outcomes {t_unit + t_out:.3f}, recruit {t_rec:.3f}, brawl {t_brawl:.3f}, "
          f"final battle {t_battle:.3f})")


def per_call(fn, *args, repeat: int = 2000) -> float:
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def answer_times(folder: Path) -> None:
    start = time.perf_counter()
    store.tables_for("default", folder=folder)          # builds and writes the cache
    first = time.perf_counter() - start
    store._MEMORY.clear()
    start = time.perf_counter()
    tables = store.tables_for("default", folder=folder)  # a fresh start: read from disk
    load = time.perf_counter() - start
    print(f"cache   default  first start {first:.3f} s (build + save), later start {load * 1e3:.1f} ms (load)")
    state = new_game({"players": ["Ann", "Bo"], "companions": {"Ann": "tabby"}})
    state, _ = apply(state, {"action": "recruit"})
    state, _ = apply(state, {"roll": [2, 3, 4, 4, 4, 5], "event": "blank"})
    snap = snapshot(state)
    rows = [
        ("advise(snapshot) set-aside, 3 options", lambda: advise(snap, folder=folder)),
        ("advise(GameState) incl. the engine's snapshot()", lambda: advise(state, folder=folder)),
        ("advise_roll recruit 2 3 4 4 4 5", lambda: A.advise_roll(tables, [2, 3, 4, 4, 4, 5], "blank")),
        ("advise_roll brawl defender", lambda: A.advise_roll(
            tables, [1, 3, 4, 4, 6], "blank", measure=A.defender_measure(tables, 650))),
        ("advise_battle final battle roll", lambda: A.advise_battle(
            tables, [1, 3, 3, 3, 4, 6], "rally", army=2000)),
        ("recruit_roll lookup", lambda: q.recruit_roll(tables, 4, 1500, 0)),
        ("recruit_roll above the cap (one Bellman step)", lambda: q.recruit_roll(tables, 6, 40000, 0)),
    ]
    for label, fn in rows:
        print(f"answer  {label:46s} {per_call(fn):7.3f} ms (median)")


def main() -> None:
    for name in TABLES:
        build_times(name)
    with tempfile.TemporaryDirectory() as folder:
        answer_times(Path(folder))


if __name__ == "__main__":
    main()
