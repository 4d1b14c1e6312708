"""`dragon-farkle play`: a terminal game for 2-5 players; rolls are typed in, set-asides shown.

For a table with no Pi: the rules engine runs the game, the players roll the real dice
and type what they see. Type `help` for the commands.
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from companion.cli._common import TABLE_HELP

HELP = """Commands (a roll is the soldier faces then the Event die: "1 2 4 4 5 6 blank", "124456 d"):
  recruit | brawl NAME | final        choose the turn's action (r, b NAME, f)
  aside 1 5 [double|item]             set aside these dice (a); after a Rally add double or item
  opt N [double|item]                 set aside option number N of the list shown (o)
  continue | stop                     roll the dice in hand again (c) or end (s)
  keep CARD...                        keep these Magic Items at the end-of-turn limit
  companion NAME                      name the new Companion after a reincarnation
  use CARD [roll=6 predict=3 die=4]   use a card (ugh, sidia, hiccup, tabby, lucky_dragons_tooth)
  adjust KIND card="Name" [k=v ...]   table adjustment for an unknown card (soldiers, move_soldiers,
                                      reroll_die, ignore_farkle, ignore_dragon, gain_item, discard_item)
  {json step}                         any step of the record format
  undo | save FILE | show | help | quit"""

EVENTS = {"b": "blank", "blank": "blank", "d": "dragon", "dragon": "dragon", "r": "rally", "rally": "rally"}
SHORT = {"r": "recruit", "f": "final_battle", "final": "final_battle", "c": "roll", "continue": "roll",
         "again": "roll", "s": "stop"}


class Quit(Exception):
    """The players asked to leave the game."""


class PlaySession:
    """One game at the terminal: parses typed lines into steps and describes the state after each."""

    def __init__(self, setup: dict[str, Any]) -> None:
        from companion.rules import new_game

        self.setup = setup
        self.steps: list[dict[str, Any]] = []
        self.state = new_game(setup)

    def handle(self, line: str) -> list[str]:
        """Output lines for one typed line; raises Quit to end the game."""
        from companion.rules import IllegalMove, apply

        words = line.strip().split()
        if not words:
            return self.status()
        head = words[0].lower()
        if head in ("quit", "exit", "q"):
            raise Quit
        if head in ("help", "?"):
            return HELP.splitlines()
        if head in ("show", "state"):
            return self.status()
        if head == "undo":
            return self.undo()
        if head == "save":
            return self.save(words[1:])
        try:
            step = self.parse(line.strip())
            self.state, events = apply(self.state, step)
        except (IllegalMove, ValueError) as exc:
            return [f"Not allowed: {exc}"]
        self.steps.append(step)
        return [describe(e) for e in events] + self.status()

    def parse(self, line: str) -> dict[str, Any]:
        """A typed line as a record step."""
        if line.startswith("{"):
            try:
                step = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"that JSON step is not readable ({exc.msg})") from None
            if not isinstance(step, dict):
                raise ValueError("a JSON step is an object")
            return step
        words = shlex.split(line)
        head = SHORT.get(words[0].lower(), words[0].lower())
        if words[0][0].isdigit():
            return _roll(words)
        if head in ("recruit", "final_battle", "roll", "stop"):
            return {"action": head}
        if head in ("brawl", "b"):
            if len(words) < 2:
                raise ValueError("say whom to brawl: brawl NAME")
            return {"action": "brawl", "target": " ".join(words[1:])}
        if head in ("aside", "a", "set"):
            return _aside([int(w) for w in words[1:] if w.isdigit()], words[1:])
        if head in ("opt", "o"):
            return self._option(words[1:])
        if head == "keep":
            return {"keep": words[1:]}
        if head == "companion":
            return {"new_companion": " ".join(words[1:])}
        if head in ("use", "adjust"):
            if len(words) < 2:
                raise ValueError(f"{head} needs a card or adjustment kind")
            return {head: words[1], **_fields(words[2:])}
        raise ValueError(f"unknown command {words[0]!r}; type help")

    def _option(self, words: list[str]) -> dict[str, Any]:
        options = self.state.turn.options
        if not words or not words[0].isdigit() or not 1 <= int(words[0]) <= len(options):
            raise ValueError(f"choose an option number 1 to {len(options)}")
        return _aside(list(options[int(words[0]) - 1].dice), words[1:])

    def undo(self) -> list[str]:
        from companion.records import replay_steps

        if not self.steps:
            return ["Nothing to undo."]
        self.steps.pop()
        self.state = replay_steps(self.setup, self.steps)
        return ["Undone."] + self.status()

    def save(self, words: list[str]) -> list[str]:
        from companion.records import export_record

        if not words:
            return ["Say where: save FILE"]
        path = Path(words[0])
        try:
            path.write_text(json.dumps(export_record(self.state, "Played at the terminal"), indent=1) + "\n")
        except OSError as exc:
            return [f"Could not save: {exc}"]
        return [f"Saved the game to {path}."]

    def status(self) -> list[str]:
        from companion.rules import snapshot

        snap = snapshot(self.state)
        seats = []
        for name in snap["players"]:
            extra = " (in the Keep)" if name in snap["in_keep"] else ""
            mark = "*" if name == snap["current"] else " "
            seats.append(f"{mark}{name} {snap['army'][name]:,}{extra}")
        lines = ["  " + " | ".join(seats)]
        if snap["action"] == "final_battle":
            lines.append(f"  Final Battle: damage {snap['damage']} of {snap['dragon_health']}")
        elif snap["phase"] in ("roll", "set_aside", "decide"):
            lines.append(f"  turn total {snap['turn_total']:,}, {snap['dice_in_hand']} dice in hand")
        if snap["phase"] == "set_aside":
            double = " (x2 with double)" if snap["last_event"] == "rally" else ""
            for i, opt in enumerate(snap["option_values"], start=1):
                lines.append(f"  {i}) {' '.join(map(str, opt['dice']))} = {opt['soldiers']:,}{double}")
        lines.append(snap["prompt"])
        return lines


def _roll(words: list[str]) -> dict[str, Any]:
    faces: list[int] = []
    event = None
    for word in words:
        if word.isdigit():
            faces += [int(c) for c in word]
        elif word.lower() in EVENTS:
            event = EVENTS[word.lower()]
        else:
            raise ValueError(f"{word!r} is neither dice faces nor the Event die (blank, dragon, rally)")
    if event is None:
        raise ValueError("add the Event die after the faces: blank, dragon or rally (b, d, r)")
    return {"roll": faces, "event": event}


def _aside(dice: list[int], words: list[str]) -> dict[str, Any]:
    step: dict[str, Any] = {"set_aside": dice}
    rally = [w.lower() for w in words if w.lower() in ("double", "item")]
    if rally:
        step["rally"] = rally[0]
    return step


def _fields(words: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"write card fields as key=value, not {word!r}")
        out[key] = int(value) if value.lstrip("-").isdigit() else value
    return out


def describe(event: Any) -> str:
    """One line for an engine event."""
    data = ", ".join(f"{k} {v}" for k, v in event.data.items())
    who = f"{event.player}: " if event.player else ""
    return f"- {who}{event.kind.replace('_', ' ')}{' (' + data + ')' if data else ''}"


def play(lines: Iterable[str], setup: dict[str, Any], out: TextIO) -> int:
    """Run a game over these input lines, writing to `out`; returns the exit code."""
    session = PlaySession(setup)
    print("Dragon Farkle: type help for the commands.", file=out)
    print("\n".join(session.status()), file=out)
    for line in lines:
        try:
            print("\n".join(session.handle(line)), file=out)
        except Quit:
            break
        if session.state.winner is not None:
            break
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("play", help="play at the terminal, typing the rolls in",
                            description="A terminal game for 2-5 players: type each roll, see the legal set-asides.")
    parser.add_argument("players", nargs="*", help="2 to 5 player names in seat order (asked if not given)")
    parser.add_argument("--table", help=TABLE_HELP)
    parser.add_argument("--health", type=int, default=3, choices=[3, 4, 5], help="dragon health (default 3)")
    parser.add_argument("--setup", help="a record file whose setup to start from")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.cli._common import table_arg
    from companion.records import load_record
    from companion.rules import DragonFarkleError

    try:
        if args.setup:
            setup = load_record(args.setup).setup
        else:
            players = args.players or input("Players (2 to 5 names, separated by spaces): ").split()
            table = table_arg(args.table)
            named = args.table in (None, table.name) and not str(args.table).endswith(".json")
            setup = {"players": players, "dragon_health": args.health,
                     "table": table.name if named else table.to_json()}
        return play(sys.stdin, setup, sys.stdout)
    except (DragonFarkleError, EOFError) as exc:
        print(f"dragon-farkle play: {exc}", file=sys.stderr)
        return 2
