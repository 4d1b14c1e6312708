"""The turn machine: actions, rolls, set-asides, stopping, Farkles, Brawls, the Final Battle.

Each function takes a state and returns (new state, events); it raises `IllegalMove`
before building anything, so a refused step never changes the game.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from companion.rules.errors import IllegalMove
from companion.rules.scoring import options_for, scoring_all
from companion.rules.state import (
    UNKNOWN_ITEM,
    Action,
    Choice,
    Event,
    GameState,
    Phase,
    Turn,
    card_id,
)

Result = tuple[GameState, list[Event]]


def keep_threshold(state: GameState, seat: int) -> int:
    """Army needed to enter the Keep: Ugh lets his player in with 500 fewer."""
    discount = 500 if state.seats[seat].companion == "ugh" else 0
    return state.rules.keep_threshold - discount


def choose_action(state: GameState, action: str, target: object = None) -> Result:
    """Start the turn's action: Recruit, Brawl (an opponent outside the Keep) or Final Battle."""
    me = state.current
    seat = state.seats[me]
    if action == Action.FINAL_BATTLE:
        if target is not None:
            raise IllegalMove("The Final Battle is fought against the dragon; it has no other target.")
        return _enter_final_battle(state)
    if action == Action.BRAWL:
        defender = _brawl_target(state, target)
        events = _leave_keep_events(state)
        state = state.with_seat(me, in_keep=False)
        turn = Turn(action=Action.BRAWL, roller=me, defender=defender, dice_in_hand=state.rules.attacker_dice)
        return replace(state, phase=Phase.ROLL, turn=_carry(state.turn, turn)), events
    if action == Action.RECRUIT:
        if target is not None:
            raise IllegalMove("Recruiting has no target; only a Brawl names an opponent.")
        events = _leave_keep_events(state)
        state = state.with_seat(me, in_keep=False)
        turn = Turn(action=Action.RECRUIT, roller=me, dice_in_hand=state.rules.attacker_dice)
        return replace(state, phase=Phase.ROLL, turn=_carry(state.turn, turn)), events
    raise IllegalMove(f"{seat.name} must choose Recruit, Brawl or Final Battle first.")


def _carry(old: Turn, new: Turn) -> Turn:
    """Keep what the new turn inherits: cards used and the last roll shown."""
    return replace(new, used=old.used, last_roll=old.last_roll, last_event=old.last_event,
                   options=old.options, farkle=old.farkle)


def _leave_keep_events(state: GameState) -> list[Event]:
    seat = state.seats[state.current]
    return [Event("left_keep", seat.name)] if seat.in_keep else []


def _brawl_target(state: GameState, target: object) -> int:
    me = state.seats[state.current].name
    if not isinstance(target, str) or state.seat_of(target) is None:
        others = ", ".join(n for n in state.names if n != me)
        raise IllegalMove(f"A Brawl needs an opponent to attack: one of {others}.")
    seat = state.seat_of(target)
    assert seat is not None
    if seat == state.current:
        raise IllegalMove(f"{me} cannot Brawl against their own army.")
    if state.seats[seat].in_keep:
        raise IllegalMove(f"{target} is inside the Dragon's Keep and cannot be attacked in a Brawl.")
    return seat


def _enter_final_battle(state: GameState) -> Result:
    me = state.current
    seat = state.seats[me]
    need = keep_threshold(state, me)
    if not seat.in_keep and seat.army < need:
        raise IllegalMove(
            f"{seat.name} needs an army of at least {need:,} to enter the Dragon's Keep and has {seat.army:,}."
        )
    events = [] if seat.in_keep else [Event("entered_keep", seat.name)]
    state = state.with_seat(me, in_keep=True)
    turn = Turn(action=Action.FINAL_BATTLE, roller=me, dice_in_hand=state.rules.attacker_dice)
    return replace(state, phase=Phase.ROLL, turn=_carry(state.turn, turn)), events


def check_roll(state: GameState, faces: object, event: object) -> tuple[tuple[int, ...], str]:
    """Validate a roll step against the dice in hand; returns (faces, event face)."""
    name = state.seats[state.turn.roller].name
    n = state.turn.dice_in_hand
    if not isinstance(faces, list) or not all(
        isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in faces
    ):
        raise IllegalMove("A roll lists the soldier dice faces, each a whole number 1 to 6.")
    if len(faces) != n:
        raise IllegalMove(f"{name} rolls {n} soldier {'die' if n == 1 else 'dice'} now, not {len(faces)}.")
    if event not in ("blank", "dragon", "rally"):
        raise IllegalMove("The Event die shows blank, dragon or rally; say which with the roll.")
    return tuple(faces), str(event)


