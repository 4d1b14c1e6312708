"""The Recruit tables: expected soldiers banked this turn under best play.

Levels are turn totals in table units (50 soldiers). Above a cap C every state
without a Lucky Dragon's Tooth stops, which is proved, not assumed: with a Farkle
chance pf(n) and a best one-roll gain G(n) (Rally doubled, Tabby counted), rolling
once and stopping is worse than stopping whenever t * pf(n) >= G(n); for t >= C =
max G/pf the region {t >= C} is closed (totals never fall), and if U is the largest
excess of the optimal value over t there, U <= max(0, (1 - pf) U), so U = 0.
With a Tooth held, a Farkle cannot cost anything above C, so the best play there is
to roll until the Tooth is spent, then stop: D = t + h(f, n) with h a stationary
excess computed by value iteration (to 1e-11 soldiers). Both tails are exact, so
the table is too.
"""
from __future__ import annotations

import math

import numpy as np

from companion.advisor.errors import AdviceError
from companion.advisor.outcomes import P_BLANK, P_DRAGON, P_RALLY, DiceOutcomes
from companion.advisor.turn import N_FLAGS, SLOTS, TABBY, TOOTH, TurnSolution, solve_turn

RECRUIT_FLAGS = (0, TABBY, TOOTH, TABBY | TOOTH)
MAX_LEVELS = 20_000     # a table needing more (a Farkle chance near 0) is refused


def farkle_chance(o: DiceOutcomes) -> float:
    """Chance that rolling o.n dice and the Event die is a Farkle (blank or Rally, no score)."""
    return (P_BLANK + P_RALLY) * o.nonscoring


def _best_units(o: DiceOutcomes) -> np.ndarray:
    return np.maximum.reduceat(o.opt_units, o.opt_start)


def one_roll_gain(o: DiceOutcomes, unit: int, tabby: bool) -> float:
    """Expected soldiers of one roll's best set-aside (Rally doubled; Tabby turns a Dragon blank)."""
    best = float(o.prob @ _best_units(o)) * unit
    return best * (P_BLANK + 2 * P_RALLY + (P_DRAGON if tabby else 0.0))


def stop_cap(outs: dict[int, DiceOutcomes], unit: int) -> float:
    """The total above which stopping is optimal in every state without a Tooth (inf if none)."""
    if min(farkle_chance(o) for o in outs.values()) <= 0:
        return math.inf
    return max(one_roll_gain(o, unit, tabby) / farkle_chance(o)
               for o in outs.values() for tabby in (False, True))


def tooth_excess(outs: dict[int, DiceOutcomes], unit: int, *, tol: float = 1e-11) -> np.ndarray:
    """h(f, n): soldiers expected above a total >= cap while a Tooth is held (0 without one)."""
    h = np.zeros((N_FLAGS, SLOTS))
    for f in (TOOTH, TOOTH | TABBY):
        for _ in range(100_000):
            new = np.array([_excess_step(o, h, f, unit) for o in outs.values()])
            delta = np.max(np.abs(new - h[f, 1:]))
            h[f, 1:] = new
            if delta < tol:
                break
    return h


def _excess_step(o: DiceOutcomes, h: np.ndarray, f: int, unit: int) -> float:
    g = o.opt_units * float(unit)
    blank = np.maximum.reduceat(g + h[f, o.opt_left], o.opt_start)
    rally = np.maximum.reduceat(2 * g + h[f, o.opt_left], o.opt_start)
    eaten = h[f, o.eat_left]
    if f & TABBY:
        eaten = np.maximum(eaten, np.maximum.reduceat(g + h[f - TABBY, o.opt_left], o.opt_start))
    y = o.prob @ (P_BLANK * blank + P_RALLY * rally + P_DRAGON * eaten)
    return max(0.0, float(y + P_DRAGON * o.nonscoring * h[f, o.n]))


def solve_recruit(outs: dict[int, DiceOutcomes],
                  unit: int) -> tuple[TurnSolution, float, np.ndarray]:
    """All Recruit states for every card flag; returns the solution, the cap and h."""
    cap = stop_cap(outs, unit)
    if not math.isfinite(cap) or cap > MAX_LEVELS * unit:
        raise AdviceError("With this Soldier table some rolls can never Farkle, so a Recruit turn "
                          "could go on for ever: the advisor cannot rank stopping and rolling.")
    levels = math.ceil(cap / unit) + 1
    top = int(max(o.opt_units.max() for o in outs.values()))
    width = 2 * top + 1
    totals = np.arange(levels + width, dtype=np.float64) * unit
    h = tooth_excess(outs, unit)
    tail = totals[None, None, levels:] + h[:, :, None]
    return solve_turn(outs, RECRUIT_FLAGS, totals[:levels], tail), cap, h
