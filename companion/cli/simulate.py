"""`dragon-farkle simulate final-battle --army N`: Monte Carlo of one Final Battle turn with fair dice."""
from __future__ import annotations

import argparse
import json

from companion.cli._common import TABLE_HELP


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("simulate", help="simulate Final Battles with fair dice",
                            description="Monte Carlo of one Final Battle turn (numpy, fair dice).")
    parser.add_argument("kind", choices=["final-battle"], help="what to simulate")
    parser.add_argument("--army", type=int, required=True, help="soldiers at the start of the battle")
    parser.add_argument("--health", type=int, default=3, choices=[3, 4, 5], help="dragon health (default 3)")
    parser.add_argument("--table", help=TABLE_HELP)
    parser.add_argument("--runs", type=int, default=100_000, help="battles to simulate (default 100000)")
    parser.add_argument("--seed", type=int, help="random seed, for repeatable numbers")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from companion.cli._common import table_arg
    from companion.simulate import simulate_final_battle

    try:
        if args.army < 0 or args.runs < 1:
            raise ValueError("--army must be 0 or more and --runs at least 1.")
        stats = simulate_final_battle(args.army, health=args.health, table=table_arg(args.table),
                                      runs=args.runs, seed=args.seed)
    except ValueError as exc:
        print(f"dragon-farkle simulate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(stats.to_json()))
        return 0
    lost = stats.mean_soldiers_lost_in_wins
    print(f"Final Battle, army {stats.army:,}, dragon health {stats.health}, table {stats.table}, "
          f"{stats.runs:,} runs")
    print(f"  won           {stats.win_rate:7.2%}")
    print(f"  Farkle        {stats.farkle_rate:7.2%}")
    print(f"  army wiped    {stats.wiped_rate:7.2%}")
    print(f"  soldiers lost in wins (mean)  {'-' if lost is None else f'{lost:,.0f}'}")
    print(f"  rolls per battle (mean)       {stats.mean_rolls:.2f}")
    return 0
