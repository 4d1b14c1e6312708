"""Every roll of 1-6 soldier dice as numpy arrays, read once from the rules engine's scoring.

The dynamic programs never score dice themselves: they read the legal set-asides
(`options_for`) and the all-scoring-dice set-aside (`scoring_all`) of each of the
923 distinct rolls, weighted by its multinomial probability. Soldiers are counted in
`unit`s (the gcd of every value, 50 for the shipped tables) so totals index arrays.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import factorial, gcd

import numpy as np

from companion.rules import SoldierTable, options_for, scoring_all

# The Event die: four blank faces, one Dragon, one Rally.
P_BLANK = 4 / 6
P_DRAGON = 1 / 6
P_RALLY = 1 / 6


@dataclass(frozen=True)
class DiceOutcomes:
    """The distinct rolls of `n` dice that score, with what each allows.

    Shapes: K scoring rolls; J = (roll, dice-left) pairs kept for the DP.
    `prob` (K,) chance of each roll; `nonscoring` the chance of a roll with no scoring
    die. `eat_left` (K,) dice in hand after ALL scoring dice go (6 after hot dice) and
    `eat_units` (K,) their value. `opt_roll` (J,) / `opt_left` (J,) / `opt_units` (J,):
    for every roll and every possible number of dice left, the best set-aside value
    (a set-aside leaving the same dice but fewer soldiers is never better), sorted by
    roll so `opt_start` (K,) marks each roll's first pair for `np.maximum.reduceat`.
    """

    n: int
    prob: np.ndarray
    nonscoring: float
    eat_left: np.ndarray
    eat_units: np.ndarray
    opt_roll: np.ndarray
    opt_left: np.ndarray
    opt_units: np.ndarray
    opt_start: np.ndarray


def rolls(n: int) -> list[tuple[tuple[int, ...], float]]:
    """Every distinct roll of n dice (ascending faces) with its probability."""
    out = []
    for dice in combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for face in set(dice):
            ways //= factorial(dice.count(face))
        out.append((dice, ways / 6**n))
    return out


def left_after(n: int, used: int) -> int:
    """Dice in hand after setting `used` of `n` aside: all six again after hot dice."""
    return n - used if used < n else 6


def table_unit(table: SoldierTable) -> int:
    """The gcd of every set-aside value of the table: totals move in steps of it."""
    unit = 0
    for n in range(1, 7):
        for dice, _ in rolls(n):
            for option in options_for(dice, table):
                unit = gcd(unit, option.soldiers)
    return unit or 50


def dice_outcomes(n: int, table: SoldierTable, unit: int) -> DiceOutcomes:
    """Gather the scoring rolls of n dice and their pruned set-asides as arrays."""
    prob: list[float] = []
    eat_left: list[int] = []
    eat_units: list[int] = []
    opt_roll: list[int] = []
    opt_left: list[int] = []
    opt_units: list[int] = []
    opt_start: list[int] = []
    nonscoring = 0.0
    for dice, p in rolls(n):
        options = options_for(dice, table)
        if not options:
            nonscoring += p
            continue
        every = scoring_all(dice, table)
        assert every is not None
        k = len(prob)
        prob.append(p)
        eat_left.append(left_after(n, len(every.dice)))
        eat_units.append(every.soldiers // unit)
        best: dict[int, int] = {}
        for option in options:
            left = left_after(n, len(option.dice))
            best[left] = max(best.get(left, 0), option.soldiers // unit)
        opt_start.append(len(opt_roll))
        for left, units in sorted(best.items()):
            opt_roll.append(k)
            opt_left.append(left)
            opt_units.append(units)
    as_int = lambda xs: np.asarray(xs, dtype=np.int64)
    return DiceOutcomes(
        n=n, prob=np.asarray(prob, dtype=np.float64), nonscoring=nonscoring,
        eat_left=as_int(eat_left), eat_units=as_int(eat_units),
        opt_roll=as_int(opt_roll), opt_left=as_int(opt_left), opt_units=as_int(opt_units),
        opt_start=as_int(opt_start),
    )


def all_outcomes(table: SoldierTable, unit: int) -> dict[int, DiceOutcomes]:
    """`dice_outcomes` for 1 to 6 dice."""
    return {n: dice_outcomes(n, table, unit) for n in range(1, 7)}
