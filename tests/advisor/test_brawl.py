"""Brawl win chances against seeded Monte Carlo games of both sides' policies."""
from __future__ import annotations

import itertools
import math
import random

import pytest

from companion.advisor import query as q
from companion.advisor.turn import TOOTH


def defend(tables, sim, rng: random.Random, target: int) -> int:
    """The defender's final score (0 after a Farkle), playing to end strictly above `target`."""
    def value(n, total, f):
        return 1.0 if total > target else q.defender_roll(tables, n, target - total)

    def roll(n, total, f):
        return q.defender_roll(tables, n, target - total)

    def stop(total):
        return 1.0 if total > target else 0.0

    return sim.play(tables, rng, 5, 0, value, roll, stop) or 0


def attack(tables, sim, rng: random.Random, tooth: bool) -> int:
    flags = TOOTH if tooth else 0

    def value(n, total, f):
        return max(q.attacker_stop(tables, total), q.attacker_roll(tables, n, total, bool(f)))

    def roll(n, total, f):
        return q.attacker_roll(tables, n, total, bool(f))

    return sim.play(tables, rng, 6, flags, value, roll, lambda t: q.attacker_stop(tables, t)) or 0


def within(hits: int, runs: int, p: float) -> None:
    half = 4 * math.sqrt(max(p * (1 - p), 1e-4) / runs)
    assert abs(hits / runs - p) < half, (hits / runs, p, half)


@pytest.mark.parametrize("target", [0, 650, 2000])
def test_defender_chance_matches_monte_carlo(tables, sim, target: int) -> None:
    rng = random.Random(target + 7)
    runs = 4000
    wins = sum(defend(tables, sim, rng, target) > target for _ in range(runs))
    within(wins, runs, q.defender_win(tables, 5, target))


@pytest.mark.parametrize("tooth", [False, True])
def test_attacker_chance_matches_monte_carlo(tables, sim, tooth: bool) -> None:
    rng = random.Random(99 + tooth)
    runs = 3000
    wins = 0
    for _ in range(runs):
        score = attack(tables, sim, rng, tooth)
        # the defender plays not to lose: to reach the attacker's score at least
        wins += score > 0 and defend(tables, sim, rng, score - tables.unit) < score
    within(wins, runs, q.attacker_roll(tables, 6, 0, tooth))


def test_defender_chances_fall_with_the_deficit_and_rise_with_dice(tables) -> None:
    for n in range(1, 7):
        chances = [q.defender_win(tables, n, d) for d in range(0, 5000, 50)]
        assert all(a >= b - 1e-12 for a, b in itertools.pairwise(chances))
    assert q.defender_win(tables, 5, -50) == 1.0
    assert q.defender_win(tables, 5, 10**6) == 0.0
    assert tables.brawl_bound < 1e-9


def test_attacker_stop_chance_is_zero_at_zero_and_grows(tables) -> None:
    assert q.attacker_stop(tables, 0) == 0.0
    stops = [q.attacker_stop(tables, s) for s in range(0, 10000, 50)]
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(stops))
    assert stops[-1] > 0.99


def test_defender_table_satisfies_the_bellman_equation(tables, sim) -> None:
    """W(n, d) equals the average over every roll of n dice of the best choice's chance."""
    from itertools import product

    for n, deficit in ((2, 0), (3, 300), (4, 1000)):
        expect = 0.0
        for faces in product(range(1, 7), repeat=n):
            for event in sim.EVENTS:
                picks = sim.choices(tables, tuple(sorted(faces)), event, 0, 0)
                values = [1.0 if total > deficit else q.defender_win(tables, m, deficit - total)
                          for m, total, _ in picks]
                expect += max(values, default=0.0) / (6**n * 6)
        assert q.defender_win(tables, n, deficit) == pytest.approx(expect, rel=1e-10)
