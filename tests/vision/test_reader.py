"""read_dice on the bundled real photos, on frames with no dice, and with a profile."""
from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.profile import default_profile
from vision import FrameError, Reading, read_dice, reader
from vision.detect import DET_SIDE, Candidate, DieDetector
from vision.evaluate import Tally, close_up, score
from vision.faces import FaceRead
from vision.reader import (
    LARGE,
    VGA_SMALL,
    VGA_SURER,
    detection_view,
    even_light,
    loses_dice,
    read_at_the_right_scale,
    reads_better,
    touching_warnings,
    unreadable_warnings,
    zoom_in_on_small_dice,
    zoom_out_on_large_dice,
)
from vision.types import Die

# The bundled photos are validation photos the shipped model never saw. Floors sit under
# what it measures on them (README "Dice reader"), so a broken model, crop or decoding
# fails here while an equally good retrained model passes.
MIN_CORRECT = {"byler-2019-12-08": 0.9, "matteop65-train": 0.9}
MAX_FALSE = 0.06
# Dice read wrong with confidence >= 0.9. Byler's bundled photos hold a translucent red 3
# that the pair shipped before read as a 2 at 0.86 and the twentieth session's fine-tuned
# pair reads so at 0.92; that pair is surely wrong less often on every held-out set
# (vision/training/README.md). matteop65's bundled photos hold a 4 smeared by motion into
# two long strokes, which the thirty-fourth session's pair reads as a 6 at 0.90; that pair
# is surely wrong no more often on any held-out set, and plays more of their rolls right.
# One such die is allowed in each.
MAX_SURE_WRONG = {"byler-2019-12-08": 1, "matteop65-train": 1}


@pytest.fixture(scope="module")
def tallies(samples) -> dict[str, Tally]:
    out = {}
    for name, photos in samples.items():
        total = Tally()
        for _, image, labels in photos:
            total.add(score(read_dice(image).dice, labels))
        out[name] = total
    return out


def test_samples_cover_both_sets(samples):
    assert set(samples) == {"byler-2019-12-08", "matteop65-train"}
    assert 24 <= sum(len(v) for v in samples.values()) <= 30


@pytest.mark.parametrize("name", ["byler-2019-12-08", "matteop65-train"])
def test_accuracy_floor_on_bundled_photos(tallies, name):
    t = tallies[name]
    assert t.correct >= MIN_CORRECT[name] * t.labelled, t
    assert t.false <= MAX_FALSE * t.labelled, t
    assert t.wrong_confident <= MAX_SURE_WRONG[name], t


def test_every_soldier_die_offers_its_read_face_first(samples):
    from vision.faces import CHOICES

    offered = 0
    for photos in samples.values():
        for _, image, _ in photos:
            for d in read_dice(image).dice:
                if d.kind == "soldier":
                    assert d.choices[0] == d.value and len(d.choices) <= CHOICES, d
                    assert set(d.choices) <= {1, 2, 3, 4, 5, 6} and len(set(d.choices)) == len(d.choices)
                    offered += len(d.choices) > 1
    assert offered  # some dice of the bundled photos have runners-up


def test_frame_is_not_modified(samples):
    image = samples["byler-2019-12-08"][0][1]
    before = image.copy()
    read_dice(image)
    assert np.array_equal(image, before)


@pytest.mark.parametrize("make", [
    lambda: np.zeros((480, 640, 3), np.uint8),
    lambda: np.full((480, 640, 3), 255, np.uint8),
    lambda: np.full((480, 640, 3), (90, 140, 180), np.uint8),
    lambda: np.random.default_rng(1).integers(0, 256, (480, 640, 3)).astype(np.uint8),
    lambda: cv2.GaussianBlur(np.random.default_rng(2).integers(0, 256, (480, 640, 3))
                             .astype(np.uint8), (0, 0), 4),
])
def test_no_confident_dice_on_empty_or_garbage_frames(make):
    reading = read_dice(make())
    assert isinstance(reading, Reading)
    assert all(d.confidence < 0.9 for d in reading.dice)
    assert len(reading.dice) <= 1


def test_grey_and_bgra_frames_are_accepted(samples):
    image = samples["matteop65-train"][0][1]
    grey = read_dice(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    bgra = read_dice(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA))
    assert len(bgra.dice) == len(read_dice(image).dice)
    assert isinstance(grey, Reading)


@pytest.mark.parametrize("bad", [None, "frame.jpg", np.zeros((10, 10, 3), np.uint8),
                                 np.zeros((100, 100, 3), np.float32),
                                 np.zeros((100, 100, 2), np.uint8)])
def test_bad_frames_raise_a_clear_value_error(bad):
    with pytest.raises(FrameError) as e:
        read_dice(bad)
    assert isinstance(e.value, ValueError) and "frame" in str(e.value)


def _values(reading):
    return sorted((d.value for d in reading.dice), key=str)


@pytest.mark.parametrize("rotation,code", [(90, cv2.ROTATE_90_COUNTERCLOCKWISE),
                                           (180, cv2.ROTATE_180),
                                           (270, cv2.ROTATE_90_CLOCKWISE)])
def test_profile_rotation_turns_the_frame_upright(samples, rotation, code):
    """A camera mounted turned: the profile's rotation undoes it; coordinates stay raw."""
    _, image, _ = samples["matteop65-train"][3]
    upright = read_dice(image)
    raw = cv2.rotate(image, code)
    turned = read_dice(raw, profile=dataclasses.replace(default_profile(), rotation=rotation))
    assert _values(turned) == _values(upright)
    back = cv2.rotate(np.zeros_like(image), code)
    for d in turned.dice:
        x, y = d.center
        assert 0 <= x < back.shape[1] and 0 <= y < back.shape[0]
        bx, by, bw, bh = d.box
        assert bx <= x <= bx + bw and by <= y <= by + bh


