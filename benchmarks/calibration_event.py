"""Benchmark the calib branch's vision helpers; prints its numbers.

    .venv/bin/python benchmarks/calibration_event.py [--frames 300] [--seed 1]

- Event die (synthetic frames only: no public photos exist): faces learned by
  calibration.event_die.learn_event from 3 frames per face, then read from N other
  frames (random place, size, rotation, light, noise; real photos as backgrounds when
  ../shared/data/dice is there). Right / not recognised / wrong / wrong with
  confidence >= 0.9, and pip dice wrongly taken for the Event die.
- Colour: generic names, and colours learned from 2 dice per colour, on the hand-labelled
  dice of the bundled byler sample photos (calibration/byler_sample_colours.json).
- Milliseconds per call (median, 95th percentile; one process): event_face, die_color,
  Settler.update and frame_warnings on 640x480 frames.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

import calibration
import vision
from calibration.event_die import learn_event
from calibration.procedures import learn_color
from calibration.profile import ColorModel, Profile
from vision.color import body_pixels, die_color
from vision.event import event_face
from vision.quality import frame_warnings
from vision.settle import Settler
from vision.synthetic import (
    SynthDie,
    background_from_photo,
    procedural_background,
    random_event_frame,
    render_frame,
)

FACES = ("blank", "dragon", "rally")
SHARED = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "dice"
SAMPLES = Path(vision.__file__).resolve().parent / "samples"
# Soldier dice of four players (BGR): red, blue, ivory, black; the Event die is dark red + gold.
PLAYERS = {"Ann": (40, 40, 210), "Bo": (190, 90, 30), "Cy": (215, 230, 235), "Di": (30, 30, 30)}


def _photos() -> list[np.ndarray]:
    folders = [SHARED / "byler-2019-12-08" / "images", SHARED / "matteop65-train" / "images"]
    if not folders[0].is_dir():
        folders = [p / "images" for p in SAMPLES.iterdir() if (p / "images").is_dir()]
    files = [f for d in folders if d.is_dir() for f in sorted(d.iterdir())[:40]]
    return [img for img in (cv2.imread(str(f)) for f in files) if img is not None]


def _ms(times: list[tuple[float, float]]) -> str:
    """Wall and CPU time per call (CPU time is what counts on a busy machine)."""
    t = np.array(times) * 1000
    return (f"wall median {np.median(t[:, 0]):.2f} ms, p95 {np.percentile(t[:, 0], 95):.2f} ms; "
            f"CPU median {np.median(t[:, 1]):.2f} ms, p95 {np.percentile(t[:, 1], 95):.2f} ms")


def _timed(fn: Callable[[], object], times: list[tuple[float, float]]) -> object:
    t0, c0 = time.perf_counter(), time.thread_time()
    out = fn()
    times.append((time.perf_counter() - t0, time.thread_time() - c0))
    return out


def bench_event(n: int, rng: np.random.Generator, photos: list[np.ndarray]) -> None:
    def background() -> np.ndarray:
        if photos:
            return background_from_photo(photos[int(rng.integers(len(photos)))], (480, 640), rng)
        return procedural_background((480, 640), rng)

    # Calibration frames show the Event die alone on the tray floor (procedural floor here:
    # the real photos have other dice in them); the test frames use the real photos.
    def floor() -> np.ndarray:
        return procedural_background((480, 640), rng)
    frames = {f: [random_event_frame(f, rng, background=floor())[0] for _ in range(3)]
              for f in FACES}
    players = {name: learn_color(render_frame(
        [SynthDie(k + 1, (90 + 90 * k, 240), 44, 20.0 * k, bgr, (240, 240, 240)) for k in range(6)],
        background=floor(), rng=rng)[0]) for name, bgr in PLAYERS.items()}
    profile = Profile(event=learn_event(frames), colors=players)
    right = none = wrong = wrong_sure = 0
    times: list[tuple[float, float]] = []
    for i in range(n):
        face = FACES[i % 3]
        frame, box = random_event_frame(face, rng, background=background(), others=2)
        got = _timed(lambda: event_face(frame, box, profile=profile), times)  # noqa: B023
        if got is None:
            none += 1
        elif got[0] == face:
            right += 1
        else:
            wrong += 1
            wrong_sure += got[1] >= 0.9
    print(f"Event die faces (synthetic, {n} frames): right {right}/{n} ({right / n:.1%}), "
          f"not recognised {none}, wrong {wrong}, wrong with confidence >= 0.9: {wrong_sure}")
    for label, prof, colours in (
            ("players' colours (learned)", profile, list(PLAYERS.values())),
            ("random colours, no player colours learned", Profile(event=profile.event), None)):
        false_event = 0
        for _ in range(n // 3):
            col = colours[int(rng.integers(len(colours)))] if colours else \
                tuple(int(v) for v in rng.integers(20, 235, 3))
            frame, boxes = render_frame([SynthDie(int(rng.integers(1, 7)), (320, 240), 48,
                                                  float(rng.uniform(0, 90)), col, (240, 240, 240))],
                                        background=background(), rng=rng,
                                        light=float(rng.uniform(0.7, 1.2)))
            false_event += event_face(frame, boxes[0], profile=prof) is not None
        print(f"pip dice taken for the Event die, {label}: {false_event}/{n // 3}")
    print(f"event_face: {_ms(times)}")


def bench_color() -> None:
    doc = json.loads((Path(calibration.__file__).parent / "byler_sample_colours.json").read_text())
    labels = {int(k): v for k, v in doc["labels"].items()}
    folder = SAMPLES / "byler-2019-12-08"
    manifest = json.loads((folder / "manifest.json").read_text())
    crops, k = [], 0
    for entry in manifest["images"]:
        img = cv2.imread(str(folder / entry["file"]))
        for die in entry["dice"]:
            if k in labels:
                crops.append((img, die["bbox"], labels[k]))
            k += 1
    times: list[tuple[float, float]] = []
    right = sum(_timed(lambda: die_color(i, b), times)[0] == lab for i, b, lab in crops)  # type: ignore[index]  # noqa: B023
    print(f"colour, generic names (real photos, hand-labelled): {right}/{len(crops)} "
          f"({right / len(crops):.1%})")
    groups: dict[str, list] = {}
    for c in crops:
        groups.setdefault(c[2], []).append(c)
    profile = Profile(colors={name: ColorModel.from_pixels(np.vstack([body_pixels(i, b)
                                                                      for i, b, _ in g[:2]]))
                              for name, g in groups.items()})
    test = [c for g in groups.values() for c in g[2:]]
    got = [die_color(i, b, profile=profile)[0] for i, b, _ in test]
    right = sum(g == c[2] for g, c in zip(got, test))
    unknown = sum(g is None for g in got)
    print(f"colour, learned from 2 dice per colour (real photos): {right}/{len(test)} "
          f"({right / len(test):.1%}), unknown {unknown}, wrong {len(test) - right - unknown}")
    print(f"die_color: {_ms(times)}")


def bench_frames(rng: np.random.Generator, photos: list[np.ndarray]) -> None:
    bg = procedural_background((480, 640), rng)
    frames = []
    for i in range(60):
        pos = (100 + 6 * min(i, 30), 200)
        frames.append(render_frame([SynthDie(4, pos, 44, 3.0 * min(i, 30), (40, 40, 200),
                                             (240, 240, 240))], background=bg, rng=rng)[0])
    settler, st = Settler(), []  # type: ignore[var-annotated]
    for i, f in enumerate(frames * 3):
        _timed(lambda: settler.update(f, i / 30), st)  # noqa: B023
    print(f"Settler.update (640x480): {_ms(st)}")
    qt: list[tuple[float, float]] = []
    for f in frames + [cv2.resize(p, (640, 480)) for p in photos[:60]]:
        _timed(lambda: frame_warnings(f, [(300, 200, 44, 44)]), qt)  # noqa: B023
    print(f"frame_warnings (640x480): {_ms(qt)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rng = np.random.default_rng(args.seed)
    photos = _photos()
    print(f"backgrounds: {len(photos)} real photos" if photos else "backgrounds: procedural")
    bench_event(args.frames, rng, photos)
    bench_color()
    bench_frames(rng, photos)


if __name__ == "__main__":
    main()
