"""The demo game played through, as `dragon-farkle serve` plays it: how much the camera plays.

    .venv/bin/python benchmarks/demo_game.py [--json]

The bundled demo (companion/demo) on the real table: the replay camera over its frames,
moved by the DemoDirector, the real settler and dice reader (with the demo table's
calibration profile) in the camera loop, 10 frames a second on a simulated clock. A
scripted phone plays the game's record: it taps each action and set-aside (a few seconds
after the state changed, as a player would), leaves every roll to the camera, and answers
the camera's questions with the record's roll. Printed: the rolls the camera played, those
it asked about (and why), what became of the frames of the dice left after a set-aside,
any roll played other than the record's (a misread played: there should be none), the
game's winner, and the reader's CPU seconds per frame read.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the table runs (companion/__init__.py)

THINK = 3.0  # seconds a player looks at the phone before tapping
WAIT = 30.0  # seconds the phone waits for the camera before typing a roll itself
TICK = 0.1


class Harness:
    """The table, the demo camera and its loop on one simulated clock."""

    def __init__(self, folder: Path) -> None:
        from calibration.profile import load_profile
        from companion.controller import CameraLoop, GameStore, Table
        from companion.controller.demo import DemoDirector
        from companion.demo import load_demo
        from hardware.camera import ReplayCamera
        from vision import Settler, read_dice

        self.now = 0.0
        self.demo = load_demo()
        profile = load_profile(self.demo.profile)
        self.table = Table(GameStore(folder / "games.sqlite3"), clock=lambda: self.now)
        self.camera = ReplayCamera(self.demo.frames(), hold=None, transition=0.8,
                                   clock=lambda: self.now)
        self.read_seconds: list[float] = []

        def reader(frame: Any) -> Any:
            start = time.process_time()
            reading = read_dice(frame, profile=profile)
            self.read_seconds.append(time.process_time() - start)
            return reading

        self.loop = CameraLoop(self.table, self.camera, reader=reader,
                               settler=Settler(tray=profile.tray), clock=lambda: self.now)
        self.director = DemoDirector(self.demo, self.table, lambda: self.camera)
        self.table.subscribe(self.director.update)
        self.table.set_camera("camera", "Camera working: roll in the tray.")

    def step(self) -> str:
        state = self.loop.step()
        self.now += TICK
        return state


def play(folder: Path, *, limit: float = 3600.0) -> dict[str, Any]:
    """Play the demo's record to its end; what the camera did, counted."""
    h = Harness(folder)
    script = [s for s in h.demo.record.steps if "expect" not in s]
    table = h.table
    table.new_game(dict(h.demo.record.setup))
    out: dict[str, Any] = {"rolls": sum("roll" in s for s in script), "played": [],
                           "asked": [], "typed": [], "ignored": {}, "off_script": []}
    changed, version = h.now, table.version
    while h.now < limit:
        status = h.step()
        state = table.state()
        if state["version"] != version:
            changed, version = h.now, state["version"]
        steps = table.game.steps
        if not all(map(same, steps, script)):
            out["off_script"].append({"at": len(steps), "played": steps[-1],
                                      "record": script[len(steps) - 1]})
            break
        if status == "settled" and table.last_read:
            _count(out, state, table)
        if state["phase"] == "game_over" or len(steps) == len(script):
            break
        nxt = script[len(steps)]
        pending = state.get("pending") or {}
        if pending.get("kind") == "roll":
            out["asked"].append({"roll": _rolls(steps) + 1, "reason": pending.get("reason")})
            table.apply_step(nxt)  # the players give the record's roll
        elif "roll" in nxt and h.now - changed > WAIT:
            out["typed"].append(_rolls(steps) + 1)
            table.apply_step(nxt)
        elif "roll" not in nxt and h.now - changed > THINK:
            table.apply_step(nxt)
    out["winner"] = table.state().get("winner")
    out["seconds"] = round(h.now, 1)
    out["reads"] = len(h.read_seconds)
    out["read_cpu_s"] = round(sorted(h.read_seconds)[len(h.read_seconds) // 2], 3) \
        if h.read_seconds else None
    h.loop.stop()
    return out


def _rolls(steps: list[dict[str, Any]]) -> int:
    """How many rolls the game has played (a roll's number in the demo, from 1)."""
    return sum("roll" in step for step in steps)


def same(played: dict[str, Any], recorded: dict[str, Any]) -> bool:
    """A step played as the record has it (the camera gives a roll's faces in order)."""
    def key(step: dict[str, Any]) -> dict[str, Any]:
        return {k: sorted(v) if k in ("roll", "set_aside") else v for k, v in step.items()}
    return key(played) == key(recorded)


def _count(out: dict[str, Any], state: dict[str, Any], table: Any) -> None:
    """What the settled read did: a roll played, a "left" frame ignored, or anything else."""
    read = table.last_read
    steps, meta = table.game.steps, table.game.meta
    if read["kind"] == "apply" and meta and meta[-1].get("source") == "camera" \
            and "roll" in steps[-1]:
        out["played"].append(_rolls(steps))
    elif read["kind"] == "ignore":
        why = read["reason"]
        out["ignored"][why] = out["ignored"].get(why, 0) + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = play(Path(tmp))
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"demo game: {out['rolls']} rolls, winner {out['winner']}, "
          f"{out['seconds']:.0f} s of table time")
    print(f"  played by the camera: {len(out['played'])} of {out['rolls']} rolls {out['played']}")
    print(f"  asked about:          {len(out['asked'])}")
    for ask in out["asked"]:
        print(f"    roll {ask['roll']}: {ask['reason']}")
    print(f"  typed (camera silent): {len(out['typed'])} {out['typed'] or ''}")
    for why, n in out["ignored"].items():
        print(f"  frames ignored ({why}): {n}")
    print(f"  off the record: {len(out['off_script'])} {out['off_script'] or ''}")
    print(f"  reader: {out['reads']} frames read, median {out['read_cpu_s']} CPU s each")
    return 0 if not out["off_script"] and out["winner"] else 1


if __name__ == "__main__":
    sys.exit(main())