def test_dice_outside_the_tray_are_ignored(samples):
    """Dice further out of the tray than TRAY_MARGIN of their side are not read; those
    nearer, as a die against the wall whose top face lies past the floor, are."""
    from vision.reader import TRAY_MARGIN

    _, image, _ = samples["byler-2019-12-08"][1]
    everything = read_dice(image)
    xs = sorted(d.center[0] for d in everything.dice)
    assert len(xs) >= 2
    cut = (xs[0] + xs[-1]) / 2
    tray = ((0.0, 0.0), (cut, 0.0), (cut, 640.0), (0.0, 640.0))
    left = read_dice(image, profile=dataclasses.replace(default_profile(), tray=tray))

    def near(d):
        return d.center[0] - cut <= TRAY_MARGIN * max(d.box[2], d.box[3])
    assert left.dice and all(near(d) for d in left.dice)
    assert len(left.dice) == sum(1 for d in everything.dice if near(d))
    assert len(left.dice) < len(everything.dice)


def test_a_die_against_the_tray_wall_is_in_the_tray_unless_the_picture_cuts_it():
    from vision.reader import in_the_tray

    profile = dataclasses.replace(default_profile(),
                                  tray=((100.0, 20.0), (300.0, 20.0), (300.0, 220.0), (100.0, 220.0)))
    shape = (240, 330, 3)
    assert in_the_tray(profile, (200.0, 100.0), (180, 80, 40, 40), shape)  # on the floor
    assert in_the_tray(profile, (320.0, 100.0), (300, 80, 28, 40), shape)  # half a side out
    assert not in_the_tray(profile, (345.0, 100.0), (325, 80, 40, 40), shape)  # over a side out
    assert not in_the_tray(profile, (318.0, 100.0), (298, 80, 40, 40), shape)  # cut by the edge
    assert in_the_tray(default_profile(), (500.0, 500.0), (480, 480, 40, 40), shape)  # no tray


def test_share_out_measures_how_far_a_box_reaches_past_the_frame():
    from vision.reader import share_out

    shape = (480, 640, 3)
    assert share_out((100, 100, 40, 40), shape) == 0.0
    assert share_out((620, 100, 40, 40), shape) == pytest.approx(0.5)  # right edge
    assert share_out((-10, 100, 40, 40), shape) == pytest.approx(0.25)  # left edge
    assert share_out((100, 470, 40, 40), shape) == pytest.approx(0.75)  # bottom, the furthest
    assert share_out((0, 0, 0, 0), shape) == 0.0


def test_face_out_grows_a_box_at_the_edge_to_the_dice_side():
    """A die cut through has a box shrunk to what is left of it: where the box touches
    the edge, its face is taken as wide as the frame's dice, from the box's inner edge."""
    from vision.reader import face_out, typical_side

    shape = (480, 640, 3)
    assert face_out((100, 100, 40, 40), shape, 40.0) == 0.0  # whole, away from the edges
    assert face_out((620, 100, 40, 40), shape, 0.0) == pytest.approx(0.5)  # its own side
    assert face_out((620, 100, 20, 20), shape, 40.0) == pytest.approx(0.5)  # half left
    assert face_out((0, 100, 30, 30), shape, 40.0) == pytest.approx(0.25)  # left edge
    assert face_out((300, 463.5, 16, 16), shape, 40.0) == pytest.approx(23.5 / 40)  # near it
    assert face_out((300, 462, 16, 16), shape, 40.0) == 0.0  # 2 px from it: not cut
    assert face_out((600, 100, 40, 40), shape, 20.0) == 0.0  # touches, as big as it is
    dice = [_die(x, 0.9) for x in (100, 200, 300)]
    assert typical_side(dice) == 40.0 and typical_side(dice[:2]) == 0.0


def test_a_die_the_picture_cuts_through_its_face_is_asked_about(samples, monkeypatch):
    """A die whose face reaches CUT_FACE of its side past the frame's edge may have pips
    beyond it: byler's 4 cut nearly in half at the right edge reads as a 2, surely. Capped
    at DISAGREE_CAP, the table asks; the other dice read as before."""
    from vision.faces import DISAGREE_CAP
    from vision.reader import CUT_FACE, face_out, typical_side

    _, image, _ = samples["byler-2019-12-08"][0]
    cut = np.ascontiguousarray(image[:, :333])
    monkeypatch.setattr(reader, "CUT_FACE", 9.0)
    uncapped = read_dice(cut).dice
    monkeypatch.setattr(reader, "CUT_FACE", CUT_FACE)
    capped = read_dice(cut).dice
    assert [d.box for d in capped] == [d.box for d in uncapped]
    typical = typical_side(uncapped)
    cut_dice = [i for i, d in enumerate(capped) if face_out(d.box, cut.shape, typical) >= CUT_FACE]
    assert cut_dice and max(uncapped[i].confidence for i in cut_dice) >= 0.9
    for i, (a, b) in enumerate(zip(uncapped, capped)):
        if i in cut_dice:
            assert b.confidence <= DISAGREE_CAP and b.value == a.value
        else:
            assert b == a


def _die(x, conf):
    return Die("soldier", 3, (x, 100.0), (x - 20, 80, 40, 40), conf)


def _edge_frame(gap_colour):
    """A grey-felt frame with a red die face square at (596, 210, 34, 34), 10 px from
    the right edge, the gap between them painted `gap_colour` (BGR)."""
    frame = np.full((480, 640, 3), (90, 110, 100), np.uint8)
    frame[210:244, 596:630] = (40, 40, 200)
    frame[216:238, 630:640] = gap_colour
    frame[222:232, 608:618] = (235, 235, 235)  # a pip
    return frame


