"""Event die: faces learned from synthetic frames, read from other synthetic frames.

The Event die has no public photos: every frame here is made by vision.synthetic
(perspective, shading, noise, random rotation, light and position).
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.event_die import learn_event
from calibration.profile import ColorModel, Profile, default_profile
from vision.color import body_pixels
from vision.event import event_face
from vision.faces import FaceRead
from vision.synthetic import (
    EVENT_BODY,
    SynthDie,
    procedural_background,
    random_event_frame,
    render_frame,
)

FACES = ("blank", "dragon", "rally")


@pytest.fixture(scope="module")
def learned() -> Profile:
    rng = np.random.default_rng(11)
    frames = {f: [random_event_frame(f, rng, background=procedural_background((360, 480), rng))[0]
                  for _ in range(3)] for f in FACES}
    return Profile(event=learn_event(frames))


def test_reads_faces_at_new_rotations_lighting_and_positions(learned: Profile) -> None:
    rng = np.random.default_rng(12)
    right = wrong_sure = unsure_or_none = 0
    for i in range(60):
        face = FACES[i % 3]
        frame, box = random_event_frame(face, rng, background=procedural_background((360, 480), rng),
                                        others=2)
        got = event_face(frame, box, profile=learned)
        if got is None:
            unsure_or_none += 1
        elif got[0] == face:
            right += 1
        elif got[1] >= 0.9:
            wrong_sure += 1
    print(f"Event die: {right}/60 right, {unsure_or_none} not recognised, {wrong_sure} wrong+sure")
    assert right >= 54 and wrong_sure == 0


def test_none_without_an_event_die_in_the_profile() -> None:
    rng = np.random.default_rng(1)
    frame, box = random_event_frame("dragon", rng, background=procedural_background((240, 320), rng))
    assert event_face(frame, box, profile=default_profile()) is None
    assert event_face(frame, box, profile=None) is None


def test_none_for_dice_of_another_colour(learned: Profile) -> None:
    rng = np.random.default_rng(2)
    bg = procedural_background((240, 320), rng)
    for colour in [(240, 240, 240), (200, 80, 30), (30, 160, 40), (20, 20, 20)]:
        frame, boxes = render_frame([SynthDie(5, (160, 120), 48, 20, colour, (10, 10, 10))],
                                    background=bg, rng=rng)
        assert event_face(frame, boxes[0], profile=learned) is None


def test_does_not_change_the_frame(learned: Profile) -> None:
    rng = np.random.default_rng(3)
    frame, box = random_event_frame("rally", rng, background=procedural_background((240, 320), rng))
    before = frame.copy()
    event_face(frame, box, profile=learned)
    assert np.array_equal(frame, before)


BLACK, GOLD, WHITE = (28, 28, 28), (60, 190, 225), (235, 235, 235)


def _square(die: SynthDie) -> tuple[float, float, float, float]:
    """The die's top face square, as the reader's detector gives it: on rendered tables
    its box is 1.13 face sides wide for a die square to the frame, 1.24 for one turned
    by 45 degrees."""
    turn = np.radians(die.angle)
    side = die.size * 1.13 * (1 + 0.25 * (abs(np.cos(turn)) + abs(np.sin(turn)) - 1))
    return (die.center[0] - side / 2, die.center[1] - side / 2, side, side)


@pytest.fixture(scope="module")
def black_table() -> Profile:
    """A black Event die, and a player whose Soldier dice are black too (white pips); one
    camera, so one die size."""
    rng = np.random.default_rng(5)
    frames: dict[str, list[np.ndarray]] = {}
    for f in FACES:
        for _ in range(2):
            die = SynthDie(f, (float(rng.uniform(80, 400)), float(rng.uniform(80, 280))), 46.0,
                           float(rng.uniform(0, 360)), BLACK, GOLD)
            frames.setdefault(f, []).append(render_frame(
                [die], background=procedural_background((360, 480), rng), rng=rng)[0])
    dice = [SynthDie(v, (80.0 + 70 * (v - 1), 180.0), 46.0, 17.0 * v, BLACK, WHITE)
            for v in range(1, 7)]
    frame, boxes = render_frame(dice, background=procedural_background((360, 480), rng), rng=rng)
    ann = ColorModel.from_pixels(np.vstack([body_pixels(frame, b) for b in boxes]))
    return Profile(event=learn_event(frames), colors={"Ann": ann})


def test_soldier_dice_of_the_event_dies_colour_are_told_by_their_face(black_table: Profile) -> None:
    """Black Soldier dice beside a black Event die: every face 1-6 at any turn (a 2, 3
    or 6 turned a quarter is not the same layout) is no Event die, and the Event die is
    still read right, in new places, turns, light and slant."""
    rng = np.random.default_rng(6)
    taken, right = [], 0
    for k in range(66):
        face = k % 6 + 1 if k < 36 else FACES[k % 3]
        die = SynthDie(face, (float(rng.uniform(60, 420)), float(rng.uniform(60, 300))),
                       float(rng.uniform(42, 50)), float(rng.uniform(0, 360)), BLACK,
                       WHITE if k < 36 else GOLD, tilt=0.07)
        frame, _ = render_frame([die], background=procedural_background((360, 480), rng),
                                rng=rng, light=float(rng.uniform(0.7, 1.2)))
        got = event_face(frame, _square(die), profile=black_table)
        if k < 36 and got is not None:
            taken.append((face, round(die.angle)))
        right += k >= 36 and got is not None and got[0] == face
    assert taken == [] and right >= 28, (taken, right)


def test_a_die_the_classifier_reads_as_pips_is_a_soldier(learned: Profile) -> None:
    rng = np.random.default_rng(4)
    frame, box = random_event_frame("dragon", rng, background=procedural_background((360, 480), rng))
    probs = (0.0,) * 8
    assert event_face(frame, box, profile=learned,
                      read=FaceRead(3, 0.6, probs, True)) is None
    got = event_face(frame, box, profile=learned, read=FaceRead("nopips", 0.6, probs, True))
    assert got is not None and got[0] == "dragon"


def test_an_event_die_the_classifier_took_for_no_die_is_still_read(learned: Profile,
                                                                     monkeypatch) -> None:
    """A blank Event face is a plain square of the die's colour; the face classifier,
    which never saw the real die, can take it for the tray. The reader then still finds
    the calibrated Event die among what the classifier passed over, by its colour and
    face."""
    from vision import read_dice
    from vision.faces import FaceReader

    rng = np.random.default_rng(21)
    frame, (x, y, w, h) = random_event_frame("blank", rng,
                                             background=procedural_background((360, 480), rng))
    real = FaceReader.read_candidates
    probs = (0.0,) * 7 + (1.0,)

    def no_die(self, image, cands):  # every candidate "not a die"
        return [FaceRead("none", 1.0, probs, True) for _ in real(self, image, cands)]
    plain = [d for d in read_dice(frame, profile=learned).dice if d.kind == "event"]
    assert [d.value for d in plain] == ["blank"]
    monkeypatch.setattr(FaceReader, "read_candidates", no_die)
    (die,) = read_dice(frame, profile=learned).dice
    assert (die.kind, die.value) == ("event", "blank")
    assert abs(die.center[0] - (x + w / 2)) < w / 4 and abs(die.center[1] - (y + h / 2)) < h / 4
    assert read_dice(frame, profile=Profile()).dice == ()  # no Event die calibrated: none


def test_the_face_is_set_upright_whatever_its_turn() -> None:
    """face_pose: a die turned any way is measured within a few degrees (a quarter turn
    on is the same square), and its side from the reader's box within a tenth."""
    from vision.event import face_pose

    rng = np.random.default_rng(31)
    bg = procedural_background((240, 320), rng)
    for angle in range(0, 90, 7):
        die = SynthDie("blank", (160.0, 120.0), 48.0, float(angle), BLACK, GOLD, tilt=0.02)
        frame, _ = render_frame([die], background=bg, rng=rng)
        x, y, w, _ = _square(die)
        turn, side = face_pose(frame, x + w / 2, y + w / 2, w)
        off = (turn - angle) % 90
        assert min(off, 90 - off) < 4, (angle, turn)
        assert abs(side / die.size - 1) < 0.1, (angle, side)


