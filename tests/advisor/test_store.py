"""Tables cached on disk as npz, keyed by the table's contents and the advisor version."""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from companion.advisor import store
from companion.rules import load_table


def test_round_trip_reads_back_every_array(tables, cache_folder: Path) -> None:
    files = list(cache_folder.glob("default-*.npz"))
    assert len(files) == 1
    again = store.read_tables(files[0])
    for f in fields(store.AdvisorTables):
        a, b = getattr(tables, f.name), getattr(again, f.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b


def test_second_call_is_served_from_memory_and_a_fresh_process_from_disk(tables, cache_folder, monkeypatch) -> None:
    assert store.tables_for("default", folder=cache_folder) is tables
    monkeypatch.setattr(store, "_MEMORY", {})
    monkeypatch.setattr(store, "build_tables", lambda table: pytest.fail("rebuilt instead of loaded"))
    loaded = store.tables_for("default", folder=cache_folder)
    np.testing.assert_array_equal(loaded.recruit_roll, tables.recruit_roll)


def test_key_follows_table_contents_and_version(monkeypatch) -> None:
    default = store.table_key(load_table({"base": "default"}))
    changed = store.table_key(load_table({"base": "default", "three_pairs": 1500}))
    assert default != changed
    monkeypatch.setattr(store, "VERSION", "other")
    assert store.table_key(load_table({"base": "default"})) != default


def test_unreadable_cache_file_is_rebuilt(tmp_path: Path, monkeypatch, tables) -> None:
    monkeypatch.setattr(store, "_MEMORY", {})
    monkeypatch.setattr(store, "build_tables", lambda table: tables)
    path = tmp_path / f"default-{store.table_key(tables.table)}.npz"
    path.write_bytes(b"not a zip file")
    assert store.tables_for("default", folder=tmp_path) is tables
    assert store.read_tables(path).unit == tables.unit


def test_cache_folder_from_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path))
    assert store.cache_dir() == tmp_path
    monkeypatch.delenv(store.CACHE_ENV)
    assert store.cache_dir() == Path.home() / ".cache" / "dragon-farkle"


def test_a_table_that_never_farkles_is_refused_clearly(tmp_path: Path) -> None:
    from companion.advisor import AdviceError

    always = load_table({"name": "always", "single": [100, 50, 50, 50, 50, 50]})
    with pytest.raises(AdviceError, match="never Farkle"):
        store.tables_for(always, folder=tmp_path)
