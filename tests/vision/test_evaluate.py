"""Matching readings to labels (grown boxes) and the benchmark's tallies."""
from __future__ import annotations

import numpy as np

from vision.evaluate import ASKED, close_up, match, score
from vision.types import Die


def die(x, y, value=1, conf=0.95):
    return Die("soldier", value, (x, y), (x - 5, y - 5, 10, 10), conf)


def test_centre_must_lie_in_box_grown_by_half():
    labels = [{"value": 1, "bbox": [100, 100, 10, 10]}]  # centre 105, grown half-width 7.5
    assert match([die(112, 105)], labels) == [(0, 0)]
    assert match([die(113, 105)], labels) == []


def test_each_label_takes_the_nearest_die_once():
    labels = [{"value": 2, "bbox": [0, 0, 40, 40]}, {"value": 3, "bbox": [30, 0, 40, 40]}]
    dice = [die(21, 20, 2), die(49, 20, 3), die(50, 21, 3)]
    t = score(dice, labels)
    assert (t.correct, t.missed, t.false, t.wrong) == (2, 0, 1, 0)


def test_wrong_confident_counts_only_high_confidence():
    labels = [{"value": 4, "bbox": [0, 0, 40, 40]}, {"value": 5, "bbox": [100, 0, 40, 40]}]
    t = score([die(20, 20, 6, 0.95), die(120, 20, 6, 0.4)], labels)
    assert (t.wrong, t.wrong_confident, t.unsure) == (2, 1, 1)


def test_event_die_labels_score_the_event_die():
    labels = [{"value": "dragon", "bbox": [0, 0, 40, 40]}, {"value": "blank", "bbox": [100, 0, 40, 40]},
              {"value": 2, "bbox": [200, 0, 40, 40]}]
    event = Die("event", "dragon", (20, 20), (0, 0, 40, 40), 0.9)
    unknown = Die("event", None, (120, 20), (100, 0, 40, 40), 0.0)  # no calibrated Event die
    blank_as_soldier = Die("event", "blank", (220, 20), (200, 0, 40, 40), 0.9)
    t = score([event, unknown, blank_as_soldier], labels)
    assert (t.correct, t.wrong, t.wrong_confident) == (1, 2, 1)


def test_close_up_enlarges_the_middle_and_its_labels():
    image = np.zeros((100, 200, 3), np.uint8)
    image[45:55, 95:105] = 255  # a die in the middle
    labels = [{"bbox": [95, 45, 10, 10], "value": 3}]
    big, inside = close_up(image, labels, 2.0)
    assert big.shape == image.shape
    assert inside == [{"bbox": [90.0, 40.0, 20.0, 20.0], "value": 3}]
    assert big[50, 100].min() == 255 and big[30, 60].max() == 0
    # A die the cut crosses is no label: the photo is left out; so is one with none inside.
    assert close_up(image, labels + [{"bbox": [45, 20, 10, 10], "value": 1}], 2.0) is None
    assert close_up(image, [{"bbox": [5, 5, 10, 10], "value": 1}], 2.0) is None


def test_asked_dice_count_whether_the_right_face_is_offered():
    labels = [{"value": 4, "bbox": [0, 0, 40, 40]}, {"value": 5, "bbox": [100, 0, 40, 40]},
              {"value": 2, "bbox": [200, 0, 40, 40]}, {"value": 1, "bbox": [300, 0, 40, 40]}]
    dice = [Die("soldier", 6, (20, 20), (0, 0, 40, 40), 0.5, choices=(6, 4)),  # offered
            Die("soldier", 6, (120, 20), (100, 0, 40, 40), 0.55, choices=(6, 3)),  # not offered
            Die("soldier", 2, (220, 20), (200, 0, 40, 40), 0.59, choices=(2, 5)),  # right, asked
            Die("soldier", 1, (320, 20), (300, 0, 40, 40), ASKED)]  # sure enough: not asked
    t = score(dice, labels)
    assert (t.asked, t.asked_wrong, t.asked_wrong_offered, t.offered) == (3, 2, 1, 6)
    assert t.asked_photos == 1
    assert score(dice[3:], labels[3:]).asked_photos == 0


def test_asked_is_the_tables_threshold():
    from companion.controller.interpret import MIN_CONFIDENCE
    from vision.evaluate import ASKED

    assert ASKED == MIN_CONFIDENCE


def _die(value, conf=0.95, x=20):
    kind = "event" if isinstance(value, str) else "soldier"
    return Die(kind, value, (x, 20), (x - 20, 0, 40, 40), conf)


