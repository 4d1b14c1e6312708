"""Helpers shared by the rules subcommands: picking a Soldier table by name or file."""
from __future__ import annotations

from pathlib import Path

from companion.rules import SoldierTable, get_table, load_table


def table_arg(value: str | None) -> SoldierTable:
    """A named table, or a user's table file when the value is a path to a JSON file."""
    if value is not None and (value.endswith(".json") or Path(value).is_file()):
        return load_table(value)
    return get_table(value)


TABLE_HELP = "Soldier table: default, gude, classic, or a path to your own table JSON file"