def test_a_die_running_on_past_the_frames_edge_is_seen_so():
    """Near the edge a camera over the tray sees a die's side face beside its top, on
    the side towards the middle; when the body colour fills the gap to the edge, the
    top lies beyond it, and what was read may be the side."""
    from vision.reader import RUN_OFF_GAP, runs_off_the_frame

    box = (596, 210, 34, 34)
    assert runs_off_the_frame(_edge_frame((40, 40, 200)), box)  # red runs on to the edge
    assert not runs_off_the_frame(_edge_frame((90, 110, 100)), box)  # felt: the die ends
    # the same die further in, with felt beyond it, or an edge further than RUN_OFF_GAP
    assert not runs_off_the_frame(_edge_frame((40, 40, 200)), (300, 210, 34, 34))
    far = np.full((480, 640, 3), (90, 110, 100), np.uint8)
    far[210:244, 596 - 20:630 - 20] = (40, 40, 200)
    far[210:244, 610:640] = (40, 40, 200)
    assert 20 > RUN_OFF_GAP * 34 and not runs_off_the_frame(far, (576, 210, 34, 34))


def test_a_calibrated_die_running_off_the_frame_is_asked_about(monkeypatch):
    """Read surely, such a die is capped at DISAGREE_CAP (the table asks); an unsure one
    and the others are left as they are; an uncalibrated frame is never checked (the
    rune55 photos' dark corners and grey felt read as dice running on)."""
    from vision.faces import DISAGREE_CAP
    from vision.reader import asked_when_running_off

    frame = _edge_frame((40, 40, 200))
    edge = Die("event", "dragon", (613.0, 227.0), (596, 210, 34, 34), 0.82)
    inner = Die("soldier", 4, (317.0, 227.0), (300, 210, 34, 34), 0.99)
    unsure = dataclasses.replace(edge, confidence=0.3)
    assert asked_when_running_off(frame, [edge, inner, unsure]) == [
        dataclasses.replace(edge, confidence=DISAGREE_CAP), inner, unsure]
    checked = []
    monkeypatch.setattr(reader, "asked_when_running_off",
                        lambda raw, dice: checked.append(len(dice)) or dice)
    read_dice(frame)
    assert checked == []
    read_dice(frame, profile=dataclasses.replace(default_profile(), die_side=34.0))
    assert len(checked) == 1


def test_touching_dice_warn_only_when_a_read_is_unsure():
    assert touching_warnings([_die(100, 0.99), _die(130, 0.95)], [40.0, 40.0]) == []
    (w,) = touching_warnings([_die(100, 0.99), _die(130, 0.6)], [40.0, 40.0])
    assert w.code == "touching" and "apart" in w.message and w.box == (80, 80, 70, 40)
    assert touching_warnings([_die(100, 0.3), _die(160, 0.3)], [40.0, 40.0]) == []


def test_unsure_die_gets_a_warning():
    (w,) = unreadable_warnings([_die(100, 0.2), _die(300, 0.97)])
    assert w.code == "cocked" and w.box == (80, 80, 40, 40)


def _far_camera(image, labels, factor=2):
    """The photo in the middle of a frame `factor` times wider and taller (plain table
    round it): the same dice, seen by a camera with a wider view."""
    h, w = image.shape[:2]
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    top, left = (factor - 1) * h // 2, (factor - 1) * w // 2
    big = cv2.copyMakeBorder(image, top, (factor - 1) * h - top, left, (factor - 1) * w - left,
                             cv2.BORDER_CONSTANT, value=[int(v) for v in np.median(edge, 0)])
    moved = [dict(lab, bbox=[lab["bbox"][0] + left, lab["bbox"][1] + top, *lab["bbox"][2:]])
             for lab in labels]
    tray = ((left, top), (left + w, top), (left + w, top + h), (left, top + h))
    return big, moved, tuple((float(x), float(y)) for x, y in tray)


@pytest.mark.parametrize("rotation,code", [(0, None), (90, cv2.ROTATE_90_COUNTERCLOCKWISE)])
def test_wide_view_is_read_with_or_without_calibration(samples, rotation, code, monkeypatch):
    """Dice half as wide in the detector's input as it was trained on. Uncalibrated, the
    reader looks again closer (the dice it found are small); with the die size and tray a
    calibration measures, it looks there at once. Either way the frame is read about as
    well as the photo alone (also with the camera mounted turned)."""
    closer: list[bool] = []
    real = reader.zoom_in_on_small_dice

    def spy(*args, **kwargs):
        found = real(*args, **kwargs)
        closer.append(found is not None)
        return found
    monkeypatch.setattr(reader, "zoom_in_on_small_dice", spy)
    plain, calibrated, alone = Tally(), Tally(), Tally()
    for _, image, labels in samples["byler-2019-12-08"][:4]:
        own = read_dice(image)
        alone.add(score(own.dice, labels))
        big, moved, tray = _far_camera(image, labels)
        side = float(np.median([max(d.box[2:]) for d in own.dice]))
        profile = dataclasses.replace(default_profile(), tray=tray, die_side=side)
        if code is not None:
            big = cv2.rotate(big, code)
            h = big.shape[0]  # the labels and tray in the turned frame's pixels
            moved = [dict(lab, bbox=[lab["bbox"][1], h - lab["bbox"][0] - lab["bbox"][2],
                                     lab["bbox"][3], lab["bbox"][2]]) for lab in moved]
            tray = tuple((y, h - 1 - x) for x, y in tray)
            profile = dataclasses.replace(profile, tray=tray, rotation=rotation)
        closer.clear()
        plain.add(score(read_dice(big, profile=dataclasses.replace(profile, die_side=None)).dice,
                        moved))
        assert closer == [True], "the uncalibrated reader did not look closer"
        calibrated.add(score(read_dice(big, profile=profile).dice, moved))
    assert plain.correct >= alone.correct - 3, (plain, alone)
    assert plain.false <= alone.false + 2, (plain, alone)
    assert calibrated.correct >= alone.correct - 2, (calibrated, alone)
    assert calibrated.false <= alone.false + 1, (calibrated, alone)