def roll(state: GameState, faces: Sequence[int], event: str, *, ignore_dragon: bool = False) -> Result:
    """Score a roll in the current action. `state` is the state just before the roll."""
    base = replace(state, roll_base=None)
    if state.turn.action is Action.FINAL_BATTLE:
        new, events = _final_battle_roll(state, tuple(faces), event, ignore_dragon)
    else:
        new, events = _normal_roll(state, tuple(faces), event, ignore_dragon)
    return replace(new, roll_base=base), events


def _shown(state: GameState, faces: tuple[int, ...], event: str, ignore_dragon: bool) -> GameState:
    """Record the roll; its options are kept only when the player chooses among them."""
    choosing = state.turn.action is not Action.FINAL_BATTLE and (event != "dragon" or ignore_dragon)
    options = options_for(faces, state.rules.table) if choosing else ()
    return state.with_turn(last_roll=faces, last_event=event, dragon_ignored=ignore_dragon,
                           options=options, farkle=False)


def _normal_roll(state: GameState, faces: tuple[int, ...], event: str, ignore_dragon: bool) -> Result:
    name = state.seats[state.turn.roller].name
    state = _shown(state, faces, event, ignore_dragon)
    scoring = scoring_all(faces, state.rules.table)
    if event == "dragon" and not ignore_dragon:
        if scoring is None:
            return replace(state, phase=Phase.DECIDE), [Event("dragon_evaded", name)]
        events = [Event("dragon_ate", name, {"dice": list(scoring.dice), "soldiers": scoring.soldiers})]
        state, more = _dice_used(state, len(scoring.dice))
        return replace(state, phase=Phase.DECIDE), events + more
    if scoring is None:
        return farkle(state)
    return replace(state, phase=Phase.SET_ASIDE), []


def _dice_used(state: GameState, count: int) -> Result:
    """Dice left after setting aside `count`; none left is hot dice: the side's full set again."""
    left = state.turn.dice_in_hand - count
    if left > 0:
        return state.with_turn(dice_in_hand=left), []
    name = state.seats[state.turn.roller].name
    # The rulebook: hot dice means all six again, for a Brawl defender too (only
    # their first roll is limited to 5 dice).
    return state.with_turn(dice_in_hand=state.rules.attacker_dice), [Event("hot_dice", name)]


def set_aside(state: GameState, dice: object, rally: object, card: object = None) -> Result:
    """Set aside one legal choice of the last roll's scoring dice; after a Rally, double or take an item."""
    turn = state.turn
    name = state.seats[turn.roller].name
    if not isinstance(dice, list) or not all(isinstance(d, int) for d in dice):
        raise IllegalMove("Say which dice to set aside as a list of faces, for example [1, 5].")
    chosen = tuple(sorted(dice))
    option = next((o for o in turn.options if o.dice == chosen), None)
    if option is None:
        legal = "; ".join(" ".join(map(str, o.dice)) for o in turn.options)
        raise IllegalMove(f"{name} cannot set aside {list(chosen)}: the legal set-asides are {legal}.")
    is_rally = turn.last_event == "rally"
    if is_rally and rally not in ("double", "item"):
        raise IllegalMove(f"The Event die shows Rally: {name} chooses to double this roll or take a Magic Item.")
    if not is_rally and rally is not None:
        raise IllegalMove("Only a Rally on the Event die gives a double or a Magic Item.")
    if card is not None and rally != "item":
        raise IllegalMove("A drawn card can only be named when taking a Magic Item at a Rally.")
    soldiers = option.soldiers * (2 if rally == "double" else 1)
    events = [Event("set_aside", name, {"dice": list(chosen), "soldiers": soldiers})]
    if rally == "double":
        events.append(Event("rally_double", name, {"soldiers": soldiers}))
    gained = turn.gained
    if rally == "item":
        item = _item_name(card)
        gained = (*gained, item)
        events.append(Event("item_gained", name, {"item": item}))
    state = state.with_turn(turn_total=turn.turn_total + soldiers, gained=gained)
    state, more = _dice_used(state, len(chosen))
    return replace(state, phase=Phase.DECIDE), events + more


