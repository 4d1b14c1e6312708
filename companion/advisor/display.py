"""Short display rows for an advice dict: what a phone draws as one small bar per choice.

Each row: `label` (the choice in words), `value` (the number to print), `fraction`
(0..1, the bar's length: share of the best expectation, or the chance itself),
`best` (the recommended row), `farkle` (chance the next roll ends the turn, or None).
The page needs no game knowledge to draw them.
"""
from __future__ import annotations

from typing import Any


def _label(row: dict[str, Any]) -> str:
    dice = " ".join(map(str, row["dice"]))
    if row.get("card") == "tabby":
        return f"Tabby: keep {dice}"
    if row.get("card"):
        return "use the Tooth"
    if not row["soldiers"]:
        return f"Dragon eats {dice}" if dice else "Dragon evaded"
    return f"keep {dice}"


def _value(x: float, measure: str) -> str:
    return f"{x:.0%} win" if measure == "win_chance" else f"{x:,.0f} soldiers"


def _bar(x: float, top: float, measure: str) -> float:
    if measure == "win_chance":
        return max(0.0, min(1.0, x))
    return max(0.0, x / top) if top > 0 else 0.0


def display_rows(advice: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per choice (or stop/roll, or the Final Battle chance), best one marked."""
    measure = advice.get("measure") or "soldiers"
    if advice.get("final_battle"):
        fight = advice["final_battle"]
        return [{"label": "win this turn", "value": f"{fight['win_chance']:.0%}",
                 "fraction": fight["win_chance"], "best": True,
                 "farkle": fight.get("farkle_chance"),
                 "note": f"about {fight['expected_loss']:,.0f} soldiers lost"}]
    if advice.get("options"):
        rows = advice["options"]
        top = max(r["expected"] for r in rows)
        return [{"label": _label(r), "value": _value(r["expected"], measure),
                 "fraction": _bar(r["expected"], top, measure), "best": i == advice["best"],
                 "farkle": r["farkle_chance"],
                 "note": "then roll" if r["roll_on"] > r["bank"] + 1e-9 else "then stop"}
                for i, r in enumerate(rows)]
    decision = advice.get("decision")
    if not decision:
        return []
    choices = [("roll", decision["roll_on"])]
    if decision["bank"] is not None:
        choices.insert(0, ("stop", decision["bank"]))
    top = max(v for _, v in choices)
    return [{"label": name, "value": _value(v, measure), "fraction": _bar(v, top, measure),
             "best": name == decision["then"],
             "farkle": decision["farkle_chance"] if name == "roll" else None, "note": ""}
            for name, v in choices]
