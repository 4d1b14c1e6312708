"""The game's persistence: one SQLite file holding each game as its record.

A game is stored as its record (docs/records.md): the setup plus the list of
steps. Every step is written in its own transaction (WAL journal,
synchronous=FULL) before anyone is told about it, so a kill or a power
cut at any moment leaves either the game before the step or the game after it.
Evidence pictures (small JPEGs of the frame a roll was read from) are stored in
the same transaction as their step.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    setup TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    step TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    evidence BLOB,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


@dataclass
class StoredGame:
    """A game as stored: its id, setup, steps and per-step metadata (source, time)."""

    id: int
    setup: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    meta: list[dict[str, Any]] = field(default_factory=list)
    has_evidence: list[bool] = field(default_factory=list)


class GameStore:
    """SQLite store of game records; the newest game is the one being played."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def new_game(self, setup: dict[str, Any]) -> int:
        """Store a new game's setup and return its id; it becomes the current game."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            cur = self._db.execute(
                "INSERT INTO games (setup, created) VALUES (?, ?)",
                (json.dumps(setup), time.time()),
            )
            return int(cur.lastrowid or 0)

    def current(self) -> StoredGame | None:
        """The newest game with all its steps in order, or None before the first game."""
        with self._lock:
            row = self._db.execute("SELECT id, setup FROM games ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            game = StoredGame(id=row[0], setup=json.loads(row[1]))
            rows = self._db.execute(
                "SELECT step, meta, evidence IS NOT NULL FROM steps WHERE game_id = ? ORDER BY seq",
                (game.id,),
            ).fetchall()
        for step, meta, has in rows:
            game.steps.append(json.loads(step))
            game.meta.append(json.loads(meta))
            game.has_evidence.append(bool(has))
        return game

    def append_step(
        self,
        game_id: int,
        seq: int,
        step: dict[str, Any],
        meta: dict[str, Any] | None = None,
        evidence: bytes | None = None,
    ) -> None:
        """Write step number `seq` (0-based) of a game in one transaction."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO steps (game_id, seq, step, meta, evidence, at) VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seq, json.dumps(step), json.dumps(meta or {}), evidence, time.time()),
            )

    def pop_step(self, game_id: int) -> None:
        """Delete the last step of a game (undo), in one transaction."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "DELETE FROM steps WHERE game_id = ? AND seq = "
                "(SELECT MAX(seq) FROM steps WHERE game_id = ?)",
                (game_id, game_id),
            )

    def truncate(self, game_id: int, keep: int) -> None:
        """Drop every step from number `keep` on (steps a newer rules engine refuses)."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM steps WHERE game_id = ? AND seq >= ?", (game_id, keep))

    def settings(self) -> dict[str, Any]:
        """The table's settings (e.g. {"advisor": False}); kept across games and restarts."""
        with self._lock:
            rows = self._db.execute("SELECT key, value FROM settings").fetchall()
        return {key: json.loads(value) for key, value in rows}

    def set_setting(self, key: str, value: Any) -> None:
        """Store one setting in its own transaction."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value)),
            )

    def evidence(self, game_id: int, seq: int) -> bytes | None:
        """The JPEG stored with step `seq`, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT evidence FROM steps WHERE game_id = ? AND seq = ?", (game_id, seq)
            ).fetchone()
        return None if row is None or row[0] is None else bytes(row[0])
