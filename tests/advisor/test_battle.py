"""Final Battle: chance to win this turn and soldiers expected lost, against Monte Carlo."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from companion.advisor import query as q
from companion.rules import scoring_all


def fight(tables, sim, rng: random.Random, army: int, health: int, tooth: bool) -> tuple[bool, int]:
    """One forced Final Battle turn, written from RULES.md: (won, soldiers lost)."""
    n, damage, lost = 6, 0, 0
    while True:
        faces = tuple(sorted(rng.randint(1, 6) for _ in range(n)))
        event = rng.choice(sim.EVENTS)
        eaten = scoring_all(faces, tables.table)
        hit = {"blank": 0, "dragon": 1, "rally": 2}[event]
        if eaten is None and hit == 0:
            if tooth:
                tooth = False
                continue
            return False, lost
        take = min(army, eaten.soldiers) if eaten else 0
        army, lost, damage = army - take, lost + take, damage + hit
        if damage >= health:
            return True, lost
        if army <= 0:
            return False, lost
        if eaten:
            n = sim.left(n, len(eaten.dice))


@pytest.mark.parametrize("army,health,tooth", [(5000, 3, False), (1500, 4, False), (3000, 5, True)])
def test_battle_matches_monte_carlo(tables, sim, army: int, health: int, tooth: bool) -> None:
    rng = random.Random(army + health)
    runs = 6000
    results = [fight(tables, sim, rng, army, health, tooth) for _ in range(runs)]
    won = np.array([w for w, _ in results], dtype=float)
    lost = np.array([x for _, x in results], dtype=float)
    win, loss = q.battle(tables, 6, health, army, tooth)
    assert abs(won.mean() - win) < 4 * math.sqrt(win * (1 - win) / runs)
    assert abs(lost.mean() - loss) < 4 * lost.std(ddof=1) / math.sqrt(runs)


def test_more_army_never_hurts_and_the_top_row_is_close_to_unlimited(tables) -> None:
    for needed in range(1, 6):
        row = tables.battle_win[0, 6, needed]
        assert np.all(np.diff(row) >= -1e-12)
    assert tables.battle_bound < 1e-8
    assert tables.battle_loss_bound < 1e-4


def test_damage_already_enough_means_won(tables) -> None:
    assert q.battle(tables, 3, 0, 100, False) == (1.0, 0.0)


@pytest.mark.parametrize("army,health", [(5000, 3), (2500, 5), (800, 4)])
def test_battle_matches_the_rules_engines_own_simulator(tables, army: int, health: int) -> None:
    """Cross-check with companion.simulate (written separately, on the rules branch)."""
    from companion.simulate import simulate_final_battle

    runs = 200_000
    stats = simulate_final_battle(army, health=health, table="default", runs=runs, seed=11 + health)
    win, loss = q.battle(tables, 6, health, army, False)
    assert abs(stats.win_rate - win) < 4 * math.sqrt(win * (1 - win) / runs)
    assert stats.mean_soldiers_lost == pytest.approx(loss, rel=0.02)
