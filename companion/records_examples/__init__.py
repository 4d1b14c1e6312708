"""Game records shipped with the package: the rulebook's three examples and the engine's own rule checks.

`paths()` lists them, so tests and users have them on a clean install.
"""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def paths() -> list[Path]:
    """Every bundled record file, sorted by name."""
    folder = resources.files(__name__)
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))
