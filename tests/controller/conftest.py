"""Fakes for the table controller: camera, settler and reader driven one frame at a time."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from companion.controller import GameStore, Table
from vision.types import DiceWarning, Die, Reading


def soldier(value: int | None, x: float = 100.0, conf: float = 0.95, color: str | None = None,
            choices: tuple[int, ...] = ()) -> Die:
    return Die("soldier", value, (x, 100.0), (int(x) - 10, 90, 20, 20), conf, color, choices)


def event(value: str | None, conf: float = 0.95) -> Die:
    return Die("event", value, (600.0, 400.0), (590, 390, 20, 20), conf)


def reading(faces: list[int], ev: str | None = "blank", *, conf: float = 0.95,
            color: str | None = None, warnings: tuple[DiceWarning, ...] = ()) -> Reading:
    dice = [soldier(f, 60.0 + 80 * i, conf, color) for i, f in enumerate(faces)]
    if ev is not None:
        dice.append(event(ev))
    return Reading(dice=tuple(dice), warnings=warnings)


class FakeCamera:
    """Returns a flat grey frame; `fail` makes every read raise like an unplugged webcam."""

    def __init__(self) -> None:
        self.fail = False
        self.reads = 0
        self.closed = False

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.fail:
            raise OSError("camera unplugged")
        return np.full((480, 640, 3), 90, np.uint8)

    def close(self) -> None:
        self.closed = True


@dataclass
class Status:
    state: str
    frame: Any = None


class FakeSettler:
    """Reports the scripted states in order (then "still"); "settled" carries the frame."""

    def __init__(self, states: list[str] | None = None) -> None:
        self.states = list(states or [])

    def update(self, frame: np.ndarray, t: float) -> Status:
        state = self.states.pop(0) if self.states else "still"
        return Status(state, frame if state == "settled" else None)


class FakeReader:
    """Returns the readings queued in `next`, one per settled frame."""

    def __init__(self) -> None:
        self.next: list[Reading] = []
        self.calls = 0

    def __call__(self, frame: np.ndarray) -> Reading:
        self.calls += 1
        return self.next.pop(0)


@pytest.fixture
def store(tmp_path):
    s = GameStore(tmp_path / "games.sqlite3")
    yield s
    s.close()


@pytest.fixture
def table(store) -> Table:
    t = Table(store)
    t.new_game({"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}})
    return t


@pytest.fixture
def fakes():
    """The fakes and reading builders above (importlib mode: tests cannot import conftest)."""
    from types import SimpleNamespace

    return SimpleNamespace(Camera=FakeCamera, Reader=FakeReader, Settler=FakeSettler,
                           reading=reading, soldier=soldier, event=event)


@pytest.fixture
def advised(store, advisor_cache) -> Table:
    """A table with the advisor (tables from the shared cache) and a two-player game."""
    from companion.controller.advisor import TableAdvisor

    t = Table(store, advisor=TableAdvisor(advisor_cache))
    t.new_game({"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}})
    assert t.advisor.wait(60)
    return t