def test_detection_view_follows_the_tray_through_the_rotation():
    profile = dataclasses.replace(default_profile(), rotation=90, die_side=40.0,
                                  tray=((100.0, 50.0), (300.0, 50.0), (300.0, 150.0)))
    scale, region = detection_view(profile, 90, (480, 640, 3))
    assert scale == pytest.approx(DET_SIDE / 40)
    # raw (x, y) -> upright (479 - y, x); grown by one die side
    assert region == (479 - 150 - 40, 100 - 40, 479 - 50 + 40, 300 + 40)
    assert detection_view(default_profile(), 0, (480, 640, 3)) == (None, None)


class _CountingDetector:
    """Records the scales it is asked to look at; finds `n` dice of `side` px."""

    def __init__(self, n: int, side: float) -> None:
        self.n, self.side, self.scales = n, side, []

    def detect(self, frame, *, scale=None, region=None):
        self.scales.append(scale)
        return [Candidate((10.0 * i, 10.0), self.side, 0.9) for i in range(self.n)]


def test_uncalibrated_small_dice_are_looked_for_closer():
    wide, vga = np.zeros((720, 1280, 3), np.uint8), np.zeros((480, 640, 3), np.uint8)
    small = [Candidate((5.0, 5.0), 40.0, 0.8)]  # 10 px in the detector's 320 px input
    det = _CountingDetector(3, 40.0)
    assert len(zoom_in_on_small_dice(det, wide, small, None)) == 3  # the closer look
    assert det.scales == [0.5]
    det = _CountingDetector(2, 80.0)
    assert len(zoom_in_on_small_dice(det, wide, [], (0, 0, 640, 480))) == 2  # none found
    det = _CountingDetector(3, 40.0)
    big = [Candidate((5.0, 5.0), 100.0, 0.8)]  # 25 px: the detector's size
    assert zoom_in_on_small_dice(det, wide, big, None) is None
    assert det.scales == []
    # A 640 px frame is looked at in its own pixels when its dice come out under
    # VGA_SMALL; dice of an ordinary view (16-22 px in the input) are not, nor an empty
    # tray (closer, a speck passes for a die showing 1).
    det = _CountingDetector(3, 20.0)
    tiny = [Candidate((5.0, 5.0), 2 * VGA_SMALL - 2, 0.8)]
    assert len(zoom_in_on_small_dice(det, vga, tiny, None)) == 3 and det.scales == [1.0]
    det = _CountingDetector(3, 20.0)
    ordinary = [Candidate((5.0, 5.0), 2 * VGA_SMALL + 2, 0.8)]  # under SMALL, not VGA_SMALL
    assert zoom_in_on_small_dice(det, vga, ordinary, None) is None
    assert zoom_in_on_small_dice(det, vga, [], None) is None
    assert zoom_in_on_small_dice(det, np.zeros((240, 320, 3), np.uint8), [], None) is None
    assert det.scales == []


def test_a_camera_hung_high_is_read_closer_only_when_that_reads_much_better():
    # A 640x480 camera twice as high: dice of 17 px, sized 30 by the default look and
    # read unsurely; in the frame's own pixels they are found at their size, read surely.
    vga = np.zeros((480, 640, 3), np.uint8)
    found = [Candidate((100.0 * i, 50.0), 30.0, 0.9) for i in range(2)]
    det = _ScriptedDetector({1.0: [17.0] * 4})
    cands, reads = read_at_the_right_scale(
        det, _ScriptedFaces({30.0: (2, 0.6), 17.0: (4, 0.97)}), vga, found, None)
    assert len(cands) == 4 and [r.label for r in reads] == [4] * 4
    assert det.scales == [1.0, 0.25, 0.125]  # nothing big from further away, nor further
    # From further away, two of those dice and the tray between them pass for one big
    # die showing 2, read surely; the closer look reads a 4 and a 5 inside it: a cluster.
    big = 120.0  # frame px: 30 at a quarter of the frame's size, looked at again to size
    looks = {1.0: [17.0, 17.5], 0.25: [big], round(0.25 * DET_SIDE / 30, 4): [big]}
    det = _ScriptedDetector(looks)
    cands, reads = read_at_the_right_scale(
        det, _ScriptedFaces({30.0: (2, 0.6), 17.0: (4, 0.97), 17.5: (5, 0.95),
                             big: (2, 0.99)}), vga, found, None)
    assert [r.label for r in reads] == [4, 5]
    # A camera close over the dice instead: the default look found the pips of one big
    # die, the closer look finds them too, read as 1s; from further away, the die.
    det = _ScriptedDetector(looks)
    cands, reads = read_at_the_right_scale(
        det, _ScriptedFaces({30.0: (1, 0.6), 17.0: (1, 0.97), 17.5: (1, 0.95),
                             big: (2, 0.99)}), vga, found, None)
    assert [c.side for c in cands] == [big] and [r.label for r in reads] == [2]
    # Read a little more surely closer (a speck on the tray passing for a die showing 1
    # beside dice the default look read well): the default look stays.
    det = _ScriptedDetector({1.0: [17.0] * 2 + [12.0]})
    cands, reads = read_at_the_right_scale(
        det, _ScriptedFaces({30.0: (5, 0.9), 17.0: (5, 0.92), 12.0: (1, 0.94)}), vga,
        found, None)
    assert cands is found and [r.label for r in reads] == [5, 5]


