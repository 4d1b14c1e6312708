"""Farkle chances against an exhaustive enumeration of every roll, with an independent scorer."""
from __future__ import annotations

from collections import Counter
from itertools import product
from pathlib import Path

import pytest

from companion.advisor import query as q
from companion.advisor.store import tables_for
from companion.rules import SoldierTable, get_table

EVENT_FACES = ("blank", "blank", "blank", "blank", "dragon", "rally")


def scores_something(faces: tuple[int, ...], table: SoldierTable) -> bool:
    """Written from RULES.md, not from the engine: does any combination appear in the roll?"""
    counts = Counter(faces)
    by_size = {1: table.single, 3: table.three_of_a_kind, 4: table.four_of_a_kind,
               5: table.five_of_a_kind, 6: table.six_of_a_kind}
    for face, k in counts.items():
        if any(values[face - 1] for size, values in by_size.items() if k >= size):
            return True
    shape = sorted(counts.values())
    if len(faces) == 6 and table.straight and len(counts) == 6:
        return True
    if table.three_pairs and (shape == [2, 2, 2] or (shape == [2, 4] and table.four_and_pair_as_three_pairs)):
        return True
    return bool(table.two_triples and shape == [3, 3])


def brute_farkle(n: int, table: SoldierTable) -> float:
    """Enumerate all 6^n x 6 rolls of the soldier dice and the Event die."""
    farkles = 0
    for faces in product(range(1, 7), repeat=n):
        if scores_something(faces, table):
            continue
        farkles += sum(1 for event in EVENT_FACES if event != "dragon")
    return farkles / (6**n * 6)


@pytest.mark.parametrize("name", ["default", "gude", "classic"])
def test_farkle_chance_matches_enumeration(name: str, cache_folder: Path) -> None:
    tables = tables_for(name, folder=cache_folder)
    table = get_table(name)
    for n in range(1, 7):
        assert q.farkle_chance(tables, n) == pytest.approx(brute_farkle(n, table), abs=1e-12)


def test_known_values_for_the_default_table(tables) -> None:
    # one die: 1 and 5 score; the Dragon face evades a Farkle
    assert q.farkle_chance(tables, 1) == pytest.approx(4 / 6 * 5 / 6)
    # six dice: 6! * ... non-scoring rolls are 2,3,4,6 with no triple and no three pairs
    assert q.farkle_chance(tables, 6) == pytest.approx(5 / 6 * 1080 / 6**6)


def test_tooth_cancels_the_farkle_and_final_battle_needs_a_blank(tables) -> None:
    assert q.farkle_chance(tables, 3, tooth=True) == 0.0
    for n in range(1, 7):
        assert q.battle_farkle_chance(tables, n) == pytest.approx(q.farkle_chance(tables, n) * 4 / 5)
