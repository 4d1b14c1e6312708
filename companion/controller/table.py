"""The table controller: one game, its record, the camera's questions and the phones' taps.

`Table` is what the web API, the runtime and the camera loop talk to. It is put together
from parts with one job each, all sharing one lock and one state (tablebase.py):

- moves.py: the game, its record played through the rules engine, undo, resuming;
- questions.py: the camera's reads, the open question and the marks on its photo;
- teaching.py: photos of the dice kept, "Teach the camera" and "Learn our dice";
- here: the table's settings and the state every phone is shown.

Listeners (the web page's live stream, the LEDs) get the whole new state after every
change; one that fails is logged and changes nothing.
"""
from __future__ import annotations

import logging
from typing import Any

from companion.controller.checks import check_settings
from companion.controller.errors import StaleState, StoreError, TableError
from companion.controller.moves import Moves
from companion.controller.questions import CameraQuestions, CameraRoll, die_json
from companion.controller.tablebase import DEFAULT_SETTINGS
from companion.controller.teaching import Teaching

__all__ = ["CameraRoll", "StaleState", "StoreError", "Table", "TableError", "die_json"]
log = logging.getLogger(__name__)  # the logger of all its parts (tablebase.log)


class Table(Moves, CameraQuestions, Teaching):
    """Owns the game being played and everything the phones are shown."""

    def set_settings(self, changes: Any) -> dict[str, Any]:
        """Change table settings (`{"advisor": false}`); stored, so a restart keeps them."""
        changes = check_settings(changes, DEFAULT_SETTINGS)
        with self._lock:
            self.store.set_settings(changes)
            self.settings.update(changes)
            self._changed()
            return self.state()

    # ----- views -----------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Everything a phone shows: checkpoint keys at the top level, plus the page's extras."""
        with self._lock:
            if self._cache and self._cache[0] == self.version:
                return self._cache[1]
            state = self._build_state()
            self._cache = (self.version, state)
            return state

    def _build_state(self) -> dict[str, Any]:
        base: dict[str, Any] = {"version": self.version, "boot": self.boot, "camera": self.camera,
                                "pending": self._pending_view(), "last_read": self.last_read,
                                "settings": dict(self.settings), "advice": None,
                                "photos": self._photos_kept(), "teaching": self.teaching,
                                "notice": self.notice}
        if self.game is None or self.state_obj is None:
            return base | {"game": None, "phase": "no_game", "player": None, "history": [],
                           "legal": [], "prompt": "Start a new game from the Table tab."}
        snap = dict(self.engine.snapshot(self.state_obj))
        snap.update(self.engine.checkpoint(self.state_obj))
        snap["legal"] = list(snap.get("legal_steps") or self.engine.legal_steps(self.state_obj))
        return snap | base | {
            "game": {"id": self.game.id, "setup": self.game.setup, "steps": len(self.game.steps),
                     "position": self.position()},
            "history": self.history,
            "stats": {"armies": self.armies, "faces": self.faces},
            "can_undo": bool(self.game.steps),
            "advice": self._advice(),
        }

    def _advice(self) -> dict[str, Any] | None:
        """The advisor's answer for this state; nothing is computed when it is switched off."""
        if self.advisor is None or not self.settings.get("advisor"):
            return None
        try:
            return self.advisor.advice(self.state_obj)
        except Exception:  # advice is extra: the game is shown without it
            log.exception("the advisor failed on this state; the page shows no advice")
            return None