def test_a_dragon_or_rally_view_without_its_emblem_is_not_learned() -> None:
    """A Dragon picture whose die shows no emblem (half out of the picture, or lying on
    its side, in a player's calibration) would make every blank face read as a Dragon as
    much as a blank; that view is left out while the Dragon keeps another."""
    rng = np.random.default_rng(32)
    bg = procedural_background((360, 480), rng)
    frames = {f: [random_event_frame(f, rng, background=bg)[0] for _ in range(2)] for f in FACES}
    frames["dragon"].append(random_event_frame("blank", rng, background=bg)[0])  # no emblem
    spoilt = Profile(event=learn_event(frames))
    for _ in range(5):
        frame, box = random_event_frame("blank", rng, background=bg)
        got = event_face(frame, box, profile=spoilt)
        assert got is not None and got[0] == "blank" and got[1] >= 0.5, got


def test_a_picture_whose_ink_belies_its_face_is_not_learned() -> None:
    """Two pictures of a face, one showing what another face shows: a Dragon picture with
    no emblem beside one with it, a blank picture showing a Rally emblem beside a clean
    one. The picture with the wrong ink is left out (each face keeps one), and the die
    is then read right."""
    from vision.event import _inked, _Learned

    assert _inked(np.array([60.0, 0.9, 30.0, 2.0]), ["dragon", "dragon", "blank", "blank"],
                  [0, 1, 2, 3]) == [0, 3]
    assert _inked(np.array([8.0, 3.0, 0.5, 0.2]), ["rally", "rally", "blank", "blank"],
                  [0, 1, 2, 3]) == [0, 1, 2, 3]  # faint emblems and clean blanks all stay
    rng = np.random.default_rng(5)
    bg = procedural_background((360, 480), rng)
    frames = {f: [random_event_frame(f, rng, background=bg)[0]] for f in FACES}
    frames["dragon"].append(random_event_frame("blank", rng, background=bg)[0])  # no emblem
    frames["blank"].append(random_event_frame("rally", rng, background=bg)[0])  # an emblem
    spoilt = Profile(event=learn_event(frames))
    names = [t.face for t in spoilt.event.templates]
    assert sorted(names) == ["blank", "blank", "dragon", "dragon", "rally"]
    assert sorted(_Learned(spoilt.event).names) == ["blank", "dragon", "rally"]
    for face in FACES:
        for _ in range(3):
            frame, box = random_event_frame(face, rng, background=bg)
            got = event_face(frame, box, profile=spoilt)
            assert got is not None and got[0] == face, (face, got)


