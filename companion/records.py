"""Game records (docs/records.md): load, replay with checks, and export.

A record is `{"title", "setup", "steps"}`. Replaying applies every step, compares
every `expect` checkpoint with the state, and requires every `"illegal": true` step
to be refused with the state left unchanged.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.jsonfile import read_json
from companion.rules import DragonFarkleError, GameState, IllegalMove, apply, checkpoint, new_game


class RecordError(DragonFarkleError, ValueError):
    """A record file that cannot be read as a game record, and why."""


@dataclass(frozen=True)
class Record:
    title: str
    setup: dict[str, Any]
    steps: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "setup": self.setup, "steps": list(self.steps)}


@dataclass(frozen=True)
class ReplayResult:
    """Outcome of replaying a record: ok, the final state, and the first failure (step index and why)."""

    ok: bool
    state: GameState | None
    failed_step: int | None = None
    reason: str = ""
    events: tuple[Any, ...] = field(default=(), repr=False)

    def describe(self) -> str:
        if self.ok:
            return "PASS"
        where = "setup" if self.failed_step is None else f"step {self.failed_step + 1}"
        return f"FAIL at {where}: {self.reason}"


def load_record(source: str | Path | Mapping[str, Any]) -> Record:
    """A record from a JSON file path (or an already parsed object)."""
    if isinstance(source, Mapping):
        data: Any = source
    else:
        data = read_json(Path(source), "record", RecordError)
    if not isinstance(data, Mapping) or not isinstance(data.get("setup"), Mapping):
        raise RecordError("A game record is an object with a \"setup\" object and a \"steps\" list.")
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, Mapping) for s in steps):
        raise RecordError("A record's \"steps\" must be a list of step objects.")
    return Record(str(data.get("title", "")), dict(data["setup"]), tuple(dict(s) for s in steps))


def compare(state: GameState, expect: Mapping[str, Any]) -> list[str]:
    """Differences between a checkpoint and the state, one sentence each (empty when it matches)."""
    have = checkpoint(state)
    problems = []
    for key, want in expect.items():
        if key not in have:
            problems.append(f"{key!r} is not a checkpoint key")
            continue
        got = have[key]
        if key in ("army", "items") and isinstance(want, Mapping):
            got = {name: got.get(name) for name in want}
        elif key == "options" and isinstance(want, list):
            got_set = {tuple(o) for o in got}
            if got_set != {tuple(sorted(o)) for o in want}:
                problems.append(f"options: expected {want}, got {got}")
            continue
        elif key == "in_keep" and isinstance(want, list):
            if set(got) != set(want):
                problems.append(f"in_keep: expected {sorted(want)}, got {sorted(got)}")
            continue
        if got != want:
            problems.append(f"{key}: expected {want!r}, got {got!r}")
    return problems


def replay_record(record: Record | Mapping[str, Any] | str | Path) -> ReplayResult:
    """Replay a record, checking checkpoints and illegal steps; stops at the first failure."""
    if not isinstance(record, Record):
        record = load_record(record)
    try:
        state = new_game(record.setup)
    except DragonFarkleError as exc:
        return ReplayResult(False, None, None, str(exc))
    events: list[Any] = []
    for i, step in enumerate(record.steps):
        failure, state, new_events = _replay_step(state, step)
        events += new_events
        if failure:
            return ReplayResult(False, state, i, failure, tuple(events))
    return ReplayResult(True, state, None, "", tuple(events))


def _replay_step(state: GameState, step: Mapping[str, Any]) -> tuple[str, GameState, tuple[Any, ...]]:
    if "expect" in step:
        expect = step["expect"]
        if not isinstance(expect, Mapping):
            return "an expect step needs an object of checkpoint keys", state, ()
        problems = compare(state, expect)
        return "; ".join(problems), state, ()
    if step.get("illegal") is True:
        try:
            apply(state, step)
        except IllegalMove:
            return "", state, ()
        return f"the step {_short(step)} should have been refused but was accepted", state, ()
    try:
        new, events = apply(state, step)
    except IllegalMove as exc:
        return f"the step {_short(step)} was refused: {exc}", state, ()
    return "", new, events


def _short(step: Mapping[str, Any]) -> str:
    return json.dumps({k: v for k, v in step.items() if k != "illegal"})


def export_record(state: GameState, title: str = "", *, final_checkpoint: bool = True) -> dict[str, Any]:
    """The game so far as a record: its setup, every step played, and (by default) a closing checkpoint."""
    steps: list[dict[str, Any]] = [dict(s) for s in state.history]
    if final_checkpoint:
        steps.append({"expect": checkpoint(state)})
    return {"title": title, "setup": dict(state.setup), "steps": steps}


def replay_steps(setup: Mapping[str, Any], steps: Sequence[Mapping[str, Any]]) -> GameState:
    """The state after applying these steps from the setup (how the controller undoes: all steps but the last)."""
    state = new_game(setup)
    for step in steps:
        if "expect" in step:
            continue
        state, _ = apply(state, step)
    return state
