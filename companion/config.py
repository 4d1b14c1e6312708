"""The one configuration file (TOML): camera, LEDs, buttons, server, data folder, profile.

`load_config(path)` reads and checks it; every error names the file and the option
("companion.toml: leds.count must be a positive integer, got 'abc'"). Without a file
the defaults run on a laptop: the replay camera playing the demo game, fake LEDs, no
buttons. The documented example is package data: hardware/config/companion.example.toml.
"""
from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hardware.buttons import Buttons, check_pins
from hardware.camera.base import Camera, CameraSpecError
from hardware.camera.open import open_camera, parse_spec
from hardware.leds import BACKENDS, LedDriver, LedLayout, StripConfig, open_strip
from hardware.leds.gpio import KINDS, device_segments, devices_from_config

Check = Callable[[Any], Any]


class ConfigError(ValueError):
    """A configuration file that cannot be read or has a bad option."""


@dataclass(frozen=True)
class CameraConfig:
    spec: str = "replay"
    size: tuple[int, int] = (640, 480)
    settle_seconds: float = 1.0
    replay_hold: float = 4.0
    replay_transition: float = 0.8
    keep_photos: int = 500  # frames whose roll the players gave or fixed, at most (0: none)
    models: str = ""  # a model folder (vision/training/retrain.py); "" = the bundled one

    def options(self, settings: Any = None) -> dict[str, Any]:
        """Keyword options for `hardware.camera.open_camera(self.spec, **options)`.

        settings: locked camera values, e.g. `profile.camera` (Pi camera only; None = automatic).
        """
        kind, paths = parse_spec(self.spec)
        if kind == "picamera":
            return {"size": self.size, "settle_seconds": self.settle_seconds, "settings": settings}
        if kind == "usb":
            return {"size": self.size}
        if paths is None:  # the demo game: each frame held until the game calls for the next
            from companion.demo import load_demo

            return {"paths": load_demo().frames(), "hold": None,
                    "transition": self.replay_transition}
        return {"hold": self.replay_hold or None, "transition": self.replay_transition}

    @property
    def is_demo(self) -> bool:
        """"replay" with no photos named: the bundled demo game, played as it goes."""
        try:
            return parse_spec(self.spec) == ("replay", None)
        except CameraSpecError:
            return False

    def open(self, settings: Any = None, **extra: Any) -> Camera:
        """Open the configured camera (raises CameraError); wrap it in a CameraSupervisor."""
        return open_camera(self.spec, **{**self.options(settings), **extra})


@dataclass(frozen=True)
class LedConfig:
    backend: str = "fake"
    count: int = 60
    brightness: float = 0.4
    gamma: float = 2.2
    pixel_order: str = "GRB"
    fps: float = 30.0
    segments: Mapping[str, Any] | None = None
    gpio: tuple[Mapping[str, Any], ...] = ()
    hint: bool = False  # the advisor's recommended set-aside pulses on the tray LEDs

    def layout(self) -> LedLayout:
        if self.segments is None:
            return LedLayout.default(self.count)
        return LedLayout.from_mapping(self.count, self.segments)

    def open_driver(self, *, pin_factory: Any = None) -> LedDriver:
        """The configured strip and layout in a LedDriver (call `run(stop, fps=self.fps)`)."""
        layout = self.layout()
        strip = open_strip(self.strip_config(), layout=layout, pin_factory=pin_factory)
        return LedDriver(strip, layout)

    def strip_config(self) -> StripConfig:
        return StripConfig(
            backend=self.backend,
            count=self.count,
            brightness=self.brightness,
            gamma=self.gamma,
            pixel_order=self.pixel_order,
            gpio=self.gpio,
        )


