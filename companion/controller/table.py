"""The table controller: one game, its record, the camera's proposals and the phones' taps.

The game is its record (setup + steps). Every step is checked (companion.controller.
checks), played through the rules engine and its history line written first, then
stored before anyone hears about it; undo replays the stored steps minus the last one
from the setup. Listeners (the web page's live stream, the LEDs) get the whole new
state after every change; one that fails is logged and changes nothing.
"""
from __future__ import annotations

import importlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from companion.controller.checks import check_settings, check_setup, check_step, step_kind
from companion.controller.errors import StaleState, StoreError, TableError
from companion.controller.interpret import Expectation, Verdict, interpret
from companion.controller.liveview import VIEW_WIDTH, LiveView, encode_jpeg
from companion.controller.marks import Locate, PhotoMarks, locate_die
from companion.controller.played import Played
from companion.controller.recovery import set_aside
from companion.controller.store import GameStore, StoredGame

__all__ = ["CameraRoll", "StaleState", "StoreError", "Table", "TableError", "die_json"]
log = logging.getLogger(__name__)
DEFAULT_SETTINGS: dict[str, Any] = {"advisor": True}
Listener = Callable[[dict[str, Any]], None]


class CameraRoll(NamedTuple):
    """A roll the camera read and the table played: its game and step index, the frame,
    the reading and the picture with the read dice drawn (for the photo log and marks)."""

    game: int
    step: int
    frame: np.ndarray
    reading: Any
    picture: np.ndarray


