"""What every part of the table controller shares: its attributes, its lock and its listeners.

`Table` (companion.controller.table) is put together from parts with one job each:
`moves.Moves` plays the game's record, `questions.CameraQuestions` handles the camera's
reads and the questions the phones answer, `teaching.Teaching` keeps photos of the dice.
They all work on the state set up here, under one lock, and tell the phones of every
change through `_changed`. The methods one part calls on another are declared at the
end of `TableBase`, so each part type-checks on its own.
"""
from __future__ import annotations

import importlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.controller.interpret import MIN_CONFIDENCE, Verdict
from companion.controller.liveview import LiveView
from companion.controller.marks import Locate, PhotoMarks, locate_die
from companion.controller.played import Played
from companion.controller.store import GameStore, StoredGame

if TYPE_CHECKING:
    from companion.controller.questions import CameraRoll

# Every part logs as the table it belongs to: the log says which object had the trouble.
log = logging.getLogger("companion.controller.table")
DEFAULT_SETTINGS: dict[str, Any] = {"advisor": True}
Listener = Callable[[dict[str, Any]], None]


class TableBase:
    """The table's state, shared by its parts, and the listeners told of every change."""

    def __init__(
        self,
        store: GameStore,
        *,
        engine: Any = None,
        clock: Callable[[], float] = time.time,
        min_confidence: float = MIN_CONFIDENCE,
        advisor: Any = None,
        photos: Any = None,
    ) -> None:
        self.store = store
        self.advisor = advisor  # a TableAdvisor, or None: no advice at this table
        self.photos = photos  # a vision.photolog.PhotoLog: frames whose roll the players checked
        self.learning: Any = None  # a learning.DiceLearning: "Learn our dice" (set by the runtime)
        # Learns an Event-die face the players gave from its frame: (frame, box, face) ->
        # learned? (calibrate.ProfileKeeper.learn_event_view; set by the runtime for a real camera)
        self.learn_event_view: Callable[[np.ndarray, Sequence[float], str], bool] | None = None
        self.settings: dict[str, Any] = DEFAULT_SETTINGS | store.settings()
        self.engine = engine or importlib.import_module("companion.rules")
        self.clock = clock
        self.min_confidence = min_confidence
        self.live = LiveView()
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.version = 0
        self.boot = secrets.token_hex(4)  # lets pages tell a restarted server from an old message
        self.game: StoredGame | None = None
        self.played: Played | None = None  # the game's live state, history and statistics
        # Start-up trouble the players should know of (a damaged database kept aside,
        # steps set aside): shown on every page until a new game starts.
        self.notice: str | None = store.notice
        self.camera: dict[str, Any] = {"mode": "manual", "message": "No camera: type each roll."}
        self.pending: dict[str, Any] | None = None
        self._pending_evidence: bytes | None = None
        self._pending_frame: tuple[np.ndarray, Any] | None = None  # (frame, reading) asked about
        self._marks: PhotoMarks | None = None  # the players' marks on that frame's photo
        self._pending_photo: bytes | None = None  # that photo, sharp enough to mark dice on
        self._photo_seq = 0  # counts the photos asked about
        self.locate: Locate = locate_die  # finds a tapped die (the runtime's knows the profile)
        self.teaching = False  # each settled roll is a photo to check and keep, not a game move
        # The camera's last roll played as read, and the same once the players took it
        # back ("Wrong read? Fix it"), until they enter the roll it really was.
        self._camera_roll: CameraRoll | None = None
        self._disputed: CameraRoll | None = None
        self.last_read: dict[str, Any] | None = None
        self._cache: tuple[int, dict[str, Any]] | None = None
        self.resume()
        if advisor is not None:
            advisor.on_ready = self.refresh

    @property
    def state_obj(self) -> Any:
        """The rules engine's state of the game (None: no game)."""
        return self.played.state if self.played else None

    # ----- listeners -------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Call `listener(state)` after every change (keep it quick: it runs under the lock)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        """Tell every listener; the change is stored already, so one that fails (an LED
        strip, a phone's stream) is logged and the others still hear of it."""
        self.version += 1
        state = self.state()
        for listener in list(self._listeners):
            try:
                listener(state)
            except Exception:  # a listener's trouble is never the change's
                log.exception("a listener (%s) failed; the change itself is saved",
                              getattr(listener, "__qualname__", listener))

    def refresh(self) -> None:
        """Re-send the state (the advisor's tables became ready)."""
        with self._lock:
            self._changed()

    if TYPE_CHECKING:  # what one part calls on another (see the module docstring)
        def state(self) -> dict[str, Any]: ...  # table.Table
        def resume(self) -> None: ...  # moves.Moves
        def apply_steps(self, steps: Sequence[dict[str, Any]], *, source: str = "phone",
                        evidence: bytes | None = None, seen: str | None = None,
                        ) -> dict[str, Any]: ...
        def undo(self, *, seen: str | None = None) -> dict[str, Any]: ...
        def _need_game(self) -> StoredGame: ...
        def _clear_pending(self) -> None: ...  # questions.CameraQuestions
        def _pending_awaits_more(self, steps: Sequence[dict[str, Any]]) -> bool: ...
        def _show_photo(self, frame: np.ndarray, reading: Any, picture: np.ndarray) -> None: ...
        def _photo_marks(self) -> PhotoMarks: ...
        def _teach(self, reading: Any, frame: np.ndarray, picture: np.ndarray,
                   ) -> Verdict: ...  # teaching.Teaching
        def _keep_photo(self, steps: Sequence[dict[str, Any]], frame: np.ndarray,
                        reading: Any, marks: PhotoMarks | None = None) -> None: ...