def _item_name(card: object) -> str:

    if card is None:
        return UNKNOWN_ITEM
    if not isinstance(card, str) or not card.strip():
        raise IllegalMove("Name the Magic Item drawn as text, or leave it out to keep it secret.")
    return card_id(card)


def continue_rolling(state: GameState) -> Result:
    return replace(state, phase=Phase.ROLL), []


def stop(state: GameState) -> Result:
    """End this side's rolling: bank a Recruit, fix the attacker's score, or fix the defender's and resolve."""
    turn = state.turn
    name = state.seats[turn.roller].name
    if turn.action is Action.RECRUIT:
        army = state.seats[turn.roller].army + turn.turn_total
        state = state.with_seat(turn.roller, army=army)
        state = state.with_seat(turn.roller, items=state.seats[turn.roller].items + turn.gained)
        return end_turn(state, [Event("banked", name, {"soldiers": turn.turn_total, "army": army})])
    events = [Event("brawl_score", name, {"score": turn.turn_total})]
    return _side_done(state, turn.turn_total, events)


def farkle(state: GameState) -> Result:
    """A Farkle: the side's total and the Magic Items it gained this turn are lost."""
    turn = state.turn
    name = state.seats[turn.roller].name
    events = [Event("farkle", name, {"lost": turn.turn_total, "items_lost": len(turn.gained)})]
    state = state.with_turn(farkle=True)
    if turn.action is Action.BRAWL:
        state = state.with_turn(gained=())
        return _side_done(state, 0, events)
    return end_turn(state.with_turn(gained=(), turn_total=0), events)


def _side_done(state: GameState, score: int, events: list[Event]) -> Result:
    turn = state.turn
    if turn.attacker_score is None:
        assert turn.defender is not None
        state = state.with_turn(attacker_score=score, attacker_gained=turn.gained, gained=(),
                                roller=turn.defender, turn_total=0,
                                dice_in_hand=state.rules.defender_dice)
        return replace(state, phase=Phase.ROLL), events
    return _resolve_brawl(state, turn.attacker_score, score, events)


def _resolve_brawl(state: GameState, attack: int, defence: int, events: list[Event]) -> Result:
    turn = state.turn
    attacker, defender = state.current, turn.defender
    assert defender is not None
    names = state.names
    if attack == defence:
        events.append(Event("brawl_tie", names[attacker], {"score": attack, "defender": names[defender]}))
        return end_turn(state, events)
    win, lose = (attacker, defender) if attack > defence else (defender, attacker)
    gained = turn.attacker_gained if win == attacker else turn.gained
    taken = min(abs(attack - defence), state.seats[lose].army)
    bonus = state.rules.brawl_bonus
    state = state.with_seat(lose, army=state.seats[lose].army - taken)
    state = state.with_seat(win, army=state.seats[win].army + taken + bonus)
    events.append(Event("brawl_won", names[win], {
        "loser": names[lose], "attack": attack, "defence": defence, "taken": taken, "bonus": bonus,
    }))
    if len(set(gained)) > 1:
        choice = Choice(seat=win, pool=gained, keep=1, reason="brawl")
        return replace(state, phase=Phase.KEEP_ITEMS, choice=choice), events
    if gained:
        state = state.with_seat(win, items=state.seats[win].items + gained[:1])
    return end_turn(state, events)


def _final_battle_roll(state: GameState, faces: tuple[int, ...], event: str, ignore_dragon: bool) -> Result:
    me = state.turn.roller
    name = state.seats[me].name
    state = _shown(state, faces, event, ignore_dragon)
    hits = {"dragon": 0 if ignore_dragon else 1, "rally": 2}.get(event, 0)
    scoring = scoring_all(faces, state.rules.table)
    events: list[Event] = []
    if hits:
        damage = state.turn.damage + hits
        state = state.with_turn(damage=damage)
        events.append(Event("damage", name, {"hits": hits, "damage": damage}))
    if scoring is not None:
        army = max(0, state.seats[me].army - scoring.soldiers)
        lost = state.seats[me].army - army
        state = state.with_seat(me, army=army)
        events.append(Event("soldiers_lost", name, {"dice": list(scoring.dice), "soldiers": lost}))
        state, more = _dice_used(state, len(scoring.dice))
        events += more
    if state.turn.damage >= state.rules.dragon_health:
        events.append(Event("won", name, {"damage": state.turn.damage}))
        return replace(state, phase=Phase.GAME_OVER, winner=me), events
    if scoring is None and not hits:
        state, more = farkle(state)
        return state, events + more
    if state.seats[me].army == 0:
        events.append(Event("army_wiped", name))
        state = replace(state, reincarnate=(*state.reincarnate, me))
        return end_turn(state, events)
    return replace(state, phase=Phase.ROLL), events


