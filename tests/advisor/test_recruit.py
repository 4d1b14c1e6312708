"""Recruit values: a seeded Monte Carlo of the same policy, and the Bellman equation by enumeration."""
from __future__ import annotations

import math
import random
from collections import Counter
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
import pytest

from companion.advisor import query as q
from companion.advisor.recruit import solve_recruit
from companion.advisor.turn import TABBY, TOOTH, solve_turn


def play_turn(tables, rng: random.Random, flags: int, sim) -> int:
    """One Recruit turn played by the advisor's policy; returns the soldiers banked."""
    def roll(n, total, f):
        return q.recruit_roll(tables, n, total, f)
    banked = sim.play(tables, rng, 6, flags, lambda *c: q.recruit_value(tables, *c), roll, float)
    return banked or 0


@pytest.mark.parametrize("flags", [0, TABBY | TOOTH])
def test_expected_soldiers_match_monte_carlo(tables, sim, flags: int) -> None:
    rng = random.Random(20261125 + flags)
    banked = np.array([play_turn(tables, rng, flags, sim) for _ in range(12_000)], dtype=float)
    exact = q.recruit_roll(tables, 6, 0, flags)
    half_width = 4 * banked.std(ddof=1) / math.sqrt(len(banked))
    assert abs(banked.mean() - exact) < half_width, (banked.mean(), exact, half_width)


def test_cards_only_help(tables) -> None:
    for n in range(1, 7):
        for total in (0, 500, 2000):
            plain = q.recruit_roll(tables, n, total, 0)
            assert q.recruit_roll(tables, n, total, TABBY) >= plain - 1e-9
            assert q.recruit_roll(tables, n, total, TOOTH) > plain
            assert q.recruit_roll(tables, n, total, TABBY | TOOTH) >= q.recruit_roll(tables, n, total, TOOTH) - 1e-9


def rolls_of(n: int):
    for dice in combinations_with_replacement(range(1, 7), n):
        ways = factorial(n)
        for k in Counter(dice).values():
            ways //= factorial(k)
        yield dice, ways / 6**n


@pytest.mark.parametrize("n,total,flags", [(1, 300, 0), (2, 450, TABBY), (3, 1000, TOOTH),
                                           (4, 250, TABBY | TOOTH), (5, 0, 0), (6, 2500, TABBY | TOOTH)])
def test_table_satisfies_the_bellman_equation(tables, sim, n: int, total: int, flags: int) -> None:
    """R(n, t) is the average over every roll of the best choice's value D = max(stop, roll)."""
    expect = 0.0
    for faces, p in rolls_of(n):
        for event in sim.EVENTS:
            picks = sim.choices(tables, faces, event, total, flags)
            best = max((q.recruit_value(tables, *c) for c in picks), default=0.0)
            expect += p / 6 * best
    assert q.recruit_roll(tables, n, total, flags) == pytest.approx(expect, rel=1e-10)


def test_stopping_is_optimal_above_the_cap_and_a_higher_cap_changes_nothing(tables) -> None:
    top = tables.recruit_roll.shape[2] - 1
    assert top * tables.unit >= tables.cap
    for f in (0, TABBY):
        assert np.all(tables.recruit_roll[f, 1:, top] < top * tables.unit)
    outs = tables.outcomes
    base, _, _ = solve_recruit(outs, tables.unit)
    levels = base.roll.shape[2] + 60
    width = base.value.shape[2] - base.roll.shape[2]
    totals = np.arange(levels + width, dtype=float) * tables.unit
    tail = totals[None, None, levels:] + tables.tooth_excess[:, :, None]
    bigger = solve_turn(outs, (0, TABBY, TOOTH, TABBY | TOOTH), totals[:levels], tail)
    np.testing.assert_allclose(bigger.roll[:, :, : base.roll.shape[2]], base.roll, rtol=1e-11, atol=1e-8)


def test_totals_beyond_the_table_continue_smoothly(tables) -> None:
    top = (tables.recruit_roll.shape[2] - 1) * tables.unit
    for f in (0, TOOTH, TABBY | TOOTH):
        inside = q.recruit_roll(tables, 6, top, f)
        beyond = q.recruit_roll(tables, 6, top + tables.unit, f)
        if f & TOOTH:
            assert beyond - inside == pytest.approx(tables.unit, rel=1e-6)
        else:
            assert inside < top and beyond < top + tables.unit


def test_bad_total_is_a_clear_error(tables) -> None:
    with pytest.raises(ValueError, match="multiple of 50"):
        q.recruit_roll(tables, 6, 75, 0)
