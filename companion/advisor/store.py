"""Advisor tables for one Soldier table: built once, cached on disk as npz, then looked up.

The cache file is keyed by the table's contents (its JSON) and `VERSION`, so a
corrected mat or a new advisor version never reads stale numbers. The folder is
`~/.cache/dragon-farkle/` unless a folder is passed or `DRAGON_FARKLE_CACHE` is set.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path

import numpy as np

from companion.advisor.battle import solve_battle
from companion.advisor.brawl import solve_brawl
from companion.advisor.outcomes import DiceOutcomes, all_outcomes, table_unit
from companion.advisor.recruit import farkle_chance, solve_recruit
from companion.rules import SoldierTable, get_table

VERSION = "2"
CACHE_ENV = "DRAGON_FARKLE_CACHE"


@dataclass(frozen=True, eq=False)
class AdvisorTables:
    """Every number the advisor answers from, for one Soldier table (see each solver)."""

    table_json: str
    unit: int
    cap: float
    farkle: np.ndarray            # (7,) chance a roll of n dice is a Farkle (no card)
    recruit_roll: np.ndarray      # (4, 7, L) roll value per flags, dice, total level
    recruit_value: np.ndarray     # (4, 7, L + tail) best of stop and roll
    tooth_excess: np.ndarray      # (4, 7) soldiers a held Tooth adds above the cap
    defender_value: np.ndarray    # (4, 7, Ld) win chance by level Ld-1-deficit
    attacker_roll: np.ndarray     # (4, 7, La)
    attacker_value: np.ndarray    # (4, 7, La)
    attacker_stop: np.ndarray     # (La + tail,) win chance when stopping on a score
    battle_win: np.ndarray        # (2, 7, 6, A + 1) by Tooth, dice, damage needed, army
    battle_loss: np.ndarray       # (2, 7, 6, A + 1) soldiers expected lost from here
    brawl_bound: float            # largest win chance ignored beyond the deficit table
    battle_bound: float           # win chance an army beyond the table could add
    battle_loss_bound: float      # expected loss it could add

    @cached_property
    def table(self) -> SoldierTable:
        from companion.rules import load_table
        return load_table(json.loads(self.table_json))

    @cached_property
    def outcomes(self) -> dict[int, DiceOutcomes]:
        """The roll outcomes, rebuilt on demand (only totals beyond the cap need them)."""
        return all_outcomes(self.table, self.unit)


def table_key(table: SoldierTable) -> str:
    """Cache key: the table's contents and the advisor version."""
    text = json.dumps(table.to_json(), sort_keys=True) + "|" + VERSION
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def build_tables(table: SoldierTable | str | None = None) -> AdvisorTables:
    """Solve every dynamic program for one table (about a second on one core)."""
    table = get_table(table)
    unit = table_unit(table)
    outs = all_outcomes(table, unit)
    recruit, cap, excess = solve_recruit(outs, unit)
    brawl = solve_brawl(outs)
    battle = solve_battle(outs, unit)
    farkle = np.zeros(7)
    for n, o in outs.items():
        farkle[n] = farkle_chance(o)
    built = AdvisorTables(
        table_json=json.dumps(table.to_json(), sort_keys=True), unit=unit, cap=cap,
        farkle=farkle, recruit_roll=recruit.roll, recruit_value=recruit.value,
        tooth_excess=excess, defender_value=brawl.defender_value,
        attacker_roll=brawl.attacker_roll, attacker_value=brawl.attacker_value,
        attacker_stop=brawl.attacker_stop, battle_win=battle.win, battle_loss=battle.loss,
        brawl_bound=brawl.tail_bound, battle_bound=battle.army_bound,
        battle_loss_bound=battle.loss_bound,
    )
    built.__dict__["outcomes"] = outs
    return built


def cache_dir(folder: str | Path | None = None) -> Path:
    """The cache folder: the one given, else $DRAGON_FARKLE_CACHE, else ~/.cache/dragon-farkle."""
    if folder is not None:
        return Path(folder)
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "dragon-farkle"


def save_tables(tables: AdvisorTables, path: Path) -> None:
    """Write atomically (temp file then rename) so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {f.name: np.asarray(getattr(tables, f.name)) for f in fields(tables)}
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, **data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_tables(path: Path) -> AdvisorTables:
    """Load a cache file written by `save_tables`."""
    with np.load(path, allow_pickle=False) as data:
        values = {}
        for f in fields(AdvisorTables):
            item = data[f.name]
            values[f.name] = item if item.ndim else item.item()
    return AdvisorTables(**values)


_MEMORY: dict[tuple[str, str], AdvisorTables] = {}


def tables_for(table: SoldierTable | str | None = None, *,
               folder: str | Path | None = None) -> AdvisorTables:
    """The tables of a Soldier table: from memory, else the disk cache, else built and cached.

    A cache file that cannot be read (truncated, older format) is rebuilt; a folder
    that cannot be written only costs the next start the build time.
    """
    table = get_table(table)
    key = table_key(table)
    path = cache_dir(folder) / f"{_safe(table.name)}-{key}.npz"
    found = _MEMORY.get((str(path), key))
    if found is not None:
        return found
    try:
        tables = read_tables(path)
    except (OSError, KeyError, ValueError, EOFError):
        tables = build_tables(table)
        try:
            save_tables(tables, path)
        except OSError:
            pass
    _MEMORY[(str(path), key)] = tables
    return tables


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40] or "table"
