"""The game at the table: its record (setup + steps) played through the rules engine.

Every step is checked (companion.controller.checks), played through the engine and its
history line written first, then stored before anyone hears about it; undo replays the
stored steps minus the last one from the setup. A restarted table resumes from the
store, and what no longer replays is set aside (companion.controller.recovery).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.controller.checks import check_setup, check_step, step_kind
from companion.controller.errors import StaleState, StoreError, TableError
from companion.controller.played import Played
from companion.controller.recovery import set_aside
from companion.controller.store import StoredGame
from companion.controller.tablebase import TableBase, log


class Moves(TableBase):
    """The table's part that owns the game: new game, steps, undo, resume, the record."""

    # ----- replay ----------------------------------------------------------------------------
    @property
    def history(self) -> list[dict[str, Any]]:
        return self.played.history if self.played else []

    @property
    def armies(self) -> list[dict[str, int]]:
        return self.played.armies if self.played else []

    @property
    def faces(self) -> dict[str, dict[str, int]]:
        return self.played.faces if self.played else {}

    def resume(self) -> None:
        """Load the current game from the store and replay it through the engine."""
        with self._lock:
            self.game = self.store.current()
            self._replay()

    def _replay(self) -> None:
        """Rebuild the live game from its record. What no longer replays (a game stored by
        an older version, a row a disk error spoiled: any error at all) is set aside, so
        the table always starts."""
        self.played = None
        while self.game is not None:
            try:
                self.played = Played(self.engine, self.game.setup)
                break
            except Exception as err:  # noqa: BLE001 - see the docstring
                self._set_aside(0, err)
        if self.game is None or self.played is None:
            return
        for i, step in enumerate(self.game.steps):
            meta = self.game.meta[i] if i < len(self.game.meta) else {}
            has = self.game.has_evidence[i] if i < len(self.game.has_evidence) else False
            try:
                self.played.add(self.played.line(self.played.state, step, meta, has, i))
            except Exception as err:  # noqa: BLE001 - see the docstring
                self._set_aside(i + 1, err)
                break

    def _set_aside(self, number: int, err: Exception) -> None:
        """Set aside a stored game from step `number` (1-based) on, or the whole of it for
        0 (its setup cannot start one: the game before it becomes the current one)."""
        assert self.game is not None
        dropped = self.game.id
        self.notice = set_aside(self.store, self.game, number, err, self.clock())
        if number:
            return
        try:
            self.game = self.store.current()
        except StoreError as fail:
            log.error("%s", fail)
            self.game = None
        if self.game is not None and self.game.id == dropped:  # not dropped: start with none
            self.game = None

    # ----- commands --------------------------------------------------------------------------
    def new_game(self, setup: Any) -> dict[str, Any]:
        """Start a new game from a record's setup (checked completely, and by the engine,
        before anything is stored)."""
        setup = check_setup(setup)
        with self._lock:
            played = Played(self.engine, setup)  # raises on a bad setup before anything is stored
            game_id = self.store.new_game(setup)
            self.game, self.played = StoredGame(id=game_id, setup=setup), played
            self.notice = None
            self._clear_pending()
            self._changed()
            return self.state()

    def apply_steps(
        self,
        steps: Sequence[dict[str, Any]],
        *,
        source: str = "phone",
        evidence: bytes | None = None,
        seen: str | None = None,
    ) -> dict[str, Any]:
        """Check steps and play them through the engine, history lines and all, then store
        them in one transaction and show them; all or nothing.

        `seen` is the game position ("game id:steps") the phone acted on: a second phone's tap
        that arrives after the game moved on is refused instead of being applied to the new state.
        Steps that answer the camera's open roll question keep its picture, and give its
        frame to the photo log (companion.controller.teaching).
        """
        steps = [check_step(step) for step in steps]
        with self._lock:
            game = self._need_game()
            self._check_seen(seen)
            assert self.played is not None
            answered = evidence is None and bool(self.pending) and self.pending.get("kind") == "roll"
            if answered:
                evidence = self._pending_evidence
            kept = [evidence if step_kind(step) in ("roll", "set_aside") else None for step in steps]
            metas = [{"source": source, "at": self.clock()} for _ in steps]
            # IllegalMove (or a line that cannot be written) leaves everything as it was
            lines = self.played.lines(steps, metas, [ev is not None for ev in kept])
            self.store.append_steps(game.id, len(game.steps), list(zip(steps, metas, kept)))
            for step, meta, ev, line in zip(steps, metas, kept, lines):
                game.steps.append(step)
                game.meta.append(meta)
                game.has_evidence.append(ev is not None)
                self.played.add(line)
            disputed, self._disputed = self._disputed, None
            if answered and self._pending_frame is not None:
                self._keep_photo(steps, *self._pending_frame, marks=self._marks)
            elif disputed and (disputed.game, disputed.step) == (game.id, len(game.steps) - len(steps)):
                self._keep_photo(steps, disputed.frame, disputed.reading)  # the roll misread
            if not self._pending_awaits_more(steps):
                self._clear_pending()
            self._changed()
            return self.state()

    def apply_step(self, step: Any, **kwargs: Any) -> dict[str, Any]:
        return self.apply_steps([step], **kwargs)

    def undo(self, *, seen: str | None = None) -> dict[str, Any]:
        """Take back the last step by replaying all the others from the setup."""
        with self._lock:
            game = self._need_game()
            self._check_seen(seen)
            if not game.steps:
                raise TableError("Nothing to undo: no move has been made in this game yet.")
            self.store.pop_step(game.id)
            for seq in (game.steps, game.meta, game.has_evidence):
                seq.pop()
            taken_back, self._camera_roll = self._camera_roll, None
            self._disputed = taken_back if taken_back and (taken_back.game, taken_back.step) == (
                game.id, len(game.steps)) else None
            self._clear_pending()
            self._replay()
            self._changed()
            return self.state()

    def position(self) -> str:
        """Where the game stands: "game id:number of steps" (changes with every move and undo)."""
        return f"{self.game.id}:{len(self.game.steps)}" if self.game else "none"

    def _check_seen(self, seen: str | None) -> None:
        if seen and seen != self.position():
            raise StaleState("The game moved on before your tap arrived: look again and try again.")

    def _need_game(self) -> StoredGame:
        if self.game is None:
            raise TableError("No game yet: start one from the Table tab.")
        return self.game

    # ----- the record ------------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The game as a record file (docs/records.md)."""
        with self._lock:
            game = self._need_game()
            return {"title": f"Table game {game.id}", "setup": game.setup, "steps": list(game.steps)}

    def evidence(self, seq: int) -> bytes | None:
        """The picture kept with step `seq` of this game, or None (no such step: any number)."""
        with self._lock:
            if self.game is None or not 0 <= seq < len(self.game.steps):
                return None
            return self.store.evidence(self.game.id, seq)
