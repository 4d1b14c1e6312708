"""The pure Dragon Farkle rules engine: tables, scoring, the game state machine.

No I/O, no clock, no randomness: rolls come in as steps (TRANSCRIPTS.md).
"""
from __future__ import annotations

from companion.rules.errors import DragonFarkleError, IllegalMove, SetupError, TableError
from companion.rules.scoring import Option, options_for, scoring_all, value_of
from companion.rules.tables import TABLES, SoldierTable, get_table, load_table

__all__ = [
    "TABLES",
    "DragonFarkleError",
    "IllegalMove",
    "Option",
    "SetupError",
    "SoldierTable",
    "TableError",
    "get_table",
    "load_table",
    "options_for",
    "scoring_all",
    "value_of",
]
