"""Photos of the table's own dice: kept from checked rolls, taught, and learnt from.

A roll the camera was unsure of or misread, once the players gave the real one, goes to
the photo log (vision.photolog) labelled with their marks. "Teach the camera" turns every
settled roll into a photo to check and keep instead of a move; "Learn our dice" trains
the reader on the kept photos in the background (companion.controller.learning).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from companion.controller.errors import TableError
from companion.controller.interpret import Verdict
from companion.controller.marks import PhotoMarks
from companion.controller.tablebase import TableBase, log


class Teaching(TableBase):
    """The table's part that keeps photos of its dice for the reader to learn from."""

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

    # ----- photos of checked rolls -----------------------------------------------------------
    def _keep_photo(self, steps: Sequence[dict[str, Any]], frame: np.ndarray, reading: Any,
                    marks: PhotoMarks | None = None) -> None:
        """The players gave the real roll for a frame the camera was unsure of, or misread:
        give the frame and its read dice (as the players marked them on the photo) to the
        photo log, which keeps them labelled if it can, and the Event die's face they gave
        to the profile (_learn_event_face)."""
        roll = next((s for s in steps if "roll" in s), None)
        if roll is None or (self.photos is None and self.learn_event_view is None):
            return
        assert self.game is not None
        name = time.strftime("%Y%m%d-%H%M%S", time.localtime(self.clock()))
        name = f"{name}-game{self.game.id}-step{len(self.game.steps)}"
        marks = marks or PhotoMarks(frame, list(reading.dice))
        try:
            labels = marks.labels(roll["roll"], roll.get("event"))
            if labels is not None and self.photos is not None:
                self.photos.add(frame, labels, name)
        except (OSError, ValueError) as err:  # a full card or a bad manifest: the game goes on
            log.warning("the checked roll's photo was not kept: %s", err)
        self._learn_event_face(frame, reading, marks.event_label(roll.get("event")))

    def _learn_event_face(self, frame: np.ndarray, reading: Any, label: dict[str, Any] | None
                          ) -> None:
        """The players gave the Event die's face of a roll the camera read (`label`, the
        die on the photo: PhotoMarks.event_label): when the camera had read that die with
        another face, as a Soldier die or below the play threshold
        (vision.photolog.event_view_to_learn), the profile learns that view of the face
        (learn_event_view), so the next rolls read it better."""
        from vision.photolog import event_view_to_learn

        if self.learn_event_view is None:
            return
        view = event_view_to_learn(reading.dice, label, self.min_confidence)
        if view is None:
            return
        try:
            if self.learn_event_view(frame, *view):
                log.info("learned a view of the Event die's %s face from a checked roll", view[1])
        except (OSError, ValueError) as err:  # a full card or a square too small: play goes on
            log.warning("the Event die's face was not learned from the checked roll: %s", err)

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

    # ----- learning the dice -----------------------------------------------------------------
    def learn_dice(self) -> dict[str, Any]:
        """Start learning the table's own dice from the kept photos (in the background)."""
        if self.learning is None:
            raise TableError("This table keeps no photos of its dice to learn from: it needs "
                             "a real camera and camera.keep_photos above 0.")
        if not self.learning.start():
            raise TableError("The table is already learning your dice: wait for it to finish.")
        return self.state()
