"""The Final Battle tables: chance to win this turn and soldiers expected lost.

Nothing is chosen in a Final Battle (every roll is forced), so this is a Markov chain
over (Tooth held f, dice in hand n, damage still needed r = health - damage, army a in
units). Only r matters, so one table serves dragon health 3, 4 and 5. Every roll that
is not a Farkle either deals damage (r falls) or costs soldiers (a falls), so the chain
is acyclic: r ascending, then a ascending. Damage reaching the health wins at once,
even when the same roll empties the army. A Tooth cancels one Farkle: roll the same
dice again. Above `ARMY_LEVELS` units the chances are read at the top row; the gap to
an unlimited army (`army_bound`, computed exactly) is reported.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


def solve_battle(outs: dict[int, DiceOutcomes], unit: int,
                 levels: int = ARMY_LEVELS) -> BattleSolution:
    """Every Final Battle state for one Soldier table."""
    shape = (2, SLOTS, MAX_HEALTH + 1, levels + 1)
    win, loss = np.zeros(shape), np.zeros(shape)
    army = np.arange(levels + 1)
    for r in range(1, MAX_HEALTH + 1):
        for tooth in (0, 1):
            for n, o in outs.items():
                w, lo = _cross(o, win, loss, tooth, r, army, unit)
                win[tooth, n, r], loss[tooth, n, r] = w, lo
            _same_level(outs, win, loss, tooth, r, army, unit)
    w_inf, l_inf = _unlimited(outs, unit)
    top = (slice(None), slice(1, None), slice(1, None), levels)
    gap_w = max(float(np.max(w_inf[top[:3]] - win[top])), 0.0)
    gap_l = max(float(np.max(l_inf[top[:3]] - loss[top])), 0.0)
    return BattleSolution(win=win, loss=loss, army_bound=gap_w, loss_bound=gap_l)


def _cross(o: DiceOutcomes, win: np.ndarray, loss: np.ndarray, tooth: int, r: int,
           army: np.ndarray, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Terms of P and L at (n, r, every a) that need only smaller r or the other flag."""
    a = army[None, :]
    s = o.eat_units[:, None]
    wiped = s >= a
    rest = np.where(wiped, 0, a - s)
    lost = np.minimum(s, a) * float(unit)
    p = o.prob[:, None]
    w = np.zeros(len(army))
    lo = P_BLANK * (p * wiped * lost).sum(axis=0)
    for chance, dmg in DAMAGE:
        if dmg >= r:
            w += chance * (1 - o.nonscoring)
            lo += chance * (p * lost).sum(axis=0)
            w += chance * o.nonscoring
            continue
        nxt_w = win[tooth, o.eat_left[:, None], r - dmg, rest]
        nxt_l = loss[tooth, o.eat_left[:, None], r - dmg, rest]
        alive = ~wiped
        w += chance * (p * alive * nxt_w).sum(axis=0)
        lo += chance * (p * (lost + alive * nxt_l)).sum(axis=0)
        w += chance * o.nonscoring * win[tooth, o.n, r - dmg]
        lo += chance * o.nonscoring * loss[tooth, o.n, r - dmg]
    if tooth:
        w += P_BLANK * o.nonscoring * win[0, o.n, r]
        lo += P_BLANK * o.nonscoring * loss[0, o.n, r]
    return w, lo


def _same_level(outs: dict[int, DiceOutcomes], win: np.ndarray, loss: np.ndarray,
                tooth: int, r: int, army: np.ndarray, unit: int) -> None:
    """Add the blank scoring rolls (army falls, r stays), army level by army level."""
    rows = np.concatenate([np.full(len(o.prob), n) for n, o in outs.items()])
    left = np.concatenate([o.eat_left for o in outs.values()])
    units = np.concatenate([o.eat_units for o in outs.values()])
    weight = P_BLANK * np.concatenate([o.prob for o in outs.values()])
    gain = weight * units * float(unit)
    for a in army[1:]:
        alive = units < a
        if not alive.any():
            continue
        at = a - units[alive]
        nw = win[tooth, left[alive], r, at]
        nl = loss[tooth, left[alive], r, at]
        win[tooth, :, r, a] += np.bincount(rows[alive], weight[alive] * nw, minlength=SLOTS)
        loss[tooth, :, r, a] += np.bincount(rows[alive], gain[alive] + weight[alive] * nl,
                                            minlength=SLOTS)


def _unlimited(outs: dict[int, DiceOutcomes], unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Win chance and expected loss with an army that can never run out (linear solves)."""
    shape = (2, SLOTS, MAX_HEALTH + 1)
    win, loss = np.zeros(shape), np.zeros(shape)
    for r in range(1, MAX_HEALTH + 1):
        for tooth in (0, 1):
            m = np.zeros((6, 6))
            bw, bl = np.zeros(6), np.zeros(6)
            for n, o in outs.items():
                np.add.at(m[n - 1], o.eat_left - 1, P_BLANK * o.prob)
                bl[n - 1] += P_BLANK * float(o.prob @ o.eat_units) * unit
                for chance, dmg in DAMAGE:
                    spent = chance * float(o.prob @ o.eat_units) * unit
                    bl[n - 1] += spent
                    if dmg >= r:
                        bw[n - 1] += chance
                        continue
                    bw[n - 1] += chance * (o.prob @ win[tooth, o.eat_left, r - dmg]
                                           + o.nonscoring * win[tooth, n, r - dmg])
                    bl[n - 1] += chance * (o.prob @ loss[tooth, o.eat_left, r - dmg]
                                           + o.nonscoring * loss[tooth, n, r - dmg])
                if tooth:
                    bw[n - 1] += P_BLANK * o.nonscoring * win[0, n, r]
                    bl[n - 1] += P_BLANK * o.nonscoring * loss[0, n, r]
            a = np.eye(6) - m
            win[tooth, 1:, r] = np.linalg.solve(a, bw)
            loss[tooth, 1:, r] = np.linalg.solve(a, bl)
    return win, loss
