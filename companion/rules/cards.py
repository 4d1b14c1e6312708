"""Known Companions and Magic Items as small registered effect functions.

Every die a card rolls comes in with the step (`"roll": 6`); the engine never rolls.
Cards that change the last roll (Hiccup, Tabby, the Lucky Dragon's Tooth) re-score it
from the state saved just before that roll, so the game stays exactly as the rules say.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.rules import turns
from companion.rules.errors import IllegalMove
from companion.rules.scoring import scoring_all
from companion.rules.state import Action, Event, GameState, Phase, card_id

Result = tuple[GameState, list[Event]]
CardUse = Callable[[GameState, int, dict[str, Any]], Result]

CARD_USES: dict[str, CardUse] = {}
CARD_NAMES = {
    "hiccup": "Hiccup", "ugh": "Ugh", "sidia": "Sidia", "tabby": "Tabby", "skree": "Skree",
    "lucky_dragons_tooth": "the Lucky Dragon's Tooth", "sack_of_holding": "the Sack of Holding",
}
ITEMS = ("lucky_dragons_tooth", "sack_of_holding")
IN_TURN = (Phase.CHOOSE_ACTION, Phase.ROLL, Phase.SET_ASIDE, Phase.DECIDE)


def card(card_name: str) -> Callable[[CardUse], CardUse]:
    """Register the effect function of a card id."""
    def register(fn: CardUse) -> CardUse:
        CARD_USES[card_name] = fn
        return fn
    return register


def use_card(state: GameState, step: dict[str, Any]) -> Result:
    """Apply a `{"use": CARD_ID, ...}` step for the player holding the card."""
    raw = step.get("use")
    if not isinstance(raw, str) or not raw.strip():
        raise IllegalMove("Say which card to use, for example {\"use\": \"ugh\", \"roll\": 6}.")
    cid = card_id(raw)
    fn = CARD_USES.get(cid)
    if fn is None:
        raise IllegalMove(
            f"The text of {raw} is not known to the companion: record what it did as a table adjustment."
        )
    seat = holder(state, cid, step.get("player"))
    return fn(state, seat, step)


def holder(state: GameState, cid: str, player: object) -> int:
    """Seat of the player using the card: the one named, else the one holding it (the awaited player first)."""
    name = CARD_NAMES.get(cid, cid)
    if player is not None:
        seat = state.seat_of(player) if isinstance(player, str) else None
        if seat is None:
            raise IllegalMove(f"There is no player called {player!r} at this table.")
        if not _holds(state, seat, cid):
            raise IllegalMove(f"{player} does not hold {name}.")
        return seat
    n = len(state.seats)
    for k in range(n):
        seat = (state.awaited + k) % n
        if _holds(state, seat, cid):
            return seat
    raise IllegalMove(f"Nobody at this table holds {name}.")


def _holds(state: GameState, seat: int, cid: str) -> bool:
    s = state.seats[seat]
    return cid in s.items if cid in ITEMS else s.companion == cid


def _mark_used(state: GameState, seat: int, cid: str) -> GameState:
    return state.with_turn(used=(*state.turn.used, f"{seat}:{cid}"))


def _check_unused(state: GameState, seat: int, cid: str, per: str = "turn") -> None:
    if f"{seat}:{cid}" in state.turn.used:
        raise IllegalMove(f"{CARD_NAMES[cid]} has already been used this {per}.")


def _die(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise IllegalMove(f"{what} needs the die rolled: \"roll\" is a whole number 1 to 6.")
    return value


def _on_own_turn(state: GameState, seat: int, cid: str) -> None:
    if seat != state.current or state.phase not in IN_TURN:
        raise IllegalMove(f"{CARD_NAMES[cid]} can only be used during {state.seats[seat].name}'s own turn.")


def _army_bonus(state: GameState, seat: int, cid: str, bonus: int, data: dict[str, Any]) -> Result:
    state = _mark_used(state, seat, cid)
    army = state.seats[seat].army + bonus
    state = state.with_seat(seat, army=army)
    name = state.seats[seat].name
    return state, [Event("card_used", name, {"card": cid, "soldiers": bonus, "army": army, **data})]


@card("ugh")
def _ugh(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    """Once per turn Ugh rolls a die: a 6 adds 100 soldiers to the army."""
    _on_own_turn(state, seat, "ugh")
    _check_unused(state, seat, "ugh")
    rolled = _die(step.get("roll"), "Ugh")
    return _army_bonus(state, seat, "ugh", 100 if rolled == 6 else 0, {"roll": rolled})


@card("sidia")
def _sidia(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    """Once per turn Sidia names a number and rolls a die: a match adds 600 soldiers."""
    _on_own_turn(state, seat, "sidia")
    _check_unused(state, seat, "sidia")
    predict = step.get("predict")
    if isinstance(predict, bool) or not isinstance(predict, int) or not 1 <= predict <= 6:
        raise IllegalMove("Sidia names a number first: \"predict\" is a whole number 1 to 6.")
    rolled = _die(step.get("roll"), "Sidia")
    return _army_bonus(state, seat, "sidia", 600 if rolled == predict else 0,
                       {"predict": predict, "roll": rolled})


@card("skree")
def _skree(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    raise IllegalMove("Skree's exact text is not known: record what Skree did as a table adjustment.")


@card("sack_of_holding")
def _sack(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    raise IllegalMove("The Sack of Holding works by itself: its holder may keep more than one Magic Item.")


def _need_last_roll(state: GameState, what: str) -> GameState:
    if state.roll_base is None or state.turn.last_roll is None:
        raise IllegalMove(f"{what} can only change the roll just made, before anything else happens.")
    return state.roll_base


def rescore(state: GameState, base: GameState, faces: tuple[int, ...], event: str,
            ignore_dragon: bool) -> Result:
    """Score the last roll again from the state before it, as changed by a card."""
    return turns.roll(base, faces, event, ignore_dragon=ignore_dragon)


def change_die(state: GameState, base: GameState, die: object, new: object, who: str) -> Result:
    """The last roll with one die (a soldier face, or "event") showing a new face."""
    faces = list(state.turn.last_roll or ())
    event = state.turn.last_event or "blank"
    if die == "event":
        if new not in ("blank", "dragon", "rally"):
            raise IllegalMove(f"{who}: the Event die re-rolled shows blank, dragon or rally.")
        event = str(new)
    else:
        if die not in faces:
            raise IllegalMove(f"{who}: the last roll has no die showing {die!r} to re-roll.")
        faces[faces.index(die)] = _die(new, who)
    return rescore(state, base, tuple(faces), event, state.turn.dragon_ignored)


@card("hiccup")
def _hiccup(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    """Once per Brawl Hiccup re-rolls one die of the last roll, either side's."""
    base = _need_last_roll(state, "Hiccup")
    if base.turn.action is not Action.BRAWL or seat not in (base.current, base.turn.defender):
        raise IllegalMove("Hiccup only re-rolls a die in a Brawl his player is fighting.")
    _check_unused(base, seat, "hiccup", per="Brawl")
    base = _mark_used(base, seat, "hiccup")
    new, events = change_die(state, base, step.get("die"), step.get("roll"), "Hiccup")
    used = Event("card_used", state.seats[seat].name,
                 {"card": "hiccup", "die": step.get("die"), "roll": step.get("roll")})
    return new, [used, *events]