@dataclass(frozen=True)
class ButtonConfig:
    enabled: bool = False
    roll: int | None = 5
    stop: int | None = 6
    undo: int | None = 13
    long_press: float = 1.5
    pull_up: bool = True

    @property
    def pins(self) -> dict[str, int | None]:
        """{"roll": pin, "stop": pin, "undo": pin} for `hardware.buttons.Buttons`."""
        return {"roll": self.roll, "stop": self.stop, "undo": self.undo}

    def open(self, on_press: Callable[[str], None], *, pin_factory: Any = None) -> Buttons | None:
        """The configured buttons calling `on_press(name)`, or None when disabled."""
        if not self.enabled:
            return None
        return Buttons(self.pins, on_press, long_press=self.long_press, pull_up=self.pull_up,
                       pin_factory=pin_factory)


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8000
    pin_code: str = ""
    data_dir: Path = Path("data")
    code_length: int = 4  # digits of the random table code
    names: tuple[str, ...] = ()  # host names phones may use besides localhost and HOSTNAME.local


@dataclass(frozen=True)
class Config:
    camera: CameraConfig = field(default_factory=CameraConfig)
    leds: LedConfig = field(default_factory=LedConfig)
    buttons: ButtonConfig = field(default_factory=ButtonConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    profile: Path | None = None
    path: Path | None = None  # the file this came from, None for the defaults


class Expected(Exception):
    """What a value should have been, for the error message."""


# ---- value checks: each returns the clean value or raises Expected(description) ----


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise Expected("a positive integer")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Expected("a whole number, 0 or more")
    return value


def _number(low: float, high: float) -> Check:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise Expected(f"a number from {low:g} to {high:g}")
        return float(value)

    return check


def _choice(*choices: str) -> Check:
    def check(value: Any) -> str:
        if value not in choices:
            raise Expected("one of " + ", ".join(f'"{c}"' for c in choices))
        return str(value)

    return check


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise Expected("a string in quotes")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Expected("true or false")
    return value


def _pin(value: Any) -> int | None:
    if value is False or value == "":
        return None  # no button
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 27:
        raise Expected('a GPIO number from 0 to 27 (or "" for none)')
    return value


def _port(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise Expected("a port number from 1 to 65535")
    return value


def _code_length(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 4 <= value <= 16:
        raise Expected("a number of digits from 4 to 16")
    return value


def _names(value: Any) -> tuple[str, ...]:
    ok = isinstance(value, list) and all(isinstance(v, str) and v.strip() and " " not in v.strip() for v in value)
    if not ok:
        raise Expected('a list of host names, e.g. ["dragon.lan"]')
    return tuple(v.strip() for v in value)


def _size(value: Any) -> tuple[int, int]:
    ok = isinstance(value, list) and len(value) == 2
    if not ok or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise Expected("[width, height] in pixels, e.g. [640, 480]")
    return (value[0], value[1])


def _camera_spec(value: Any) -> str:
    try:
        parse_spec(_text(value))
    except CameraSpecError as exc:
        raise Expected(f'a camera spec ("picamera", "usb:0", "replay", "replay:DIR"); {exc}') from exc
    return value


def _segments(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Expected("a table of segments ([leds.segments])")
    return value


def _models(value: Any) -> str:
    folder = _text(value)
    if folder and not all((Path(folder).expanduser() / f).is_file()
                          for f in ("detector.onnx", "faces.json")):
        raise Expected('a model folder holding detector.onnx and faces.json (made by '
                       'python -m vision.training.retrain), or "" for the bundled one')
    return folder


def _gpio(value: Any) -> tuple[dict[str, Any], ...]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise Expected("a list of [[leds.gpio]] tables")
    for item in value:
        if item.get("kind") not in KINDS:
            raise Expected(f"tables whose kind is one of {', '.join(KINDS)} (got {item.get('kind')!r})")
    return tuple(value)


SCHEMA: dict[str, dict[str, Check]] = {
    "camera": {
        "spec": _camera_spec,
        "size": _size,
        "settle_seconds": _number(0.5, 30),  # controls and AE take frames to settle
        "replay_hold": _number(0, 3600),
        "replay_transition": _number(0, 60),
        "keep_photos": _count,
        "models": _models,
    },
    "leds": {
        "backend": _choice(*BACKENDS),
        "count": _positive_int,
        "brightness": _number(0, 1),
        "gamma": _number(0.2, 5),
        "pixel_order": _choice("GRB", "RGB", "BRG", "RBG", "GBR", "BGR"),
        "fps": _number(1, 120),
        "segments": _segments,
        "gpio": _gpio,
        "hint": _bool,
    },
    "buttons": {
        "enabled": _bool,
        "roll": _pin,
        "stop": _pin,
        "undo": _pin,
        "long_press": _number(0.2, 10),
        "pull_up": _bool,
    },
    "server": {"host": _text, "port": _port, "pin_code": _text, "data_dir": _text,
               "code_length": _code_length, "names": _names},
    "calibration": {"profile": _text},
}


def load_config(path: str | Path | None = None) -> Config:
    """Read and check the configuration file at `path` (None = defaults only)."""
    if path is None:
        return Config()
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: no such configuration file") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the configuration file ({exc.strerror})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return config_from_mapping(data, source=path)


def config_from_mapping(data: Mapping[str, Any], *, source: Path | None = None) -> Config:
    """Check parsed TOML data; `source` names the file in errors and anchors relative paths."""
    name = str(source) if source is not None else "configuration"
    values = _checked(data, name)
    base = source.parent if source is not None else Path.cwd()
    cam, led, btn, srv = (values.get(s, {}) for s in ("camera", "leds", "buttons", "server"))
    leds = LedConfig(**led)
    try:
        layout = leds.layout()
    except ValueError as exc:
        raise ConfigError(f"{name}: leds.segments: {exc}") from exc
    try:
        device_segments(layout, devices_from_config(leds.gpio))
    except ValueError as exc:
        where = "" if str(exc).startswith("leds.gpio") else "leds.gpio: "
        raise ConfigError(f"{name}: {where}{exc}") from exc
    buttons = ButtonConfig(**btn)
    try:
        check_pins(buttons.pins, buttons.long_press)
    except ValueError as exc:
        raise ConfigError(f"{name}: buttons: {exc}") from exc
    server = ServerConfig(**{**srv, "data_dir": base / srv.get("data_dir", "data")})
    profile = values.get("calibration", {}).get("profile", "")
    return Config(
        camera=CameraConfig(**cam),
        leds=leds,
        buttons=buttons,
        server=server,
        profile=base / profile if profile else None,
        path=source,
    )


def _checked(data: Mapping[str, Any], name: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for section, table in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"{name}: unknown section [{section}]; known: {', '.join(SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{name}: {section} must be a table ([{section}])")
        out[section] = {}
        for key, value in table.items():
            check = SCHEMA[section].get(key)
            if check is None:
                known = ", ".join(SCHEMA[section])
                raise ConfigError(f"{name}: unknown option {section}.{key}; known: {known}")
            try:
                out[section][key] = check(value)
            except Expected as exc:
                raise ConfigError(f"{name}: {section}.{key} must be {exc}, got {value!r}") from exc
    return out


def example_config_text() -> str:
    """The documented example configuration (every option, laptop defaults)."""
    example = resources.files("hardware") / "config" / "companion.example.toml"
    return example.read_text(encoding="utf-8")


PI_SETTINGS = (
    ('spec = "replay"', 'spec = "picamera"'),
    ('backend = "fake"', 'backend = "neopixel_spi"'),
    ('data_dir = "data"', 'data_dir = "/var/lib/dragon-farkle"'),
    ('profile = ""', 'profile = "/var/lib/dragon-farkle/profile"'),
)


def pi_config_text() -> str:
    """The example with the Pi camera, the SPI strip and /var/lib data switched on (install-pi)."""
    text = example_config_text()
    for old, new in PI_SETTINGS:
        if text.count(f"\n{old}\n") != 1:
            raise RuntimeError(f"the example configuration no longer has the line {old!r}")
        text = text.replace(f"\n{old}\n", f"\n{new}\n")
    return text


if __name__ == "__main__":  # scripts/install-pi: python -m companion.config --pi > companion.toml
    import sys

    sys.stdout.write(pi_config_text() if "--pi" in sys.argv[1:] else example_config_text())
