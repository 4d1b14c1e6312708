"""Shared fixtures for the rules tests (importlib mode: share through fixtures, not imports)."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pytest

from companion.rules import GameState, apply, new_game

Play = Callable[[Mapping[str, Any], Iterable[Mapping[str, Any]]], tuple[GameState, list[Any]]]


def _play(setup: Mapping[str, Any], steps: Iterable[Mapping[str, Any]]) -> tuple[GameState, list[Any]]:
    state = new_game(setup)
    events: list[Any] = []
    for step in steps:
        state, new = apply(state, step)
        events += new
    return state, events


@pytest.fixture
def play() -> Play:
    """Apply steps from a setup: returns the final state and every event."""
    return _play