class _ScriptedDetector:
    """Finds, at each scale asked for, the dice listed for it (side in frame px)."""

    def __init__(self, looks: dict[float, list[float]]) -> None:
        self.looks, self.scales = looks, []

    def detect(self, frame, *, scale=None, region=None):
        self.scales.append(scale)
        sides = self.looks.get(round(scale, 4), [])
        return [Candidate((100.0 * i, 50.0), s, 0.9) for i, s in enumerate(sides)]


def test_dice_too_big_for_the_default_scale_are_read_from_further():
    vga = np.zeros((480, 640, 3), np.uint8)  # default scale 0.5, half of it 0.25
    big = 2 * LARGE / 0.5  # frame px: LARGE px at a quarter of the frame's size
    det = _ScriptedDetector({0.25: [big, big * 1.1]})
    assert len(zoom_out_on_large_dice(det, vga, None)) == 2  # DET_SIDE-ish already: kept
    assert det.scales == [0.25]
    det = _ScriptedDetector({0.25: [3 * big, 3 * big], round(0.25 * DET_SIDE / (3 * LARGE), 4):
                             [3 * big] * 3})
    assert len(zoom_out_on_large_dice(det, vga, None)) == 3  # much bigger: looked at to size
    assert det.scales[1] == pytest.approx(0.25 * DET_SIDE / (3 * LARGE))
    # Dice of an ordinary frame come out under LARGE at half the scale; sizes all over
    # the place are not one set of dice (a cluster of small ones passing for a big one).
    assert zoom_out_on_large_dice(_ScriptedDetector({0.25: [60.0] * 4}), vga, None) is None
    assert zoom_out_on_large_dice(_ScriptedDetector({0.25: [big, 3 * big, 60]}), vga,
                                  None) is None
    assert zoom_out_on_large_dice(_ScriptedDetector({}), vga, None) is None


def test_dice_too_big_even_for_half_the_scale_are_read_from_further():
    vga = np.zeros((480, 640, 3), np.uint8)  # default scale 0.5, a quarter of it 0.125
    huge = 2 * LARGE / 0.125  # frame px: twice LARGE at an eighth of the frame's size
    to_size = round(0.125 * DET_SIDE / (2 * LARGE), 4)
    # At half the scale, the pieces of two huge dice: their pips and their sides, sized
    # all over the place. At a quarter, the dice; then looked at to size.
    det = _ScriptedDetector({0.25: [huge, 70.0, 60.0, 2 * huge], 0.125: [huge, huge],
                             to_size: [huge, huge * 1.05]})
    assert [c.side for c in zoom_out_on_large_dice(det, vga, None)] == [huge, huge * 1.05]
    assert det.scales == [0.25, 0.125, pytest.approx(to_size, abs=1e-4)]
    # Dice alike at half the scale are never looked for further away.
    det = _ScriptedDetector({0.25: [3 * LARGE / 0.25] * 2, 0.125: [huge]})
    zoom_out_on_large_dice(det, vga, None)
    assert 0.125 not in det.scales
    # Nothing large and alike at a quarter of the scale either: no look from further away.
    det = _ScriptedDetector({0.25: [60.0] * 3, 0.125: [100.0, 400.0]})
    assert zoom_out_on_large_dice(det, vga, None) is None
    assert det.scales == [0.25, 0.125]


class _ScriptedFaces:
    """Reads every candidate of side `side` as `label` with confidence `conf`, the rest
    as not a die."""

    def __init__(self, reads: dict[float, tuple[int | str, float]]) -> None:
        self.reads = reads

    def read(self, frame, centers, sides):
        out = []
        for s in sides:
            label, conf = self.reads.get(s, ("none", 1.0))
            probs = [0.0] * 8
            probs[7] = 1.0 if label == "none" else 0.0
            out.append(FaceRead(label, conf, tuple(probs), True))
        return out

    def read_candidates(self, frame, cands):
        return self.read(frame, [c.center for c in cands], [c.side for c in cands])


def _read(label: int, conf: float, agree: bool = True) -> FaceRead:
    return FaceRead(label, conf, (0.0,) * 8, agree)


def _reads(*confs: float) -> list[FaceRead]:
    return [FaceRead("none" if c is None else 1, c or 1.0, (0.0,) * 7 + (1.0 if c is None
                     else 0.0,), True) for c in confs]


def test_another_look_must_read_the_dice_better():
    # A big die's pips at the default scale: read unsurely, or not as dice at all.
    assert reads_better(_reads(1.0), _reads(0.4, 0.5, None, None))
    assert reads_better(_reads(0.95, 1.0), _reads(1.0, 0.3, 0.5))
    assert reads_better(_reads(0.8), [])
    # No better on average, or nothing there: the default look stays.
    assert not reads_better(_reads(0.9), _reads(1.0, 0.95))
    assert not reads_better(_reads(None), _reads(0.4))
    assert not reads_better([], _reads(0.4))
    # Four dice read surely, and from further away one "die" covering them (a cluster of
    # small dice passing for a big one, read surely too): the four stay.
    assert not reads_better(_reads(0.98), _reads(1.0, 1.0, 1.0, 1.0, 0.5))
    # Asked for a margin: more surely by more than it.
    assert reads_better(_reads(0.95), _reads(0.9), 0.04)
    assert not reads_better(_reads(0.93), _reads(0.9), VGA_SURER)


