"""Scoring tables and legal set-asides, checked against RULES.md and the rulebook examples."""
from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement

import pytest

from companion.rules import (
    TABLES,
    IllegalMove,
    Option,
    get_table,
    options_for,
    scoring_all,
    value_of,
)
from companion.rules.scoring import lookup

ALL_ROLLS = [r for n in range(1, 7) for r in combinations_with_replacement(range(1, 7), n)]


@pytest.mark.parametrize(
    ("table", "dice", "soldiers"),
    [
        ("default", [1], 100), ("default", [5], 50), ("default", [1, 1], 200),
        ("default", [1, 1, 1], 1000), ("default", [2, 2, 2], 200), ("default", [3, 3, 3], 300),
        ("default", [4, 4, 4], 400), ("default", [5, 5, 5], 500), ("default", [6, 6, 6], 600),
        ("default", [4, 4, 4, 5], 450), ("default", [2, 2, 2, 2], 1500), ("default", [6] * 5, 2000),
        ("default", [2] * 6, 3000), ("default", [2, 2, 3, 3, 6, 6], 2000),
        ("default", [1, 2, 3, 4, 5, 6], 3000), ("default", [2, 2, 2, 4, 4, 4], 600),
        ("default", [3, 3, 3, 3, 6, 6], 2000), ("default", [1, 1, 1, 1, 5, 5], 2000),
        ("default", [1, 1, 1, 5, 5, 5], 1500), ("default", [1, 1, 5], 250),
        ("gude", [2] * 6, 2500), ("gude", [5] * 5, 1550), ("gude", [2] * 5, None),
        ("gude", [3] * 4, 1500), ("gude", [1, 2, 3, 4, 5, 6], 3000),
        ("classic", [1, 1, 1], 1000), ("classic", [3] * 4, 1000), ("classic", [3] * 5, 2000),
        ("classic", [3] * 6, 3000), ("classic", [2, 2, 4, 4, 6, 6], 1500),
        ("classic", [1, 2, 3, 4, 5, 6], 1500), ("classic", [2, 2, 2, 4, 4, 4], 2500),
        ("default", [2, 3], None), ("default", [2, 2], None), ("default", [1, 2], None),
    ],
)
def test_value_of_combinations(table: str, dice: list[int], soldiers: int | None) -> None:
    assert value_of(dice, table) == soldiers


def test_rulebook_recruiting_options() -> None:
    assert options_for([2, 3, 4, 4, 4, 5]) == (
        Option((5,), 50), Option((4, 4, 4), 400), Option((4, 4, 4, 5), 450),
    )


def test_rulebook_brawling_options() -> None:
    assert [o.dice for o in options_for([1, 1, 3, 4])] == [(1,), (1, 1)]


def test_farkle_has_no_options() -> None:
    assert options_for([2, 3, 4, 6, 6, 3]) == ()
    assert scoring_all([3, 6]) is None


@pytest.mark.parametrize(
    ("roll", "dice", "soldiers"),
    [
        ([2, 2, 2, 2, 2, 2], (2, 2, 2, 2, 2, 2), 3000),
        ([1, 3, 3, 3, 4, 6], (1, 3, 3, 3), 400),
        ([1, 4], (1,), 100),
        ([2, 2, 2, 2, 3, 3], (2, 2, 2, 2, 3, 3), 2000),
        ([5, 1, 2, 4, 6, 6], (1, 5), 150),
    ],
)
def test_scoring_all_takes_every_scoring_die(roll: list[int], dice: tuple[int, ...], soldiers: int) -> None:
    assert scoring_all(roll) == Option(dice, soldiers)


def test_there_are_923_distinct_rolls_in_every_table() -> None:
    for table in TABLES.values():
        assert len(lookup(table)) == 923 == len(ALL_ROLLS)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_option_is_a_sub_multiset_worth_a_multiple_of_50(name: str) -> None:
    table = get_table(name)
    for roll in ALL_ROLLS:
        have = Counter(roll)
        seen = set()
        for option in options_for(roll, table):
            assert option.dice == tuple(sorted(option.dice))
            assert not Counter(option.dice) - have
            assert option.soldiers > 0 and option.soldiers % 50 == 0
            assert option.dice not in seen
            seen.add(option.dice)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_union_of_set_asides_is_scoring_all(name: str) -> None:
    """Every die of any option is inside the all-scoring set-aside (it is unique and largest)."""
    for roll in ALL_ROLLS:
        options = options_for(roll, name)
        best = scoring_all(roll, name)
        if not options:
            assert best is None
            continue
        assert best is not None
        for option in options:
            assert not Counter(option.dice) - Counter(best.dice)


def test_options_do_not_depend_on_order() -> None:
    assert options_for([5, 4, 3, 2, 1, 6]) == options_for([1, 2, 3, 4, 5, 6])


@pytest.mark.parametrize("bad", [[], [0], [7], [1, 2, 3, 4, 5, 6, 1], ["a"]])
def test_bad_rolls_are_refused_clearly(bad: list[object]) -> None:
    with pytest.raises(IllegalMove, match="1 to 6"):
        options_for(bad)  # type: ignore[arg-type]