def test_a_die_read_as_a_pip_face_of_no_players_colour_is_still_the_event_die(
        learned: Profile) -> None:
    """An Event emblem can pass for a 1 to the face classifier (rendered tables: 13 of 120
    Event dice). When the players' colours are known and the die has none of them, its
    face decides whatever pip face it was read as; when a player's dice share its colour,
    a die read as a 1 is still matched (a real 1 fits the pip layout better), a die read
    as another pip face stays a Soldier die."""
    rng = np.random.default_rng(33)
    bg = procedural_background((360, 480), rng)
    frame, box = random_event_frame("dragon", rng, background=bg)
    probs = (0.8,) + (0.0,) * 7

    def read_as(face: int) -> FaceRead:
        return FaceRead(face, 0.8, probs, True)
    green = ColorModel.from_pixels(np.tile([[140.0, 80.0, 170.0]], (50, 1)))  # Lab, far from the die
    players = replace(learned, colors={"Ann": green})
    for face in (1, 3):
        got = event_face(frame, box, profile=players, read=read_as(face))
        assert got is not None and got[0] == "dragon", face
    own = replace(learned, colors={"Ann": learned.event.body})  # Ann's dice: the Event die's colour
    got = event_face(frame, box, profile=own, read=read_as(1))
    assert got is not None and got[0] == "dragon"
    assert event_face(frame, box, profile=own, read=read_as(3)) is None
    for angle in (0.0, 30.0, 60.0):  # Ann's 1, read as a 1: a Soldier die
        one = SynthDie(1, (240.0, 180.0), 48.0, angle, EVENT_BODY, (235, 235, 235))
        frame, boxes = render_frame([one], background=bg, rng=rng)
        assert event_face(frame, boxes[0], profile=own, read=read_as(1)) is None, angle


