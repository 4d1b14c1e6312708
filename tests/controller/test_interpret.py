"""What a settled reading means, phase by phase (pure function, no table)."""
from __future__ import annotations

import pytest

from companion.controller.interpret import Expectation, interpret


def expect(phase="roll", dice=6, **kw) -> Expectation:
    return Expectation(phase=phase, player="Jane", dice_in_hand=dice, **kw)


@pytest.mark.parametrize("faces, ev, phase, kind, words", [
    ([], None, "roll", "ignore", "empty"),
    ([1, 2, 3, 4, 5, 6], "blank", "choose_action", "ignore", "choose"),
    ([1, 2, 3, 4, 5, 6], "blank", "game_over", "ignore", "game_over"),
    ([1, 2, 3, 4, 5, 6], "blank", "roll", "apply", ""),
    ([1, 2, 3, 4, 5, None], "blank", "roll", "ask", "could not be read"),
    ([1, 2, 3, 4, 5, 6], None, "roll", "ask", "No Event die seen."),
])
def test_phases_and_doubts(fakes, faces, ev, phase, kind, words):
    dice = [fakes.soldier(f, 10.0 * i) for i, f in enumerate(faces)]
    if ev:
        dice.append(fakes.event(ev))
    reading = fakes.reading([], None)
    reading = type(reading)(dice=tuple(dice), warnings=())
    verdict = interpret(reading, expect(phase))
    assert verdict.kind == kind and words in verdict.reason


def test_two_event_dice_are_doubtful(fakes):
    reading = fakes.reading([1, 2, 3, 4, 5, 6], "blank")
    reading = type(reading)(dice=(*reading.dice, fakes.event("dragon")), warnings=())
    verdict = interpret(reading, expect())
    assert verdict.kind == "ask" and "More than one Event die seen." in verdict.reason


def test_the_confidence_threshold_is_a_parameter(fakes):
    reading = fakes.reading([1, 2, 3, 4, 5, 6], "blank", conf=0.85)
    assert interpret(reading, expect()).kind == "apply"
    assert interpret(reading, expect(), min_confidence=0.9).kind == "ask"
    unsure = fakes.reading([1, 2, 3, 4, 5, 6], "blank", conf=0.7)  # played at 0.6 before
    assert interpret(unsure, expect()).kind == "ask"


def test_a_set_aside_that_does_not_match_the_roll_asks(fakes):
    e = expect("set_aside", last_roll=(1, 2, 2, 4, 4, 5), options=((1,), (5,), (1, 5)), last_event="blank")
    verdict = interpret(fakes.reading([6, 6], "blank"), e)
    assert verdict.kind == "ask" and "do not match" in verdict.reason
    assert interpret(fakes.reading([5, 4, 4, 2, 2, 1], "blank"), e).kind == "ignore"


def test_dice_still_lying_from_the_last_roll_are_not_a_new_roll(fakes):
    # "roll again" was tapped; someone moved the set-aside dice out: the rest is not a roll
    e = expect("roll", dice=4, last_roll=(1, 2, 2, 4, 4, 5), last_event="blank")
    assert interpret(fakes.reading([2, 4, 2, 4], "blank"), e).kind == "ignore"
    assert interpret(fakes.reading([2, 4, 2, 6], "blank"), e).kind == "apply"
    assert interpret(fakes.reading([2, 4, 2, 4], "dragon"), e).kind == "apply"


def test_the_reasons_read_as_sentences(fakes):
    from vision.types import DiceWarning

    warn = DiceWarning("cocked", "A die could not be read surely: check its face.")
    reading = fakes.reading([1, 2, 3, 4, 5], "blank", conf=0.5, warnings=(warn, warn))
    verdict = interpret(reading, expect())
    assert verdict.reason == ("A die could not be read surely: check its face. 5 dice read "
                              "with low confidence. Saw 5 soldier dice, expected 6.")


def test_another_players_roll_asks_but_one_die_read_another_colour_does_not(fakes):
    from vision.types import Reading

    def rolled(colors):
        dice = [fakes.soldier(f, 10.0 * f, color=c) for f, c in zip([1, 2, 3, 4, 5, 6], colors)]
        return Reading(dice=(*dice, fakes.event("blank")), warnings=())

    red = expect(color="red")
    assert interpret(rolled(["red"] * 6), red).kind == "apply"
    assert interpret(rolled(["red"] * 5 + ["purple"]), red).kind == "apply"  # one marbled die
    verdict = interpret(rolled(["blue"] * 6), red)
    assert verdict.kind == "ask" and "6 dice not Jane's colour (red)" in verdict.reason
    verdict = interpret(rolled(["blue"] * 3 + ["red"] * 3), red)  # half of them: ask
    assert verdict.kind == "ask" and "3 dice not Jane's colour" in verdict.reason
    assert interpret(rolled([None] * 5 + ["blue"]), red).kind == "ask"  # the one named: another