def end_turn(state: GameState, events: list[Event]) -> Result:
    """Apply the Magic Item limit (the player over it chooses), then pass to the next player."""
    over = _over_limit(state)
    if over is not None:
        seat = state.seats[over]
        pool = seat.items
        if len(set(pool)) == 1:
            state = state.with_seat(over, items=pool[: state.rules.item_limit])
            events.append(Event("item_discarded", seat.name, {"items": list(pool[state.rules.item_limit:])}))
            return end_turn(state, events)
        choice = Choice(seat=over, pool=pool, keep=state.rules.item_limit, reason="limit")
        return replace(state, phase=Phase.KEEP_ITEMS, choice=choice), events
    return _next_player(state, events)


def _over_limit(state: GameState) -> int | None:
    n = len(state.seats)
    for k in range(n):
        i = (state.current + k) % n
        items = state.seats[i].items
        if len(items) > state.rules.item_limit and "sack_of_holding" not in items:
            return i
    return None


def keep_items(state: GameState, kept: object) -> Result:
    """The awaited player keeps these Magic Items (at most the limit) and discards the rest."""
    choice = state.choice
    assert choice is not None
    seat = state.seats[choice.seat]
    if isinstance(kept, str):
        kept = [kept]
    if not isinstance(kept, list) or not all(isinstance(k, str) for k in kept):
        raise IllegalMove(f"{seat.name} says which Magic Items to keep, as a list of card names.")

    kept_ids = [card_id(k) for k in kept]
    pool = list(choice.pool)
    for k in kept_ids:
        if k not in pool:
            raise IllegalMove(f"{seat.name} can keep only from: {', '.join(choice.pool)}.")
        pool.remove(k)
    if len(kept_ids) > choice.keep:
        raise IllegalMove(f"{seat.name} may keep at most {choice.keep} Magic Item{'s' if choice.keep > 1 else ''}.")
    events = [Event("item_discarded", seat.name, {"items": pool, "kept": kept_ids})]
    if choice.reason == "brawl":
        state = state.with_seat(choice.seat, items=seat.items + tuple(kept_ids))
    else:
        state = state.with_seat(choice.seat, items=tuple(kept_ids))
    return end_turn(replace(state, choice=None), events)


def _next_player(state: GameState, events: list[Event]) -> Result:
    nxt = (state.current + 1) % len(state.seats)
    old = state.turn
    turn = Turn(roller=nxt, dice_in_hand=state.rules.attacker_dice, last_roll=old.last_roll,
                last_event=old.last_event, options=old.options, farkle=old.farkle)
    state = replace(state, current=nxt, turn=turn, phase=Phase.CHOOSE_ACTION, choice=None)
    if nxt in state.reincarnate:
        if any(s.companion for s in state.seats):
            return replace(state, phase=Phase.NEW_COMPANION), events
        # A game set up without Companion cards has none to draw: back outside at once.
        return _reincarnate(state, None, events)
    return state, events


def _reincarnate(state: GameState, new: str | None, events: list[Event]) -> Result:
    """The current player, wiped in the Keep, starts this turn outside it with the
    Companion `new` (None: the game uses no Companions) and chooses an action."""
    me = state.current
    seat = state.seats[me]
    state = state.with_seat(me, companion=new, in_keep=False)
    state = replace(state, reincarnate=tuple(s for s in state.reincarnate if s != me),
                    phase=Phase.CHOOSE_ACTION)
    data = {"old": seat.companion, "new": new}
    return state, [*events, Event("left_keep", seat.name), Event("reincarnated", seat.name, data)]


def new_companion(state: GameState, name: object) -> Result:
    """A player whose army was wiped in the Keep comes back outside with the Companion just drawn."""

    me = state.current
    seat = state.seats[me]
    if not isinstance(name, str) or not name.strip():
        raise IllegalMove(f"{seat.name} draws a new Companion: name the card drawn.")
    return _reincarnate(state, card_id(name), [])
