"""The Brawl tables: chances of finishing strictly above a score.

Defender: W(n, d) is the chance that a side needing MORE than d more units (deficit d
>= 0) gets there with n dice in hand, playing to win. The dynamics do not depend on the
total itself, so one table over deficits serves every target. Levels run from the
largest deficit (level 0) to deficit 0 (top level); above the top the side is ahead
and stops (value 1). The defender cannot use a Lucky Dragon's Tooth (not their turn).

Attacker: stopping on a score A wins unless the defender (5 dice) reaches A or more,
playing not to lose, so its stop reward is v(A) = 1 - W(5, A - 1 unit). The attacker's
turn is then the same turn DP as Recruit with v in place of the total. The defender's
hidden Magic Items are not known to the attacker and are not counted.
Deficits above the table (2,000+ units) leave a chance below `tail_bound`, reported.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.advisor.outcomes import DiceOutcomes
from companion.advisor.turn import N_FLAGS, SLOTS, TOOTH, solve_turn

BRAWL_LEVELS = 800          # deficits 0 .. 799 units (39,950 soldiers with the 50 unit)
ATTACKER_FLAGS = (0, TOOTH)
DEFENDER_DICE = 5


@dataclass(frozen=True)
class BrawlSolution:
    """`defender_*` (N_FLAGS, SLOTS, L) over levels L-1-d; `attacker_*` over attacker totals."""

    defender_roll: np.ndarray
    defender_value: np.ndarray
    attacker_roll: np.ndarray
    attacker_value: np.ndarray
    attacker_stop: np.ndarray   # v(A) for A = 0 .. L + tail - 1 units
    tail_bound: float           # largest chance left out beyond the deficit table


def _width(outs: dict[int, DiceOutcomes]) -> int:
    return 2 * int(max(o.opt_units.max() for o in outs.values())) + 1


def solve_brawl(outs: dict[int, DiceOutcomes], levels: int = BRAWL_LEVELS) -> BrawlSolution:
    """Both sides' tables for one Soldier table."""
    width = _width(outs)
    defender = solve_turn(outs, (0,), np.zeros(levels), np.ones((N_FLAGS, SLOTS, width)))
    reach = defender.value[0, DEFENDER_DICE, :levels][::-1]   # reach[d] = W(5, d)
    totals = np.arange(levels + width)
    # v(A) = 1 - W(5, A - 1): a defender reaching A at least draws or wins.
    need = totals - 1
    beaten = np.where(need < 0, 1.0, reach[np.clip(need, 0, levels - 1)])
    beaten = np.where(need >= levels, 0.0, beaten)
    stop = 1.0 - beaten
    tail = np.broadcast_to(stop[levels:], (N_FLAGS, SLOTS, width)).copy()
    attacker = solve_turn(outs, ATTACKER_FLAGS, stop[:levels], tail)
    return BrawlSolution(
        defender_roll=defender.roll, defender_value=defender.value[:, :, :levels],
        attacker_roll=attacker.roll, attacker_value=attacker.value[:, :, :levels],
        attacker_stop=stop, tail_bound=float(defender.value[0, 1:, 0].max()),
    )


def defender_chance(value: np.ndarray, n: int, deficit: int) -> float:
    """W(n, deficit) from a defender value table: 1 when already ahead (deficit < 0)."""
    levels = value.shape[2]
    if deficit < 0:
        return 1.0
    if deficit >= levels:
        return 0.0
    return float(value[0, n, levels - 1 - deficit])
