"""What a settled camera reading means for the game right now (pure, no I/O).

The controller hands in the reading and what the engine expects; the answer is a
`Verdict`: apply these steps, ask the phones to confirm a proposal, or ignore the
frame. Being unsure is always a question to the players, never a guess.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.types import PLAY_CONFIDENCE

EVENT_FACES = ("blank", "dragon", "rally")
MIN_CONFIDENCE = PLAY_CONFIDENCE


@dataclass(frozen=True)
class Expectation:
    """What the engine awaits, as far as the camera is concerned."""

    phase: str
    player: str | None
    dice_in_hand: int
    options: tuple[tuple[int, ...], ...] = ()
    last_roll: tuple[int, ...] = ()
    last_event: str | None = None
    color: str | None = None  # the roller's dice colour, when the table told us


@dataclass(frozen=True)
class Verdict:
    """apply: steps to play; ask: a proposal for the phones to confirm; ignore: nothing to do."""

    kind: str
    steps: tuple[dict[str, Any], ...] = ()
    reason: str = ""
    proposal: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Seen:
    """The reading reduced to what the rules care about."""

    faces: tuple[int, ...]
    event: str | None
    events_seen: int
    doubts: tuple[str, ...]


def as_sentences(doubts: Sequence[str]) -> str:
    """The reasons to doubt a read as sentences: each begins with a capital and ends with
    a full stop ("Two dice are touching: .... 3 dice read with low confidence.")."""
    return " ".join(d[:1].upper() + d[1:] + "." for d in doubts)


def _dice(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


def summarise(reading: Any, expect: Expectation, *, min_confidence: float) -> Seen:
    """Soldier faces, the Event face and every reason to doubt the read."""
    # One sentence per kind of warning, however many dice it is about (as_sentences puts
    # the full stops back).
    doubts = list(dict.fromkeys(str(getattr(w, "message", w)).rstrip(".")
                                for w in getattr(reading, "warnings", ())))
    faces: list[int] = []
    events: list[str] = []
    unreadable = low = 0
    colors: Counter[str] = Counter()
    for die in reading.dice:
        if die.value is None:
            unreadable += 1
            continue
        if float(die.confidence) < min_confidence:
            low += 1
        if die.kind == "event":
            events.append(str(die.value))
        else:
            faces.append(int(die.value))
            if die.color:
                colors[str(die.color)] += 1
    if unreadable:
        doubts.append(f"{_dice(unreadable)} could not be read")
    if low:
        doubts.append(f"{_dice(low)} read with low confidence")
    if len(events) > 1:
        doubts.append("more than one Event die seen")
    if expect.color:
        # Another player's roll shows in most of the dice; one die whose colour reads as
        # another (a marbled die, a colour between two names) is no reason to ask.
        wrong = sum(n for c, n in colors.items() if c != expect.color)
        if wrong and 2 * wrong >= sum(colors.values()):
            doubts.append(f"{_dice(wrong)} not {expect.player}'s colour ({expect.color})")
    event = events[0] if len(events) == 1 else None
    return Seen(tuple(sorted(faces)), event, len(events), tuple(doubts))


def is_submultiset(small: Sequence[int], big: Sequence[int]) -> bool:
    return not (Counter(small) - Counter(big))


def minus(big: Sequence[int], small: Sequence[int]) -> tuple[int, ...]:
    return tuple(sorted((Counter(big) - Counter(small)).elements()))


def interpret(reading: Any, expect: Expectation, *, min_confidence: float = MIN_CONFIDENCE) -> Verdict:
    """Decide what a settled reading means in the current phase."""
    seen = summarise(reading, expect, min_confidence=min_confidence)
    if not seen.faces and seen.events_seen == 0:
        return Verdict("ignore", reason="the tray is empty")
    if expect.phase == "roll":
        if expect.last_roll and is_leftover(seen, expect):
            return Verdict("ignore", reason="the dice still lying from the last roll")
        return roll_verdict(seen, expect, ())
    if expect.phase == "decide":
        if is_leftover(seen, expect):
            return Verdict("ignore", reason="the dice left in the tray after the set-aside")
        return roll_verdict(seen, expect, ({"action": "roll"},))
    if expect.phase == "set_aside":
        return set_aside_verdict(seen, expect)
    if expect.phase == "choose_action":
        return Verdict("ignore", reason="choose Recruit, Brawl or Final Battle before rolling")
    return Verdict("ignore", reason=f"nothing to read in phase {expect.phase}")


def is_leftover(seen: Seen, expect: Expectation) -> bool:
    """True when the tray shows what stayed after a set-aside (taken out by hand or eaten)
    or after the last turn, not a new roll: part of the last roll, as many dice as are in
    hand, the same Event face. A re-roll landing on exactly those faces again is missed;
    the phones can type it."""
    return (
        len(seen.faces) == expect.dice_in_hand
        and is_submultiset(seen.faces, expect.last_roll)
        and seen.event in (None, expect.last_event)
    )


def roll_verdict(seen: Seen, expect: Expectation, before: tuple[dict[str, Any], ...]) -> Verdict:
    """A new roll: apply it when it is exactly what the engine expects and nothing is doubtful."""
    doubts = list(seen.doubts)
    if len(seen.faces) != expect.dice_in_hand:
        doubts.append(f"saw {len(seen.faces)} soldier dice, expected {expect.dice_in_hand}")
    if seen.event is None and seen.events_seen == 0:
        doubts.append("no Event die seen")
    proposal = {"roll": list(seen.faces), "event": seen.event, "before": list(before)}
    if doubts:
        return Verdict("ask", reason=as_sentences(doubts), proposal=proposal)
    step = {"roll": list(seen.faces), "event": seen.event}
    return Verdict("apply", steps=(*before, step), proposal=proposal)


def set_aside_verdict(seen: Seen, expect: Expectation) -> Verdict:
    """Dice physically taken out of the tray: the missing ones are the set-aside."""
    if seen.faces == tuple(sorted(expect.last_roll)):
        return Verdict("ignore", reason="the same roll, still waiting for a set-aside")
    if seen.doubts:
        return Verdict("ask", reason=as_sentences(seen.doubts), proposal={"kind": "set_aside"})
    if not is_submultiset(seen.faces, expect.last_roll):
        return Verdict(
            "ask",
            reason="the dice in the tray do not match the last roll: tap the set-aside",
            proposal={"kind": "set_aside", "seen": list(seen.faces)},
        )
    removed = minus(expect.last_roll, seen.faces)
    if removed not in expect.options:
        shown = " ".join(map(str, removed))
        return Verdict(
            "ask",
            reason=f"the dice taken out ({shown}) are not a legal set-aside",
            proposal={"kind": "set_aside", "set_aside": list(removed)},
        )
    if expect.last_event == "rally":
        return Verdict(
            "ask",
            reason="Rally: double the set-aside or take a Magic Item?",
            proposal={"kind": "rally", "set_aside": list(removed)},
        )
    return Verdict("apply", steps=({"set_aside": list(removed)},))
