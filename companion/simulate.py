"""Fast Monte Carlo of one Final Battle turn with fair dice, vectorised with numpy.

Per dice count n (1-6) every one of the 6**n ordered rolls is scored once with the
rules engine's `scoring_all` (dice set aside, soldiers lost); a battle step is then
array lookups for all battles still running. Randomness lives here, never in the engine.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from companion.rules import SoldierTable, get_table, scoring_all

EVENT_HITS = np.array([0, 0, 0, 0, 1, 2], dtype=np.int16)  # four blanks, Dragon, Rally


@dataclass(frozen=True)
class OutcomeTables:
    """Flat per-roll tables: roll index offset[n] + i (i < 6**n) -> dice set aside, soldiers lost."""

    offset: np.ndarray
    size: np.ndarray
    dice: np.ndarray
    soldiers: np.ndarray


@lru_cache(maxsize=8)
def outcome_tables(table: SoldierTable) -> OutcomeTables:
    """Score all 55,986 ordered rolls of 1-6 dice once for this table."""
    offset = np.zeros(7, dtype=np.int64)
    size = np.zeros(7, dtype=np.int64)
    dice: list[int] = []
    soldiers: list[int] = []
    for n in range(1, 7):
        offset[n] = len(dice)
        size[n] = 6**n
        for roll in product(range(1, 7), repeat=n):
            best = scoring_all(roll, table)
            dice.append(0 if best is None else len(best.dice))
            soldiers.append(0 if best is None else best.soldiers)
    return OutcomeTables(offset, size, np.array(dice, dtype=np.int8), np.array(soldiers, dtype=np.int64))


@dataclass(frozen=True)
class BattleStats:
    runs: int
    army: int
    health: int
    table: str
    win_rate: float
    farkle_rate: float
    wiped_rate: float
    mean_soldiers_lost_in_wins: float | None
    mean_soldiers_lost: float
    mean_rolls: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def simulate_final_battle(army: int, *, health: int = 3, table: SoldierTable | str | None = None,
                          runs: int = 100_000, seed: int | None = None) -> BattleStats:
    """Play `runs` Final Battle turns from `army` soldiers against a dragon of `health`."""
    if runs < 1 or army < 0 or health < 1:
        raise ValueError("runs and health must be positive and the army not negative.")
    soldier_table = get_table(table)
    tabs = outcome_tables(soldier_table)
    rng = np.random.default_rng(seed)
    end_army, result, rolls = _run(tabs, rng, army, health, runs)
    won = result == 1
    lost = army - end_army
    wins = int(won.sum())
    return BattleStats(
        runs=runs, army=army, health=health, table=soldier_table.name,
        win_rate=wins / runs,
        farkle_rate=float((result == 2).mean()),
        wiped_rate=float((result == 3).mean()),
        mean_soldiers_lost_in_wins=float(lost[won].mean()) if wins else None,
        mean_soldiers_lost=float(lost.mean()),
        mean_rolls=float(rolls.mean()),
    )


def _run(tabs: OutcomeTables, rng: np.random.Generator, army: int, health: int,
         runs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Final army, result (1 won, 2 Farkle, 3 army wiped) and rolls made, per battle."""
    end_army = np.empty(runs, dtype=np.int64)
    result = np.empty(runs, dtype=np.int8)
    rolls = np.empty(runs, dtype=np.int32)
    ids = np.arange(runs)
    arm = np.full(runs, army, dtype=np.int64)
    n = np.full(runs, 6, dtype=np.int64)
    dmg = np.zeros(runs, dtype=np.int16)
    count = 0
    while ids.size:
        count += 1
        x = rng.integers(0, tabs.size[n] * 6)
        idx = tabs.offset[n] + x // 6
        hits = EVENT_HITS[x % 6]
        k = tabs.dice[idx]
        arm = np.maximum(arm - tabs.soldiers[idx], 0)
        dmg = dmg + hits
        n = n - k
        n[n == 0] = 6
        outcome = np.zeros(ids.size, dtype=np.int8)
        outcome[arm == 0] = 3
        outcome[(k == 0) & (hits == 0)] = 2
        outcome[dmg >= health] = 1
        done = outcome > 0
        if done.any():
            end_ids = ids[done]
            end_army[end_ids] = arm[done]
            result[end_ids] = outcome[done]
            rolls[end_ids] = count
            keep = ~done
            ids, arm, n, dmg = ids[keep], arm[keep], n[keep], dmg[keep]
    return end_army, result, rolls
