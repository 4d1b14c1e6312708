"""Exact dynamic programming over one Recruit or Brawl turn, level by level of turn total.

A decision state is (card flags f, dice in hand n, level i): the player has just set
dice aside (or evaded the Dragon) and may stop, collecting `reward[i]`, or roll.
The roll value R(f, n, i) averages the 6^n x 6 outcomes of the soldier dice and the
Event die, each followed by its best choice:

- blank, scoring: best set-aside, D(f, left, i + s)
- Rally, scoring: best set-aside doubled, D(f, left, i + 2s) (a Magic Item is worth
  no soldiers within the turn, so doubling is always at least as good)
- Dragon, scoring: all scoring dice eaten, D(f, left, i); with Tabby unused also
  "treat as blank": max over set-asides of D(f - TABBY, left, i + s)
- Dragon, no scoring: the Farkle is evaded, D(f, n, i)
- blank/Rally, no scoring: Farkle, `farkle` reward; with a Lucky Dragon's Tooth the
  roll is ignored instead: D(f - TOOTH, n, i)

Every set-aside scores at least one unit, so level i only needs levels above it and
itself; the same-level links (Dragon evasion, the Dragon eating dice, hot dice after
it, the Tooth) make a small linear system per level, solved exactly by policy
iteration (stop/roll per state, Tabby or not per Dragon roll). Every step is numpy
over the precomputed outcomes: one gather, one `maximum.reduceat`, one `bincount`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.advisor.outcomes import P_BLANK, P_DRAGON, P_RALLY, DiceOutcomes

TABBY = 1   # flag bit: Tabby's "ignore the Dragon face" not yet used this turn
TOOTH = 2   # flag bit: a Lucky Dragon's Tooth held, able to ignore one Farkle
N_FLAGS = 4
SLOTS = 7   # dice-in-hand index 1..6 (0 unused)


@dataclass
class _Plan:
    """Index arrays for one level's gather, built once per (outcomes, flags, width)."""

    idx: np.ndarray          # flat D offsets (add the level) of every (group, pair)
    starts: np.ndarray       # first entry of each group, for maximum.reduceat
    known_rows: np.ndarray   # state row of each blank/Rally group
    known_w: np.ndarray      # its probability weight
    n_known: int             # blank/Rally groups come first, then Tabby groups
    tb_row: np.ndarray       # per Tabby group: state row, column if eaten, weight
    tb_col: np.ndarray
    tb_w: np.ndarray
    a0: np.ndarray           # fixed same-level links (evasion, Tooth, eating without Tabby)
    b0: np.ndarray           # fixed constant part (Farkle reward without a Tooth)


def states(flags: tuple[int, ...]) -> dict[tuple[int, int], int]:
    """Row of each (flag, dice) state in the per-level linear system."""
    return {(f, n): k * 6 + n - 1 for k, f in enumerate(flags) for n in range(1, 7)}


def _plan(outs: dict[int, DiceOutcomes], flags: tuple[int, ...], width: int,
          farkle: float) -> _Plan:
    row = states(flags)
    size = len(row)
    stride = SLOTS * width
    idx, starts, k_rows, k_w = [], [], [], []
    tb_idx, tb_starts, tb_row, tb_col, tb_w = [], [], [], [], []
    a0 = np.zeros((size, size))
    b0 = np.zeros(size)
    pos = 0
    for f in flags:
        for n, o in outs.items():
            r = row[f, n]
            base = f * stride + o.opt_left * width
            for jump, weight in ((o.opt_units, P_BLANK), (2 * o.opt_units, P_RALLY)):
                idx.append(base + jump)
                starts.append(pos + o.opt_start)
                pos += len(o.opt_roll)
                k_rows.append(np.full(len(o.prob), r))
                k_w.append(weight * o.prob)
            a0[r, r] += P_DRAGON * o.nonscoring
            if f & TOOTH:
                a0[r, row[f - TOOTH, n]] += (P_BLANK + P_RALLY) * o.nonscoring
            else:
                b0[r] += (P_BLANK + P_RALLY) * o.nonscoring * farkle
            cols = np.array([row[f, m] for m in o.eat_left], dtype=np.int64)
            if f & TABBY:
                tb_idx.append((f - TABBY) * stride + o.opt_left * width + o.opt_units)
                tb_starts.append(o.opt_start)
                tb_row.append(np.full(len(o.prob), r))
                tb_col.append(cols)
                tb_w.append(P_DRAGON * o.prob)
            else:
                np.add.at(a0[r], cols, P_DRAGON * o.prob)
    n_known = pos
    for i, s in zip(tb_idx, tb_starts):
        idx.append(i)
        starts.append(pos + s)
        pos += len(i)
    cat = lambda xs, dt=np.int64: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)
    starts_all = cat(starts)
    return _Plan(
        idx=cat(idx), starts=starts_all, known_rows=cat(k_rows), known_w=cat(k_w, np.float64),
        n_known=int(np.searchsorted(starts_all, n_known)),
        tb_row=cat(tb_row), tb_col=cat(tb_col), tb_w=cat(tb_w, np.float64), a0=a0, b0=b0,
    )


