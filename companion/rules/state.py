"""The game state: frozen dataclasses of tuples, built from a record's `setup` object."""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from companion.rules.errors import SetupError, TableError
from companion.rules.tables import SoldierTable, get_table, load_table


class Phase(StrEnum):
    """What the game waits for (the checkpoint key `phase` of docs/records.md)."""

    CHOOSE_ACTION = "choose_action"
    ROLL = "roll"
    SET_ASIDE = "set_aside"
    DECIDE = "decide"
    KEEP_ITEMS = "keep_items"          # a player chooses which Magic Items to keep
    NEW_COMPANION = "new_companion"    # a reincarnated player names the Companion drawn
    GAME_OVER = "game_over"


class Action(StrEnum):
    RECRUIT = "recruit"
    BRAWL = "brawl"
    FINAL_BATTLE = "final_battle"


EVENT_FACES = ("blank", "dragon", "rally")
UNKNOWN_ITEM = "magic_item"
KNOWN_CARDS = ("hiccup", "ugh", "sidia", "tabby", "skree", "lucky_dragons_tooth", "sack_of_holding")


@dataclass(frozen=True)
class Rules:
    """Every number of a variant as data: table, dragon health, Keep threshold, Brawl and item rules."""

    table: SoldierTable
    dragon_health: int = 3
    keep_threshold: int = 5000
    brawl_bonus: int = 500
    attacker_dice: int = 6
    defender_dice: int = 5
    item_limit: int = 1


@dataclass(frozen=True)
class Seat:
    """One player: name, army, face-up Companion (or None), Magic Items held, inside the Keep or not."""

    name: str
    army: int = 0
    companion: str | None = None
    items: tuple[str, ...] = ()
    in_keep: bool = False


@dataclass(frozen=True)
class Turn:
    """The turn in progress: the action, who rolls, this side's total, dice, the last roll."""

    action: Action | None = None
    roller: int = 0
    turn_total: int = 0
    dice_in_hand: int = 6
    gained: tuple[str, ...] = ()            # Magic Items gained by the roller this turn/side
    defender: int | None = None
    attacker_score: int | None = None
    attacker_gained: tuple[str, ...] = ()
    damage: int = 0
    used: tuple[str, ...] = ()              # "seat:card" used this turn (once-per-turn cards)
    last_roll: tuple[int, ...] | None = None
    last_event: str | None = None
    dragon_ignored: bool = False            # Tabby / adjustment: the last roll's Dragon counted as blank
    options: tuple[Any, ...] = ()
    farkle: bool = False


@dataclass(frozen=True)
class Choice:
    """A pending choice of Magic Items: `seat` keeps at most `keep` of `pool`."""

    seat: int
    pool: tuple[str, ...]
    keep: int
    reason: str  # "brawl" (one item gained in the Brawl) or "limit" (end-of-turn item limit)


@dataclass(frozen=True)
class Event:
    """Something a step caused, for the UI, LEDs and history: kind, player name, details."""

    kind: str
    player: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "data": dict(self.data)}


@dataclass(frozen=True)
class GameState:
    """The whole game at one moment. Never mutated: `apply` returns a new state."""

    rules: Rules
    seats: tuple[Seat, ...]
    current: int = 0
    phase: Phase = Phase.CHOOSE_ACTION
    turn: Turn = Turn()
    winner: int | None = None
    choice: Choice | None = None
    reincarnate: tuple[int, ...] = ()       # seats whose army was wiped in the Keep
    adjustments: tuple[dict[str, Any], ...] = ()
    history: tuple[dict[str, Any], ...] = ()
    setup: dict[str, Any] = field(default_factory=dict, compare=False)
    roll_base: GameState | None = field(default=None, repr=False)  # state before the last roll

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    def seat_of(self, name: str) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.name == name:
                return i
        return None

    def with_seat(self, i: int, **changes: Any) -> GameState:
        seats = list(self.seats)
        seats[i] = replace(seats[i], **changes)
        return replace(self, seats=tuple(seats))

    def with_turn(self, **changes: Any) -> GameState:
        return replace(self, turn=replace(self.turn, **changes))

    @property
    def awaited(self) -> int:
        """Seat of the player whose move or roll is awaited now."""
        if self.phase is Phase.KEEP_ITEMS and self.choice is not None:
            return self.choice.seat
        if self.phase in (Phase.ROLL, Phase.SET_ASIDE, Phase.DECIDE):
            return self.turn.roller
        if self.phase is Phase.GAME_OVER and self.winner is not None:
            return self.winner
        return self.current


def card_id(name: str) -> str:
    """A card's id from how a table typed it: "Lucky Dragon's Tooth" -> "lucky_dragons_tooth"."""
    cleaned = name.strip().lower().replace("'", "").replace("\u2019", "")
    return "_".join(cleaned.replace("-", " ").replace(",", " ").split())


def new_game(setup: Mapping[str, Any]) -> GameState:
    """A new game from a record's `setup` object; extra keys (such as "colors") are kept untouched."""
    if not isinstance(setup, Mapping):
        raise SetupError("The setup must be an object with at least a list of players.")
    names = _players(setup.get("players"))
    rules = Rules(table=_table(setup.get("table")), dragon_health=_health(setup.get("dragon_health", 3)))
    armies = _per_player(setup, "armies", names)
    companions = _per_player(setup, "companions", names)
    items = _per_player(setup, "items", names)
    keep = setup.get("in_keep") or []
    if not isinstance(keep, list) or any(k not in names for k in keep):
        raise SetupError("'in_keep' must be a list of player names from 'players'.")
    seats = tuple(
        Seat(
            name=name,
            army=_army(armies.get(name, 0), name),
            companion=_companion(companions.get(name), name),
            items=_items(items.get(name, []), name),
            in_keep=name in keep,
        )
        for name in names
    )
    state = GameState(rules=rules, seats=seats, setup=copy.deepcopy(dict(setup)))
    return replace(state, turn=Turn(roller=0, dice_in_hand=rules.attacker_dice))


def _players(value: Any) -> list[str]:
    if not isinstance(value, list) or not 2 <= len(value) <= 5:
        raise SetupError("A game needs 'players': a list of 2 to 5 names in seat order.")
    if not all(isinstance(n, str) and n.strip() for n in value):
        raise SetupError("Every player needs a name (a non-empty text).")
    if len(set(value)) != len(value):
        raise SetupError("Two players have the same name; give each player a different name.")
    return list(value)


def _table(value: Any) -> SoldierTable:
    try:
        if isinstance(value, Mapping):
            return load_table(value)
        return get_table(value)
    except TableError as exc:
        raise SetupError(str(exc)) from None


def _health(value: Any) -> int:
    if isinstance(value, bool) or value not in (3, 4, 5):
        raise SetupError("'dragon_health' is 3, or 4 or 5 for the Dragon of Legend.")
    return int(value)


def _per_player(setup: Mapping[str, Any], key: str, names: list[str]) -> Mapping[str, Any]:
    value = setup.get(key) or {}
    if not isinstance(value, Mapping):
        raise SetupError(f"'{key}' must be an object from player name to value.")
    strangers = [n for n in value if n not in names]
    if strangers:
        raise SetupError(f"'{key}' names {', '.join(strangers)}, who is not in 'players'.")
    return value


def _army(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % 50:
        raise SetupError(f"{name}'s army must be 0 or a positive multiple of 50, not {value!r}.")
    return value


def _companion(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SetupError(f"{name}'s companion must be a card name.")
    return card_id(value)


def _items(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SetupError(f"{name}'s items must be a list of Magic Item names.")
    return tuple(card_id(v) for v in value)
