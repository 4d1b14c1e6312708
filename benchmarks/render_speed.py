"""Seconds per frame of the synthetic dice renderer (needs the `render` extra, bpy).

    .venv/bin/python benchmarks/render_speed.py [--frames N] [--samples S] [--threads T]

Renders frames 0..N-1 of each kind (new table every frame) and then N rolls on one
pinned table (a demo replay: only the dice change), one render thread by default.
Prints per kind: wall and CPU seconds per frame (median, max), dice per frame, and the
load average, since other work on a shared machine slows the wall clock.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=5)
    p.add_argument("--samples", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    from vision.training.render import frames, placement
    try:
        frames.stage(args.threads)
    except RuntimeError as e:
        print(f"error: {e}")
        return 2
    print(f"load average before: {os.getloadavg()[0]:.1f}; {args.samples} samples, "
          f"{args.threads} thread(s)")
    jobs = {kind: [frames.frame_scene(kind, n, samples=args.samples)
                   for n in range(args.frames)] for kind in ("mixed", "dragon-farkle")}
    scene, _ = jobs["dragon-farkle"][0]
    rng = np.random.default_rng(0)
    jobs["pinned table"] = [(scene, placement.sample_dice(rng, scene))
                            for _ in range(args.frames)]
    for kind, todo in jobs.items():
        wall, cpu, dice = [], [], []
        for n, (scene, roll) in enumerate(todo):
            w0, c0 = time.time(), time.process_time()
            out = frames.render_roll(scene, roll, seed=n)
            wall.append(time.time() - w0)
            cpu.append(time.process_time() - c0)
            dice.append(len(out.dice))
        print(f"{kind:14s} wall s/frame median {statistics.median(wall):5.1f} max "
              f"{max(wall):5.1f} | CPU median {statistics.median(cpu):5.1f} max {max(cpu):5.1f}"
              f" | {statistics.mean(dice):.1f} dice/frame | load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
