"""The table's errors: refusals a player can read (400/409) and a database that cannot
keep the game (503). Kept apart from the table so the input checks and the store can
raise them without importing the controller."""
from __future__ import annotations


class TableError(ValueError):
    """A request the table cannot act on (no game, bad step shape, nothing to undo)."""


class StaleState(TableError):
    """A tap made on a state that is no longer current (another phone or the camera was first)."""


class StoreError(Exception):
    """The game database cannot be read or written; the message says why and what to do.
    Not a ValueError: the request was fine, the table is not (the web answers 503)."""
