"""The numpy Final Battle simulator agrees with the rules engine."""
from __future__ import annotations

import random
from itertools import product

import numpy as np
import pytest

from companion.rules import apply, checkpoint, get_table, new_game, scoring_all
from companion.simulate import outcome_tables, simulate_final_battle


@pytest.mark.parametrize("name", ["default", "gude", "classic"])
def test_outcome_tables_are_the_engine_scoring(name: str) -> None:
    table = get_table(name)
    tabs = outcome_tables(table)
    assert tabs.dice.size == sum(6**n for n in range(1, 7))
    for n in (1, 2, 3):
        for i, roll in enumerate(product(range(1, 7), repeat=n)):
            best = scoring_all(roll, table)
            assert tabs.dice[tabs.offset[n] + i] == (len(best.dice) if best else 0)
            assert tabs.soldiers[tabs.offset[n] + i] == (best.soldiers if best else 0)
    assert tabs.soldiers[tabs.offset[6]] == table.six_of_a_kind[0]  # six 1s come first


def test_rates_add_up_and_seed_repeats() -> None:
    a = simulate_final_battle(5000, runs=20_000, seed=7)
    b = simulate_final_battle(5000, runs=20_000, seed=7)
    assert a == b
    assert a.win_rate + a.farkle_rate + a.wiped_rate == pytest.approx(1.0)
    assert a.mean_soldiers_lost_in_wins is not None and a.mean_soldiers_lost_in_wins % 1 >= 0


def test_a_stronger_dragon_is_harder_and_a_small_army_dies_more() -> None:
    base = simulate_final_battle(5000, runs=50_000, seed=1)
    legend = simulate_final_battle(5000, health=5, runs=50_000, seed=1)
    small = simulate_final_battle(300, runs=50_000, seed=1)
    assert legend.win_rate < base.win_rate
    assert small.wiped_rate > base.wiped_rate


def _engine_battle(army: int, rng: random.Random) -> str:
    state = new_game({"players": ["A", "B"], "armies": {"A": army}, "in_keep": ["A"]})
    state, _ = apply(state, {"action": "final_battle"})
    while True:
        n = checkpoint(state)["dice_in_hand"]
        faces = [rng.randint(1, 6) for _ in range(n)]
        event = rng.choice(["blank"] * 4 + ["dragon", "rally"])
        state, events = apply(state, {"roll": faces, "event": event})
        kinds = {e.kind for e in events}
        for kind, result in (("won", "won"), ("farkle", "farkle"), ("army_wiped", "wiped")):
            if kind in kinds:
                return result


@pytest.mark.slow
def test_simulator_matches_the_engine_statistically() -> None:
    rng = random.Random(3)
    runs = 4000
    results = [_engine_battle(1000, rng) for _ in range(runs)]
    engine = {k: results.count(k) / runs for k in ("won", "farkle", "wiped")}
    fast = simulate_final_battle(1000, runs=400_000, seed=3)
    for key, rate in (("won", fast.win_rate), ("farkle", fast.farkle_rate), ("wiped", fast.wiped_rate)):
        sigma = np.sqrt(rate * (1 - rate) / runs)
        assert abs(engine[key] - rate) < 4 * sigma + 1e-9, (key, engine[key], rate)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        simulate_final_battle(-50, runs=10)
    with pytest.raises(ValueError):
        simulate_final_battle(5000, runs=0)