def test_a_look_from_further_that_loses_dice_is_not_taken():
    far = [Candidate((130.0, 120.0), 200.0, 0.9)]  # one big "die"
    near = [Candidate((100.0, 100.0), 40.0, 0.9), Candidate((160.0, 140.0), 40.0, 0.9)]
    # Inside it, a die read surely as 5 has pips of its own: the big "die" is the tray
    # with dice on it. Pips seen closer pass for 1s and 2s only.
    assert loses_dice(far, near, [_read(5, 0.99), _read(1, 1.0)])
    assert not loses_dice(far, near, [_read(2, 0.95), _read(1, 1.0)])
    assert not loses_dice(far, near, [_read(5, 0.6), _read(1, 1.0)])  # not sure: a pip
    # A die read surely beyond a side's length from every far die is lost; a side face
    # the slanted camera sees next to the big die is not.
    assert loses_dice(far, near + [Candidate((600.0, 400.0), 40.0, 0.9)],
                      [_read(1, 1.0)] * 3)
    assert not loses_dice(far, near + [Candidate((130.0, 290.0), 40.0, 0.9)],
                          [_read(1, 1.0)] * 3)


def test_the_tray_with_two_dice_is_not_read_as_one_big_die():
    vga = np.zeros((480, 640, 3), np.uint8)
    big = 2 * LARGE / 0.5
    near = [Candidate((10.0, 5.0), 40.0, 0.8), Candidate((60.0, 5.0), 41.0, 0.8)]
    det = _ScriptedDetector({0.25: [big]})
    faces = _ScriptedFaces({40.0: (5, 0.95), 41.0: (1, 0.3), big: (2, 0.99)})
    cands, reads = read_at_the_right_scale(det, faces, vga, near, None)
    assert cands is near and [r.label for r in reads] == [5, 1]
    # The same look, where the default look's sure read could be a pip: taken.
    faces = _ScriptedFaces({40.0: (1, 0.95), 41.0: (1, 0.3), big: (2, 0.99)})
    cands, reads = read_at_the_right_scale(det, faces, vga, near, None)
    assert [c.side for c in cands] == [big] and [r.label for r in reads] == [2]


def test_a_wide_frame_with_small_dice_is_looked_at_closer_never_further():
    wide = np.zeros((720, 1280, 3), np.uint8)  # default scale 0.25
    small = [Candidate((5.0, 5.0), 48.0, 0.8)]  # 12 px in the detector's input, sized wrong
    # From further away, a cluster of the small dice would pass for big dice.
    det = _ScriptedDetector({0.5: [40.0] * 3, 0.125: [4 * LARGE / 0.5] * 2})
    faces = _ScriptedFaces({48.0: (2, 0.4), 40.0: (3, 1.0), 4 * LARGE / 0.5: (5, 1.0)})
    cands, reads = read_at_the_right_scale(det, faces, wide, small, None)
    assert len(cands) == 3 and [r.label for r in reads] == [3, 3, 3]
    assert det.scales == [0.5]


def test_a_wide_frame_whose_dice_read_surely_keeps_them_when_closer_finds_pips():
    # Dice of 20 px in the detector's input (a 1280 px photo of dice 80 px wide) come out
    # under SMALL too; twice as close, their pips pass for dice, read unsurely.
    wide = np.zeros((1280, 1280, 3), np.uint8)
    dice = [Candidate((100.0 * i, 50.0), 72.0, 0.9) for i in range(4)]
    det = _ScriptedDetector({0.5: [72.0] * 4 + [16.0] * 10})
    faces = _ScriptedFaces({72.0: (4, 0.97), 16.0: (1, 0.6)})
    cands, reads = read_at_the_right_scale(det, faces, wide, dice, None)
    assert cands is dice and [r.label for r in reads] == [4] * 4
    assert det.scales == [0.5]


def test_big_dice_are_read_from_further_when_that_reads_them_better():
    vga = np.zeros((480, 640, 3), np.uint8)  # default scale 0.5, half of it 0.25
    big = 2 * LARGE / 0.5
    pips = [Candidate((10.0 * i, 5.0), 40.0, 0.8) for i in range(5)]
    det = _ScriptedDetector({0.25: [big, big]})
    cands, reads = read_at_the_right_scale(det, _ScriptedFaces({40.0: (1, 0.4), big: (5, 1.0)}),
                                           vga, pips, None)
    assert [c.side for c in cands] == [big, big] and [r.label for r in reads] == [5, 5]
    # Read just as surely at the default scale: the default look stays.
    det = _ScriptedDetector({0.25: [big, big]})
    cands, reads = read_at_the_right_scale(det, _ScriptedFaces({40.0: (2, 1.0), big: (5, 1.0)}),
                                           vga, pips, None)
    assert cands is pips and [r.label for r in reads] == [2] * 5
    # Eight dice read surely at the default scale: no close-up, no look from further.
    det = _ScriptedDetector({0.25: [big, big]})
    crowd = [Candidate((10.0 * i, 5.0), 40.0, 0.8) for i in range(8)]
    cands, _ = read_at_the_right_scale(det, _ScriptedFaces({40.0: (3, 0.95), big: (5, 1.0)}),
                                       vga, crowd, None)
    assert cands is crowd and det.scales == []
    # A frame wider than 640 px is never looked at from further away, however big its
    # dice seem: shrunk that far, a cluster of small dice passes for one big die.
    wide = np.zeros((720, 1280, 3), np.uint8)
    det = _ScriptedDetector({0.125: [400.0, 400.0]})
    found = [Candidate((5.0, 5.0), 380.0, 0.8)]
    cands, _ = read_at_the_right_scale(det, _ScriptedFaces({400.0: (6, 1.0), 380.0: (1, 0.3)}),
                                       wide, found, None)
    assert cands is found and det.scales == []


