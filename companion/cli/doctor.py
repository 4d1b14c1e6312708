"""`dragon-farkle doctor`: on the Pi, check what the table needs, one line each: ok, or what to do.

64-bit system, the camera (and which), SPI and its group, the LED strip taking a test
frame, the buttons' pins, the service, free disk, the network, and the address phones
open. It looks without taking anything over: the strip is tested only while the service
is stopped, and a pin is claimed only for a moment. On a laptop it says it is not a Pi
and checks what applies. Exit status 1 when something needs fixing.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PI_CONFIG = Path("/etc/dragon-farkle/companion.toml")
MIN_FREE_MB = 500
HOTSPOT = "dragon-farkle"
MARKS = {"ok": "ok  ", "fix": "FIX ", "note": "--  "}


@dataclass(frozen=True)
class Finding:
    """One line of the report: "ok", "fix" (what to do) or "note" (nothing to do here)."""

    status: str
    topic: str
    text: str


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("doctor", help="check the Pi: camera, LEDs, buttons, service, network",
                            description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", metavar="FILE", type=Path,
                        help=f"configuration file (default: {PI_CONFIG} when it exists)")
    parser.add_argument("--no-led-test", action="store_true",
                        help="do not send the strip a test frame")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.config import ConfigError, load_config
    from hardware.probe import Pi

    path = args.config or (PI_CONFIG if PI_CONFIG.exists() else None)
    try:
        config = load_config(path)
    except (ConfigError, OSError) as err:
        print(f"dragon-farkle doctor: {err}", file=sys.stderr)
        return 2
    pi = Pi()
    model = pi.model()
    print(f"Dragon Farkle doctor: {model or 'not a Raspberry Pi'}"
          f" (configuration: {path or 'built-in defaults'})")
    findings = examine(pi, config, led_test=not args.no_led_test)
    for finding in findings:
        print(f"  {MARKS[finding.status]} {finding.topic}: {finding.text}")
    return 1 if any(f.status == "fix" for f in findings) else 0


def examine(pi: Any, config: Any, *, led_test: bool = True,
            addresses: Callable[[], list[str]] | None = None,
            sleep: Callable[[float], None] = time.sleep) -> list[Finding]:
    """Every check, in the order a player fixes things."""
    model = pi.model()
    service_state = pi.service()
    running = service_state[0] == "active"
    return [
        board(model),
        system_bits(pi.architecture()),
        camera(pi, config),
        *spi(pi, config, model),
        leds(pi, config, running=running, led_test=led_test, sleep=sleep),
        buttons(pi, config, running=running),
        service(service_state, model),
        disk(config.server.data_dir),
        network(pi.wifi()),
        address(config, addresses),
    ]


def board(model: str | None) -> Finding:
    if model is None:
        return Finding("note", "Board", "this is not a Raspberry Pi (no /proc/device-tree/model): "
                       "the Pi's camera, SPI and GPIO checks only say what is missing")
    if any(f"Raspberry Pi {n}" in model for n in ("4", "5", "Compute Module 4", "Compute Module 5")):
        return Finding("ok", "Board", model)
    return Finding("note", "Board", f"{model}: the table is made for a Pi 4 or 5; the dice "
                   "reader may be slow on this one (README, Benchmarks)")


def system_bits(arch: str) -> Finding:
    if arch in ("arm64", "amd64") or "64-bit" in arch or arch.startswith(("aarch64", "x86_64")):
        return Finding("ok", "System", f"64-bit ({arch})")
    return Finding("fix", "System", f"32-bit ({arch}): onnxruntime and OpenCV have no 32-bit ARM "
                   "wheels. Write \"Raspberry Pi OS (64-bit)\" to the card with Raspberry Pi "
                   "Imager, then run sudo scripts/install-pi")


def camera(pi: Any, config: Any) -> Finding:
    from hardware.camera.base import CameraSpecError
    from hardware.camera.open import parse_spec
    from hardware.camera.picamera import describe_model

    spec = config.camera.spec
    try:
        kind, arg = parse_spec(spec)
    except CameraSpecError:
        return Finding("note", "Camera", f"none (camera.spec = {spec!r}): rolls are typed")
    if kind == "replay":
        what = "the demo game" if arg is None else "photos replayed"
        return Finding("note", "Camera", f"{what} (camera.spec = {spec!r}); for the Pi camera "
                       "set spec = \"picamera\" in the configuration")
    if kind == "usb":
        if pi.path(f"/dev/video{arg}").exists():
            return Finding("ok", "Camera", f"USB webcam /dev/video{arg}")
        return Finding("fix", "Camera", f"no webcam at /dev/video{arg}: plug it in (or set "
                       "camera.spec)")
    try:
        found = pi.cameras()
    except ImportError:
        return Finding("fix", "Camera", "picamera2 is not installed: sudo apt install "
                       "python3-picamera2 (scripts/install-pi does, and lets .venv see it)")
    except Exception as exc:  # noqa: BLE001 - libcamera itself failing
        return Finding("fix", "Camera", f"libcamera cannot list the cameras ({exc}): sudo reboot")
    if not found:
        return Finding("fix", "Camera", "no camera found: with the Pi off, check the ribbon "
                       "cable at both ends (the right way round, pushed in, latch closed), then "
                       "start it again")
    names = ", ".join(describe_model(c.get("Model")) for c in found)
    return Finding("ok", "Camera", names)


def spi(pi: Any, config: Any, model: str | None) -> list[Finding]:
    """SPI for the strip: on, owned by the spi group the service runs in."""
    if config.leds.backend != "neopixel_spi" and model is None:
        return []
    present, group = pi.spi_device()
    if not present:
        if model is None:
            return [Finding("note", "SPI", "no SPI bus here (not a Raspberry Pi)")]
        return [Finding("fix", "SPI", "off (no /dev/spidev0.0): sudo raspi-config nonint do_spi 0, "
                        "then sudo reboot")]
    if group != "spi":
        return [Finding("fix", "SPI", f"/dev/spidev0.0 belongs to group {group}, not spi, so the "
                        "service cannot open it: sudo scripts/install-pi, then sudo reboot")]
    text = "on (/dev/spidev0.0, group spi)"
    if "spi" not in pi.groups():
        text += ("; you are not in the spi group (the service is): to run `dragon-farkle leds "
                 "--wiring` yourself, sudo usermod -aG spi $USER and log in again")
    return [Finding("ok", "SPI", text)]


def leds(pi: Any, config: Any, *, running: bool, led_test: bool,
         sleep: Callable[[float], None] = time.sleep) -> Finding:
    backend = config.leds.backend
    if backend in ("fake", "none"):
        return Finding("note", "LEDs", f"none attached (leds.backend = \"{backend}\"); for the "
                       "strip set backend = \"neopixel_spi\"")
    if backend == "neopixel_spi":
        fits = (pi.spidev_bufsiz() - 128) // 24
        if config.leds.count > fits:
            return Finding("fix", "LEDs", f"leds.count = {config.leds.count}, but one SPI "
                           f"transfer takes {fits} LEDs: lower it, or add spidev.bufsiz=32768 to "
                           "/boot/firmware/cmdline.txt and reboot")
    if running:
        return Finding("note", "LEDs", f"{backend}: the service drives them now; to test them: "
                       "sudo systemctl stop dragon-farkle, run this again, then start it")
    if not led_test:
        return Finding("note", "LEDs", f"{backend}: not tested (--no-led-test)")
    from hardware.leds import open_strip

    try:
        strip = open_strip(config.leds.strip_config(), layout=config.leds.layout())
        try:
            strip.show([(0, 255, 0)] * strip.count)
            sleep(1.0)
        finally:
            strip.close()
    except Exception as exc:  # noqa: BLE001 - StripError, Blinka, gpiozero: say it, go on
        return Finding("fix", "LEDs", str(exc))
    where = ("DIN on GPIO10 (pin 19) through the level shifter, and the strip's 5 V supply with "
             "its GND joined to the Pi's" if backend == "neopixel_spi" else "the wiring of each pin")
    return Finding("ok", "LEDs", f"{backend} took a test frame (all green for a second); if they "
                   f"stayed dark, check {where}")


def buttons(pi: Any, config: Any, *, running: bool) -> Finding:
    from hardware.probe import SPI_PINS

    if not config.buttons.enabled:
        return Finding("note", "Buttons", "off ([buttons] enabled = false)")
    pins = {action: pin for action, pin in config.buttons.pins.items() if pin is not None}
    named = ", ".join(f"{action} GPIO{pin}" for action, pin in pins.items())
    for action, pin in pins.items():
        if config.leds.backend == "neopixel_spi" and pin in SPI_PINS:
            return Finding("fix", "Buttons", f"{action} is on GPIO{pin}, the strip's "
                           f"{SPI_PINS[pin]}: choose another pin in [buttons]")
    if running:
        return Finding("ok", "Buttons", f"{named} (held by the running service)")
    for action, pin in pins.items():
        problem = pi.pin_free(pin)
        if problem:
            return Finding("fix", "Buttons", f"GPIO{pin} ({action}) cannot be claimed ({problem}): "
                           "stop the program using it (gpioinfo names it) or choose another pin")
    return Finding("ok", "Buttons", f"{named}: pins free")


def service(state: tuple[str, str], model: str | None) -> Finding:
    active, enabled = state
    if active == "active":
        text = "the dragon-farkle service runs"
        if enabled != "enabled":
            return Finding("fix", "Service", f"{text}, but does not start at boot: "
                           "sudo systemctl enable dragon-farkle")
        return Finding("ok", "Service", f"{text} and starts at boot")
    if active == "failed":
        return Finding("fix", "Service", "stopped with an error: journalctl -u dragon-farkle -n 30 "
                       "says why; then sudo systemctl restart dragon-farkle")
    if active in ("missing", "unknown"):
        if model is None:
            return Finding("note", "Service", "not installed here (on the Pi: sudo scripts/install-pi)")
        return Finding("fix", "Service", "not installed: sudo scripts/install-pi")
    return Finding("fix", "Service", f"{active}: sudo systemctl start dragon-farkle")


def disk(data_dir: Path) -> Finding:
    where = Path(data_dir).resolve()
    while not where.exists() and where != where.parent:
        where = where.parent
    free_mb = shutil.disk_usage(where).free // 1_000_000
    if free_mb < MIN_FREE_MB:
        return Finding("fix", "Disk", f"only {free_mb} MB free on {where}: the games and dice "
                       "photos need room; delete old photos in dice-photos or use a bigger card")
    return Finding("ok", "Disk", f"{free_mb / 1000:.1f} GB free ({where})")


def network(active: tuple[str | None, str | None] | None) -> Finding:
    if active is None:
        return Finding("note", "Network", "NetworkManager (nmcli) not found here")
    name, kind = active
    if name is None:
        return Finding("fix", "Network", "not connected: phones cannot reach the table; join "
                       "your Wi-Fi (sudo raspi-config), or open the table's own: "
                       "sudo scripts/pi-hotspot --now")
    if name == HOTSPOT:
        return Finding("ok", "Network", f"the table's own Wi-Fi network is open ({HOTSPOT}): "
                       "phones join it")
    what = "Wi-Fi network" if kind == "802-11-wireless" else "network"
    return Finding("ok", "Network", f"on the {what} {name}: phones on it reach the table")


def address(config: Any, addresses: Callable[[], Sequence[str]] | None = None) -> Finding:
    from web.serving import lan_addresses, local_name

    port, host = config.server.port, config.server.host
    found = [host] if host not in ("0.0.0.0", "::", "") else list((addresses or lan_addresses)())
    reachable = [a for a in found if not a.startswith("127.")]
    if not reachable:
        return Finding("fix", "Address", "no network address: phones cannot reach this machine")
    links = [f"http://{a}:{port}/" for a in reachable]
    name = local_name()
    if name:
        links.append(f"http://{name}:{port}/")
    return Finding("ok", "Address", "phones open " + " or ".join(links))
