"""The calibration profile in use, and the wizard steps the phone page can do with it.

The reader always reads with `keeper.profile`, so a tray framed on a phone applies to
the very next roll. Changes are saved at once (`calibration.save_profile` writes a
whole new folder, never half of one).
"""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROTATIONS = (0, 90, 180, 270)


class CalibrationError(ValueError):
    """A calibration request that cannot be applied (the message says why)."""


REMEASURE_MARGIN = 0.3  # seconds past the camera's settle time before locking again


@dataclasses.dataclass(frozen=True)
class EventPicture:
    """One kept Event-die picture: its face, the die's top face square (frame pixels) in
    it, the picture's size, whether the reader takes that square for a die, and the
    learned Event die that was in use before it was kept."""

    face: str
    box: tuple[float, float, float, float]
    frame: tuple[int, int]
    sure: bool
    event_before: Any

    def for_page(self) -> dict[str, Any]:
        """The face, the square in 0..1 of the picture, and "sure"."""
        w, h = self.frame
        x, y, s, t = self.box
        return {"face": self.face, "box": [round(x / w, 4), round(y / h, 4), round(s / w, 4),
                                           round(t / h, 4)], "sure": self.sure}


class ProfileKeeper:
    """Holds the current profile; saves it to `path` after every change."""

    def __init__(self, profile: Any, path: str | Path | None) -> None:
        self._lock = threading.Lock()
        self._profile = profile
        self.path = Path(path) if path else None
        self.listeners: list[Callable[[Any], None]] = []  # called with the new profile
        self.event_frames: dict[str, list[Any]] = {}  # Event-die face pictures taken so far
        # Each kept Event-die picture, newest last: its face, where the die was found in it
        # (for the page), and the learned die in use before it (forget_event_picture).
        self._event_kept: list[EventPicture] = []
        self._event_new = False  # the newest is the last picture taken: the page shows it
        self._event_lock = threading.Lock()  # one Event-die picture at a time
        self.camera: Callable[[], Any] = lambda: None  # the open camera (set by the runtime)
        self.lights: Any = None  # the TableLights (set by the runtime when LEDs are on)
        self.sleep: Callable[[float], None] = time.sleep  # injectable for the tests

    @property
    def profile(self) -> Any:
        with self._lock:
            return self._profile

    def read_with(self, reader: Any) -> Any:
        """A reader function that always uses the current profile."""
        return lambda frame: reader(frame, profile=self.profile)

    def summary(self, frame_size: tuple[int, int] | None = None) -> dict[str, Any]:
        """What is calibrated, for the page; the tray in 0..1 of the frame when its size is known."""
        from calibration.event_die import emblem_advice
        from calibration.procedures import die_side_advice

        p = self.profile
        tray = None
        if p.tray is not None and frame_size:
            w, h = frame_size
            tray = [[round(x / w, 4), round(y / h, 4)] for x, y in p.tray]
        return {
            "tray": tray,
            "frame": list(frame_size) if frame_size else None,  # the picture's size, to lay it out
            "tray_set": p.tray is not None,
            "rotation": p.rotation,
            "colors": sorted(p.colors),
            "event_die": p.event is not None,
            "leds": len(p.leds),
            "die_side": None if p.die_side is None else round(p.die_side, 1),
            "die_side_advice": die_side_advice(p.die_side),
            "camera_locked": any(v is not None for v in dataclasses.astuple(p.camera)),
            "saved_to": str(self.path) if self.path else None,
            "event_frames": {f: len(v) for f, v in self.event_frames.items()},
            "event_last": self._event_kept[-1].for_page() if self._event_new else None,
            # its emblems unseen: what to do (vision.event caches the learned die's measures)
            "event_advice": emblem_advice(p.event),
        }

    def set_tray(
        self, points: Any, frame_size: tuple[int, int] | None, rotation: Any = None
    ) -> dict[str, Any]:
        """Frame the tray: corner points in 0..1 of the camera picture (None/[] = whole frame)."""
        if frame_size is None:
            raise CalibrationError("No camera picture yet: the tray is framed on the camera's view.")
        tray = None if not points else scaled_polygon(points, frame_size)
        changes: dict[str, Any] = {"tray": tray}
        if rotation is not None:
            if rotation not in ROTATIONS:
                raise CalibrationError("The rotation is 0, 90, 180 or 270 degrees.")
            changes["rotation"] = rotation
        self._replace(**changes)
        return self.summary(frame_size)

    def find_tray(self, frame: Any) -> dict[str, Any]:
        """Let the calibration procedure find the tray floor in the current picture."""
        from calibration.procedures import learn_tray, learn_tray_colors

        frame = need(frame)
        polygon, rotation = learn_tray(frame)
        self._replace(tray=polygon, rotation=rotation,
                      tray_colors=learn_tray_colors(frame, polygon))
        return self.summary(frame_size(frame))

    def learn_color(self, frame: Any, name: Any) -> dict[str, Any]:
        """Learn one dice colour (named as in the game set-up, e.g. "red") from the picture,
        and the dice's size in the picture (the reader scales frames by it)."""
        from calibration.procedures import learn_dice, measure_die_side

        if not isinstance(name, str) or not name.strip():
            raise CalibrationError("Name the dice colour, as in the game set-up (e.g. red).")
        model, sides = learn_dice(need(frame))
        side = measure_die_side(sides)
        self._replace(colors={**self.profile.colors, name.strip().lower(): model}, die_side=side)
        return self.summary(frame_size(frame))

    def capture_event(self, frame: Any, face: Any) -> dict[str, Any]:
        """Keep a picture of one Event-die face; once every face has one, learn the die.

        A picture is kept only when the Event die is found in it, away from the edge of
        the camera's view (calibration.event_die.near_edge: seen from the side there, its
        top face is not learned well) and, once every face has a picture, the die is
        learned with it: a refused picture changes nothing (a kept bad one would make
        every later picture fail too). Where the die was found
        comes back as "event_last" (its box, and whether the reader takes it for a die),
        for the players to check: a picture with the die half out of view can have a
        dark corner of the tray found instead, and forget_event_picture takes it back."""
        from calibration.event_die import (
            TOWARDS_MIDDLE,
            event_boxes,
            learn_event,
            near_edge,
            surely_a_die,
        )
        from calibration.profile import EVENT_FACES

        if face not in EVENT_FACES:
            raise CalibrationError("The Event die shows blank, dragon or rally.")
        frame = need(frame).copy()
        side = self.profile.die_side
        with self._event_lock:
            box = event_boxes({face: [frame]}, die_side=side)[face][0]  # CalibrationError: not kept
            if near_edge(frame, box):
                raise CalibrationError(f"{TOWARDS_MIDDLE[0].upper()}{TOWARDS_MIDDLE[1:]}, "
                                       "and take the picture again.")
            frames = {f: list(v) for f, v in self.event_frames.items()}
            frames.setdefault(face, []).append(frame)
            before = self.profile.event
            if all(frames.get(f) for f in EVENT_FACES):
                try:  # the die is learned where the pictures together find it
                    boxes = event_boxes(frames, die_side=side)
                    event = learn_event(frames, boxes, die_side=side)
                    box = boxes[face][-1]
                except ValueError as exc:  # an earlier picture may be the bad one
                    raise CalibrationError(f"{exc} (or forget the last picture, or start "
                                           "the Event die's pictures again)") from None
                self._replace(event=event)
            self.event_frames = frames
            self._event_kept.append(EventPicture(face, box, frame_size(frame),
                                                 surely_a_die(frame, box), before))
            self._event_new = True
        return self._event_summary(frame)

    def forget_event_picture(self) -> dict[str, Any]:
        """Take back the last Event-die picture kept (the die was not where the page showed
        it found): the die learned before that picture is in use again. Called again, it
        takes back the one before (the page offers it once: the box of an earlier picture
        would be drawn where its die no longer lies)."""
        with self._event_lock:
            if not self._event_kept:
                raise CalibrationError("No Event-die picture to forget.")
            last = self._event_kept[-1]
            if self.profile.event is not last.event_before:
                self._replace(event=last.event_before)
            self._event_kept.pop()
            self._event_new = False  # the box of an earlier picture is not on today's picture
            frames = {f: list(v) for f, v in self.event_frames.items()}
            frames[last.face].pop()
            self.event_frames = {f: v for f, v in frames.items() if v}
        return self._event_summary(None)

    def learn_event_view(self, frame: Any, box: Sequence[float], face: str) -> bool:
        """Learn one more view of an Event-die face from a roll the players checked (the
        die's top face square `box` in `frame`, their face `face`), saved with the
        profile; False when the profile has no Event die or that face has views enough
        (calibration.event_die.PLAY_VIEWS). ValueError: nothing learned or saved."""
        from calibration.event_die import with_view_from_play

        with self._event_lock:
            event = self.profile.event
            if event is None:
                return False
            learned = with_view_from_play(event, need(frame), tuple(float(v) for v in box), face)
            if learned is None:
                return False
            self._replace(event=learned)
        return True

    def restart_event(self) -> dict[str, Any]:
        """Forget the Event-die pictures taken so far (a face tapped wrong): the die
        learned from them stays in use until every face has a new picture."""
        with self._event_lock:
            self.event_frames = {}
            self._event_kept = []
            self._event_new = False
        return self._event_summary(None)

    def _event_summary(self, frame: Any) -> dict[str, Any]:
        from calibration.profile import EVENT_FACES

        return self.summary(None if frame is None else frame_size(frame)) | {
            "event_frames": {f: len(self.event_frames.get(f, [])) for f in EVENT_FACES}}

    def lock_exposure(self) -> dict[str, Any]:
        """Freeze the Pi camera's exposure and white balance as the light is now, and keep
        them in the profile, with the lens position its autofocus found (a restart then
        skips the scan). A camera locked before measures again first ("Lock again" after the
        light changed would otherwise keep the old values): back to automatic for its settle
        time (and a new focus scan), then locked."""
        from calibration.profile import CameraSettings

        camera = self.camera()
        if camera is None or not callable(getattr(camera, "lock", None)):
            raise CalibrationError("Only the Pi camera can lock its exposure; this camera adjusts itself.")
        if getattr(camera, "locked", False) and callable(getattr(camera, "unlock", None)):
            camera.unlock()
            self.sleep(float(getattr(camera, "settle_seconds", 1.0)) + REMEASURE_MARGIN)
        values = camera.lock()
        gains = values.get("ColourGains")
        self._replace(camera=CameraSettings(
            exposure_us=values.get("ExposureTime"), analogue_gain=values.get("AnalogueGain"),
            awb_gains=tuple(gains) if gains else None, lens_position=values.get("LensPosition")))
        return self.summary()

    def map_leds(self, frame: Callable[[], Any], state: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """Light each tray LED in turn and record where the camera sees it."""
        from calibration.profile import LedPosition
        from companion.controller.ledmap import map_leds

        if self.lights is None:
            raise CalibrationError("No LED strip is running: start the table with LEDs to map them.")
        try:
            found = map_leds(self.lights.driver, frame, **kw)
        finally:
            self.lights.update(state)  # the game's lights again
        if len(found) < 2:
            raise CalibrationError("The camera did not see the tray LEDs light up: point it so the "
                                   "LED strip along the tray edge is in the picture, then try again.")
        self._replace(leds=tuple(LedPosition(i, x, y) for i, x, y in found))
        self.lights.leds = self.profile.leds
        return self.summary()

    def _replace(self, **changes: Any) -> None:
        from calibration.profile import save_profile

        with self._lock:
            profile = dataclasses.replace(self._profile, **changes)  # ProfileError is a ValueError
            if self.path is not None:
                save_profile(profile, self.path)
            self._profile = profile
        for listener in self.listeners:
            listener(profile)


def need(frame: Any) -> Any:
    if frame is None:
        raise CalibrationError("No camera picture yet: calibration works on the camera's view.")
    return frame


def frame_size(frame: Any) -> tuple[int, int]:
    return (int(frame.shape[1]), int(frame.shape[0]))


def scaled_polygon(points: Any, frame_size: tuple[int, int]) -> tuple[tuple[float, float], ...]:
    """[[x, y], ...] in 0..1 -> frame pixels; refuses anything that is not 3-12 points inside."""
    if not isinstance(points, Sequence) or not 3 <= len(points) <= 12:
        raise CalibrationError("Frame the tray with 3 to 12 corner points.")
    w, h = frame_size
    out = []
    for pt in points:
        ok = isinstance(pt, Sequence) and len(pt) == 2 and all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1 for v in pt)
        if not ok:
            raise CalibrationError("Each tray corner is [x, y] with both between 0 and 1.")
        out.append((round(float(pt[0]) * w, 1), round(float(pt[1]) * h, 1)))
    if polygon_area(out) < 0.05 * w * h:
        raise CalibrationError("That tray is tiny: tap the tray's corners around the whole tray.")
    return tuple(out)


def polygon_area(points: Sequence[tuple[float, float]]) -> float:
    n = len(points)
    twice = sum(points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
                for i in range(n))
    return abs(twice) / 2
