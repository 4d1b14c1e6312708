"""Shared advisor fixtures: tables built once per session into a temporary cache folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.advisor.store import AdvisorTables, tables_for


@pytest.fixture(scope="session")
def cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("advisor-cache")


@pytest.fixture(scope="session")
def tables(cache_folder: Path) -> AdvisorTables:
    """The default table's advisor tables (built once, about a second)."""
    return tables_for("default", folder=cache_folder)


class Sim:
    """Turn rules written from RULES.md for the Monte Carlo and enumeration checks."""

    EVENTS = ("blank", "blank", "blank", "blank", "dragon", "rally")

    @staticmethod
    def left(n: int, used: int) -> int:
        return n - used if used < n else 6

    @staticmethod
    def choices(tables, faces, event, total, flags):
        """(dice left, new total, flags) of every legal choice after a roll; [] for a Farkle."""
        from companion.advisor.turn import TABBY, TOOTH
        from companion.rules import options_for, scoring_all

        n = len(faces)
        opts = options_for(faces, tables.table)
        if event == "dragon":
            eaten = scoring_all(faces, tables.table)
            if eaten is None:
                return [(n, total, flags)]
            out = [(Sim.left(n, len(eaten.dice)), total, flags)]
            if flags & TABBY:
                out += [(Sim.left(n, len(o.dice)), total + o.soldiers, flags & ~TABBY) for o in opts]
            return out
        if not opts:
            return [(n, total, flags & ~TOOTH)] if flags & TOOTH else []
        times = 2 if event == "rally" else 1
        return [(Sim.left(n, len(o.dice)), total + times * o.soldiers, flags) for o in opts]

    @staticmethod
    def play(tables, rng, n, flags, value, roll, stop):
        """One side's turn under the policy: pick the choice of highest `value`, roll while
        `roll` beats `stop`. Returns the final total, or None after a Farkle."""
        total = 0
        while True:
            faces = tuple(sorted(rng.randint(1, 6) for _ in range(n)))
            picks = Sim.choices(tables, faces, rng.choice(Sim.EVENTS), total, flags)
            if not picks:
                return None
            n, total, flags = max(picks, key=lambda c: value(*c))
            if roll(n, total, flags) <= stop(total):
                return total


@pytest.fixture(scope="session")
def sim() -> type[Sim]:
    return Sim
