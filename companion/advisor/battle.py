"""The Final Battle tables: chance to win this turn and soldiers expected lost.

Nothing is chosen in a Final Battle (every roll is forced), so this is a Markov chain
over (Tooth held f, dice in hand n, damage still needed r = health - damage, army a in
units). Only r matters, so one table serves dragon health 3, 4 and 5. Every roll that
is not a Farkle either deals damage (r falls) or costs soldiers (a falls), so the chain
is acyclic: r ascending, then a ascending. Damage reaching the health wins at once,
even when the same roll empties the army. A Tooth cancels one Farkle: roll the same
dice again.

The scoring rolls enter only through M_k[n, m], the chance that n dice score exactly k
units leaving m dice, so every "army falls by k" term is a short convolution over a:
one tensor product for the terms from smaller r, one small matrix-vector product per
army level for the same r. Above `ARMY_LEVELS` units the chances are read at the top
row; the gap to an unlimited army (`army_bound`, `loss_bound`) is computed exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from companion.advisor.outcomes import P_BLANK, P_DRAGON, P_RALLY, DiceOutcomes
from companion.advisor.turn import SLOTS

ARMY_LEVELS = 400     # armies 0 .. 19,950 soldiers with the 50 unit
MAX_HEALTH = 5
DAMAGE = ((P_DRAGON, 1), (P_RALLY, 2))


@dataclass(frozen=True)
class BattleSolution:
    """`win` and `loss` (2 flags, SLOTS, MAX_HEALTH + 1, ARMY_LEVELS + 1); loss in soldiers."""

    win: np.ndarray
    loss: np.ndarray
    army_bound: float   # win chance an unlimited army would add at the top row
    loss_bound: float   # soldiers of expected loss it would add


@dataclass(frozen=True)
class _Chain:
    """The roll distribution as matrices: `mw[n, m, j]` = M_{K-j}[n, m] (window order)."""

    k: int                 # largest units one roll can cost
    mw: np.ndarray         # (SLOTS, SLOTS, K)
    by_units: np.ndarray   # (SLOTS, K + 1): chance that n dice score exactly k units
    nonscoring: np.ndarray  # (SLOTS,)


def _chain(outs: dict[int, DiceOutcomes]) -> _Chain:
    k = int(max(o.eat_units.max() for o in outs.values()))
    m = np.zeros((k + 1, SLOTS, SLOTS))
    nonscoring = np.zeros(SLOTS)
    for n, o in outs.items():
        np.add.at(m, (o.eat_units, np.full_like(o.eat_units, n), o.eat_left), o.prob)
        nonscoring[n] = o.nonscoring
    mw = np.transpose(m[:0:-1], (1, 2, 0)).copy()    # j = 0 .. K-1  <->  k = K .. 1
    return _Chain(k=k, mw=mw, by_units=m.sum(axis=2).T, nonscoring=nonscoring)


def _conv(c: _Chain, x: np.ndarray) -> np.ndarray:
    """sum_k M_k @ x[:, a - k] for every a, with x at armies <= 0 counted as 0 (army wiped)."""
    pad = np.zeros((SLOTS, c.k + x.shape[1]))
    pad[:, c.k + 1:] = x[:, 1:]
    windows = sliding_window_view(pad, c.k, axis=1)[:, : x.shape[1], :]   # (m, a, j)
    return np.einsum("nmj,maj->na", c.mw, windows, optimize=True)


def _army_terms(c: _Chain, levels: int, unit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (n, a): chance of being wiped (scoring k >= a), soldiers lost if alive (k < a)
    summed with chances, and the expected soldiers a roll costs (min(k, a))."""
    a = np.arange(levels + 1)[None, :, None]
    k = np.arange(c.k + 1)[None, None, :]
    p = c.by_units[:, None, :]
    wiped = (p * ((k >= a) & (k > 0))).sum(axis=2)
    alive_cost = (p * ((k < a) & (k > 0)) * k).sum(axis=2) * unit
    cost = (p * np.minimum(k, a)).sum(axis=2) * unit
    return wiped, alive_cost, cost


