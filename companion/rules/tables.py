"""Soldier tables as data: the named tables and a user's own table from a JSON file.

A table never lives in code branches: scoring reads these numbers only, so players
can correct the rulebook's default table from the mat in their own box.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.jsonfile import read_json
from companion.rules.errors import TableError

FACES = (1, 2, 3, 4, 5, 6)
PerFace = tuple[int, int, int, int, int, int]


@dataclass(frozen=True)
class SoldierTable:
    """Soldier values of the scoring combinations; 0 (or None) means "not a combination".

    Per-face entries hold the value for faces 1..6. `two_triples` None means two
    triples score as the two triples added; `four_and_pair_as_three_pairs` lets four
    of a kind plus a pair also count as three pairs (the player's best choice wins).
    """

    name: str
    single: PerFace
    three_of_a_kind: PerFace
    four_of_a_kind: PerFace
    five_of_a_kind: PerFace
    six_of_a_kind: PerFace
    three_pairs: int
    four_and_pair_as_three_pairs: bool
    straight: int
    two_triples: int | None

    def to_json(self) -> dict[str, Any]:
        """The table in the user-file format (every key given), for saving and showing."""
        return {
            "name": self.name,
            "single": _face_map(self.single),
            "three_of_a_kind": _face_map(self.three_of_a_kind),
            "four_of_a_kind": _face_map(self.four_of_a_kind),
            "five_of_a_kind": _face_map(self.five_of_a_kind),
            "six_of_a_kind": _face_map(self.six_of_a_kind),
            "three_pairs": self.three_pairs,
            "four_and_pair_as_three_pairs": self.four_and_pair_as_three_pairs,
            "straight": self.straight,
            "two_triples": self.two_triples,
        }


def _face_map(values: PerFace) -> dict[str, int]:
    return {str(face): value for face, value in zip(FACES, values) if value}


def _flat(value: int) -> PerFace:
    return (value,) * 6  # type: ignore[return-value]


_TRIPLES: PerFace = (1000, 200, 300, 400, 500, 600)
_SINGLES: PerFace = (100, 0, 0, 0, 50, 0)

TABLES: dict[str, SoldierTable] = {
    "default": SoldierTable(
        name="default", single=_SINGLES, three_of_a_kind=_TRIPLES,
        four_of_a_kind=_flat(1500), five_of_a_kind=_flat(2000), six_of_a_kind=_flat(3000),
        three_pairs=2000, four_and_pair_as_three_pairs=True, straight=3000, two_triples=None,
    ),
    "gude": SoldierTable(
        name="gude", single=_SINGLES, three_of_a_kind=_TRIPLES,
        four_of_a_kind=_flat(1500), five_of_a_kind=_flat(0), six_of_a_kind=_flat(2500),
        three_pairs=2000, four_and_pair_as_three_pairs=True, straight=3000, two_triples=None,
    ),
    "classic": SoldierTable(
        name="classic", single=_SINGLES, three_of_a_kind=_TRIPLES,
        four_of_a_kind=_flat(1000), five_of_a_kind=_flat(2000), six_of_a_kind=_flat(3000),
        three_pairs=1500, four_and_pair_as_three_pairs=True, straight=1500, two_triples=2500,
    ),
}

_PER_FACE_KEYS = ("single", "three_of_a_kind", "four_of_a_kind", "five_of_a_kind", "six_of_a_kind")
_INT_KEYS = ("three_pairs", "straight", "two_triples")
_ALLOWED = {"name", "base", "four_and_pair_as_three_pairs", *_PER_FACE_KEYS, *_INT_KEYS}


def get_table(table: str | SoldierTable | None = None) -> SoldierTable:
    """The table itself, a named table ("default", "gude", "classic"), or the default for None."""
    if isinstance(table, SoldierTable):
        return table
    if table is None:
        return TABLES["default"]
    try:
        return TABLES[table]
    except (KeyError, TypeError):
        known = ", ".join(sorted(TABLES))
        raise TableError(f"There is no Soldier table called {table!r}; known tables: {known}.")


def load_table(source: str | Path | Mapping[str, Any]) -> SoldierTable:
    """A user's Soldier table from a JSON file (or an already parsed mapping).

    Keys not given come from `base` (default "default"); every value must be a
    multiple of 50, and a bad file raises `TableError` naming the key and the file.
    """
    where = "the table"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        path = Path(source)
        where = f"table file {path.name}"
        data = read_json(path, "table file", TableError)
    if not isinstance(data, Mapping):
        raise TableError(f"{where.capitalize()} must be a JSON object of combination names to soldiers.")
    return _table_from_mapping(data, where)


def _table_from_mapping(data: Mapping[str, Any], where: str) -> SoldierTable:
    unknown = sorted(set(data) - _ALLOWED)
    if unknown:
        raise TableError(
            f"In {where}, {', '.join(map(repr, unknown))} is not a table entry; "
            f"allowed: {', '.join(sorted(_ALLOWED))}."
        )
    base = get_table(data.get("base", "default"))
    fields: dict[str, Any] = {"name": base.name}
    if "name" in data:
        if not isinstance(data["name"], str) or not data["name"].strip():
            raise TableError(f"In {where}, 'name' must be a non-empty text.")
        fields["name"] = data["name"].strip()
    for key in _PER_FACE_KEYS:
        fields[key] = _per_face(data[key], key, where) if key in data else getattr(base, key)
    for key in _INT_KEYS:
        if key in data:
            allow_none = key == "two_triples"
            fields[key] = _soldiers(data[key], key, where, allow_none=allow_none)
        else:
            fields[key] = getattr(base, key)
    flag = data.get("four_and_pair_as_three_pairs", base.four_and_pair_as_three_pairs)
    if not isinstance(flag, bool):
        raise TableError(f"In {where}, 'four_and_pair_as_three_pairs' must be true or false.")
    fields["four_and_pair_as_three_pairs"] = flag
    table = SoldierTable(**fields)
    if not any(table.single) and not any(table.three_of_a_kind):
        raise TableError(f"In {where}, no single die and no three of a kind scores: nothing could ever be set aside.")
    return table


def _per_face(value: Any, key: str, where: str) -> PerFace:
    if isinstance(value, Mapping):
        out = [0] * 6
        for face, soldiers in value.items():
            if str(face) not in {"1", "2", "3", "4", "5", "6"}:
                raise TableError(f"In {where}, '{key}' has face {face!r}; faces are 1 to 6.")
            out[int(face) - 1] = _soldiers(soldiers, f"{key} {face}", where)
        return tuple(out)  # type: ignore[return-value]
    if isinstance(value, list):
        if len(value) != 6:
            raise TableError(f"In {where}, '{key}' as a list needs 6 values, for faces 1 to 6.")
        return tuple(_soldiers(v, f"{key} {i + 1}", where) for i, v in enumerate(value))  # type: ignore[return-value]
    return _flat(_soldiers(value, key, where))


def _soldiers(value: Any, key: str, where: str, *, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TableError(f"In {where}, '{key}' must be a whole number of soldiers, not {value!r}.")
    if value < 0 or value % 50:
        raise TableError(
            f"In {where}, '{key}' is {value}; soldiers come in tokens of 50, so use 0 or a positive multiple of 50."
        )
    return value
