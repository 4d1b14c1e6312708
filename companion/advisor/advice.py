"""Advice for one roll: every legal choice with its odds, and the best one.

Every answer has the same shape whatever the action, so a page can draw it the same
way: `options` (one row per choice: dice, soldiers, dice_left, farkle_chance, bank,
roll_on, expected), `best` (row index or None), `then` ("roll", "stop" or "farkle"),
and `measure` saying what bank/roll_on/expected count: "soldiers" (Recruit: soldiers
banked this turn) or "win_chance" (Brawl). Final Battle has no choices; it reports
the chance to win this turn and the soldiers expected lost instead.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.advisor import query as q
from companion.advisor.outcomes import left_after
from companion.advisor.store import AdvisorTables
from companion.advisor.turn import TABBY, TOOTH
from companion.rules import options_for, scoring_all

EVENTS = ("blank", "dragon", "rally")
TOOTH_ID = "lucky_dragons_tooth"


@dataclass(frozen=True)
class Measure:
    """What a decision is worth: stopping on a total, rolling n dice from it."""

    name: str
    bank: Callable[[int], float]
    roll: Callable[[int, int, int], float]   # (dice, total, flags)


def recruit_measure(t: AdvisorTables) -> Measure:
    return Measure("soldiers", float, lambda n, total, f: q.recruit_roll(t, n, total, f))


def attacker_measure(t: AdvisorTables) -> Measure:
    return Measure("win_chance", lambda total: q.attacker_stop(t, total),
                   lambda n, total, f: q.attacker_roll(t, n, total, bool(f & TOOTH)))


def defender_measure(t: AdvisorTables, target: int) -> Measure:
    return Measure("win_chance", lambda total: 1.0 if total > target else 0.0,
                   lambda n, total, f: q.defender_roll(t, n, target - total))


def check_roll(faces: Sequence[int], event: str) -> tuple[int, ...]:
    """The roll as given, or a player-readable error."""
    if event not in EVENTS:
        raise q.AdviceError(f"The Event die shows blank, dragon or rally, not {event!r}.")
    dice = tuple(faces)
    if not 1 <= len(dice) <= 6 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise q.AdviceError(f"A roll is 1 to 6 soldier dice showing 1 to 6, not {list(dice)}.")
    return tuple(sorted(dice))


def row(t: AdvisorTables, m: Measure, dice: Sequence[int], soldiers: int, left: int,
        total: int, flags: int, **extra: Any) -> dict[str, Any]:
    """One choice: set `dice` aside for `soldiers`, then stop on `total` or roll `left` dice."""
    bank, roll_on = m.bank(total), m.roll(left, total, flags)
    return {
        "dice": list(dice), "soldiers": soldiers, "dice_left": left,
        "farkle_chance": q.farkle_chance(t, left, bool(flags & TOOTH)),
        "bank": bank, "roll_on": roll_on, "expected": max(bank, roll_on), **extra,
    }


def choice_rows(t: AdvisorTables, m: Measure, faces: Sequence[int], event: str, total: int,
                flags: int) -> list[dict[str, Any]]:
    """Every choice after the roll: set-asides, the Dragon's forced one, Tabby, the Tooth."""
    n = len(faces)
    options = options_for(faces, t.table)
    if event == "dragon":
        eaten = scoring_all(faces, t.table)
        if eaten is None:
            return [row(t, m, [], 0, n, total, flags)]
        rows = [row(t, m, eaten.dice, 0, left_after(n, len(eaten.dice)), total, flags)]
        if flags & TABBY:
            rows += [row(t, m, o.dice, o.soldiers, left_after(n, len(o.dice)),
                         total + o.soldiers, flags & ~TABBY, card="tabby") for o in options]
        return rows
    if not options:
        if flags & TOOTH:
            return [row(t, m, [], 0, n, total, flags & ~TOOTH, card=TOOTH_ID)]
        return []
    times = 2 if event == "rally" else 1
    return [row(t, m, o.dice, o.soldiers * times, left_after(n, len(o.dice)),
                total + o.soldiers * times, flags) for o in options]


