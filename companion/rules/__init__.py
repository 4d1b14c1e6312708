"""The pure Dragon Farkle rules engine: tables, scoring, the game state machine.

No I/O, no clock, no randomness: rolls come in as steps (docs/records.md).
"""
from __future__ import annotations

from companion.rules.engine import apply
from companion.rules.errors import DragonFarkleError, IllegalMove, SetupError, TableError
from companion.rules.scoring import Option, options_for, scoring_all, value_of
from companion.rules.state import Action, Event, GameState, Phase, Rules, card_id, new_game
from companion.rules.tables import TABLES, SoldierTable, get_table, load_table
from companion.rules.view import checkpoint, legal_steps, prompt, snapshot

__all__ = [
    "TABLES", "Action", "DragonFarkleError", "Event", "GameState", "IllegalMove", "Option", "Phase",
    "Rules", "SetupError", "SoldierTable", "TableError", "apply", "card_id", "checkpoint",
    "get_table", "legal_steps", "load_table", "new_game", "options_for", "prompt", "scoring_all",
    "snapshot", "value_of",
]