def test_an_unsure_pip_read_leaves_it_to_the_face(learned: Profile) -> None:
    """The classifier's pip face rules the Event die out only when read more surely than
    PIP_VETO: the Event die it reads as a 4, 5 or 6 at 0.2-0.3 (rendered tables: a white
    Event die on black felt, beside white Soldier dice, so read in 12 of 20 rolls) is
    still matched, its face beating the pip layouts by PIP_MARGIN; a Soldier die of the
    Event die's colour read as unsurely is still no Event die, its pips fitting better."""
    from vision.event import PIP_VETO

    rng = np.random.default_rng(34)
    bg = procedural_background((360, 480), rng)
    own = replace(learned, colors={"Ann": learned.event.body})  # Ann's dice: the Event die's colour

    def read_as(face: int, confidence: float) -> FaceRead:
        return FaceRead(face, confidence, (confidence,) + (0.0,) * 7, confidence > 0.5)
    for face in FACES:
        frame, box = random_event_frame(face, rng, background=bg)
        assert event_face(frame, box, profile=own, read=read_as(3, PIP_VETO + 0.1)) is None
        got = event_face(frame, box, profile=own, read=read_as(3, PIP_VETO - 0.2))
        assert got is not None and got[0] == face, (face, got)
    for pips in (2, 3, 5, 6):
        die = SynthDie(pips, (240.0, 180.0), 48.0, 20.0, EVENT_BODY, (235, 235, 235))
        frame, boxes = render_frame([die], background=bg, rng=rng)
        assert event_face(frame, boxes[0], profile=own, read=read_as(pips, 0.3)) is None, pips


def _event_and_soldier(learned: Profile, seed: int) -> tuple[np.ndarray, list]:
    """A frame with the Event die showing its Dragon and a Soldier die of the Event die's
    colour showing 6, and their top face squares."""
    rng = np.random.default_rng(seed)
    dice = [SynthDie("dragon", (120.0, 120.0), 48.0, 20.0, EVENT_BODY, GOLD),
            SynthDie(6, (300.0, 200.0), 48.0, 35.0, EVENT_BODY, WHITE)]
    frame, _ = render_frame(dice, background=procedural_background((360, 480), rng), rng=rng)
    return frame, [tuple(round(v) for v in _square(d)) for d in dice]


def _read(probs: tuple[float, ...]) -> FaceRead:
    k = int(np.argmax(probs))
    return FaceRead(k + 1 if k < 6 else "nopips", max(probs), probs, True)


AS_1 = _read((0.97, 0.0, 0.0, 0.0, 0.0, 0.0, 0.03, 0.0))  # an emblem can pass for a lone pip
NO_PIPS = _read((0.0, 0.1, 0.0, 0.0, 0.0, 0.05, 0.85, 0.0))


def test_a_roll_holds_one_event_die(learned: Profile) -> None:
    """Two dice read as the Event die: the one read with a face and likelier the Event
    die by its learned faces and colour stays it, even when the classifier takes its
    emblem for a 1 and the other for a face without pips (a Soldier die whose face a lamp
    turned white); the other is the Soldier die the classifier read (its likeliest pip
    face, as unsure as that face's probability)."""
    from vision.reader import one_event_die
    from vision.types import Die

    frame, (dragon, six) = _event_and_soldier(learned, 40)
    dice = [Die("event", "blank", (300.0, 200.0), six, 0.9, color="red"),
            Die("event", "dragon", (120.0, 120.0), dragon, 0.7),
            Die("soldier", 4, (400.0, 60.0), (380, 40, 40, 40), 0.9)]
    out = one_event_die(frame, dice, [NO_PIPS, AS_1, _read((0, 0, 0, 1.0, 0, 0, 0, 0))], learned)
    assert [(d.kind, d.value) for d in out] == [("soldier", 2), ("event", "dragon"), ("soldier", 4)]
    assert out[0].confidence == 0.1 and out[0].color == "red" and out[0].choices[0] == 2
    unread = [Die("event", None, (120.0, 120.0), dragon, 0.0), Die("event", "rally", (300.0, 200.0), six, 0.2)]
    out = one_event_die(frame, unread, [AS_1, NO_PIPS], learned)
    assert [(d.kind, d.value) for d in out] == [("soldier", 1), ("event", "rally")]
    assert one_event_die(frame, dice[1:], [AS_1, NO_PIPS], learned) == dice[1:]


