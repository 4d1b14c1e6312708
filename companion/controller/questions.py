"""The camera at the table: its reads played or asked about, and the photo the players mark.

A settled reading is checked against what the game awaits (companion.controller.interpret):
played at once, or put to the phones as the open question (`pending`) with the frame's
photo, on which the players mark what the camera got wrong (companion.controller.marks).
"Wrong read? Fix it" takes a roll the camera played back and asks about it again.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from companion.controller.errors import StoreError, TableError
from companion.controller.interpret import Expectation, Verdict, interpret
from companion.controller.liveview import VIEW_WIDTH, encode_jpeg
from companion.controller.marks import PhotoMarks
from companion.controller.tablebase import TableBase


class CameraRoll(NamedTuple):
    """A roll the camera read and the table played: its game and step index, the frame,
    the reading and the picture with the read dice drawn (for the photo log and marks)."""

    game: int
    step: int
    frame: np.ndarray
    reading: Any
    picture: np.ndarray


class CameraQuestions(TableBase):
    """The table's part that hears the camera and keeps its open question for the phones."""

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

    # ----- the open question -----------------------------------------------------------------
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

    def _pending_awaits_more(self, steps: Sequence[dict[str, Any]]) -> bool:
        """A confirmed re-roll arrives as two taps ("roll again", then the roll): keep the
        question (and its picture) open between them."""
        before = (self.pending or {}).get("proposal", {}).get("before")
        return bool(before) and list(steps) == list(before)

    def _clear_pending(self) -> None:
        self.pending = None
        self._pending_evidence = None
        self._pending_frame = None
        self._marks = None
        self._pending_photo = None

    def _show_photo(self, frame: np.ndarray, reading: Any, picture: np.ndarray) -> None:
        """The open question's picture for the history (the camera's read drawn on it), and
        its frame, kept to mark dice on and shown sharper and clean: the phones draw the
        read dice on it themselves (the state's pending.dice), so no label hides a die."""
        self._pending_evidence = encode_jpeg(picture)
        self._marks = None
        self._photo_seq += 1  # phones fetch the new photo once, not on every mark
        self._pending_frame = (frame.copy(), reading)
        self._pending_photo = encode_jpeg(frame, width=VIEW_WIDTH)

    def pending_evidence(self) -> bytes | None:
        """The picture of the camera's open question: full size where dice are marked on it."""
        return self._pending_photo or self._pending_evidence

    # ----- marks on its photo ----------------------------------------------------------------
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

    def _pending_view(self) -> dict[str, Any] | None:
        """The open question as the phones show it: with its photo, the read dice and the
        players' marks where it has one."""
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
        return pending


def die_json(die: Any) -> dict[str, Any]:
    to_json = getattr(die, "to_json", None)
    if callable(to_json):
        return dict(to_json())
    return {k: getattr(die, k, None) for k in ("kind", "value", "confidence", "color")}
