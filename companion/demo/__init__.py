"""The demo game: a whole game of Dragon Farkle the default camera plays, frame by frame.

`game.json` is the game as a record (docs/records.md): Jane (red dice) and Joseph (blue)
recruit, and Jane enters the Keep and defeats the dragon. `frames/` holds a rendered
picture of the tray for each of its rolls, and of what stays in the tray once the
set-aside is taken out (`frames.json` says which picture shows what); `profile/` is that
table's calibration, learned from rendered calibration pictures by the real calibration
procedures. scripts/demo_frames.py makes the frames, frames.json and the profile from
game.json; `plan` (here) decides what each frame must show, so the two cannot drift.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from companion.records import Record, load_record
from companion.rules import apply, new_game

# The rolls (numbered from 1) whose frame shows a die that is not in play: one of the
# other player's dice left lying in the tray. The camera sees one die too many and asks,
# so a newcomer sees questions answered as well as rolls played.
STRAYS: dict[int, tuple[str, int]] = {9: ("red", 2), 16: ("blue", 5)}
EMPTY = "frames/empty.jpg"


class DemoError(ValueError):
    """The demo's files are missing or do not agree (the message says which)."""


@dataclass(frozen=True)
class DemoRoll:
    """One roll of the demo game and its pictures: who rolls, in which colour, the faces
    and Event face, the set-aside made from it (None when the Dragon took the dice), the
    dice left in the tray after that (None: nothing is left to show, or nothing to take
    out), and a die of another colour lying in the tray as well (`stray`)."""

    number: int
    player: str
    color: str | None
    roll: tuple[int, ...]
    event: str
    set_aside: tuple[int, ...] | None = None
    left: tuple[int, ...] | None = None
    stray: tuple[str, int] | None = None

    @property
    def frame(self) -> str:
        return f"frames/roll-{self.number:02d}.jpg"

    @property
    def left_frame(self) -> str | None:
        return None if self.left is None else f"frames/roll-{self.number:02d}-left.jpg"

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"frame": self.frame, "left_frame": self.left_frame}


def _minus(big: Sequence[int], small: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted((Counter(big) - Counter(small)).elements()))


def plan(record: Record, strays: Mapping[int, tuple[str, int]] = STRAYS) -> tuple[DemoRoll, ...]:
    """Every roll of `record` with what its pictures show, played through the rules engine
    (it knows who rolls, what the Dragon takes, and how many dice are left to throw)."""
    colors = record.setup.get("colors") or {}
    steps = [s for s in record.steps if "expect" not in s]
    state = new_game(record.setup)
    rolls: list[DemoRoll] = []
    for i, step in enumerate(steps):
        before = state
        state, events = apply(state, step)
        if "roll" not in step:
            continue
        player = before.seats[before.turn.roller].name
        roll = DemoRoll(len(rolls) + 1, player, colors.get(player), tuple(step["roll"]),
                        str(step["event"]), stray=strays.get(len(rolls) + 1))
        gone: tuple[int, ...] | None = None
        eaten = [e for e in events if e.kind == "dragon_ate"]
        after = steps[i + 1] if i + 1 < len(steps) else {}
        if eaten and state.phase == "decide":
            gone = tuple(eaten[0].data["dice"])
        elif state.phase == "set_aside" and "set_aside" in after:
            gone = tuple(sorted(after["set_aside"]))
            roll = replace(roll, set_aside=gone)
        if gone is not None:
            left = _minus(roll.roll, gone)
            if left:  # hot dice leave nothing to show
                roll = replace(roll, left=left)
        rolls.append(roll)
    return tuple(rolls)


@dataclass(frozen=True)
class DemoGame:
    """The bundled demo: its record, its rolls and the folder holding their pictures."""

    folder: Path
    record: Record
    rolls: tuple[DemoRoll, ...]

    @property
    def profile(self) -> Path:
        """The calibration profile of the demo's table."""
        return self.folder / "profile"

    def frames(self) -> list[Path]:
        """Every picture, in the order the replay camera holds them: the empty tray first,
        then each roll and what is left of it."""
        names = [EMPTY]
        for roll in self.rolls:
            names += [roll.frame] + ([roll.left_frame] if roll.left_frame else [])
        return [self.folder / name for name in names]

    def index(self, name: str) -> int:
        """The camera's index of the picture `name` (frames/...)."""
        return [str(p.relative_to(self.folder)) for p in self.frames()].index(name)


def folder() -> Path:
    """Where the bundled demo lives (this package's folder)."""
    return Path(str(resources.files(__name__)))


def load_demo(where: Path | None = None) -> DemoGame:
    """The demo in `where` (default: the bundled one), checked: frames.json must describe
    the rolls of game.json, and every picture must be there."""
    where = Path(where) if where is not None else folder()
    try:
        record = load_record(where / "game.json")
        listed = json.loads((where / "frames.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise DemoError(f"The demo game in {where} cannot be read ({err}).") from err
    demo = DemoGame(where, record, plan(record))
    if listed.get("rolls") != json.loads(json.dumps([r.to_json() for r in demo.rolls])):
        raise DemoError(f"{where / 'frames.json'} does not match game.json: render the demo "
                        "again (scripts/demo_frames.py).")
    missing = [p.name for p in demo.frames() if not p.is_file()]
    if missing:
        raise DemoError(f"The demo game's pictures are missing: {', '.join(missing[:3])}.")
    return demo
