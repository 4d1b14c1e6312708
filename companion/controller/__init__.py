"""The table controller: the game record and its SQLite store, the camera loop, the LEDs.

`Table` owns the game; `CameraLoop` turns settled camera frames into steps or
questions for the phones; `GameStore` keeps the record safe across restarts.
"""
from __future__ import annotations

from companion.controller.camera_loop import CameraLoop
from companion.controller.errors import StaleState, StoreError
from companion.controller.interpret import Expectation, Verdict, interpret
from companion.controller.store import GameStore
from companion.controller.table import Table, TableError

__all__ = ["CameraLoop", "Expectation", "GameStore", "StaleState", "StoreError", "Table", "TableError",
           "Verdict", "interpret"]
