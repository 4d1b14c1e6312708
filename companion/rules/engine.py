"""`apply(state, step)`: check a step of a game record (docs/records.md) against the phase and dispatch it.

Every refusal raises `IllegalMove` with a sentence for the players; the state passed
in is frozen, so a refused step leaves the game exactly as it was.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from companion.rules import turns
from companion.rules.adjust import adjust
from companion.rules.cards import use_card
from companion.rules.errors import IllegalMove
from companion.rules.state import Action, Event, GameState, Phase

COMMON = {"illegal", "comment", "player"}
FIELDS = {
    "use": {"use", "roll", "predict", "die"},
    "adjust": {"adjust", "card", "amount", "from", "to", "die", "roll", "item"},
    "keep": {"keep"},
    "new_companion": {"new_companion"},
    "set_aside": {"set_aside", "rally", "card"},
    "action": {"action", "target"},
    "roll": {"roll", "event"},
}
REWRITES = {"hiccup", "tabby", "lucky_dragons_tooth", "reroll_die", "ignore_farkle", "ignore_dragon"}


def step_kind(step: Mapping[str, Any]) -> str:
    """Which kind of step this is (the first key of FIELDS it has)."""
    if "expect" in step:
        raise IllegalMove("An \"expect\" step is a checkpoint for game records, not a move.")
    for kind in FIELDS:
        if kind in step:
            return kind
    raise IllegalMove("A step is an action, a roll, a set-aside, a card use or an adjustment; this is none of them.")


def apply(state: GameState, step: Mapping[str, Any]) -> tuple[GameState, tuple[Event, ...]]:
    """The state after one step and the events it caused; raises IllegalMove and changes nothing if illegal."""
    if not isinstance(step, Mapping):
        raise IllegalMove("A step must be an object such as {\"action\": \"recruit\"}.")
    kind = step_kind(step)
    unknown = sorted(set(step) - FIELDS[kind] - COMMON)
    if unknown:
        raise IllegalMove(f"This {kind.replace('_', ' ')} step has fields the game does not know: {', '.join(unknown)}.")
    if state.phase is Phase.GAME_OVER:
        raise IllegalMove(f"The game is over: {state.names[state.winner or 0]} has defeated the dragon.")
    if kind not in ("use", "adjust"):
        _check_player(state, step.get("player"))
    new, events = _dispatch(state, kind, dict(step))
    rewrite = kind == "roll" or str(step.get("use") or step.get("adjust") or "") in REWRITES
    record = {k: v for k, v in step.items() if k != "illegal"}
    new = replace(
        new,
        history=(*state.history, record),
        adjustments=new.adjustments if kind == "adjust" else state.adjustments,
        roll_base=new.roll_base if rewrite else None,
    )
    return new, tuple(events)


def _check_player(state: GameState, player: object) -> None:
    if player is None:
        return
    awaited = state.names[state.awaited]
    if player != awaited:
        raise IllegalMove(f"It is {awaited}'s move now, not {player}'s.")


def _dispatch(state: GameState, kind: str, step: dict[str, Any]) -> turns.Result:
    if kind == "use":
        return use_card(state, step)
    if kind == "adjust":
        return adjust(state, step)
    name = state.names[state.awaited]
    if state.phase is Phase.KEEP_ITEMS:
        if kind != "keep":
            raise IllegalMove(f"{name} first chooses which Magic Item to keep.")
        return turns.keep_items(state, step["keep"])
    if state.phase is Phase.NEW_COMPANION:
        if kind != "new_companion":
            raise IllegalMove(f"{name} was reincarnated: first name the new Companion drawn.")
        return turns.new_companion(state, step["new_companion"])
    if kind == "keep":
        raise IllegalMove(f"Nobody is choosing Magic Items to keep now; {_waiting(state)}.")
    if kind == "new_companion":
        raise IllegalMove(f"Nobody is drawing a new Companion now; {_waiting(state)}.")
    if kind == "action":
        return _action(state, step)
    if kind == "roll":
        return _roll(state, step)
    if state.phase is not Phase.SET_ASIDE:
        raise IllegalMove(f"There is nothing to set aside now; {_waiting(state)}.")
    return turns.set_aside(state, step["set_aside"], step.get("rally"), step.get("card"))


def _action(state: GameState, step: dict[str, Any]) -> turns.Result:
    action = step["action"]
    name = state.names[state.awaited]
    if action in (Action.RECRUIT, Action.BRAWL, Action.FINAL_BATTLE):
        if state.phase is not Phase.CHOOSE_ACTION:
            raise IllegalMove(f"{name}'s action for this turn is already chosen; {_waiting(state)}.")
        return turns.choose_action(state, action, step.get("target"))
    if action not in ("roll", "stop"):
        raise IllegalMove(f"{action!r} is not an action; use recruit, brawl, final_battle, roll or stop.")
    if state.phase is Phase.DECIDE:
        return turns.continue_rolling(state) if action == "roll" else turns.stop(state)
    if state.turn.action is Action.FINAL_BATTLE and action == "stop":
        raise IllegalMove(f"In the Final Battle {name} cannot stop: the rolling goes on until the dragon "
                          "is defeated, a Farkle, or the army is gone.")
    raise IllegalMove(f"{name} cannot {action} now; {_waiting(state)}.")


def _roll(state: GameState, step: dict[str, Any]) -> turns.Result:
    if state.phase is Phase.DECIDE:
        state, _ = turns.continue_rolling(state)
    if state.phase is not Phase.ROLL:
        raise IllegalMove(f"No roll is expected now; {_waiting(state)}.")
    faces, event = turns.check_roll(state, step["roll"], step.get("event"))
    return turns.roll(state, faces, event)


def _waiting(state: GameState) -> str:
    from companion.rules.view import prompt

    text = prompt(state)
    return text.rstrip(".")