def test_a_die_without_pips_of_a_players_colour_is_a_soldier_die(black_table: Profile) -> None:
    """The classifier can read a Soldier die as a face without pips (a cocked die, a
    glint). With the Event die calibrated, such a die of a player's colour and not the
    Event die's is a Soldier die the players are asked about, not the Event die."""
    from vision.reader import _soldier_or_event

    rng = np.random.default_rng(34)
    green = (40, 150, 40)
    die = SynthDie(3, (160.0, 120.0), 46.0, 20.0, green, WHITE)
    frame, _ = render_frame([die], background=procedural_background((240, 320), rng), rng=rng)
    box = tuple(round(v) for v in _square(die))
    ben = ColorModel.from_pixels(body_pixels(frame, box))
    table = replace(black_table, colors={**black_table.colors, "Ben": ben})
    no_pips = FaceRead("nopips", 0.6, (0.05, 0.02, 0.3, 0.0, 0.0, 0.03, 0.6, 0.0), True)
    got = _soldier_or_event(frame, no_pips, (160.0, 120.0), box, table)
    assert (got.kind, got.value, got.confidence) == ("soldier", 3, 0.3) and got.choices[0] == 3
    # Without the players' colours the reader cannot tell: the Event die, its face unknown.
    got = _soldier_or_event(frame, no_pips, (160.0, 120.0), box, replace(table, colors={}))
    assert (got.kind, got.value) == ("event", None)


def test_an_event_die_passed_over_takes_the_place_of_a_soldier_die_taken_for_it(
        learned: Profile) -> None:
    """When a Soldier die of the Event die's colour was read as the Event die and the real
    one, dropped by the classifier, is likelier it, the dropped one is the Event die and
    the other the Soldier die the classifier read; a less likely one changes nothing."""
    from vision.reader import _with_passed_over_event_die
    from vision.types import Die

    frame, (dragon, six) = _event_and_soldier(learned, 41)
    as_6 = FaceRead(6, 0.5, (0.0,) * 5 + (0.5, 0.4, 0.1), True)
    two = Die("soldier", 2, (400.0, 60.0), (380, 40, 40, 40), 0.9)
    taken = Die("event", "blank", (300.0, 200.0), six, 0.9, color="red")
    reads = [_read((0.0, 0.9) + (0.0,) * 6), as_6]
    real = Die("event", "dragon", (120.0, 120.0), dragon, 0.5)
    got, sides = _with_passed_over_event_die(frame, [two, taken], reads, [10.0, 10.0],
                                             (real, 11.0), learned)
    assert [(d.kind, d.value) for d in got] == [("soldier", 2), ("soldier", 6), ("event", "dragon")]
    assert got[1].color == "red" and got[1].confidence == 0.5 and sides == [10.0, 10.0, 11.0]
    read_right = [two, replace(real, confidence=0.3)]  # the real one read: the other is no likelier
    passed = replace(taken, value="rally", confidence=0.95)
    assert _with_passed_over_event_die(frame, read_right, reads, [10.0, 10.0], (passed, 11.0),
                                       learned)[0] == read_right
    alone = _with_passed_over_event_die(frame, [two], reads[:1], [10.0], (real, 11.0), learned)[0]
    assert [(d.kind, d.value) for d in alone] == [("soldier", 2), ("event", "dragon")]


def _weakly_detected(monkeypatch, center: tuple[float, float], side: float,
                     score: float = 0.3) -> None:
    """The detector finds one die, at `center`, with a score under its threshold, and the
    classifier takes every candidate for no die (as it does a blank Event face)."""
    from vision.detect import Candidate, DieDetector
    from vision.faces import FaceReader

    def detect(self, frame, *, scale=None, region=None, threshold=None):
        least = self.threshold if threshold is None else threshold
        return [Candidate(center, side, score)] if score >= least else []

    def no_die(self, image, cands):
        return [FaceRead("none", 1.0, (0.0,) * 7 + (1.0,), True) for _ in cands]
    monkeypatch.setattr(DieDetector, "detect", detect)
    monkeypatch.setattr(FaceReader, "read_candidates", no_die)


