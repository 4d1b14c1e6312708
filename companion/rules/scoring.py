"""Legal set-asides of any roll, from a lookup computed once per table over all 923 rolls.

A set-aside is a choice of dice from one roll that splits entirely into scoring
combinations; its value is the best split. Reading a roll is a dictionary access.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, product

from companion.rules.errors import IllegalMove
from companion.rules.tables import SoldierTable, get_table

Counts = tuple[int, int, int, int, int, int]


@dataclass(frozen=True, order=True)
class Option:
    """One legal set-aside: the dice (ascending faces) and the soldiers they score."""

    dice: tuple[int, ...]
    soldiers: int

    def to_json(self) -> dict[str, object]:
        return {"dice": list(self.dice), "soldiers": self.soldiers}


def _counts_to_dice(counts: Counts) -> tuple[int, ...]:
    return tuple(face for face, n in enumerate(counts, start=1) for _ in range(n))


def _unit(face: int, n: int) -> Counts:
    out = [0] * 6
    out[face - 1] = n
    return tuple(out)  # type: ignore[return-value]


def _combos(table: SoldierTable) -> list[tuple[Counts, int]]:
    """Every scoring combination of the table as (face counts, soldiers)."""
    combos: list[tuple[Counts, int]] = []
    per_face = (
        (1, table.single), (3, table.three_of_a_kind), (4, table.four_of_a_kind),
        (5, table.five_of_a_kind), (6, table.six_of_a_kind),
    )
    for n, values in per_face:
        combos += [(_unit(face, n), v) for face, v in enumerate(values, start=1) if v]
    if table.straight:
        combos.append(((1, 1, 1, 1, 1, 1), table.straight))
    if table.three_pairs:
        for faces in combinations(range(6), 3):
            combos.append((tuple(2 if i in faces else 0 for i in range(6)), table.three_pairs))  # type: ignore[arg-type]
        if table.four_and_pair_as_three_pairs:
            for a, b in product(range(6), repeat=2):
                if a != b:
                    combos.append((tuple(4 if i == a else 2 if i == b else 0 for i in range(6)), table.three_pairs))  # type: ignore[arg-type]
    if table.two_triples:
        for faces in combinations(range(6), 2):
            combos.append((tuple(3 if i in faces else 0 for i in range(6)), table.two_triples))  # type: ignore[arg-type]
    return combos


def _all_counts() -> list[Counts]:
    """Every multiset of 0-6 dice as face counts, smallest first (924 including the empty one)."""
    out = [c for c in product(range(7), repeat=6) if sum(c) <= 6]
    out.sort(key=lambda c: (sum(c), c))
    return out  # type: ignore[return-value]


def _best_values(table: SoldierTable) -> dict[Counts, int]:
    """Best split value of every multiset that splits entirely into combinations."""
    combos = _combos(table)
    best: dict[Counts, int] = {(0, 0, 0, 0, 0, 0): 0}
    for counts in _all_counts()[1:]:
        top = -1
        for combo, value in combos:
            rest = tuple(c - k for c, k in zip(counts, combo))
            if min(rest) >= 0 and rest in best:
                top = max(top, value + best[rest])  # type: ignore[index]
        if top >= 0:
            best[counts] = top
    return best


def _sub_counts(counts: Counts) -> Iterable[Counts]:
    return product(*(range(n + 1) for n in counts))  # type: ignore[return-value]


@lru_cache(maxsize=16)
def lookup(table: SoldierTable) -> dict[tuple[int, ...], tuple[Option, ...]]:
    """All 923 distinct rolls of 1-6 dice (ascending faces) to their legal set-asides."""
    best = _best_values(table)
    out: dict[tuple[int, ...], tuple[Option, ...]] = {}
    for counts in _all_counts()[1:]:
        options = [
            Option(_counts_to_dice(sub), best[sub])  # type: ignore[arg-type]
            for sub in _sub_counts(counts)
            if any(sub) and sub in best
        ]
        options.sort(key=lambda o: (len(o.dice), o.dice))
        out[_counts_to_dice(counts)] = tuple(options)
    return out


def _bad_roll(faces: tuple[object, ...]) -> IllegalMove:
    return IllegalMove(f"A roll is 1 to 6 soldier dice, each showing a whole number 1 to 6, not {list(faces)}.")


_BY_ID: dict[int, tuple[SoldierTable, dict[tuple[int, ...], tuple[Option, ...]]]] = {}


def _lookup_for(table: SoldierTable | str | None) -> dict[tuple[int, ...], tuple[Option, ...]]:
    """The table's lookup, found by identity (hashing a whole table on every roll would be slow)."""
    if type(table) is not SoldierTable:
        table = get_table(table)
    entry = _BY_ID.get(id(table))
    if entry is None or entry[0] is not table:
        if len(_BY_ID) > 32:
            _BY_ID.clear()
        entry = (table, lookup(table))
        _BY_ID[id(table)] = entry
    return entry[1]


def options_for(faces: Iterable[int], table: SoldierTable | str | None = None) -> tuple[Option, ...]:
    """Every legal set-aside of the roll, fewest dice first; empty for a Farkle."""
    try:
        return _lookup_for(table)[tuple(sorted(faces))]
    except (KeyError, TypeError):
        raise _bad_roll(tuple(faces)) from None


def scoring_all(faces: Iterable[int], table: SoldierTable | str | None = None) -> Option | None:
    """The set-aside of ALL scoring dice with its best split (Dragon face, Final Battle); None if none score."""
    options = options_for(faces, table)
    if not options:
        return None
    return max(options, key=lambda o: (len(o.dice), o.soldiers))


def value_of(dice: Iterable[int], table: SoldierTable | str | None = None) -> int | None:
    """Best split value of exactly these dice, or None if they cannot all be set aside."""
    key = tuple(sorted(dice))
    if not key:
        return 0
    for option in options_for(key, table):
        if option.dice == key:
            return option.soldiers
    return None
