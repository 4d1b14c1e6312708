"""The advisor at the table: odds and the recommended choice for every state, ready for the page.

The advisor's tables take about a second of CPU per Soldier table, so a background
thread builds them (or reads them from the disk cache in the data folder) at
start-up; until the game's table is ready the state simply carries no advice. Each
state change asks `companion.advisor.advise()` once (a lookup). Every bar row then
gets the legal step it is about (`step`) and one short figure (`figure`), so the
page can put each bar on its button without knowing the game.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

NAMED_TABLES = ("default", "gude", "classic")
Advise = Callable[..., dict[str, Any]]


class TableAdvisor:
    """Builds the advisor tables in the background and answers for a game state once ready."""

    def __init__(self, folder: str | Path, *, advise: Advise | None = None) -> None:
        self.folder = Path(folder)
        self._advise = advise
        self._lock = threading.Lock()
        self._ready: set[str] = set()
        self._queue: list[Any] = []
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self.on_ready: Callable[[], None] | None = None  # the table re-publishes its state
        self.failed: dict[str, str] = {}

    # ----- background build ------------------------------------------------------------------
    def warm(self, first: Any = None) -> None:
        """Start building: the current game's table first, then the named tables."""
        for table in ([first] if first is not None else []) + list(NAMED_TABLES):
            self.request(table)

    def request(self, table: Any) -> None:
        """Queue a Soldier table (object or name) for the background thread; never blocks."""
        from companion.rules import get_table

        table = get_table(table)
        key = _key(table)
        with self._lock:
            if key in self._ready or key in self.failed or any(_key(t) == key for t in self._queue):
                return
            self._queue.append(table)
            self._idle.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="advisor", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        from companion.advisor import tables_for

        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    self._idle.set()
                    return
                table = self._queue[0]
            key = _key(table)
            try:
                tables_for(table, folder=self.folder)
            except Exception as err:  # noqa: BLE001 - a broken table costs its advice, not the game
                log.error("advisor tables for %s failed: %s", table.name, err)
                self.failed[key] = str(err)
            with self._lock:
                self._queue.pop(0)
                if key not in self.failed:
                    self._ready.add(key)
            if key not in self.failed and self.on_ready is not None:
                self.on_ready()

    def ready(self, table: Any) -> bool:
        from companion.rules import get_table

        return _key(get_table(table)) in self._ready

    def wait(self, timeout: float = 60.0) -> bool:
        """Block until every queued table is built (tests, benchmarks); True when idle."""
        return self._idle.wait(timeout)

    # ----- answers ---------------------------------------------------------------------------
    def advice(self, state: Any) -> dict[str, Any] | None:
        """The advice for a rules `GameState`, or None while its tables are still being built."""
        table = state.rules.table
        if not self.ready(table):
            self.request(table)
            return None
        advise = self._advise
        if advise is None:
            from companion.advisor import advise
        try:
            return for_page(advise(state, table=table, folder=self.folder))
        except ValueError as err:  # AdviceError: a state the advisor has no answer for
            log.warning("no advice: %s", err)
            return None


def _key(table: Any) -> str:
    from companion.advisor.store import table_key

    return table_key(table)


def for_page(advice: dict[str, Any]) -> dict[str, Any]:
    """`advise()`'s answer with each `display` row tied to its step and given a short figure.

    At the start of a turn the advisor has no display rows; each legal action then gets
    one (no bar for Recruit, whose soldiers have no scale against a chance).
    """
    out = dict(advice)
    measure = advice.get("measure") or "soldiers"
    rows = [dict(r) for r in advice.get("display") or []]
    if advice.get("final_battle"):
        fight = advice["final_battle"]
        rows[0].update(step=None, figure=f"{fight['win_chance']:.0%} win")
    elif advice.get("options"):
        for row, option in zip(rows, advice["options"]):
            row.update(step=_option_step(option), figure=_figure(option["expected"], measure))
        best = advice.get("best")
        rally = advice.get("rally") or {}
        if best is not None and rally.get("choice") and rows[best]["step"].get("set_aside"):
            rows[best]["step"] = {**rows[best]["step"], "rally": rally["choice"]}
    elif advice.get("decision"):
        decision = advice["decision"]
        values = {"stop": decision["bank"], "roll": decision["roll_on"]}
        for row in rows:
            row.update(step={"action": row["label"]}, figure=_figure(values[row["label"]], measure))
    else:
        rows = _action_rows(advice.get("actions") or {})
    out["display"] = rows
    return out


def _option_step(option: dict[str, Any]) -> dict[str, Any]:
    if option.get("card"):
        return {"use": option["card"]}  # the card ids are the engine's use-step ids
    if not option["soldiers"]:  # the Dragon ate the scoring dice: what is left is stop or roll
        return {"action": "roll" if option["roll_on"] > option["bank"] + 1e-9 else "stop"}
    return {"set_aside": list(option["dice"])}


def _figure(value: float, measure: str) -> str:
    return f"{value:.0%} win" if measure == "win_chance" else f"≈ {value:,.0f}"


def _action_rows(actions: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    if "recruit" in actions:
        rows.append({"label": "recruit", "step": {"action": "recruit"}, "fraction": None,
                     "figure": _figure(actions["recruit"]["expected"], "soldiers"),
                     "best": False, "farkle": None, "note": "soldiers expected"})
    for name in ("brawl", "final_battle"):
        if name in actions:
            chance = actions[name]["win_chance"]
            note = (f"about {actions[name]['expected_loss']:,.0f} soldiers lost"
                    if name == "final_battle" else "")
            rows.append({"label": name, "step": {"action": name}, "fraction": chance,
                         "figure": _figure(chance, "win_chance"), "best": False,
                         "farkle": None, "note": note})
    return rows