def _blank_event_die(center: tuple[float, float], *, felt: tuple[int, int, int] | None = None
                     ) -> np.ndarray:
    rng = np.random.default_rng(31)
    background = (procedural_background((360, 480), rng) if felt is None
                  else np.full((360, 480, 3), felt, np.uint8))
    die = SynthDie("blank", center, 48.0, 20.0, EVENT_BODY, (90, 200, 230))
    return render_frame([die], background=background, rng=rng)[0]


def test_an_event_die_the_detector_is_unsure_of_is_found_on_a_second_look(
        learned: Profile, monkeypatch) -> None:
    """A blank Event face is a plain square, which the detector often scores just under
    its threshold. A calibrated frame with no Event die read looks again among the weak
    peaks: the die is found and read, surely. Uncalibrated, or with only a peak under
    SECOND_LOOK, there is nothing to find."""
    from vision import read_dice
    from vision.reader import SECOND_LOOK

    frame = _blank_event_die((240.0, 180.0))
    _weakly_detected(monkeypatch, (240.0, 180.0), 54.0)
    (die,) = read_dice(frame, profile=learned).dice
    assert (die.kind, die.value) == ("event", "blank") and die.confidence >= 0.8
    assert read_dice(frame, profile=Profile()).dice == ()
    _weakly_detected(monkeypatch, (240.0, 180.0), 54.0, score=SECOND_LOOK / 2)
    assert read_dice(frame, profile=learned).dice == ()


def test_the_second_look_asks_about_a_face_by_the_frame_edge_and_leaves_one_cut_off(
        learned: Profile, monkeypatch) -> None:
    """An Event die by the frame's edge may have its emblem beyond it (rendered tables: a
    Dragon cut off at the top read as blank at 0.93): found on the second look, it is
    asked about. One whose face the frame cuts off is not taken at all."""
    from vision import read_dice
    from vision.faces import DISAGREE_CAP

    _weakly_detected(monkeypatch, (45.0, 180.0), 54.0)
    (die,) = read_dice(_blank_event_die((45.0, 180.0)), profile=learned).dice
    assert (die.kind, die.value) == ("event", "blank") and die.confidence <= DISAGREE_CAP
    _weakly_detected(monkeypatch, (18.0, 180.0), 54.0)
    assert read_dice(_blank_event_die((18.0, 180.0)), profile=learned).dice == ()


def test_a_plain_patch_that_does_not_stand_out_is_not_the_event_die(
        learned: Profile, monkeypatch) -> None:
    """A weak peak on a patch of felt as plain and as dark as the Event die (a shadow
    under the tray's wall) matches its blank face; it is no die, as nothing sets it
    apart from what lies round it."""
    from vision import read_dice

    _weakly_detected(monkeypatch, (240.0, 180.0), 54.0)
    assert read_dice(_blank_event_die((240.0, 180.0), felt=EVENT_BODY), profile=learned).dice == ()


def test_a_face_match_score_of_played_score_is_as_sure_as_the_table_plays():
    """The match score (margin times fit) is no probability: PLAYED_SCORE, below which
    faces were read wrong too often on the rendered tables to be played, maps to the
    table's PLAY_CONFIDENCE, and the map keeps the order of the scores."""
    from vision.event import PLAYED_SCORE, event_confidence
    from vision.types import PLAY_CONFIDENCE

    assert event_confidence(PLAYED_SCORE) == pytest.approx(PLAY_CONFIDENCE)
    assert event_confidence(0.0) == 0.0 and event_confidence(1.0) == 1.0
    assert event_confidence(-0.5) == 0.0 and event_confidence(1.5) == 1.0
    mapped = np.array([event_confidence(s) for s in np.linspace(0, 1, 41)])
    assert (np.diff(mapped) > 0).all()
    assert event_confidence(0.7) < PLAY_CONFIDENCE <= event_confidence(0.81)