def test_close_camera_is_read_with_or_without_calibration(samples):
    """matteop65's dice twice as big in the frame: at the default scale the detector
    takes their pips for dice. The reader reads them from further away, and calibration
    measures their real size, so the frame is read about as well as the photo alone."""
    from calibration.finding import detector_die_side

    detector = DieDetector()
    pips, plain, calibrated, alone = 0, Tally(), Tally(), Tally()
    for _, image, labels in samples["matteop65-train"]:
        close = close_up(image, labels, 2.0)
        if close is None:
            continue
        big, inside = close
        centre = [dict(lab, bbox=[v / 2 + o for v, o in zip(lab["bbox"], (
            image.shape[1] / 4, image.shape[0] / 4, 0, 0))]) for lab in inside]
        alone.add(score(read_dice(image).dice, centre))
        pips += len(detector.detect(big))
        plain.add(score(read_dice(big).dice, inside))
        side = detector_die_side(big)
        profile = dataclasses.replace(default_profile(), die_side=side)
        calibrated.add(score(read_dice(big, profile=profile).dice, inside))
    assert alone.labelled >= 10
    assert pips > 1.5 * alone.labelled, (pips, alone)
    # Two dice of slack: one photo's label boxes only the pip of a die showing 1 (14 x 16
    # px at this zoom), so that die, read right, counts as missed and false when its
    # centre is found a few pixels off the pip (as a measured size 0.4 px smaller puts it).
    for t in (plain, calibrated):
        assert t.correct >= alone.correct - 2, (t, alone)
        assert t.false <= alone.false + 1, (t, alone)
        assert t.wrong_confident == 0, t


def test_dice_four_times_as_big_are_read_from_a_quarter_of_the_scale(samples):
    """matteop65's dice four times as big (a camera low over a small tray): at half the
    scale the detector still finds them in pieces; at a quarter it finds them whole."""
    t = Tally()
    for _, image, labels in samples["matteop65-train"]:
        close = close_up(image, labels, 4.0)
        if close is not None:
            t.add(score(read_dice(close[0]).dice, close[1]))
    assert t.labelled >= 3
    assert t.correct >= t.labelled - 1 and t.false <= 1, t  # before the quarter look: 2, 5


def test_dim_or_coloured_light_is_evened_out_for_the_networks_only(samples):
    _, image, labels = samples["byler-2019-12-08"][0]
    assert even_light(image) is image  # a well-lit photo is read as it is
    plain = score(read_dice(image).dice, labels)
    dim = cv2.convertScaleAbs(image, alpha=0.35)
    lifted = even_light(dim)
    assert np.percentile(lifted, 99) > 2.5 * np.percentile(dim, 99)
    assert score(read_dice(dim).dice, labels).correct >= plain.correct - 1
    cold = np.clip(image * np.array([1.15, 1.0, 0.8]), 0, 255).astype(np.uint8)
    top = np.percentile(even_light(cold).reshape(-1, 3), 99, axis=0)
    assert np.ptp(top) < 0.3 * np.ptp(np.percentile(cold.reshape(-1, 3), 99, axis=0))
    assert score(read_dice(cold).dice, labels).correct >= plain.correct - 1
    assert even_light(np.zeros((64, 64, 3), np.uint8)).max() == 0  # black stays black
    darker = read_dice(cv2.convertScaleAbs(image, alpha=0.15))  # warnings see the frame as is:
    assert any(w.code == "dark" for w in darker.warnings)  # the player is told to add light


def test_calibration_measures_the_dice_in_a_dim_room_as_in_a_lit_one(samples, monkeypatch):
    """Calibration measures the die size on a dim frame brightened, as the reader's
    networks see it (even_light). On the frame as it is, a room at 15% of the light gave
    sizes off by more than a fifth on 49 of 52 matteop65 photos. A frame in good light
    is measured as it is."""
    import vision.reader
    from calibration.finding import detector_die_side

    def refuse(*args, **kwargs):
        raise AssertionError("a frame in good light was brightened")

    with monkeypatch.context() as patch:
        patch.setattr(vision.reader, "even_light", refuse)
        assert detector_die_side(samples["matteop65-train"][0][1]) is not None

    measured = 0
    for name in ("byler-2019-12-08", "matteop65-train"):
        for _, image, _ in samples[name][:4]:
            lit = detector_die_side(image)
            if lit is None:
                continue
            dim = (image.astype(np.float32) * 0.15).astype(np.uint8)
            assert detector_die_side(dim) == pytest.approx(lit, rel=0.2)
            measured += 1
    assert measured >= 6


