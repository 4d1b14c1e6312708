"""The game's persistence: one SQLite file holding each game as its record.

A game is stored as its record (docs/records.md): the setup plus the list of
steps. Every step is written in its own transaction (WAL journal,
synchronous=FULL) before anyone is told about it, so a kill or a power
cut at any moment leaves either the game before the step or the game after it.
Evidence pictures (small JPEGs of the frame a roll was read from) are stored in
the same transaction as their step.

Disk trouble is a sentence, never a traceback: a damaged file found at start-up is kept
aside and a fresh one started (`notice` says where the old one is); a write that fails
(a read-only or full card) raises `StoreError` saying what to do, and changes nothing.
"""
from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.controller.errors import StoreError

log = logging.getLogger(__name__)
DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")  # the file itself is bad: keep it aside
SQLITE_INT_MAX = 2**63 - 1

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
        self.notice: str | None = None  # set when a damaged file was kept aside at start-up
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StoreError(f"The table cannot create its data folder {self.path.parent} "
                             f"({err.strerror or err}): choose another with --data.") from err
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as err:
            if getattr(err, "sqlite_errorname", "") not in DAMAGED:
                raise StoreError(f"The table cannot open its game database {self.path} "
                                 f"({err}): {_remedy(err)}") from err
            self._db = self._start_afresh(str(err))

    def _open(self) -> sqlite3.Connection:
        """Connect and check the whole file (PRAGMA quick_check) before changing anything."""
        db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        try:
            problems = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                log.error("%s: %s", self.path, "; ".join(problems[:5]))
                err = sqlite3.DatabaseError("database disk image is malformed")
                err.sqlite_errorname = "SQLITE_CORRUPT"  # type: ignore[attr-defined]
                raise err
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
                db.executescript(SCHEMA)
            except sqlite3.OperationalError as err:  # read-only: play on, writes say why not
                if "readonly" not in getattr(err, "sqlite_errorname", "").lower():
                    raise
                log.error("The table cannot save: %s", _reason(err, self.path))
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _start_afresh(self, why: str) -> sqlite3.Connection:
        """Keep the damaged file (and its journal) aside under a dated name, start anew."""
        aside = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            for suffix in ("", "-wal", "-shm"):
                part = Path(f"{self.path}{suffix}")
                if part.exists():
                    part.rename(f"{aside}{suffix}")
            db = self._open()
        except (OSError, sqlite3.Error) as err:
            raise StoreError(f"The game database {self.path} is damaged ({why}) and could not be "
                             f"moved aside ({err}): move it away by hand, then start the table "
                             "again.") from err
        self.notice = (f"The game database {self.path} was damaged ({why}): it is kept as "
                       f"{aside} and a new one was started, so earlier games are not shown. "
                       f"To rescue them, copy that file to a computer and run: sqlite3 {aside.name} "
                       f"\".recover\" | sqlite3 rescued.sqlite3")
        log.error("%s", self.notice)
        return db

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; an SQLite failure becomes a StoreError that says why."""
        with self._lock:
            try:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    yield self._db
            except sqlite3.Error as err:
                raise StoreError(f"The table cannot save: {_reason(err, self.path)}") from err

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._db
            except sqlite3.Error as err:
                raise StoreError(f"The table cannot read its games: {_reason(err, self.path)}") from err

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def new_game(self, setup: dict[str, Any]) -> int:
        """Store a new game's setup and return its id; it becomes the current game."""
        text = json.dumps(setup, allow_nan=False)
        with self._writing() as db:
            cur = db.execute("INSERT INTO games (setup, created) VALUES (?, ?)", (text, time.time()))
            return int(cur.lastrowid or 0)

    def current(self) -> StoredGame | None:
        """The newest game with all its steps in order, or None before the first game. A
        stored text that is not JSON (a bad sector) comes back as {"unreadable": text}:
        the table sets it aside like any step it cannot replay."""
        with self._reading() as db:
            row = db.execute("SELECT id, setup FROM games ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            game = StoredGame(id=row[0], setup=_decoded(row[1]))
            rows = db.execute(
                "SELECT step, meta, evidence IS NOT NULL FROM steps WHERE game_id = ? ORDER BY seq",
                (game.id,),
            ).fetchall()
        for step, meta, has in rows:
            game.steps.append(_decoded(step))
            meta = _decoded(meta)
            game.meta.append(meta if "unreadable" not in meta else {})
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
        self.append_steps(game_id, seq, [(step, meta or {}, evidence)])

    def append_steps(self, game_id: int, first: int,
                     steps: Sequence[tuple[dict[str, Any], dict[str, Any], bytes | None]]) -> None:
        """Write steps number `first`, `first` + 1, ... of a game, all in one transaction."""
        rows = [(game_id, first + i, json.dumps(step, allow_nan=False),
                 json.dumps(meta, allow_nan=False), evidence, time.time())
                for i, (step, meta, evidence) in enumerate(steps)]
        with self._writing() as db:
            db.executemany(
                "INSERT INTO steps (game_id, seq, step, meta, evidence, at) VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    def pop_step(self, game_id: int) -> None:
        """Delete the last step of a game (undo), in one transaction."""
        with self._writing() as db:
            db.execute(
                "DELETE FROM steps WHERE game_id = ? AND seq = "
                "(SELECT MAX(seq) FROM steps WHERE game_id = ?)",
                (game_id, game_id),
            )

    def truncate(self, game_id: int, keep: int) -> None:
        """Drop every step from number `keep` on (steps a newer version cannot replay)."""
        with self._writing() as db:
            db.execute("DELETE FROM steps WHERE game_id = ? AND seq >= ?", (game_id, keep))

    def drop_game(self, game_id: int) -> None:
        """Delete a game and its steps (one whose setup cannot start a game any more)."""
        with self._writing() as db:
            db.execute("DELETE FROM steps WHERE game_id = ?", (game_id,))
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))

    def settings(self) -> dict[str, Any]:
        """The table's settings (e.g. {"advisor": False}); kept across games and restarts."""
        with self._reading() as db:
            rows = db.execute("SELECT key, value FROM settings").fetchall()
        found = {key: _decoded(value) for key, value in rows}
        return {key: value for key, value in found.items()
                if not (isinstance(value, dict) and "unreadable" in value)}

    def set_settings(self, changes: dict[str, Any]) -> None:
        """Store settings in one transaction."""
        rows = [(key, json.dumps(value, allow_nan=False)) for key, value in changes.items()]
        with self._writing() as db:
            db.executemany(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                rows,
            )

    def set_setting(self, key: str, value: Any) -> None:
        """Store one setting in its own transaction."""
        self.set_settings({key: value})

    def evidence(self, game_id: int, seq: int) -> bytes | None:
        """The JPEG stored with step `seq`, or None (also for a number no step can have)."""
        if not 0 <= seq <= SQLITE_INT_MAX:
            return None
        with self._reading() as db:
            row = db.execute(
                "SELECT evidence FROM steps WHERE game_id = ? AND seq = ?", (game_id, seq)
            ).fetchone()
        return None if row is None or row[0] is None else bytes(row[0])


def _decoded(text: Any) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return {"unreadable": str(text)[:2000]}


def _reason(err: sqlite3.Error, path: Path) -> str:
    """What went wrong with the database, and what to do, as one sentence."""
    name = getattr(err, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_READONLY"):
        return (f"its game database {path} is read-only ({err}). Check that the card is not "
                "locked or full and that the table's user owns the data folder, then restart it.")
    return f"the game database {path} answered: {err}. {_remedy(err)}"


def _remedy(err: sqlite3.Error) -> str:
    name = getattr(err, "sqlite_errorname", "") or ""
    if name in DAMAGED:
        return "The file is damaged: restart the table, it keeps the file aside and starts a new one."
    if name.startswith("SQLITE_FULL"):
        return "The card is full: make room, then try again."
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return "Another program holds the database: stop it (a second table?), then try again."
    if name.startswith("SQLITE_CONSTRAINT"):
        return "Another program changed the game meanwhile (a second table on this folder?): restart the table."
    return "Check the card and the data folder, then restart the table."
