"""The advisor's error: a question it cannot answer as asked (message for a player)."""
from __future__ import annotations


class AdviceError(ValueError):
    """A question the advisor cannot answer as asked (message for a player)."""
