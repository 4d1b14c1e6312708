"""The `dragon-farkle` command line.

Each subcommand lives in its own module here with two functions:
`register(subparsers)` adds its parser (and sets `func`), and the handler it sets
returns an exit code. Heavy imports (OpenCV, Flask) happen inside handlers, so
`dragon-farkle options ...` starts fast.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# One line per subcommand module in this package, in the order `--help` lists them.
SUBCOMMANDS: list[str] = [
    "options",
    "replay",
    "simulate",
    "play",
    "leds",
    "advise",
    "read",
    "calibrate",
    "learn_dice",
    "serve",
    "doctor",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dragon-farkle",
        description="Dragon Farkle table companion: rules, dice reader, table server.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"companion.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`dragon-farkle read *.jpg | head`): stop quietly, as
        # other commands do, with no traceback; stdout is pointed at /dev/null so that
        # Python's own flush at exit fails no more (the Python docs' recipe, "Note on
        # SIGPIPE" in the signal module).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code
