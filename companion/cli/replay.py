"""`dragon-farkle replay FILE...`: replay game records and check every checkpoint and illegal step."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("replay", help="replay and check game records",
                            description="Replay each game record (docs/records.md), checking every "
                                        "checkpoint and every illegal step; exit 1 if any fails.")
    parser.add_argument("files", nargs="*", help="record files (JSON)")
    parser.add_argument("--examples", action="store_true",
                        help="also replay the records bundled with the package (rulebook examples, rule checks)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from companion import records_examples
    from companion.records import RecordError, replay_record

    files = [Path(f) for f in args.files] + (records_examples.paths() if args.examples else [])
    if not files:
        print("dragon-farkle replay: give record files, or --examples for the bundled ones.")
        return 2
    failed = 0
    for path in files:
        try:
            result = replay_record(path)
            line = result.describe()
            ok = result.ok
        except RecordError as exc:
            line, ok = f"FAIL: {exc}", False
        failed += not ok
        print(f"{line}  {path}")
    if len(files) > 1:
        print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed else 0