def solve_battle(outs: dict[int, DiceOutcomes], unit: int,
                 levels: int = ARMY_LEVELS) -> BattleSolution:
    """Every Final Battle state for one Soldier table."""
    c = _chain(outs)
    shape = (2, SLOTS, MAX_HEALTH + 1, levels + 1)
    win, loss = np.zeros(shape), np.zeros(shape)
    wiped, alive_cost, cost = _army_terms(c, levels, unit)
    army = np.arange(levels + 1)[None, :]
    q = c.nonscoring[:, None]
    for r in range(1, MAX_HEALTH + 1):
        for f in (0, 1):
            bw = np.zeros((SLOTS, levels + 1))
            bl = P_BLANK * (alive_cost + wiped * army * unit)
            for chance, dmg in DAMAGE:
                if dmg >= r:
                    bw += chance
                    bl += chance * cost
                    continue
                bw += chance * (_conv(c, win[f, :, r - dmg]) + q * win[f, :, r - dmg])
                bl += chance * (alive_cost + wiped * army * unit
                                + _conv(c, loss[f, :, r - dmg]) + q * loss[f, :, r - dmg])
            if f:
                bw += P_BLANK * q * win[0, :, r]
                bl += P_BLANK * q * loss[0, :, r]
            bw[0] = bl[0] = 0.0     # no state holds 0 dice (hot dice give 6)
            win[f, :, r], loss[f, :, r] = _same_r(c, bw, bl)
    w_inf, l_inf = _unlimited(c, unit)
    top = (slice(None), slice(1, None), slice(1, None))
    return BattleSolution(
        win=win, loss=loss,
        army_bound=max(float(np.max(w_inf[top] - win[top + (levels,)])), 0.0),
        loss_bound=max(float(np.max(l_inf[top] - loss[top + (levels,)])), 0.0),
    )


def _same_r(c: _Chain, bw: np.ndarray, bl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Add the blank scoring rolls (army falls, r stays) army level by army level."""
    k, width = c.k, bw.shape[1]
    flat = P_BLANK * c.mw.reshape(SLOTS, SLOTS * k)
    pw, pl = np.zeros((SLOTS, k + width)), np.zeros((SLOTS, k + width))
    for a in range(1, width):
        pw[:, k + a] = bw[:, a] + flat @ pw[:, a: a + k].ravel()
        pl[:, k + a] = bl[:, a] + flat @ pl[:, a: a + k].ravel()
    win, loss = pw[:, k:].copy(), pl[:, k:].copy()
    win[:, 0], loss[:, 0] = bw[:, 0], bl[:, 0]
    return win, loss


def _unlimited(c: _Chain, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Win chance and expected loss with an army that never runs out (6x6 linear solves)."""
    shape = (2, SLOTS, MAX_HEALTH + 1)
    win, loss = np.zeros(shape), np.zeros(shape)
    m = c.mw.sum(axis=2)
    spent = c.by_units @ np.arange(c.k + 1) * float(unit)
    q = c.nonscoring
    eye = np.eye(SLOTS - 1)
    for r in range(1, MAX_HEALTH + 1):
        for f in (0, 1):
            bw, bl = np.zeros(SLOTS), P_BLANK * spent
            for chance, dmg in DAMAGE:
                bl = bl + chance * spent
                if dmg >= r:
                    bw = bw + chance
                    continue
                bw = bw + chance * (m @ win[f, :, r - dmg] + q * win[f, :, r - dmg])
                bl = bl + chance * (m @ loss[f, :, r - dmg] + q * loss[f, :, r - dmg])
            if f:
                bw = bw + P_BLANK * q * win[0, :, r]
                bl = bl + P_BLANK * q * loss[0, :, r]
            a = eye - P_BLANK * m[1:, 1:]
            win[f, 1:, r] = np.linalg.solve(a, bw[1:])
            loss[f, 1:, r] = np.linalg.solve(a, bl[1:])
    return win, loss