class Table:
    """Owns the game being played and everything the phones are shown."""

    def __init__(
        self,
        store: GameStore,
        *,
        engine: Any = None,
        clock: Callable[[], float] = time.time,
        min_confidence: float = 0.6,
        advisor: Any = None,
        photos: Any = None,
    ) -> None:
        self.store = store
        self.advisor = advisor  # a TableAdvisor, or None: no advice at this table
        self.photos = photos  # a vision.photolog.PhotoLog: frames whose roll the players checked
        self.learning: Any = None  # a learning.DiceLearning: "Learn our dice" (set by the runtime)
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

    # ----- replay ----------------------------------------------------------------------------
    @property
    def state_obj(self) -> Any:
        return self.played.state if self.played else None

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

    def _pending_awaits_more(self, steps: Sequence[dict[str, Any]]) -> bool:
        """A confirmed re-roll arrives as two taps ("roll again", then the roll): keep the
        question (and its picture) open between them."""
        before = (self.pending or {}).get("proposal", {}).get("before")
        return bool(before) and list(steps) == list(before)

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

    def dispute(self, *, seen: str | None = None) -> dict[str, Any]:
        """"Wrong read? Fix it": take back the roll the camera played and ask about it again
        with its photo, for the players to mark what the camera got wrong (a misread face,
        a speck taken for a die, a die it missed)."""
        with self._lock:
            game = self._need_game()
            last = game.steps[-1] if game.steps else {}
            if "roll" not in last or game.meta[-1].get("source") != "camera":
                raise TableError("The last move was not a roll the camera read: use undo.")
            state = self.undo(seen=seen)
            taken_back, self._disputed = self._disputed, None
            if taken_back is None:  # the table restarted since: the keypad alone fixes it
                return state
            self.pending = {"kind": "roll", "reason": (
                "You took back the camera's read: tap on the photo what it got wrong, or "
                "correct the roll."), "proposal": {"roll": sorted(last["roll"]),
                                                   "event": last.get("event"), "disputed": True}}
            self._show_photo(taken_back.frame, taken_back.reading, taken_back.picture)
            self._changed()
            return self.state()

    def ask(self, kind: str, reason: str, proposal: dict[str, Any] | None = None) -> None:
        """Put a question or notice on every phone (answered by a step, undo or dismiss)."""
        with self._lock:
            self._clear_pending()
            self.pending = {"kind": kind, "reason": reason, "proposal": proposal or {}}
            self._changed()

    def dismiss(self) -> dict[str, Any]:
        """Forget the camera's open question (the players will tap or type instead)."""
        with self._lock:
            self._clear_pending()
            self._changed()
            return self.state()

    def set_settings(self, changes: Any) -> dict[str, Any]:
        """Change table settings (`{"advisor": false}`); stored, so a restart keeps them."""
        changes = check_settings(changes, DEFAULT_SETTINGS)
        with self._lock:
            self.store.set_settings(changes)
            self.settings.update(changes)
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

    def _clear_pending(self) -> None:
        self.pending = None
        self._pending_evidence = None
        self._pending_frame = None
        self._marks = None
        self._pending_photo = None

    # ----- camera ----------------------------------------------------------------------------
    def set_camera(self, mode: str, message: str) -> None:
        """Camera status shown on every page ("camera" or "manual" with the reason)."""
        with self._lock:
            if self.camera == {"mode": mode, "message": message}:
                return
            self.camera = {"mode": mode, "message": message}
            self._changed()

    def expectation(self) -> Expectation:
        """What the engine awaits now, in the terms the camera reader checks against."""
        cp = self.engine.checkpoint(self.state_obj)
        last_roll: tuple[int, ...] = ()
        last_event = None
        for step in reversed(self.game.steps if self.game else []):
            if "roll" in step:
                last_roll, last_event = tuple(sorted(step["roll"])), step.get("event")
                break
        colors = (self.game.setup.get("colors") or {}) if self.game else {}
        return Expectation(
            phase=cp["phase"],
            player=cp["player"],
            dice_in_hand=int(cp.get("dice_in_hand") or 0),
            options=tuple(tuple(sorted(o)) for o in cp.get("options") or ()),
            last_roll=last_roll,
            last_event=last_event,
            color=colors.get(cp["player"]) if isinstance(colors, dict) else None,
        )

    def handle_reading(
        self, reading: Any, frame: np.ndarray, annotated: np.ndarray | None = None
    ) -> Verdict:
        """A settled camera reading: apply it, ask the phones about it, or ignore it."""
        picture = annotated if annotated is not None else frame
        with self._lock:
            if self.teaching:
                return self._teach(reading, frame, picture)
            if self.game is None:
                return Verdict("ignore", reason="no game")
            verdict = interpret(reading, self.expectation(), min_confidence=self.min_confidence)
            self.last_read = {"reason": verdict.reason, "kind": verdict.kind, "at": self.clock(),
                              "width": int(frame.shape[1]), "dice": [die_json(d) for d in reading.dice]}
            if verdict.kind == "apply":
                try:
                    self.apply_steps(verdict.steps, source="camera", evidence=encode_jpeg(picture))
                except (ValueError, StoreError) as err:
                    verdict = Verdict("ask", reason=str(err), proposal=verdict.proposal)
                else:
                    rolls = [i for i, st in enumerate(verdict.steps) if "roll" in st]
                    if rolls:  # kept for "Wrong read? Fix it"
                        at = len(self.game.steps) - len(verdict.steps) + rolls[-1]
                        self._camera_roll = CameraRoll(self.game.id, at, frame.copy(), reading,
                                                       picture.copy())
            if verdict.kind == "ask":
                self.pending = {"kind": verdict.proposal.get("kind", "roll"),
                                "reason": verdict.reason, "proposal": verdict.proposal}
                self._show_photo(frame, reading, picture)
                self._changed()
            return verdict

    def _show_photo(self, frame: np.ndarray, reading: Any, picture: np.ndarray) -> None:
        """The open question's picture for the history (the camera's read drawn on it), and
        its frame, kept to mark dice on and shown sharper and clean: the phones draw the
        read dice on it themselves (the state's pending.dice), so no label hides a die."""
        self._pending_evidence = encode_jpeg(picture)
        self._marks = None
        self._photo_seq += 1  # phones fetch the new photo once, not on every mark
        self._pending_frame = (frame.copy(), reading)
        self._pending_photo = encode_jpeg(frame, width=VIEW_WIDTH)

    # ----- teaching the camera ---------------------------------------------------------------
    def set_teaching(self, on: Any) -> dict[str, Any]:
        """Teaching on: every settled roll becomes a photo the players check, mark and keep
        for the photo log (the game, if any, waits). Off: back to playing."""
        if not isinstance(on, bool):
            raise TableError('Send {"on": true} to teach the camera, {"on": false} to stop.')
        with self._lock:
            if on and self.photos is None:
                raise TableError("This table keeps no photos of its dice: teaching the camera "
                                 "needs a real camera and camera.keep_photos above 0.")
            self.teaching = on
            if not on and self.pending is not None and self.pending.get("kind") == "teach":
                self._clear_pending()
            self._changed()
            return self.state()

    def _teach(self, reading: Any, frame: np.ndarray, picture: np.ndarray) -> Verdict:
        """A settled roll while teaching: put its photo on the phones to check and keep."""
        if not reading.dice:
            return Verdict("ignore", reason="no dice in the tray")
        soldiers = [d.value for d in reading.dice if d.kind != "event"]
        events = [d.value for d in reading.dice if d.kind == "event"]
        reason = ("Teaching the camera: tap each die it read wrong or missed and pick its "
                  "face, then keep the photo.")
        proposal = {"roll": sorted(v for v in soldiers if v is not None),
                    "event": events[0] if len(events) == 1 else None}
        self.pending = {"kind": "teach", "reason": reason, "proposal": proposal}
        self._show_photo(frame, reading, picture)
        self._changed()
        return Verdict("ask", reason=reason, proposal=proposal)

    def keep_taught(self) -> dict[str, Any]:
        """Keep the photo being taught, labelled with the read faces and the marks."""
        with self._lock:
            if (self.pending is None or self.pending.get("kind") != "teach"
                    or self._pending_frame is None or self.photos is None):
                raise TableError("There is no photo to keep: roll the dice in the tray while "
                                 "teaching the camera.")
            frame, _ = self._pending_frame
            marks = self._photo_marks()
            shown = marks.roll()
            if shown is None:
                raise TableError("A die on the photo has no face yet: tap it and pick its face.")
            labels = marks.labels(shown["roll"], shown["event"])
            if labels is None:  # pragma: no cover - the photo's own faces always fit it
                raise TableError("The marks do not add up: take one back and mark again.")
            name = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
            try:
                kept = self.photos.add(frame, labels, f"{name}-taught{self._photo_seq}")
            except (OSError, ValueError) as err:
                raise TableError(f"The photo could not be kept: {err}") from err
            if kept is None:
                raise TableError(f"The photo log is full ({self.photos.limit} photos): "
                                 "raise camera.keep_photos or make room in its folder.")
            self._clear_pending()
            self._changed()
            n = len(self.photos)
            return self.state() | {"said": f"Kept: {n} photo{'' if n == 1 else 's'} of your dice."}

    def _keep_photo(self, steps: Sequence[dict[str, Any]], frame: np.ndarray, reading: Any,
                    marks: PhotoMarks | None = None) -> None:
        """The players gave the real roll for a frame the camera was unsure of, or misread:
        give the frame and its read dice (as the players marked them on the photo) to the
        photo log, which keeps them labelled if it can."""
        roll = next((s for s in steps if "roll" in s), None)
        if self.photos is None or roll is None:
            return
        assert self.game is not None
        name = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
        name = f"{name}-game{self.game.id}-step{len(self.game.steps)}"
        marks = marks or PhotoMarks(frame, list(reading.dice))
        try:
            labels = marks.labels(roll["roll"], roll.get("event"))
            if labels is not None:
                self.photos.add(frame, labels, name)
        except (OSError, ValueError) as err:  # a full card or a bad manifest: the game goes on
            log.warning("the checked roll's photo was not kept: %s", err)

    def pending_evidence(self) -> bytes | None:
        """The picture of the camera's open question: full size where dice are marked on it."""
        return self._pending_photo or self._pending_evidence

    def mark_pending(self, tap: Any) -> dict[str, Any]:
        """A mark on the photo of the camera's open question: {"x": 0-1, "y": 0-1} of its
        width and height, "face": 1-6, an Event face, "none" (no die there) or "clear"
        (take the mark back); see companion.controller.marks."""
        if not isinstance(tap, dict) or set(tap) != {"x", "y", "face"}:
            raise TableError('Send the mark as {"x": 0-1, "y": 0-1, "face": ...} of the photo.')
        with self._lock:
            if not self._markable():
                raise TableError("There is no photo of the camera's to mark now.")
            self._marks = self._photo_marks()
            said = self._marks.tap(tap["x"], tap["y"], tap["face"])
            self._changed()
            return self.state() | {"said": said}

    def _photo_marks(self) -> PhotoMarks:
        """The players' marks on the open question's photo (none yet: a new, empty set)."""
        assert self._pending_frame is not None
        if self._marks is not None:
            return self._marks
        frame, reading = self._pending_frame
        return PhotoMarks(frame, list(reading.dice), self.locate)

    def _markable(self) -> bool:
        """Marks are taken on the photo of a roll the camera asked about (or of one being
        taught): they make up the roll to play, and what the photo log keeps."""
        return (self._pending_frame is not None and self.pending is not None
                and self.pending.get("kind") in ("roll", "teach"))

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
        pending = self.pending
        if pending is not None and self._pending_frame is not None:
            frame = self._pending_frame[0]
            marks = self._photo_marks()
            pending = pending | {"photo": self._photo_seq, "dice": marks.boxes(self.min_confidence),
                                 "photo_size": [int(frame.shape[1]), int(frame.shape[0])]}
            if self._markable():
                pending |= {"markable": True, "marks": marks.view(),
                            "unsure": marks.asked(self.min_confidence),
                            "photo_roll": marks.roll() if marks.marked() else None}
        base: dict[str, Any] = {"version": self.version, "boot": self.boot, "camera": self.camera,
                                "pending": pending, "last_read": self.last_read,
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

    def _photos_kept(self) -> dict[str, Any] | None:
        """How many checked rolls' photos the table keeps, where (None: it keeps none)."""
        if self.photos is None:
            return None
        try:
            kept = len(self.photos)
        except (OSError, ValueError):  # an unreadable manifest: add() says so in the log
            kept = None
        return {"kept": kept, "limit": self.photos.limit, "folder": str(self.photos.folder),
                "learning": self.learning.status() if self.learning is not None else None}

    def learn_dice(self) -> dict[str, Any]:
        """Start learning the table's own dice from the kept photos (in the background)."""
        if self.learning is None:
            raise TableError("This table keeps no photos of its dice to learn from: it needs "
                             "a real camera and camera.keep_photos above 0.")
        if not self.learning.start():
            raise TableError("The table is already learning your dice: wait for it to finish.")
        return self.state()

    def _advice(self) -> dict[str, Any] | None:
        """The advisor's answer for this state; nothing is computed when it is switched off."""
        if self.advisor is None or not self.settings.get("advisor"):
            return None
        try:
            return self.advisor.advice(self.state_obj)
        except Exception:  # advice is extra: the game is shown without it
            log.exception("the advisor failed on this state; the page shows no advice")
            return None

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


def die_json(die: Any) -> dict[str, Any]:
    to_json = getattr(die, "to_json", None)
    if callable(to_json):
        return dict(to_json())
    return {k: getattr(die, k, None) for k in ("kind", "value", "confidence", "color")}
