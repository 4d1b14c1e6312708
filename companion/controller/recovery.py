"""Steps a restarted table cannot replay are moved aside to a record file, never lost.

A game stored by an older version, or a row a disk error spoiled, must not stop the
table from starting: it plays on from the last step that replays, and the rest goes to
`DATA/set-aside/game-N-from-step-K-DATE.json`, a game record (`dragon-farkle replay`
reads it) that also says why and how many steps were kept.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

ASIDE_FOLDER = "set-aside"


def write_aside(folder: Path, game: Any, kept: int, reason: str, when: float) -> Path:
    """Write the whole stored game (its setup and every step) with the number of steps
    kept; returns the file's path. Raises OSError when the card cannot take it."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    where = Path(folder) / ASIDE_FOLDER
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"game-{game.id}-from-step-{kept + 1}-{stamp}.json"
    doc = {"title": f"Table game {game.id}, set aside at start-up", "reason": reason,
           "kept": kept, "setup": game.setup, "steps": list(game.steps), "meta": list(game.meta)}
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, default=str)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
