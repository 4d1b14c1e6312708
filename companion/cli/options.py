"""`dragon-farkle options 2 3 4 4 4 5`: the legal set-asides of a roll and their soldiers."""
from __future__ import annotations

import argparse
import json
import sys

from companion.cli._common import TABLE_HELP, table_arg


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("options", help="legal set-asides of a roll",
                            description="List every legal set-aside of a roll of 1-6 soldier dice.")
    parser.add_argument("faces", nargs="+", help="the soldier dice faces, 1 to 6 (for example 2 3 4 4 4 5)")
    parser.add_argument("--table", help=TABLE_HELP)
    parser.add_argument("--json", action="store_true", help='print [{"dice": [...], "soldiers": N}, ...]')
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.rules import DragonFarkleError, options_for

    try:
        faces = [int(f) for f in args.faces]
        options = options_for(faces, table_arg(args.table))
    except ValueError as exc:
        message = str(exc) if isinstance(exc, DragonFarkleError) else "faces are whole numbers 1 to 6"
        print(f"dragon-farkle options: {message}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([o.to_json() for o in options]))
        return 0
    if not options:
        print("No scoring dice: a Farkle.")
        return 0
    width = max(len(" ".join(map(str, o.dice))) for o in options)
    for option in options:
        print(f"{' '.join(map(str, option.dice)):<{width}}  {option.soldiers:>6,} soldiers")
    return 0
