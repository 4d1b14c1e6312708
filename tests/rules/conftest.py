"""Shared helpers for the rules tests: play a list of steps and read checkpoints."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from companion.rules import GameState, apply, checkpoint, new_game


def play(setup: Mapping[str, Any], steps: Iterable[Mapping[str, Any]]) -> tuple[GameState, list[Any]]:
    """Apply the steps from the setup; returns the final state and every event."""
    state = new_game(setup)
    events: list[Any] = []
    for step in steps:
        state, new = apply(state, step)
        events += new
    return state, events


@pytest.fixture
def cp():
    return checkpoint