@card("tabby")
def _tabby(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    """Once per turn while Recruiting, Tabby makes the Dragon face count as blank."""
    base = _need_last_roll(state, "Tabby")
    if base.turn.action is not Action.RECRUIT or seat != base.turn.roller:
        raise IllegalMove("Tabby only helps her own player while Recruiting.")
    _check_dragon(state)
    _check_unused(base, seat, "tabby")
    base = _mark_used(base, seat, "tabby")
    faces = state.turn.last_roll or ()
    new, events = rescore(state, base, tuple(faces), "dragon", True)
    return new, [Event("card_used", state.seats[seat].name, {"card": "tabby"}), *events]


def _check_dragon(state: GameState) -> None:
    if state.turn.last_event != "dragon" or state.turn.dragon_ignored:
        raise IllegalMove("The last roll shows no Dragon to ignore.")
    if scoring_all(state.turn.last_roll or (), state.rules.table) is None:
        raise IllegalMove("The Dragon ate nothing this roll: ignoring it would only make it a Farkle.")


@card("lucky_dragons_tooth")
def _tooth(state: GameState, seat: int, step: dict[str, Any]) -> Result:
    """During its holder's own turn, the Tooth cancels one Farkle roll; then it is discarded."""
    base = _need_last_roll(state, "The Lucky Dragon's Tooth")
    if base.current != seat or base.turn.roller != seat:
        raise IllegalMove("The Lucky Dragon's Tooth only cancels a Farkle of its holder's own turn.")
    items = list(base.seats[seat].items)
    items.remove("lucky_dragons_tooth")
    base = base.with_seat(seat, items=tuple(items))
    new, events = ignore_farkle(state, base)
    return new, [Event("card_used", base.seats[seat].name, {"card": "lucky_dragons_tooth"}), *events]


def ignore_farkle(state: GameState, base: GameState) -> Result:
    """Cancel the Farkle just rolled: back to before the roll, free to roll again (or stop, outside a Final Battle)."""
    if not state.turn.farkle:
        raise IllegalMove("The last roll was not a Farkle.")
    phase = Phase.ROLL if base.turn.action is Action.FINAL_BATTLE else Phase.DECIDE
    new = replace(base, phase=phase, roll_base=None)
    new = new.with_turn(last_roll=state.turn.last_roll, last_event=state.turn.last_event, options=(),
                        farkle=False)
    return new, [Event("farkle_ignored", base.seats[base.turn.roller].name)]
