"""The advisor: exact odds and the best choice after every roll (Recruit, Brawl, Final Battle).

`advise(snapshot)` answers for a rules-engine state; `tables_for(table)` gives the
cached dynamic-programming tables; `advice` has the per-roll functions the CLI uses.
"""
from __future__ import annotations

from companion.advisor.api import advise
from companion.advisor.query import AdviceError
from companion.advisor.store import AdvisorTables, build_tables, tables_for

__all__ = ["AdviceError", "AdvisorTables", "advise", "build_tables", "tables_for"]