def test_a_die_is_matched_once_a_frame_and_afresh_in_the_next(learned: Profile,
                                                                monkeypatch) -> None:
    """Inside one_frame (read_dice), event_likeness after event_face of the same die does
    not match it again, and gives what it gives without the memo; a new frame, even in
    the same array, and any call outside the scope are matched afresh."""
    from vision import event
    from vision.event import event_likeness, one_frame

    frame, (dragon, six) = _event_and_soldier(learned, 41)
    plain = [event_face(frame, dragon, profile=learned),
             event_likeness(frame, dragon, profile=learned)]
    runs = []
    real = event.query_views
    monkeypatch.setattr(event, "query_views", lambda *a, **k: runs.append(1) or real(*a, **k))
    with one_frame(frame):
        memo = [event_face(frame, dragon, profile=learned),
                event_likeness(frame, dragon, profile=learned)]
        assert len(runs) == 1
        event_likeness(frame, six, profile=learned)  # another die: matched
        assert len(runs) == 2
        event_likeness(frame.copy(), dragon, profile=learned)  # another frame: matched
        assert len(runs) == 3
    assert memo == plain
    event_likeness(frame, dragon, profile=learned)  # outside: matched
    assert len(runs) == 4
    with one_frame(frame):  # the same array holding the next picture: matched afresh
        frame[:] = np.roll(frame, 40, axis=1)
        event_likeness(frame, dragon, profile=learned)
    assert len(runs) == 5


def test_every_shifted_window_of_every_size_is_compared() -> None:
    """query_views: for each size tried, the 25 windows of the face's ink map shifted up
    to two pixels each way, rows then columns, weighted by the disc; the face's turn from
    each pixel's strongest Lab channel (the first of equals), as an argmax picks it."""
    import math

    from vision import event as ev

    rng = np.random.default_rng(5)
    frame = procedural_background((200, 260), rng)
    cx, cy, extent = 131.3, 97.6, 44.0
    body = np.array([60.0, 140.0, 120.0])
    rows = ev.query_views(frame, [(cx, cy, extent)], body)
    angle, side = ev.face_pose(frame, cx, cy, extent)
    o = (ev.SIZE - ev.WIN) // 2
    lo, hi = o + ev.SHIFTS[0], o + ev.SHIFTS[-1] + ev.WIN
    expected, tinted = [], []
    for s in ev.SCALES:
        square = ev._cut(frame, cx, cy, ev.CUT * side * s, ev.SIZE, angle)
        part = ev._ink(square, ev.FACE / s, body)[lo:hi, lo:hi]
        windows = np.lib.stride_tricks.sliding_window_view(part, (ev.WIN, ev.WIN))
        expected.append((windows * ev.SQRT_W).reshape(-1, ev.WIN * ev.WIN))
        part = ev._ink(square, ev.FACE / s, body, colour=True)[lo:hi, lo:hi]
        windows = np.lib.stride_tricks.sliding_window_view(part, (ev.WIN, ev.WIN), axis=(0, 1))
        windows = windows.transpose(0, 1, 3, 4, 2) * ev.SQRT_W[..., None]  # (dy, dx, WIN, WIN, 3)
        tinted.append(windows.reshape(-1, ev.WIN * ev.WIN * 3))
    assert rows.shape == (len(ev.SCALES) * len(ev.SHIFTS) ** 2, ev.WIN * ev.WIN)
    np.testing.assert_array_equal(rows, np.concatenate(expected))
    # The colour maps' windows (the learned comparison's input), in the same order.
    same, colours = ev.query_views(frame, [(cx, cy, extent)], body, colour=True)
    np.testing.assert_array_equal(same, rows)
    np.testing.assert_array_equal(colours, np.concatenate(tinted))

    # The turn, worked out with an argmax over the channels.
    n = 48
    lab = cv2.cvtColor(ev._cut(frame, cx, cy, ev.POSE_CUT * extent, n), cv2.COLOR_BGR2LAB)
    gx = cv2.Sobel(lab.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3)[ev._round_window(n)]
    gy = cv2.Sobel(lab.astype(np.float32), cv2.CV_32F, 0, 1, ksize=3)[ev._round_window(n)]
    m2 = gx * gx + gy * gy
    k = m2.argmax(axis=1)
    i = np.arange(len(k))
    gx, gy, m2 = gx[i, k], gy[i, k], np.maximum(m2[i, k], 1e-6)
    c2, s2 = gx * gx - gy * gy, 2 * gx * gy
    w = m2 ** -1.5
    want = math.degrees(math.atan2(float((2 * c2 * s2 * w).sum()),
                                   float(((c2 * c2 - s2 * s2) * w).sum())) / 4)
    assert abs(angle - want) < 1e-3
