"""Soldier tables as data: named tables, user table files, and their validation."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.rules import TABLES, SoldierTable, TableError, get_table, load_table, value_of


def test_named_tables() -> None:
    assert set(TABLES) >= {"default", "gude", "classic"}
    assert get_table() is TABLES["default"]
    assert get_table("gude").six_of_a_kind[0] == 2500
    table = TABLES["classic"]
    assert get_table(table) is table


def test_unknown_table_name_lists_the_known_ones() -> None:
    with pytest.raises(TableError, match="classic, default, gude"):
        get_table("house")


def test_user_table_overrides_its_base(tmp_path: Path) -> None:
    path = tmp_path / "mymat.json"
    path.write_text(json.dumps({"name": "our mat", "base": "default", "three_pairs": 1500,
                                "single": {"1": 100, "5": 50}, "four_of_a_kind": [2000, 400, 600, 800, 1000, 1200]}))
    table = load_table(path)
    assert isinstance(table, SoldierTable) and table.name == "our mat"
    assert value_of([2, 2, 3, 3, 4, 4], table) == 1500
    assert value_of([3, 3, 3, 3], table) == 600
    assert value_of([1, 2, 3, 4, 5, 6], table) == 3000  # from the base


def test_round_trip_through_json() -> None:
    for table in TABLES.values():
        assert load_table(table.to_json()) == table


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"three_pairs": 1234}', "multiple of 50"),
        ('{"three_pairs": -50}', "multiple of 50"),
        ('{"straight": "lots"}', "whole number"),
        ('{"pairs": 100}', "'pairs' is not a table entry"),
        ('{"single": {"7": 100}}', "faces are 1 to 6"),
        ('{"single": [100, 0]}', "needs 6 values"),
        ('{"base": "nope"}', "no Soldier table called 'nope'"),
        ('{"single": 0, "three_of_a_kind": 0}', "nothing could ever be set aside"),
        ('[1, 2]', "must be a JSON object"),
        ('{"three_pairs": ', "not readable JSON"),
        ('{"four_and_pair_as_three_pairs": 1}', "true or false"),
    ],
)
def test_bad_table_files_get_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(TableError, match=message):
        load_table(path)


def test_missing_table_file(tmp_path: Path) -> None:
    with pytest.raises(TableError, match="does not exist"):
        load_table(tmp_path / "nope.json")


def test_table_error_is_a_value_error() -> None:
    assert issubclass(TableError, ValueError)