def test_a_players_die_the_classifier_took_for_no_die_is_asked_about(monkeypatch):
    """A die unlike any the classifier saw can be taken for the tray. With the players'
    colours calibrated, a dropped candidate of a player's colour, the dice's size and on
    no die read already is a Soldier die of that colour, its likeliest pip face offered,
    and the players are asked; without the colours, or of another colour, or with no
    pip face likely at all, it stays out."""
    from calibration.profile import ColorModel, Profile
    from vision.color import body_pixels
    from vision.faces import FaceReader
    from vision.synthetic import SynthDie, procedural_background, render_frame

    rng = np.random.default_rng(5)
    green, white = (40, 150, 40), (235, 235, 235)
    dice = [SynthDie(f, (80.0 + 110 * i, 150.0), 46.0, 10.0 * i, green, white)
            for i, f in enumerate((2, 5, 3, 6))]
    frame, boxes = render_frame(dice, background=procedural_background((300, 480), rng), rng=rng)
    ben = ColorModel.from_pixels(body_pixels(frame, boxes[0]))
    red = ColorModel.from_pixels(np.array([[60, 60, 200], [50, 55, 190]] * 20, np.uint8))
    players = Profile(colors={"Ben": ben})
    real = FaceReader.read_candidates
    dropped = (0.01, 0.02, 0.02, 0.1, 0.0, 0.0, 0.0, 0.85)  # a 4 most likely, if a die

    def drop_the_first(pips):
        def read(self, image, cands):
            reads = real(self, image, cands)
            first = min(range(len(cands)), key=lambda i: cands[i].center[0])
            probs = dropped if pips else (0.0,) * 7 + (1.0,)
            reads[first] = FaceRead("none", probs[7], probs, True)
            return reads
        return read
    plain = read_dice(frame, profile=players)
    assert sorted(d.value for d in plain.dice) == [2, 3, 5, 6]
    monkeypatch.setattr(FaceReader, "read_candidates", drop_the_first(True))
    got = read_dice(frame, profile=players)
    (asked,) = [d for d in got.dice if d.center[0] < 130]
    assert (asked.kind, asked.value, asked.color) == ("soldier", 4, "Ben")
    assert asked.confidence < reader.UNSURE and asked.choices[0] == 4
    assert any(w.code == "cocked" and w.box == asked.box for w in got.warnings)
    assert len(got.dice) == 4
    for profile in (Profile(), Profile(colors={"Ann": red})):  # no colours, another colour
        assert all(d.center[0] >= 130 for d in read_dice(frame, profile=profile).dice)
    monkeypatch.setattr(FaceReader, "read_candidates", drop_the_first(False))
    assert all(d.center[0] >= 130 for d in read_dice(frame, profile=players).dice)
    # Green dice on green felt: the felt passes for the player's colour, so a dropped
    # candidate cannot be told from it by colour, and stays out.
    monkeypatch.setattr(FaceReader, "read_candidates", drop_the_first(True))
    felt = np.zeros((300, 480, 3), np.uint8)
    felt[:] = green
    felt = (felt.astype(np.int16) + rng.integers(-6, 7, felt.shape)).clip(0, 255).astype(np.uint8)
    on_felt, boxes = render_frame(dice, background=felt, rng=rng)
    same = Profile(colors={"Ben": ColorModel.from_pixels(body_pixels(on_felt, boxes[0]))})
    assert all(d.center[0] >= 130 for d in read_dice(on_felt, profile=same).dice)


def test_a_whole_face_is_one_read_surely_as_2_to_5_in_every_view():
    assert reader.whole_face_read_surely(_read(3, 0.95, True))
    assert reader.whole_face_read_surely(_read(5, reader.SURE, True))
    assert not reader.whole_face_read_surely(_read(3, 0.95, False))  # the views disagree
    assert not reader.whole_face_read_surely(_read(3, 0.85, True))  # not sure enough
    assert not reader.whole_face_read_surely(_read(1, 0.99, True))  # a pip of a bigger die?
    assert not reader.whole_face_read_surely(_read(6, 0.99, True))  # a side face seen low?
    assert not reader.whole_face_read_surely(FaceRead("nopips", 0.99, (0.0,) * 6 + (1.0, 0.0), True))


def test_a_die_far_smaller_than_the_others_is_asked_about_unless_read_surely_whole(monkeypatch):
    """A die under ODD_SIZE of the frame's median side is likely a piece of a die cut
    wrong, so its read is capped and the players are asked; not when every view of both
    classifiers read it surely as 2-5 (a pip alone reads as a 1 at every turn)."""
    from vision.faces import DISAGREE_CAP, FaceReader
    from vision.synthetic import SynthDie, procedural_background, render_frame

    rng = np.random.default_rng(7)
    white, black = (235, 235, 235), (30, 30, 30)
    dice = [SynthDie(f, (80.0 + 120 * i, 160.0), 64.0, 0.0, white, black)
            for i, f in enumerate((2, 5, 6))]
    dice.append(SynthDie(4, (450.0, 160.0), 34.0, 0.0, white, black))
    frame, _ = render_frame(dice, background=procedural_background((320, 540), rng), rng=rng)
    real = FaceReader.read_candidates

    def small_read_as(label, agree):
        def read(self, image, cands):
            reads = real(self, image, cands)
            if len(cands) == 4:  # the look that found them all: the smallest is read so
                small = min(range(4), key=lambda i: cands[i].side)
                reads[small] = _read(label, 0.97, agree)
            return reads
        return read

    def small_die(got):
        (die,) = [d for d in got.dice if d.center[0] > 400]
        return die
    plain = read_dice(frame)
    assert len(plain.dice) == 4 and small_die(plain).value == 4
    for label, agree, confidence in ((4, True, 0.97), (1, True, DISAGREE_CAP),
                                     (6, True, DISAGREE_CAP), (4, False, DISAGREE_CAP)):
        monkeypatch.setattr(FaceReader, "read_candidates", small_read_as(label, agree))
        die = small_die(read_dice(frame))
        assert (die.value, die.confidence) == (label, pytest.approx(confidence)), (label, agree)


def test_the_detector_can_be_asked_for_weaker_peaks(samples) -> None:
    """detect(threshold=...) overrides the detector's own least score for one call (the
    reader's second look for the Event die): the candidates it adds are the weaker ones."""
    detector = DieDetector()
    image = samples["matteop65-train"][0][1]
    usual = detector.detect(image)
    weaker = detector.detect(image, threshold=0.05)
    assert usual and all(c.score >= detector.threshold for c in usual)
    assert len(weaker) > len(usual) and min(c.score for c in weaker) >= 0.05
    assert [c for c in weaker if c.score >= detector.threshold] == usual
    assert detector.detect(image, threshold=1.01) == []
