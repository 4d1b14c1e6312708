"""Audited table adjustments: what a card whose text is not known did, typed in by the table.

Each is a step `{"adjust": KIND, "card": "name as typed", ...}`; it is kept in the game
history and in `state.adjustments` with the card's name exactly as typed, and undone
like any other step (the controller replays the steps without it).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.rules.cards import change_die, ignore_farkle, rescore
from companion.rules.errors import IllegalMove
from companion.rules.scoring import scoring_all
from companion.rules.state import UNKNOWN_ITEM, Event, GameState, Phase, card_id

Result = tuple[GameState, list[Event]]
Adjuster = Callable[[GameState, dict[str, Any]], tuple[GameState, dict[str, Any]]]
ADJUSTMENTS: dict[str, Adjuster] = {}


def adjustment(kind: str) -> Callable[[Adjuster], Adjuster]:
    def register(fn: Adjuster) -> Adjuster:
        ADJUSTMENTS[kind] = fn
        return fn
    return register


def adjust(state: GameState, step: dict[str, Any]) -> Result:
    """Apply one table adjustment and record it with the card's name as typed."""
    kind = step.get("adjust")
    if kind not in ADJUSTMENTS:
        raise IllegalMove(f"Unknown adjustment {kind!r}; choose one of: {', '.join(ADJUSTMENTS)}.")
    typed = step.get("card")
    if not isinstance(typed, str) or not typed.strip():
        raise IllegalMove("Say which card caused the adjustment: \"card\" is its name as printed.")
    if state.phase is Phase.GAME_OVER:
        raise IllegalMove("The game is over: no more adjustments.")
    new, data = ADJUSTMENTS[kind](state, step)
    record = {"card": typed, "kind": kind, **data}
    new = replace(new, adjustments=(*state.adjustments, record))
    who = data.get("player") or state.names[state.awaited]
    return new, [Event("adjustment", who, record)]


def _player(state: GameState, step: dict[str, Any], key: str = "player") -> int:
    name = step.get(key, state.names[state.awaited] if key == "player" else None)
    seat = state.seat_of(name) if isinstance(name, str) else None
    if seat is None:
        raise IllegalMove(f"The adjustment needs \"{key}\": the name of a player at this table.")
    return seat


def _amount(step: dict[str, Any], *, positive: bool) -> int:
    value = step.get("amount")
    if isinstance(value, bool) or not isinstance(value, int) or value == 0 or value % 50:
        raise IllegalMove("The adjustment's \"amount\" is a number of soldiers: a multiple of 50, not 0.")
    if positive and value < 0:
        raise IllegalMove("Soldiers moved between armies are a positive amount.")
    return value


@adjustment("soldiers")
def _soldiers(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    seat = _player(state, step)
    amount = _amount(step, positive=False)
    army = state.seats[seat].army + amount
    if army < 0:
        raise IllegalMove(f"{state.names[seat]} has only {state.seats[seat].army:,} soldiers to remove.")
    return state.with_seat(seat, army=army), {"player": state.names[seat], "amount": amount}


@adjustment("move_soldiers")
def _move(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    src, dst = _player(state, step, "from"), _player(state, step, "to")
    if src == dst:
        raise IllegalMove("Soldiers move from one army to a different one.")
    amount = _amount(step, positive=True)
    if amount > state.seats[src].army:
        raise IllegalMove(f"{state.names[src]} has only {state.seats[src].army:,} soldiers to give.")
    state = state.with_seat(src, army=state.seats[src].army - amount)
    state = state.with_seat(dst, army=state.seats[dst].army + amount)
    return state, {"from": state.names[src], "to": state.names[dst], "amount": amount}


def _base(state: GameState) -> GameState:
    if state.roll_base is None or state.turn.last_roll is None:
        raise IllegalMove("This adjustment changes the roll just made, before anything else happens.")
    return state.roll_base


@adjustment("reroll_die")
def _reroll(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    new, _ = change_die(state, _base(state), step.get("die"), step.get("roll"), "The re-roll")
    return new, {"die": step.get("die"), "roll": step.get("roll")}


@adjustment("ignore_farkle")
def _ignore_farkle(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    new, _ = ignore_farkle(state, _base(state))
    return new, {"player": new.names[new.turn.roller]}


@adjustment("ignore_dragon")
def _ignore_dragon(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    base = _base(state)
    if state.turn.last_event != "dragon" or state.turn.dragon_ignored:
        raise IllegalMove("The last roll shows no Dragon to ignore.")
    if scoring_all(state.turn.last_roll or (), state.rules.table) is None and not _in_battle(base):
        raise IllegalMove("The Dragon ate nothing this roll: ignoring it would only make it a Farkle.")
    new, _ = rescore(state, base, tuple(state.turn.last_roll or ()), "dragon", True)
    return new, {"player": base.names[base.turn.roller]}


def _in_battle(state: GameState) -> bool:
    return state.turn.action is not None and state.turn.action.value == "final_battle"


@adjustment("discard_item")
def _discard(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    seat = _player(state, step)
    item = card_id(str(step.get("item") or UNKNOWN_ITEM))
    items = list(state.seats[seat].items)
    if item not in items:
        raise IllegalMove(f"{state.names[seat]} holds no {item}.")
    items.remove(item)
    return state.with_seat(seat, items=tuple(items)), {"player": state.names[seat], "item": item}


@adjustment("gain_item")
def _gain(state: GameState, step: dict[str, Any]) -> tuple[GameState, dict[str, Any]]:
    seat = _player(state, step)
    item = card_id(str(step.get("item") or UNKNOWN_ITEM))
    items = (*state.seats[seat].items, item)
    return state.with_seat(seat, items=items), {"player": state.names[seat], "item": item}
