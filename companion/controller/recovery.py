"""Steps a restarted table cannot replay are moved aside to a record file, never lost.

A game stored by an older version, or a row a disk error spoiled, must not stop the
table from starting: it plays on from the last step that replays, and the rest goes to
`DATA/set-aside/game-N-from-step-K-DATE.json`, a game record (`dragon-farkle replay`
reads it) that also says why and how many steps were kept.
"""
from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from companion.controller.errors import StoreError

log = logging.getLogger(__name__)

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


def set_aside(store: Any, game: Any, number: int, err: Exception, now: float) -> str:
    """Move a stored game's steps from step `number` (1-based) on to a record file, or
    the whole game for `number` 0, out of the store (and, for steps, out of `game`);
    returns the sentence for the log and every page."""
    kept = max(0, number - 1)
    why = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
    why = why.rstrip(".")
    try:
        where = f"kept in {write_aside(store.path.parent, game, kept, why, now)}"
    except OSError as fail:
        log.error("could not write the set-aside steps of game %d: %s", game.id, fail)
        where = "not saved anywhere (the card refused the file)"
    if number:
        notice = (f"Step {number} of the stored game no longer replays ({why}); the game goes "
                  f"on from the step before it. That step and the ones after it are {where}.")
    else:
        notice = (f"The stored game {game.id} cannot be started again ({why}); its setup and "
                  f"steps are {where}.")
    log.error("%s", notice)
    try:
        if number:
            store.truncate(game.id, kept)
        else:
            store.drop_game(game.id)
    except StoreError as fail:  # a read-only card: the table still starts, as far as it can
        log.error("%s", fail)
    if number:
        for seq in (game.steps, game.meta, game.has_evidence):
            del seq[kept:]
    return notice