def summarise(rows: list[dict[str, Any]], measure: str) -> dict[str, Any]:
    """Pick the best row and whether to roll on after it."""
    if not rows:
        return {"options": [], "best": None, "then": "farkle", "measure": measure}
    best = max(range(len(rows)), key=lambda i: (rows[i]["expected"], -i))
    top = rows[best]
    then = "roll" if top["roll_on"] > top["bank"] + 1e-9 else "stop"
    return {"options": rows, "best": best, "then": then, "measure": measure}


def rally_item(t: AdvisorTables, m: Measure, faces: Sequence[int], total: int, flags: int,
               best: dict[str, Any]) -> dict[str, Any]:
    """What taking a Magic Item instead of doubling the best set-aside is expected to give."""
    plain = best["soldiers"] // 2
    item = row(t, m, best["dice"], plain, best["dice_left"], total + plain, flags)
    return {"choice": "double", "item_expected": item["expected"],
            "item_costs": best["expected"] - item["expected"]}


def advise_roll(t: AdvisorTables, faces: Sequence[int], event: str, *, total: int = 0,
                flags: int = 0, measure: Measure | None = None) -> dict[str, Any]:
    """The full advice after a Recruit or Brawl roll (see the module docstring)."""
    dice = check_roll(faces, event)
    q.level(t, total)
    m = measure or recruit_measure(t)
    out = summarise(choice_rows(t, m, dice, event, total, flags), m.name)
    if event == "rally" and out["best"] is not None:
        out["rally"] = rally_item(t, m, dice, total, flags, out["options"][out["best"]])
    if event == "dragon" and scoring_all(dice, t.table) is not None:
        out["forced"] = 0
    return out


def advise_decision(t: AdvisorTables, n: int, *, total: int = 0, flags: int = 0,
                    measure: Measure | None = None, must_roll: bool = False) -> dict[str, Any]:
    """Stop or roll n dice now, with no new roll to choose from."""
    m = measure or recruit_measure(t)
    bank, roll_on = m.bank(total), m.roll(n, total, flags)
    if must_roll:
        bank = float("-inf")
    then = "roll" if roll_on > bank + 1e-9 else "stop"
    return {"dice_left": n, "farkle_chance": q.farkle_chance(t, n, bool(flags & TOOTH)),
            "bank": None if must_roll else bank, "roll_on": roll_on,
            "expected": max(bank, roll_on), "then": then, "measure": m.name}


def advise_battle(t: AdvisorTables, faces: Sequence[int] | None, event: str | None, *,
                  army: int, damage: int = 0, health: int = 3, dice: int = 6,
                  tooth: bool = False) -> dict[str, Any]:
    """Final Battle: what this roll did (if one is given), then the chance to win this turn
    and the soldiers expected lost from here on (every roll is forced: nothing to choose)."""
    if not 3 <= health <= 5 or not 0 <= damage < health:
        raise q.AdviceError(f"Damage {damage} of a dragon with health {health} is not a battle "
                            "in progress (health is 3 to 5).")
    out: dict[str, Any] = {"measure": "final_battle", "result": None}
    if faces is not None:
        rolled = check_roll(faces, event or "")
        eaten = scoring_all(rolled, t.table)
        lost = min(army, eaten.soldiers) if eaten else 0
        hit = EVENTS.index(event or "blank")
        farkle = eaten is None and hit == 0
        out["roll"] = {"lost": lost, "damage": hit, "farkle": farkle}
        if farkle and tooth:
            out["roll"]["card"] = TOOTH_ID
            tooth, farkle = False, False
        army, damage = army - lost, damage + hit
        dice = left_after(len(rolled), len(eaten.dice)) if eaten else len(rolled)
        out["result"] = ("won" if damage >= health else "farkle" if farkle
                         else "wiped" if army <= 0 else None)
    out.update({"army": army, "damage": damage, "health": health, "dice_left": dice})
    if out["result"] is not None:
        out.update(win_chance=float(out["result"] == "won"), expected_loss=0.0,
                   farkle_chance=None)
        return out
    win, loss = q.battle(t, dice, health - damage, army, tooth)
    out.update(win_chance=win, expected_loss=loss,
               farkle_chance=q.battle_farkle_chance(t, dice, tooth))
    return out
