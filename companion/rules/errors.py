"""The rules engine's errors: one root, and errors about bad input are also `ValueError`."""
from __future__ import annotations


class DragonFarkleError(Exception):
    """Root of every error the rules engine raises."""


class IllegalMove(DragonFarkleError, ValueError):
    """A step the rules do not allow now; the message is a sentence for the players."""


class TableError(DragonFarkleError, ValueError):
    """A Soldier table (named or from a user's file) that cannot be used, and why."""


class SetupError(DragonFarkleError, ValueError):
    """A game setup that cannot start a game, and why."""
