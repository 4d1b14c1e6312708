"""What the table accepts: every setup and step is checked here, completely, before the
engine plays it and long before it is stored.

The rules engine decides what is legal now; this module decides what is well formed at
all: known keys only, the right type for every field, sizes a phone can show (names at
most 24 characters, a comment at most 200), numbers in the game's range, colours the
LEDs can light, no control or invisible characters in names. One place, so nothing a
later restart or a listener would choke on can reach the database.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from companion.controller.errors import TableError
from companion.rules.engine import FIELDS
from companion.rules.state import EVENT_FACES, Action

NAME_MAX = 24  # a player's name: fits a phone's row and the LED legend
CARD_MAX = 40  # a card's name as printed ("Lucky Dragon's Tooth" is 20)
COMMENT_MAX = 200
SOLDIERS_MAX = 50_000  # an army, an adjustment or a Soldier-table value (the Keep is at 5,000)
SETUP_KEYS = ("players", "armies", "companions", "items", "in_keep", "colors", "table",
              "dragon_health")
# The kinds of step and the fields each may carry are the engine's (its order decides a
# step's kind: a card use or an adjustment may carry a "roll" of one die).
STEP_KINDS = tuple(FIELDS)
KIND_FIELDS: dict[str, frozenset[str]] = {kind: frozenset(f) for kind, f in FIELDS.items()}
COMMON = frozenset({"player", "comment"})
# The fields each adjustment and card use reads (companion/rules/adjust.py, cards.py):
# anything else would be stored and shown but mean nothing, so it is refused.
ADJUST_FIELDS: dict[str, frozenset[str]] = {
    "soldiers": frozenset({"amount"}),
    "move_soldiers": frozenset({"from", "to", "amount"}),
    "reroll_die": frozenset({"die", "roll"}),
    "ignore_farkle": frozenset(),
    "ignore_dragon": frozenset(),
    "gain_item": frozenset({"item"}),
    "discard_item": frozenset({"item"}),
}
USE_FIELDS: dict[str, frozenset[str]] = {
    "ugh": frozenset({"roll"}),
    "sidia": frozenset({"predict", "roll"}),
    "hiccup": frozenset({"die", "roll"}),
    "tabby": frozenset(),
    "lucky_dragons_tooth": frozenset(),
}
KIND_WORDS = {"use": "card use", "adjust": "adjustment", "keep": "choice of Magic Items",
              "new_companion": "new Companion", "set_aside": "set-aside", "action": "action",
              "roll": "roll"}
ACTIONS = (*(a.value for a in Action), "roll", "stop")  # the engine's, and a turn's own two
# Characters that show nothing but are letters to Unicode (Hangul fillers, the
# combining grapheme joiner, the Braille blank): as invisible as a zero-width space.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f\u2800\u180e")


def check_setup(setup: Any) -> dict[str, Any]:
    """A game setup, checked field by field (the engine then checks the rules' side)."""
    if not isinstance(setup, dict):
        raise TableError("The game setup must be a JSON object with a list of players.")
    _known(setup, SETUP_KEYS, "The game setup")
    players = setup.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 5:
        raise TableError("A game needs 'players': a list of 2 to 5 names in seat order.")
    names = [check_name(name) for name in players]
    _distinct(names)
    _per_player(setup, "armies", names, _army)
    _per_player(setup, "companions", names, lambda v, who: v if v is None else
                check_text(v, f"{who}'s Companion", CARD_MAX))
    _per_player(setup, "items", names, _items)
    _per_player(setup, "colors", names, _color)
    keep = setup.get("in_keep")
    if keep is not None and not (isinstance(keep, list) and all(k in names for k in keep)):
        raise TableError("'in_keep' must be a list of player names from 'players'.")
    if "table" in setup:
        _table(setup["table"])
    health = setup.get("dragon_health", 3)
    if not _whole(health) or health not in (3, 4, 5):
        raise TableError("'dragon_health' is 3, or 4 or 5 for the Dragon of Legend.")
    return setup


def check_step(step: Any) -> dict[str, Any]:
    """One step of a game record (docs/records.md), checked field by field; the engine then
    says whether it is legal now."""
    if not isinstance(step, dict):
        raise TableError('A step must be a JSON object such as {"action": "recruit"}.')
    if "expect" in step:
        raise TableError("'expect' is a checkpoint for game records, not a move.")
    if "illegal" in step:
        raise TableError("A step marked illegal is for records only.")
    kind = step_kind(step)
    if kind is None:
        raise TableError("Unknown step: a step is one of action, roll, set_aside, use, adjust, "
                         'keep or new_companion (for example {"action": "stop"}).')
    _known(step, _fields(kind, step), f"This {KIND_WORDS[kind]}")
    for key, value in step.items():
        check = _ROLL_FIELD if key == "roll" and kind == "roll" else _FIELD_CHECKS[key]
        check(value)
    return step


def check_settings(changes: Any, known: Mapping[str, Any]) -> dict[str, bool]:
    """Table settings to change: known names, each true or false."""
    if not isinstance(changes, dict) or not changes:
        raise TableError('Send the settings to change as a JSON object, e.g. {"advisor": false}.')
    for key, value in changes.items():
        if key not in known:
            raise TableError(f"Unknown setting {_shown(key)}; the table knows: {', '.join(known)}.")
        if not isinstance(value, bool):
            raise TableError(f"The setting {key!r} is true or false.")
    return changes


def step_kind(step: dict[str, Any]) -> str | None:
    """Which kind of step this is: the first of STEP_KINDS it has, as the engine decides;
    None for none (the engine's `step_kind` raises instead)."""
    return next((k for k in STEP_KINDS if k in step), None)


def check_name(value: Any, what: str = "A player's name") -> str:
    """A player's name: 1 to 24 characters, no control or invisible ones, no space at the
    ends (names that look the same must be the same name)."""
    text = check_text(value, what, NAME_MAX)
    if text != text.strip():
        raise TableError(f"{what} {_shown(text)} starts or ends with a space: type it without.")
    return text


def check_text(value: Any, what: str, limit: int) -> str:
    """A short text someone typed (a name, a card): at most `limit` characters, none of
    them a control or invisible character."""
    if not isinstance(value, str) or not value.strip():
        raise TableError(f"{what} must be a text of 1 to {limit} characters.")
    if len(value) > limit:
        raise TableError(f"{what} {_shown(value)} is too long: at most {limit} characters.")
    bad = next((c for c in value if _invisible(c)), None)
    if bad is not None:
        raise TableError(f"{what} {_shown(value)} contains an invisible or control character "
                         f"(U+{ord(bad):04X}): type it again without it.")
    return value


def same_name(name: str) -> str:
    """What a name looks like at the table: the same letters whatever their case, width
    or spacing (and without emoji variation selectors)."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in text if not 0xFE00 <= ord(c) <= 0xFE0F)
    return " ".join(text.split())


def _invisible(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] == "C" or category in ("Zl", "Zp") or char in INVISIBLE


def _shown(text: str) -> str:
    """A typed text quoted for a message: short, with invisible characters made visible."""
    short = text if len(text) <= 30 else text[:30] + "..."
    return ascii(short) if any(_invisible(c) for c in short) else repr(short)


def _known(obj: Mapping[str, Any], allowed: Any, what: str) -> None:
    unknown = sorted(str(k) for k in obj if k not in allowed)
    if unknown:
        listed = ", ".join(_shown(k) for k in unknown[:5])
        raise TableError(f"{what} has fields the game does not know: {listed}.")


def _distinct(names: list[str]) -> None:
    seen: dict[str, str] = {}
    for name in names:
        other = seen.get(same_name(name))
        if other is not None:
            twins = (f"{_shown(other)} and {_shown(name)} look the same" if other != name
                     else f"two players are called {_shown(name)}")
            raise TableError(f"Give each player a different name: {twins}.")
        seen[same_name(name)] = name


def _per_player(setup: dict[str, Any], key: str, names: list[str],
                check: Callable[[Any, str], Any]) -> None:
    value = setup.get(key)
    if value is None:
        return
    if not isinstance(value, dict):
        raise TableError(f"'{key}' must be an object from player name to value.")
    for name, item in value.items():
        if name not in names:
            raise TableError(f"'{key}' names {_shown(name)}, who is not in 'players'.")
        check(item, name)


def _army(value: Any, who: str) -> int:
    if not _whole(value) or not 0 <= value <= SOLDIERS_MAX or value % 50:
        raise TableError(f"{who}'s army must be 0 or a multiple of 50 up to {SOLDIERS_MAX:,}.")
    return int(value)


def _items(value: Any, who: str) -> None:
    listed = [value] if isinstance(value, str) else value
    if not isinstance(listed, list) or len(listed) > 6:
        raise TableError(f"{who}'s items must be a list of at most 6 Magic Item names.")
    for item in listed:
        check_text(item, f"{who}'s Magic Item", CARD_MAX)


def _color(value: Any, who: str) -> None:
    from companion.ledview import parse_color

    try:
        parse_color(value, who=f"{who}'s dice colour")
    except ValueError as err:
        raise TableError(f"{err}.") from None


def _table(value: Any) -> None:
    """A Soldier table: a known name, or a small object of whole numbers (the engine checks
    its keys and that every value is a multiple of 50)."""
    if value is None:
        return
    if isinstance(value, str):
        check_text(value, "The Soldier table's name", NAME_MAX)
        return
    if not isinstance(value, dict) or len(value) > 16:
        raise TableError("'table' is a Soldier table's name or an object of its scoring values.")
    for key, entry in value.items():
        inner = list(entry.values()) if isinstance(entry, dict) else entry
        inner = inner if isinstance(inner, list) else [inner]
        if len(inner) > 6:
            raise TableError(f"The Soldier table's {_shown(str(key))} has one value per face, 1 to 6.")
        for number in inner:
            if isinstance(number, str):
                check_text(number, "The Soldier table's name", NAME_MAX)
            elif not (number is None or isinstance(number, bool) or (
                    _whole(number) and 0 <= number <= SOLDIERS_MAX)):
                raise TableError(f"The Soldier table's {_shown(str(key))} must be whole numbers "
                                 f"of soldiers from 0 to {SOLDIERS_MAX:,}.")


def _fields(kind: str, step: dict[str, Any]) -> frozenset[str]:
    """The keys a step of this kind may carry (an adjustment's or card's own, when known)."""
    if kind == "adjust" and isinstance(step["adjust"], str) and step["adjust"] in ADJUST_FIELDS:
        return ADJUST_FIELDS[step["adjust"]] | {"adjust", "card"} | COMMON
    if kind == "use" and isinstance(step["use"], str):
        from companion.rules import card_id

        own = USE_FIELDS.get(card_id(step["use"]))
        if own is not None:
            return own | {"use"} | COMMON
    return KIND_FIELDS[kind] | COMMON


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _face(value: Any) -> bool:
    return _whole(value) and 1 <= value <= 6


def _rule(ok: Callable[[Any], bool], message: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if not ok(value):
            raise TableError(message)
    return check


def _optional_name(value: Any) -> None:
    if value is not None:
        check_name(value, "The player named")


def _optional_card(value: Any) -> None:
    if value is not None:
        check_text(value, "The card's name", CARD_MAX)


def _action(value: Any) -> None:
    if value not in ACTIONS:
        shown = _shown(value) if isinstance(value, str) else "That"
        raise TableError(f"{shown} is not an action; use recruit, brawl, final_battle, roll or stop.")


def _keep(value: Any) -> None:
    kept = [value] if isinstance(value, str) else value
    if not isinstance(kept, list) or len(kept) > 6:
        raise TableError("Say which Magic Items to keep, as a list of card names.")
    for card in kept:
        check_text(card, "A Magic Item kept", CARD_MAX)


def _comment(value: Any) -> None:
    if value is None:
        return
    if not isinstance(value, str) or len(value) > COMMENT_MAX:
        raise TableError(f"A comment is a text of at most {COMMENT_MAX} characters.")
    if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in value):
        raise TableError("A comment cannot hold control characters: type it again.")


_ROLL_FIELD = _rule(lambda v: isinstance(v, list) and len(v) <= 6 and all(map(_face, v)),
                    "A roll lists the soldier dice faces, each a whole number 1 to 6.")
_FIELD_CHECKS: dict[str, Callable[[Any], None]] = {
    "action": _action,
    "target": _optional_name,
    "player": _optional_name,
    "from": _optional_name,
    "to": _optional_name,
    "event": _rule(lambda v: v in EVENT_FACES, "The Event die shows blank, dragon or rally."),
    "set_aside": _rule(lambda v: isinstance(v, list) and 1 <= len(v) <= 6 and all(map(_face, v)),
                       "Say which dice to set aside as a list of faces 1 to 6, for example [1, 5]."),
    "rally": _rule(lambda v: v in (None, "double", "item"),
                   'After a Rally, choose "double" the roll or take a Magic Item ("item").'),
    "card": _optional_card,
    "item": _optional_card,
    "use": lambda v: check_text(v, "The card to use", CARD_MAX),
    "new_companion": lambda v: check_text(v, "The Companion drawn", CARD_MAX),
    "keep": _keep,
    "roll": _rule(lambda v: _face(v) or v in EVENT_FACES,
                  "The die rolled for the card is a whole number 1 to 6 (blank, dragon or "
                  "rally for the Event die)."),
    "predict": _rule(_face, "Sidia names a number first: \"predict\" is a whole number 1 to 6."),
    "die": _rule(lambda v: _face(v) or v == "event",
                 'The die to re-roll is a face 1 to 6 of the last roll, or "event".'),
    "adjust": _rule(lambda v: isinstance(v, str) and v in ADJUST_FIELDS,
                    "Unknown adjustment; choose one of: " + ", ".join(ADJUST_FIELDS) + "."),
    "amount": _rule(lambda v: _whole(v) and -SOLDIERS_MAX <= v <= SOLDIERS_MAX,
                    f"The adjustment's \"amount\" is a number of soldiers, a multiple of 50 "
                    f"from -{SOLDIERS_MAX:,} to {SOLDIERS_MAX:,}."),
    "comment": _comment,
}