@dataclass(frozen=True)
class TurnSolution:
    """R (roll value) and D (value of the decision state) on levels 0..L-1 plus the tail."""

    roll: np.ndarray    # (N_FLAGS, SLOTS, L)
    value: np.ndarray   # (N_FLAGS, SLOTS, L + tail)
    solves: int         # linear solves used, for the benchmark


def solve_turn(outs: dict[int, DiceOutcomes], flags: tuple[int, ...], reward: np.ndarray,
               tail: np.ndarray, *, farkle: float = 0.0) -> TurnSolution:
    """Solve every level from the top down; `tail` (N_FLAGS, SLOTS, T) holds D above level L-1.

    `flags` must be closed under dropping TABBY/TOOTH bits that are set. T must exceed
    the largest doubled set-aside in units, so every jump lands in the table.
    """
    levels = len(reward)
    width = levels + tail.shape[2]
    value = np.zeros((N_FLAGS, SLOTS, width))
    value[:, :, levels:] = tail
    roll = np.zeros((N_FLAGS, SLOTS, levels))
    plan = _plan(outs, flags, width, farkle)
    rows = states(flags)
    size = len(rows)
    fl = np.array([f for f, _ in rows]), np.array([n for _, n in rows])
    flat = value.reshape(-1)
    go = np.ones(size, dtype=bool)
    use = np.ones(len(plan.tb_row), dtype=bool)
    solves = 0
    for i in range(levels - 1, -1, -1):
        best = np.maximum.reduceat(flat[plan.idx + i], plan.starts)
        known = plan.b0 + np.bincount(plan.known_rows, best[: plan.n_known] * plan.known_w,
                                      minlength=size)
        tabby_best = best[plan.n_known:]
        for _ in range(64):     # policy iteration ends in 1-2 rounds; the bound only guards ties
            x = _policy_values(plan, known, tabby_best, go, use, reward[i], size)
            solves += 1
            eaten = x[plan.tb_col]
            y = known + plan.a0 @ x + np.bincount(
                plan.tb_row, np.maximum(tabby_best, eaten) * plan.tb_w, minlength=size)
            tol = 1e-12 * max(1.0, abs(reward[i]))
            new_go = y > reward[i] + tol
            new_use = tabby_best + tol >= eaten
            if np.array_equal(new_go, go) and np.array_equal(new_use, use):
                break
            go, use = new_go, new_use
        roll[fl[0], fl[1], i] = y
        value[fl[0], fl[1], i] = np.maximum(y, reward[i])
    return TurnSolution(roll=roll, value=value, solves=solves)


def _policy_values(plan: _Plan, known: np.ndarray, tabby_best: np.ndarray, go: np.ndarray,
                   use: np.ndarray, stop: float, size: int) -> np.ndarray:
    """Values of one level's states under a fixed stop/roll and Tabby policy (exact solve)."""
    keep = ~use
    a = plan.a0 + np.bincount(plan.tb_row * size + plan.tb_col, plan.tb_w * keep,
                              minlength=size * size).reshape(size, size)
    b = known + np.bincount(plan.tb_row, plan.tb_w * use * tabby_best, minlength=size)
    a[~go] = 0.0
    b = np.where(go, b, stop)
    return np.linalg.solve(np.eye(size) - a, b)
