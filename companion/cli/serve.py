"""`dragon-farkle serve`: the table companion (camera, rules, LEDs, phone page) on one port.

Defaults run on any laptop: the replay camera playing the demo game (a whole game of
Dragon Farkle whose rolls the camera reads as the game calls for them), fake LEDs,
port 8000, the game database in ./data. Command-line options override the
configuration file (--config), which overrides the built-in defaults.
"""
from __future__ import annotations

import argparse
import dataclasses
import fcntl
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import IO, Any

log = logging.getLogger("dragon_farkle.serve")


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the table: camera, rules, LEDs and the phone page",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--camera", metavar="SPEC",
                   help="picamera | usb:N | replay (the demo game) | replay:DIR (photos in turn) | "
                        "none (typed rolls only); default: replay")
    p.add_argument("--leds", metavar="BACKEND",
                   help="fake (recorded, default) | neopixel_spi | gpio | none")
    p.add_argument("--host", help="address to listen on (default 0.0.0.0: every phone on the Wi-Fi)")
    p.add_argument("--port", type=int, help="port of the phone page (default 8000)")
    p.add_argument("--data", metavar="DIR", help="folder of the game database (default ./data)")
    p.add_argument("--pin", help="table code phones enter to play (default: a random code, kept)")
    p.add_argument("--code-length", type=int, metavar="N",
                   help="digits of the random table code, 4-16 (default 4; 8 holds out against "
                        "guessing far longer, and the QR code still joins in one scan)")
    p.add_argument("--profile", metavar="FILE",
                   help="calibration profile (default: the one calibrated in the data folder, "
                        "else the demo table's with the demo camera, else the built-in one)")
    p.add_argument("--config", metavar="FILE", help="configuration file (TOML; see the README)")
    p.add_argument("--phones", type=int, default=12,
                   help="phones expected at once: two live pages each, plus 8 threads kept for taps "
                        "(sizes the thread pool; pages past it poll every 2 s)")
    p.set_defaults(func=run)


def settings(args: argparse.Namespace) -> Any:
    """The configuration file (or defaults) with the command-line options laid over it."""
    from companion.config import load_config
    from hardware.camera import parse_spec

    if args.camera and args.camera != "none":
        parse_spec(args.camera)  # a bad spec is an error now, not a camera retried forever
    from hardware.leds import BACKENDS

    if args.leds and args.leds not in BACKENDS:  # a typo, not a device fault to play without
        raise ValueError(f"unknown LED backend {args.leds!r}; use one of {', '.join(BACKENDS)}")
    config = load_config(args.config)
    server = config.server
    server = dataclasses.replace(
        server,
        host=args.host or server.host,
        port=args.port if args.port is not None else server.port,
        pin_code=args.pin if args.pin is not None else server.pin_code,
        data_dir=Path(args.data) if args.data else server.data_dir,
        code_length=args.code_length if args.code_length is not None else server.code_length,
    )
    if not 4 <= server.code_length <= 16:
        raise ValueError(f"--code-length must be 4 to 16 digits, not {server.code_length}")
    if len(server.pin_code) > 16 or server.pin_code != server.pin_code.strip():
        raise ValueError("--pin: a table code has at most 16 characters, without spaces around it")
    leds = dataclasses.replace(config.leds, backend=args.leds) if args.leds else config.leds
    profile = Path(args.profile) if args.profile else config.profile
    return dataclasses.replace(config, server=server, leds=leds, profile=profile)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from companion.controller.errors import StoreError
    from companion.controller.runtime import build_runtime, demo_profile, load_keeper
    from web import create_app
    from web.serving import lan_addresses, local_name, make_server, stop

    try:
        config = settings(args)
        held = hold_data_folder(config.server.data_dir)
        camera = dataclasses.replace(config.camera, spec=args.camera or config.camera.spec)
        keeper = load_keeper(config.profile, config.server.data_dir, fallback=demo_profile(camera))
        runtime = build_runtime(config, data_dir=config.server.data_dir, camera=args.camera,
                                keeper=keeper)
        app = create_app({"DATA_DIR": str(config.server.data_dir), "TABLE": runtime.table,
                          "TABLE_PIN": config.server.pin_code or None,
                          "CODE_LENGTH": config.server.code_length,
                          "TABLE_NAMES": list(config.server.names),
                          "CALIBRATION": runtime.calibration})
    except (ValueError, StoreError) as err:  # bad option, file or data folder: say which
        print(f"dragon-farkle serve: {err}", file=sys.stderr)
        return 2
    server = make_server(app, host=config.server.host, port=config.server.port, phones=args.phones)
    announce(app, config.server.host, server.effective_port, lan_addresses(), local_name())
    stopping = threading.Event()

    def shutdown(signum: int, _frame: Any) -> None:
        if not stopping.is_set():
            stopping.set()
            log.info("stopping (signal %s)", signum)
            stop(server, app)

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    runtime.start()
    try:
        server.run()
    except OSError:
        if not stopping.is_set():
            raise
    finally:
        runtime.stop()
        held.close()
    return 0


LOCK_FILE = "table.lock"


def hold_data_folder(folder: Path) -> IO[str]:
    """One table per data folder: two would each play their own game into one database.
    An exclusive lock on DATA/table.lock, held while the returned file is open; the
    system lets go of it when the process ends, even by kill -9 or a power cut."""
    from companion.controller.errors import StoreError

    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        lock = open(Path(folder) / LOCK_FILE, "a+")  # noqa: SIM115 - open while serving
    except OSError as err:
        raise StoreError(f"The table cannot use the data folder {folder} ({err.strerror or err}): "
                         "choose another with --data.") from err
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise StoreError(f"Another table is already running on the data folder {folder}: stop "
                         "it first, or give this one its own folder with --data.") from None
    return lock


def announce(app: Any, host: str, port: int, lans: list[str], name: str | None = None) -> None:
    """Print the table code and join link (and the link as a QR code) for the table; the
    other addresses phones may reach it at (another network, HOSTNAME.local) below."""
    import segno

    pin = app.extensions["dragon_farkle"].pin
    everywhere = host in ("0.0.0.0", "::", "")
    shown = lans[0] if everywhere else host
    link = f"http://{shown}:{port}/?code={pin}"
    print(f"Dragon Farkle table is open: http://{shown}:{port}/", flush=True)
    if everywhere:
        others = [f"http://{a}:{port}/" for a in [*lans[1:], *([name] if name else [])]]
        if others:
            print(f"  also: {'  '.join(others)}", flush=True)
    print(f"Table code: {pin}   (join link: {link})", flush=True)
    try:
        segno.make(link, error="m").terminal(out=sys.stdout, compact=True)
    except (UnicodeEncodeError, OSError):
        pass
    sys.stdout.flush()
