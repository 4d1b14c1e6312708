"""Read-only views of a state: the records' checkpoints (docs/records.md), the UI snapshot, legal steps, the prompt."""
from __future__ import annotations

import copy
from itertools import combinations
from typing import Any

from companion.rules.cards import CARD_NAMES
from companion.rules.state import Action, GameState, Phase
from companion.rules.turns import keep_threshold


def checkpoint(state: GameState) -> dict[str, Any]:
    """Every checkpoint key of a game record (docs/records.md) for this state."""
    turn = state.turn
    return {
        "player": state.names[state.awaited],
        "phase": state.phase.value,
        "army": {s.name: s.army for s in state.seats},
        "turn_total": turn.turn_total,
        "dice_in_hand": turn.dice_in_hand,
        "options": [list(o.dice) for o in turn.options],
        "farkle": turn.farkle,
        "damage": turn.damage,
        "in_keep": [s.name for s in state.seats if s.in_keep],
        "items": {s.name: len(s.items) for s in state.seats},
        "winner": None if state.winner is None else state.names[state.winner],
    }


def snapshot(state: GameState) -> dict[str, Any]:
    """Checkpoint keys plus what a UI needs; JSON-serialisable."""
    turn = state.turn
    brawl = None
    if turn.action is Action.BRAWL and turn.defender is not None:
        brawl = {
            "attacker": state.names[state.current],
            "defender": state.names[turn.defender],
            "attacker_score": turn.attacker_score,
        }
    out = checkpoint(state)
    out.update({
        "players": list(state.names),
        "current": state.names[state.current],
        "roller": state.names[turn.roller],
        "action": None if turn.action is None else turn.action.value,
        "brawl": brawl,
        "last_roll": None if turn.last_roll is None else list(turn.last_roll),
        "last_event": turn.last_event,
        "dragon_ignored": turn.dragon_ignored,
        "option_values": [o.to_json() for o in turn.options],
        "dragon_health": state.rules.dragon_health,
        "table": state.rules.table.name,
        "companions": {s.name: s.companion for s in state.seats},
        "held_items": {s.name: list(s.items) for s in state.seats},
        "keep_threshold": {s.name: keep_threshold(state, i) for i, s in enumerate(state.seats)},
        "choice": None if state.choice is None else {
            "player": state.names[state.choice.seat], "pool": list(state.choice.pool),
            "keep": state.choice.keep, "reason": state.choice.reason,
        },
        "adjustments": [dict(a) for a in state.adjustments],
        "legal_steps": legal_steps(state),
        "prompt": prompt(state),
        "steps": len(state.history),
        "setup": copy.deepcopy(state.setup),
    })
    return out


def legal_steps(state: GameState) -> list[dict[str, Any]]:
    """The non-roll steps legal now. Card uses that need a die roll carry `"needs": [...]` fields to fill."""
    phase = state.phase
    steps: list[dict[str, Any]] = []
    if phase is Phase.CHOOSE_ACTION:
        steps = _action_steps(state)
    elif phase is Phase.SET_ASIDE:
        rallies = ("double", "item") if state.turn.last_event == "rally" else (None,)
        for option in state.turn.options:
            for rally in rallies:
                step: dict[str, Any] = {"set_aside": list(option.dice)}
                if rally:
                    step["rally"] = rally
                steps.append(step)
    elif phase is Phase.DECIDE:
        steps = [{"action": "roll"}, {"action": "stop"}]
    elif phase is Phase.KEEP_ITEMS and state.choice is not None:
        pool = state.choice.pool
        kept = {tuple(sorted(c)) for c in combinations(pool, min(state.choice.keep, len(pool)))}
        steps = [{"keep": list(c)} for c in sorted(kept)]
    elif phase is Phase.NEW_COMPANION:
        steps = [{"new_companion": None, "needs": ["new_companion"]}]
    return steps + _card_steps(state)


def _action_steps(state: GameState) -> list[dict[str, Any]]:
    me = state.current
    steps: list[dict[str, Any]] = [{"action": "recruit"}]
    for i, seat in enumerate(state.seats):
        if i != me and not seat.in_keep:
            steps.append({"action": "brawl", "target": seat.name})
    seat = state.seats[me]
    if seat.in_keep or seat.army >= keep_threshold(state, me):
        steps.append({"action": "final_battle"})
    return steps


def _card_steps(state: GameState) -> list[dict[str, Any]]:
    """Card uses that the engine would accept now (probed, so this never disagrees with `apply`)."""
    from companion.rules.engine import apply
    from companion.rules.errors import IllegalMove

    out: list[dict[str, Any]] = []
    for i, seat in enumerate(state.seats):
        for cid in (seat.companion, *dict.fromkeys(seat.items)):
            if cid not in CARD_NAMES:
                continue
            for probe, needs in _probes(state, cid):
                step = {"use": cid, "player": seat.name, **probe}
                try:
                    apply(state, step)
                except IllegalMove:
                    continue
                if needs:
                    step = {"use": cid, "player": seat.name, "needs": needs}
                out.append(step)
                break
    return out


def _probes(state: GameState, cid: str) -> list[tuple[dict[str, Any], list[str]]]:
    if cid == "ugh":
        return [({"roll": 1}, ["roll"])]
    if cid == "sidia":
        return [({"predict": 1, "roll": 1}, ["predict", "roll"])]
    if cid == "hiccup":
        faces = state.turn.last_roll or ()
        return [({"die": faces[0], "roll": faces[0]}, ["die", "roll"])] if faces else []
    if cid in ("tabby", "lucky_dragons_tooth"):
        return [({}, [])]
    return []


def prompt(state: GameState) -> str:
    """One sentence: what is awaited from whom."""
    name = state.names[state.awaited]
    turn = state.turn
    phase = state.phase
    if phase is Phase.GAME_OVER:
        return f"{name} has defeated the dragon and won the game."
    if phase is Phase.CHOOSE_ACTION:
        return f"{name} chooses this turn's action: Recruit, Brawl or Final Battle."
    if phase is Phase.NEW_COMPANION:
        return f"{name} comes back from the Keep: draw a new Companion and name it."
    if phase is Phase.KEEP_ITEMS and state.choice is not None:
        return f"{name} chooses which Magic Item to keep (at most {state.choice.keep})."
    dice = f"{turn.dice_in_hand} soldier {'die' if turn.dice_in_hand == 1 else 'dice'}"
    if phase is Phase.ROLL:
        where = _where(state)
        return f"{name} rolls {dice} and the Event die{where}."
    if phase is Phase.SET_ASIDE:
        extra = ", then doubles or takes a Magic Item" if turn.last_event == "rally" else ""
        return f"{name} sets aside at least one scoring die{extra}."
    total = f"{turn.turn_total:,}"
    return f"{name} rolls {dice} again or stops with {total}."


def _where(state: GameState) -> str:
    turn = state.turn
    if turn.action is Action.FINAL_BATTLE:
        return f" in the Final Battle (damage {turn.damage} of {state.rules.dragon_health})"
    if turn.action is Action.BRAWL and turn.attacker_score is not None:
        return f" to defend against {turn.attacker_score:,}"
    return ""
