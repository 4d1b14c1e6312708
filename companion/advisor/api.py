"""`advise(snapshot)`: the advisor's answer for whatever the rules engine is waiting for.

Takes the engine's `snapshot()` dict (or the `GameState` itself, which also tells
whether Tabby was already used this turn) and returns one JSON-ready dict, the same
shape in every phase so the phone page and the LED strip can draw it without
special cases; see `advise` for the keys.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.advisor import advice as A
from companion.advisor import query as q
from companion.advisor.display import display_rows
from companion.advisor.store import AdvisorTables, tables_for
from companion.advisor.turn import TABBY, TOOTH
from companion.rules import GameState, SoldierTable, TableError, snapshot


def advise(state: dict[str, Any] | GameState, *, target: int | None = None,
           table: SoldierTable | str | None = None,
           folder: str | Path | None = None) -> dict[str, Any]:
    """Odds and the recommended choice for the state's awaited move.

    Keys always present: `phase`, `action`, `player`, `measure` ("soldiers",
    "win_chance" or "final_battle"), `options` (rows: dice, soldiers, dice_left,
    farkle_chance, bank, roll_on, expected; Tabby/Tooth rows carry `card`), `best`
    (row index or None), `then` ("roll" | "stop" | "farkle" | None), `decision`
    (stop-or-roll without a new roll, or None), `hint` (for the LEDs: `option`, the
    index into the snapshot's `options`, `dice`, `then`, `card`). Rally answers add
    `rally`; Final Battle adds `final_battle`; the start of a turn adds `actions`.
    `display`: ready-made bar rows for a page (see `display.display_rows`). Given the
    GameState just after a Farkle its holder may cancel, `tooth` says what that is worth.
    `target` asks "chance to end strictly above this score" for a Brawl roller.
    """
    used: tuple[str, ...] | None = None
    if isinstance(state, GameState):
        seat = state.turn.roller
        used = tuple(u for u in state.turn.used if u.startswith(f"{seat}:"))
        snap = snapshot(state)
    else:
        snap = state
    if not isinstance(snap, dict) or "phase" not in snap:
        raise q.AdviceError("advise() takes the rules engine's snapshot() (or the GameState).")
    tables = tables_for(_table(snap, table), folder=folder)
    try:
        out = _answer(tables, snap, used, target)
        if isinstance(state, GameState) and _can_use(snap, A.TOOTH_ID) and snap.get("farkle"):
            out["tooth"] = _tooth_rescue(tables, state, target)
        return out
    except (KeyError, TypeError) as exc:
        raise q.AdviceError(f"The snapshot is missing what the advisor needs ({exc}).") from None


def _tooth_rescue(tables: AdvisorTables, state: GameState,
                  target: int | None) -> dict[str, Any] | None:
    """Just after a Farkle: what cancelling it with the Lucky Dragon's Tooth is worth."""
    base = state.roll_base
    faces, event = state.turn.last_roll, state.turn.last_event
    if base is None or not faces or not event:
        return None
    seat = base.turn.roller
    used = tuple(u for u in base.turn.used if u.startswith(f"{seat}:"))
    bsnap = {**snapshot(base), "last_roll": list(faces), "last_event": event,
             "phase": "set_aside", "dragon_ignored": False}
    if bsnap.get("action") == "final_battle":
        roller = bsnap["roller"]
        return A.advise_battle(tables, faces, event, army=int(bsnap["army"][roller]),
                               damage=int(bsnap.get("damage") or 0),
                               health=int(bsnap.get("dragon_health") or 3), tooth=True)
    return _turn(tables, bsnap, _flags(bsnap, used), target)


def _answer(tables: AdvisorTables, snap: dict[str, Any], used: tuple[str, ...] | None,
            target: int | None) -> dict[str, Any]:
    phase, action = snap.get("phase"), snap.get("action")
    out: dict[str, Any] = {
        "phase": phase, "action": action, "player": snap.get("player"),
        "measure": None, "options": [], "best": None, "then": None, "decision": None,
    }
    if phase == "choose_action":
        out["actions"] = _actions(tables, snap)
    elif phase in ("roll", "set_aside", "decide") and action == "final_battle":
        out.update(_battle(tables, snap))
    elif phase in ("roll", "set_aside", "decide") and action in ("recruit", "brawl"):
        out.update(_turn(tables, snap, _flags(snap, used), target))
    out["hint"] = _hint(out, snap)
    out["display"] = display_rows(out)
    return out


def _table(snap: dict[str, Any], table: SoldierTable | str | None) -> SoldierTable | str:
    if table is not None:
        return table
    name = snap.get("table") or "default"
    try:
        from companion.rules import get_table
        return get_table(name)
    except TableError:
        raise q.AdviceError(f"The advisor needs the Soldier table {name!r} itself: "
                            "pass it as advise(..., table=...).") from None


def _flags(snap: dict[str, Any], used: tuple[str, ...] | None) -> int:
    """Card flags of the roller: Tabby unused (Recruit only), a Tooth usable (own turn)."""
    roller = snap.get("roller")
    flags = 0
    if roller == snap.get("current") and A.TOOTH_ID in snap.get("held_items", {}).get(roller, []):
        flags |= TOOTH
    if snap.get("action") == "recruit" and snap.get("companions", {}).get(roller) == "tabby":
        spent = any(u.endswith(":tabby") for u in used) if used is not None else bool(
            snap.get("dragon_ignored"))
        if not spent:
            flags |= TABBY
    return flags


def _measure(tables: AdvisorTables, snap: dict[str, Any], target: int | None) -> A.Measure:
    if snap.get("action") == "recruit" and target is None:
        return A.recruit_measure(tables)
    brawl = snap.get("brawl") or {}
    if target is None and snap.get("roller") == brawl.get("attacker"):
        return A.attacker_measure(tables)
    score = target if target is not None else brawl.get("attacker_score") or 0
    return A.defender_measure(tables, int(score))


def _turn(tables: AdvisorTables, snap: dict[str, Any], flags: int,
          target: int | None) -> dict[str, Any]:
    m = _measure(tables, snap, target)
    total, n, phase = int(snap.get("turn_total") or 0), int(snap["dice_in_hand"]), snap["phase"]
    faces, event = snap.get("last_roll"), str(snap.get("last_event") or "blank")
    if phase == "set_aside" and faces:
        if snap.get("dragon_ignored"):
            event, flags = "blank", flags & ~TABBY
        return A.advise_roll(tables, faces, event, total=total, flags=flags, measure=m)
    if phase == "decide" and faces and event == "dragon" and _can_use(snap, "tabby"):
        return A.advise_roll(tables, faces, event, total=total, flags=flags | TABBY, measure=m)
    decision = A.advise_decision(tables, n, total=total, flags=flags, measure=m,
                                 must_roll=phase == "roll")
    return {"measure": m.name, "decision": decision, "then": decision["then"]}


def _can_use(snap: dict[str, Any], card: str) -> bool:
    return any(s.get("use") == card for s in snap.get("legal_steps", []))


def _battle(tables: AdvisorTables, snap: dict[str, Any]) -> dict[str, Any]:
    roller = snap.get("roller")
    army = int(snap.get("army", {}).get(roller, 0))
    tooth = bool(_flags(snap, None) & TOOTH)
    fight = A.advise_battle(tables, None, None, army=army, damage=int(snap.get("damage") or 0),
                            health=int(snap.get("dragon_health") or 3),
                            dice=int(snap["dice_in_hand"]), tooth=tooth)
    return {"measure": "final_battle", "final_battle": fight, "then": "roll"}


def _actions(tables: AdvisorTables, snap: dict[str, Any]) -> dict[str, Any]:
    """At the start of a turn: what each legal action is worth for the player to move."""
    player = snap.get("player")
    me = {**snap, "roller": player, "current": player}
    legal = [s.get("action") for s in snap.get("legal_steps", []) if "action" in s]
    out: dict[str, Any] = {}
    if "recruit" in legal:
        flags = _flags({**me, "action": "recruit", "dragon_ignored": False}, ())
        out["recruit"] = {"expected": q.recruit_roll(tables, 6, 0, flags)}
    if "brawl" in legal:
        tooth = bool(_flags(me, None) & TOOTH)
        out["brawl"] = {"win_chance": q.attacker_roll(tables, 6, 0, tooth)}
    if "final_battle" in legal:
        army = int(snap.get("army", {}).get(player, 0))
        out["final_battle"] = A.advise_battle(
            tables, None, None, army=army, health=int(snap.get("dragon_health") or 3),
            tooth=bool(_flags(me, None) & TOOTH))
    return out


def _hint(out: dict[str, Any], snap: dict[str, Any]) -> dict[str, Any] | None:
    """What the LED strip may show: the recommended set-aside (index into the snapshot's options)."""
    best = out.get("best")
    if best is None:
        return None if out.get("then") is None else {"option": None, "dice": None,
                                                      "then": out["then"], "card": None}
    chosen = out["options"][best]
    listed = [list(o) for o in snap.get("options", [])]
    index = listed.index(chosen["dice"]) if chosen.get("card") is None and chosen["dice"] in listed \
        else None
    return {"option": index, "dice": chosen["dice"], "then": out["then"], "card": chosen.get("card")}
