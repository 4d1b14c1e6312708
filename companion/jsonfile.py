"""Reading the project's small JSON files (game records, Soldier tables) with errors a player can act on."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: Path, what: str, error: type[Exception]) -> Any:
    """The parsed contents of `path`; `error` says which `what` is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"The {what} {path} does not exist.") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"The {what} {path} is not readable JSON: {exc}.") from None
