"""`dragon-farkle advise`: the odds of every choice after a roll, and the best one.

    dragon-farkle advise 2 3 4 4 4 5 --event blank [--turn-total N]
        [--action recruit|brawl|final-battle] [--army N] [--target N] [--json]

Recruit `--json` prints {"options": [{dice, soldiers, dice_left, farkle_chance, bank,
roll_on, expected}], "best": INDEX, "then": "roll"|"stop"}; the text output draws a
small bar per option. Brawl answers are win chances (with `--target`, the chance to
end strictly above that score, as the defender; without it, as the attacker).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BAR = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("advise", help="odds and the best choice after a roll (exact, not sampled)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("faces", nargs="+", type=int, help="the soldier dice rolled, 1 to 6 each")
    p.add_argument("--event", required=True, choices=("blank", "dragon", "rally"),
                   help="the Event die")
    p.add_argument("--turn-total", type=int, default=0, help="turn total before this roll")
    p.add_argument("--action", default="recruit", choices=("recruit", "brawl", "final-battle"))
    p.add_argument("--army", type=int, default=5000, help="army before this roll (Final Battle)")
    p.add_argument("--target", type=int, help="Brawl: the score to beat (the attacker's)")
    p.add_argument("--damage", type=int, default=0, help="Final Battle: damage dealt before this roll")
    p.add_argument("--health", type=int, default=3, choices=(3, 4, 5), help="the dragon's health")
    p.add_argument("--tabby", action="store_true", help="Tabby's Dragon-ignore is still unused")
    p.add_argument("--tooth", action="store_true", help="a Lucky Dragon's Tooth is held")
    p.add_argument("--table", default="default",
                   help="Soldier table: default, gude, classic or a JSON table file")
    p.add_argument("--cache", type=Path, help="folder for the advisor tables (default ~/.cache/dragon-farkle)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.advisor.query import AdviceError
    from companion.rules import DragonFarkleError

    try:
        answer = answer_for(args)
    except (AdviceError, DragonFarkleError) as exc:
        print(f"dragon-farkle advise: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rounded(answer)))
    else:
        print(render(args, answer))
    return 0


def answer_for(args: argparse.Namespace) -> dict[str, Any]:
    """The advice dict for the command line's roll."""
    from companion.advisor import advice as A
    from companion.advisor.store import tables_for
    from companion.advisor.turn import TABBY, TOOTH
    from companion.rules import get_table, load_table

    table = load_table(args.table) if args.table.endswith(".json") else get_table(args.table)
    tables = tables_for(table, folder=args.cache)
    if args.action == "final-battle":
        return A.advise_battle(tables, args.faces, args.event, army=args.army, damage=args.damage,
                               health=args.health, tooth=args.tooth)
    flags = (TOOTH if args.tooth else 0) | (TABBY if args.tabby and args.action == "recruit" else 0)
    if args.action == "recruit":
        measure = A.recruit_measure(tables)
    elif args.target is None:
        measure = A.attacker_measure(tables)
    else:
        measure = A.defender_measure(tables, args.target)
    out = A.advise_roll(tables, args.faces, args.event, total=args.turn_total, flags=flags,
                        measure=measure)
    if args.action == "recruit":
        out.pop("measure")
    elif args.target is not None:
        out["target"] = args.target
    return out


def rounded(value: Any) -> Any:
    """Floats to 6 significant places: chances stay readable, soldiers exact enough."""
    if isinstance(value, float):
        return float(f"{value:.6g}") if abs(value) < 1e6 else round(value, 1)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def render(args: argparse.Namespace, answer: dict[str, Any]) -> str:
    """Readable text: one line per option with a small bar, the best one marked."""
    what = {"recruit": "Recruit", "brawl": "Brawl", "final-battle": "Final Battle"}[args.action]
    head = f"Roll {' '.join(map(str, args.faces))}, Event die {args.event} ({what}, table {args.table})"
    if args.action == "final-battle":
        return head + "\n" + _battle_text(answer)
    chance = answer.get("measure") == "win_chance"
    fmt = (lambda x: f"{x:6.1%}") if chance else (lambda x: f"{x:6.0f}")
    lines = [head + f", turn total {args.turn_total:,}"]
    if args.event == "rally" and answer.get("rally"):
        cost = answer["rally"]["item_costs"]
        lines.append(f"Rally: doubling is shown; a Magic Item instead costs {fmt(cost).strip()} "
                     "expected" + ("" if chance else " soldiers") + " on the best choice.")
    if "forced" in answer:
        lines.append("Dragon: all scoring dice are eaten for nothing (first line)"
                     + ("; Tabby may treat it as blank (lines marked tabby)." if len(answer["options"]) > 1 else "."))
    if not answer["options"]:
        lines.append("Farkle: no scoring dice. The turn total is lost.")
        return "\n".join(lines)
    top = max(o["expected"] for o in answer["options"]) or 1.0
    lines.append(f"  {'set aside':<16}{'gets':>6} {'left':>4} {'Farkle':>7} {'stop':>7} "
                 f"{'roll on':>7} {'best':>7}")
    for i, o in enumerate(answer["options"]):
        mark = ">" if i == answer["best"] else " "
        dice = " ".join(map(str, o["dice"])) or "(none)"
        if o.get("card"):
            dice += f" [{o['card'].replace('lucky_dragons_tooth', 'tooth')}]"
        bar = "#" * max(1, round(BAR * o["expected"] / top)) if o["expected"] > 0 else ""
        lines.append(f"{mark} {dice:<16}{o['soldiers']:>6} {o['dice_left']:>4} "
                     f"{o['farkle_chance']:>7.1%} {fmt(o['bank'])} {fmt(o['roll_on'])} "
                     f"{fmt(o['expected'])} {bar}")
    best = answer["options"][answer["best"]]
    unit = "win chance" if chance else "soldiers expected"
    lines.append(f"Best: {_choice(best)}, then {answer['then']} "
                 f"({fmt(best['expected']).strip()} {unit}).")
    return "\n".join(lines)


def _choice(row: dict[str, Any]) -> str:
    dice = " ".join(map(str, row["dice"]))
    if row.get("card") == "tabby":
        return f"use Tabby (the Dragon counts as blank) and set aside {dice}"
    if row.get("card"):
        return "use the Lucky Dragon's Tooth to cancel the Farkle"
    return f"set aside {dice}" if row["soldiers"] else f"the Dragon takes {dice or 'nothing'}"


def _battle_text(a: dict[str, Any]) -> str:
    roll = a.get("roll", {})
    lines = [f"This roll: {roll.get('lost', 0):,} soldiers lost, {roll.get('damage', 0)} damage"
             + (" (Farkle cancelled by the Tooth)" if roll.get("card") else "") + "."]
    if a["result"] == "won":
        lines.append(f"The dragon is defeated ({a['damage']} of {a['health']}): you win!")
    elif a["result"] == "farkle":
        lines.append("Farkle: the battle ends and the dragon heals.")
    elif a["result"] == "wiped":
        lines.append("The army is gone: the battle ends.")
    else:
        bar = "#" * max(1, round(BAR * a["win_chance"]))
        lines.append(f"Now army {a['army']:,}, damage {a['damage']} of {a['health']}, "
                     f"{a['dice_left']} dice to roll.")
        lines.append(f"Chance to win this turn {a['win_chance']:6.1%} {bar}")
        lines.append(f"Soldiers expected lost from here: {a['expected_loss']:,.0f}; "
                     f"next roll Farkle chance {a['farkle_chance']:.1%}.")
    return "\n".join(lines)