def test_a_roll_is_played_right_asked_or_played_wrong():
    from vision.evaluate import roll_outcome
    from vision.types import DiceWarning

    labels = [{"value": v, "bbox": [x - 20, 0, 40, 40]}
              for v, x in ((3, 20), (5, 120), ("dragon", 220))]
    right = [_die(3), _die(5, x=120), _die("dragon", x=220)]
    assert roll_outcome(right, labels) == "right"
    # faces swapped between dice: the rules see the same roll
    assert roll_outcome([_die(5), _die(3, x=120), right[2]], labels) == "right"
    assert roll_outcome([_die(3), _die(6, x=120), right[2]], labels) == "wrong"
    assert roll_outcome([_die(3), _die(5, x=120), _die("rally", x=220)], labels) == "wrong"
    # one die below the table's threshold, a die missing, one too many, a face unread,
    # a warning: each is a question to the phones
    assert roll_outcome([_die(3, 0.59), *right[1:]], labels) == "asked"
    assert roll_outcome(right[:2], labels) == "asked"
    assert roll_outcome([*right, _die(2, x=320)], labels) == "asked"
    assert roll_outcome([*right[:2], Die("event", None, (220, 20), (200, 0, 40, 40), 0.0)],
                        labels) == "asked"
    warning = DiceWarning("touching", "Two dice are touching.", (0, 0, 80, 40))
    assert roll_outcome(right, labels, (warning,)) == "asked"
    # a missed 5 and a false die elsewhere: the count is right; the roll is played wrong
    # unless the false die shows the missed face (then the rules see the same roll)
    assert roll_outcome([right[0], _die(2, x=400), right[2]], labels) == "wrong"
    assert roll_outcome([right[0], _die(5, x=400), right[2]], labels) == "right"
    # the table counts Soldier dice against the dice in hand and wants the Event die: a
    # missed Event die and a Soldier die read twice is asked about, not played
    assert roll_outcome([right[0], right[1], _die(1, x=400)], labels) == "asked"


def test_rolls_at_other_play_thresholds_trade_asking_against_playing_wrong():
    from vision.evaluate import Tally

    labels = [{"value": v, "bbox": [x - 20, 0, 40, 40]} for v, x in ((3, 20), (5, 120))]
    total = Tally()
    for roll in ([_die(3, 0.97), _die(5, 0.7, x=120)],  # right, its least sure die 0.7
                 [_die(3, 0.99), _die(6, 0.85, x=120)],  # wrong, least sure 0.85
                 [_die(3, 0.99)],  # a die missed: asked at any threshold
                 [_die(3, 0.5), _die(5, 0.99, x=120)]):  # right, but only below 0.6
        total.add(score(roll, labels, ()))
    # the table's own threshold: as counted
    assert (total.rolls_right, total.rolls_asked, total.rolls_wrong) == total.rolls_at(ASKED)
    assert total.rolls_at(0.6) == (1, 2, 1)
    assert total.rolls_at(0.8) == (0, 3, 1)
    assert total.rolls_at(0.9) == (0, 4, 0)
    assert total.rolls_at(0.4) == (2, 1, 1)
    assert score([_die(3)], labels[:1]).playable == []  # no warnings given: not a roll


def test_score_counts_rolls_only_with_the_warnings_given():
    labels = [{"value": 4, "bbox": [0, 0, 40, 40]}]
    assert score([_die(4)], labels).rolls_right == 0
    t = score([_die(4)], labels, ())
    assert (t.rolls_right, t.rolls_asked, t.rolls_wrong) == (1, 0, 0)
    t.add(score([_die(2)], labels, ()))
    t.add(score([], labels, ()))
    assert (t.rolls_right, t.rolls_asked, t.rolls_wrong) == (1, 1, 1)


def test_why_a_roll_is_asked():
    from vision.evaluate import Tally, why_asked, why_text
    from vision.types import DiceWarning

    labels = [{"value": v, "bbox": [x - 20, 0, 40, 40]}
              for v, x in ((3, 20), (5, 120), ("dragon", 220))]
    right = [_die(3), _die(5, x=120), _die("dragon", x=220)]
    assert why_asked(right, labels) == set()  # played: nothing to ask
    assert why_asked([_die(3, 0.59), *right[1:]], labels) == {"unsure (right)"}
    assert why_asked([_die(2, 0.59), *right[1:]], labels) == {"unsure (wrong)"}
    assert why_asked([*right[:2], _die("dragon", 0.7, x=220)], labels) == {"Event die unsure (right)"}
    assert why_asked(right[:2], labels) == {"missed"}
    assert why_asked([*right, _die(2, x=320)], labels) == {"false"}
    assert why_asked([right[0], right[1], _die(1, x=220)], labels) == {"kind"}  # the Event die as a 1
    touching = DiceWarning("touching", "Two dice are touching.", (0, 0, 80, 40))
    cocked = DiceWarning("cocked", "A die could not be read surely.", (0, 0, 40, 40))
    assert why_asked(right, labels, (touching,)) == {"warning touching"}
    assert why_asked([_die(3, 0.3), *right[1:]], labels, (cocked,)) == {"unsure (right)"}
    total = Tally()
    for roll in (right, right[:2], [_die(3, 0.59), *right[1:2]]):
        total.add(score(roll, labels, ()))
    assert total.asked_why == {"missed": 2, "unsure (right)": 1}
    assert why_text(total.asked_why) == "missed 2, unsure (right) 1"
