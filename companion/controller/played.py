"""The game as played so far, derived from its record: the engine state, the history lines,
the armies after each step and each player's face counts.

A step's line is made (`line`) before the step is stored and only added (`add`, which
cannot fail) once it is: what the phones could not be shown is never saved, and a game
that was saved always replays.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from companion.controller.checks import step_kind
from companion.controller.describe import describe_events, describe_step

FACE_KEYS = ("1", "2", "3", "4", "5", "6", "blank", "dragon", "rally")


class Line(NamedTuple):
    """One step played: the state after it, its history entry, the armies after it and
    the faces it showed (a roll's dice and Event die; none for other steps)."""

    state: Any
    entry: dict[str, Any]
    army: dict[str, int]
    faces: tuple[str, ...]


class Played:
    """A game's live state and what the phones show of its past."""

    def __init__(self, engine: Any, setup: dict[str, Any]) -> None:
        self.engine = engine
        self.state: Any = engine.new_game(setup)
        self.history: list[dict[str, Any]] = []
        self.armies: list[dict[str, int]] = [dict(engine.checkpoint(self.state)["army"])]
        self.faces: dict[str, dict[str, int]] = {}

    def line(self, state: Any, step: dict[str, Any], meta: dict[str, Any],
             has_evidence: bool, seq: int) -> Line:
        """Play `step` on `state` and write its history line; raises (an illegal step, or
        one stored by an older version that cannot be shown) and changes nothing."""
        player = self.engine.checkpoint(state)["player"]
        new, events = self.engine.apply(state, step)
        entry = {
            "seq": seq,
            "step": step,
            "player": player,
            "text": describe_step(step, player),
            "events": describe_events(events, player),
            "kinds": [getattr(e, "kind", str(e)) for e in events],
            "source": meta.get("source", "phone"),
            "at": meta.get("at"),
            "evidence": has_evidence,
        }
        army = {str(k): int(v) for k, v in self.engine.checkpoint(new)["army"].items()}
        faces: tuple[str, ...] = ()
        if player and step_kind(step) == "roll":
            faces = (*(str(f) for f in step["roll"]), str(step.get("event")))
        return Line(new, entry, army, tuple(f for f in faces if f in FACE_KEYS))

    def lines(self, steps: Sequence[dict[str, Any]], metas: Sequence[dict[str, Any]],
              evidence: Sequence[bool]) -> list[Line]:
        """Several steps played one after the other from the current state (all or nothing)."""
        out: list[Line] = []
        state = self.state
        for step, meta, has in zip(steps, metas, evidence, strict=True):
            out.append(self.line(state, step, meta, has, len(self.history) + len(out)))
            state = out[-1].state
        return out

    def add(self, line: Line) -> None:
        """Make a played (and stored) step part of the game."""
        self.state = line.state
        self.history.append(line.entry)
        self.armies.append(line.army)
        if line.faces:
            counts = self.faces.setdefault(line.entry["player"], dict.fromkeys(FACE_KEYS, 0))
            for face in line.faces:
                counts[face] += 1
