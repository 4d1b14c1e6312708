"""The Flask app: phone page, JSON API, live updates.

`create_app(config=None)` follows the Flask tutorial: defaults, then the instance
config file (`web.cfg` in the instance folder), then environment variables
prefixed `DRAGON_FARKLE_` (for example `DRAGON_FARKLE_TABLE_PIN=4711`), then the
`config` mapping (tests). The table controller is built here unless one is passed
in as `config["TABLE"]` (the `serve` command passes one with its camera attached).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from web.broadcast import Broadcaster
from web.joinlimit import JoinLimiter

MAX_PIN = 16  # characters of a table code, checked before anything else is done with one

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": None,  # folder of the game database; None = the instance folder
    "TABLE_PIN": None,  # the table code; None = a random code of CODE_LENGTH digits kept in DATA_DIR
    "CODE_LENGTH": 4,  # digits of the random table code (4-16; 8 holds out far longer)
    "TABLE_NAMES": [],  # host names the table answers at besides localhost and its own name
    "MAX_CONTENT_LENGTH": 64 * 1024,  # request bodies: larger ones get 413
    "TAP_MAX_AGE": 8.0,  # seconds a request may wait for the server (the page waits 10)
    "SSE_KEEPALIVE": 15.0,  # seconds between keep-alive comments on idle streams
    "PUBLIC_URL": None,  # base of the join link in the QR code; None = the URL the phone used
    "FRAME_INTERVAL_MS": 700,  # how often the page refreshes the camera picture
    "SESSION_COOKIE_SAMESITE": "Lax",
    "SESSION_COOKIE_NAME": "dragon_farkle",
    "PERMANENT_SESSION_LIFETIME": 60 * 60 * 24 * 30,
    "TABLE": None,
    "CALIBRATION": None,  # a companion.controller.calibrate.ProfileKeeper when a camera runs
    "ADVISOR_CACHE": None,  # folder of the advisor's tables; None = DATA_DIR/advisor
}


@dataclass
class TableApp:
    """What the views need: the table controller, the live-update broadcaster and the code."""

    table: Any
    broadcaster: Broadcaster
    pin: str
    calibration: Any = None
    joins: JoinLimiter = field(default_factory=JoinLimiter)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app; see the module docstring for where settings come from."""
    app = Flask(__name__, instance_relative_config=True)
    app.json.sort_keys = False  # keep the engine's order (players in seat order, steps as written)
    app.config.from_mapping(DEFAULTS)
    app.config.from_pyfile("web.cfg", silent=True)
    app.config.from_prefixed_env("DRAGON_FARKLE")
    if config:
        app.config.from_mapping(config)
    data_dir = Path(app.config["DATA_DIR"] or app.instance_path)
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data_dir)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = kept_secret(data_dir / "secret_key", lambda: secrets.token_hex(32))
    pin = table_code(app.config["TABLE_PIN"], int(app.config["CODE_LENGTH"]), data_dir)
    table = app.config["TABLE"] or build_table(data_dir, app.config["ADVISOR_CACHE"])
    broadcaster = Broadcaster(keepalive=float(app.config["SSE_KEEPALIVE"]))
    table.subscribe(broadcaster.publish_state)
    broadcaster.publish_state(table.state())
    app.extensions["dragon_farkle"] = TableApp(table, broadcaster, str(pin), app.config["CALIBRATION"])

    from web import api, errors, guard, page, stream

    guard.register(app)
    app.register_blueprint(page.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    errors.register(app)
    return app


def table_code(pin: Any, length: int, data_dir: Path) -> str:
    """The configured code (at most MAX_PIN characters), or a random one of `length`
    digits kept in `data_dir` (made anew when the length asked for changes)."""
    if pin not in (None, ""):
        pin = str(pin)
        if len(pin) > MAX_PIN or pin != pin.strip():
            raise ValueError(f"the table code must be 1 to {MAX_PIN} characters without spaces around it")
        return pin
    if not 4 <= length <= MAX_PIN:
        raise ValueError(f"the table code length must be 4 to {MAX_PIN} digits, not {length}")
    return kept_secret(data_dir / "table_pin", lambda: f"{secrets.randbelow(10**length):0{length}d}",
                       valid=lambda kept: len(kept) == length and kept.isdigit())


def build_table(data_dir: Path, advisor_cache: str | Path | None = None) -> Any:
    """A table controller over the game database in `data_dir` (no camera: manual entry),
    with the advisor (its tables cached in `advisor_cache`, default `data_dir/advisor`)."""
    from companion.controller import GameStore, Table
    from companion.controller.advisor import TableAdvisor

    advisor = TableAdvisor(Path(advisor_cache) if advisor_cache else data_dir / "advisor")
    return Table(GameStore(data_dir / "games.sqlite3"), advisor=advisor)


def kept_secret(path: Path, make: Any, valid: Any = bool) -> str:
    """Read a small value from `path`, creating it on first use (or when the kept one is
    not `valid`), so restarts keep it."""
    if path.exists():
        value = path.read_text().strip()
        if value and valid(value):
            return value
    value = str(make())
    path.write_text(value + "\n")
    path.chmod(0o600)
    return value


def table_app() -> TableApp:
    """The running app's table, broadcaster and code (inside a request)."""
    return current_app.extensions["dragon_farkle"]
