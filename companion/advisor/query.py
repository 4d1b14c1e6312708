"""Single-state lookups into the advisor tables: each is an array index (well under 1 ms).

Totals are in soldiers; they are turned into table levels here. Recruit totals above
the proved stop cap are answered exactly from the tail formula (value = total, plus
the Tooth's stationary excess) with one step of the Bellman equation.
"""
from __future__ import annotations

import numpy as np

from companion.advisor.errors import AdviceError
from companion.advisor.outcomes import P_BLANK, P_DRAGON, P_RALLY
from companion.advisor.store import AdvisorTables
from companion.advisor.turn import TABBY, TOOTH

__all__ = ["AdviceError"]


def level(t: AdvisorTables, soldiers: float, what: str = "turn total") -> int:
    """Soldiers as a table level; totals come in steps of the table unit (50)."""
    if isinstance(soldiers, bool) or not float(soldiers).is_integer() \
            or soldiers < 0 or int(soldiers) % t.unit:
        raise AdviceError(f"The {what} must be 0 or a positive multiple of {t.unit}, not {soldiers}.")
    return int(soldiers) // t.unit


def farkle_chance(t: AdvisorTables, n: int, tooth: bool = False) -> float:
    """Chance that rolling n dice ends the turn in a Farkle (a held Tooth cancels it)."""
    return 0.0 if tooth else float(t.farkle[n])


def battle_farkle_chance(t: AdvisorTables, n: int, tooth: bool = False) -> float:
    """Final Battle: only a blank Event die with no scoring die is a Farkle."""
    return 0.0 if tooth else float(t.farkle[n]) * P_BLANK / (P_BLANK + P_RALLY)


def recruit_roll(t: AdvisorTables, n: int, total: int, flags: int) -> float:
    """Expected soldiers banked this turn if the player rolls n dice now, then plays best."""
    i = level(t, total)
    if i < t.recruit_roll.shape[2]:
        return float(t.recruit_roll[flags, n, i])
    return _roll_beyond_cap(t, n, i, flags)


def recruit_value(t: AdvisorTables, n: int, total: int, flags: int) -> float:
    """Expected soldiers banked under best play from a roll-or-stop decision."""
    return max(float(total), recruit_roll(t, n, total, flags))


def _tail(t: AdvisorTables, flags: int, dice: np.ndarray, levels: np.ndarray) -> np.ndarray:
    return levels * float(t.unit) + t.tooth_excess[flags, dice]


def _roll_beyond_cap(t: AdvisorTables, n: int, i: int, f: int) -> float:
    """One Bellman step above the cap, where every later state's value is the tail formula."""
    o = t.outcomes[n]
    blank = np.maximum.reduceat(_tail(t, f, o.opt_left, i + o.opt_units), o.opt_start)
    rally = np.maximum.reduceat(_tail(t, f, o.opt_left, i + 2 * o.opt_units), o.opt_start)
    eaten = _tail(t, f, o.eat_left, np.full(len(o.prob), i))
    if f & TABBY:
        as_blank = _tail(t, f - TABBY, o.opt_left, i + o.opt_units)
        eaten = np.maximum(eaten, np.maximum.reduceat(as_blank, o.opt_start))
    y = float(o.prob @ (P_BLANK * blank + P_RALLY * rally + P_DRAGON * eaten))
    y += P_DRAGON * o.nonscoring * float(_tail(t, f, np.array([n]), np.array([i]))[0])
    if f & TOOTH:
        saved = _tail(t, f - TOOTH, np.array([n]), np.array([i]))[0]
        y += (P_BLANK + P_RALLY) * o.nonscoring * float(saved)
    return y


def defender_win(t: AdvisorTables, n: int, deficit: int) -> float:
    """Chance a Brawl defender with n dice ends strictly more than `deficit` soldiers higher."""
    if deficit < 0:
        return 1.0
    d = deficit // t.unit
    levels = t.defender_value.shape[2]
    return 0.0 if d >= levels else float(t.defender_value[0, n, levels - 1 - d])


def defender_roll(t: AdvisorTables, n: int, deficit: int) -> float:
    """The defender's win chance if they roll n dice now (also when already ahead)."""
    if deficit < 0:
        return 1.0 - farkle_chance(t, n)
    return defender_win(t, n, deficit)


def attacker_stop(t: AdvisorTables, total: int) -> float:
    """The attacker's win chance when stopping on `total` (the defender then plays not to lose)."""
    i = level(t, total, "Brawl score")
    stop = t.attacker_stop
    return float(stop[min(i, len(stop) - 1)])


def attacker_roll(t: AdvisorTables, n: int, total: int, tooth: bool) -> float:
    """The attacker's win chance if they roll n dice now, then play best."""
    i = level(t, total, "Brawl score")
    f = TOOTH if tooth else 0
    if i < t.attacker_roll.shape[2]:
        return float(t.attacker_roll[f, n, i])
    return attacker_stop(t, total) * (1.0 - farkle_chance(t, n, tooth))


def battle(t: AdvisorTables, n: int, damage_needed: int, army: int,
           tooth: bool) -> tuple[float, float]:
    """(win chance this turn, soldiers expected lost) from a Final Battle roll of n dice."""
    if damage_needed <= 0:
        return 1.0, 0.0
    if damage_needed >= t.battle_win.shape[2]:
        raise AdviceError("The dragon's health is 3 to 5 damage.")
    a = min(max(army, 0) // t.unit, t.battle_win.shape[3] - 1)
    f = 1 if tooth else 0
    return float(t.battle_win[f, n, damage_needed, a]), float(t.battle_loss[f, n, damage_needed, a])
