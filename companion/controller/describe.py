"""Plain-language lines for the game history, from a step and the events it caused."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

EVENT_WORDS: dict[str, str] = {
    "farkle": "Farkle!",
    "dragon_ate": "the Dragon ate the scoring dice",
    "dragon_evaded": "no scoring dice, but the Dragon saves the turn",
    "rally_double": "Rally: doubled",
    "item_gained": "gained a Magic Item",
    "hot_dice": "hot dice: all six again",
    "banked": "banked",
    "brawl_won": "won the Brawl",
    "brawl_tie": "the Brawl is a tie",
    "damage": "dragon damage",
    "entered_keep": "entered the Dragon's Keep",
    "left_keep": "left the Dragon's Keep",
    "army_wiped": "army wiped out",
    "reincarnated": "returns with a new Companion",
    "won": "defeats the dragon and wins the game!",
    "card_used": "used a card",
    "adjustment": "table adjustment",
}

ACTION_WORDS = {
    "recruit": "chose Recruit",
    "final_battle": "marched on the Dragon (Final Battle)",
    "roll": "rolls again",
    "stop": "stops",
}


def card_name(card_id: str) -> str:
    """'lucky_dragons_tooth' -> "Lucky Dragons Tooth" (good enough for a history line)."""
    return str(card_id).replace("_", " ").title()


def describe_step(step: dict[str, Any], player: str | None) -> str:
    """One short sentence for a step, naming who did it. The step's kind is found in the
    engine's order: a card use or adjustment may carry a "roll" of one die."""
    who = player or "Someone"
    if "use" in step:
        extra = ", ".join(f"{k} {v}" for k, v in step.items() if k != "use")
        return f"{who} used {card_name(step['use'])}" + (f" ({extra})" if extra else "")
    if "adjust" in step:
        extra = ", ".join(f"{k} {v}" for k, v in step.items() if k not in ("adjust", "card"))
        return (f"Table adjustment for {step.get('card', 'a card')}: "
                f"{str(step['adjust']).replace('_', ' ')}" + (f" ({extra})" if extra else ""))
    if "keep" in step:
        chosen = [step["keep"]] if isinstance(step["keep"], str) else step["keep"] or []
        kept = ", ".join(card_name(c) for c in chosen) or "no Magic Item"
        return f"{who} keeps {kept}"
    if "new_companion" in step:
        return f"{who} returns with {card_name(step['new_companion'])}"
    if "set_aside" in step:
        faces = " ".join(str(f) for f in step["set_aside"])
        rally = {"double": " and doubled it", "item": " and took a Magic Item"}.get(
            str(step.get("rally")), ""
        )
        return f"{who} set aside {faces}{rally}"
    if "action" not in step and "roll" in step:
        faces = " ".join(str(f) for f in step["roll"])
        return f"{who} rolled {faces} + {step.get('event', '?')}"
    action = step.get("action")
    if action == "brawl":
        return f"{who} picked a Brawl with {step.get('target')}"
    return f"{who} {ACTION_WORDS.get(str(action), str(action))}"


def event_amount(data: dict[str, Any]) -> str:
    for key in ("soldiers", "amount", "value", "total", "damage"):
        if isinstance(data.get(key), int | float):
            return f" ({data[key]:+,})" if key != "damage" else f" ({data[key]})"
    return ""


def describe_events(events: Iterable[Any], actor: str | None = None) -> list[str]:
    """Short phrases for engine events (objects with kind, player, data); an event about
    someone other than `actor` (who made the step) names them."""
    out = []
    for event in events:
        kind = getattr(event, "kind", str(event))
        data = getattr(event, "data", None) or {}
        player = getattr(event, "player", None)
        if kind == "set_aside" and isinstance(data.get("soldiers"), int):
            out.append(f"+{data['soldiers']:,} soldiers this turn")
            continue
        words = EVENT_WORDS.get(kind, kind.replace("_", " "))
        prefix = f"{player} " if player and player != actor else ""
        amount = "" if kind == "won" else event_amount(data)
        out.append(prefix + words + amount)
    return out
