"""Putting the table together: store, engine, camera loop, reader, LEDs and buttons.

`build_runtime` is what `dragon-farkle serve` calls; each device comes from its own
package (hardware, vision, calibration) and is optional: without a camera the table
runs on typed rolls, without LEDs nothing lights up.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.controller.camera_loop import CameraLoop
from companion.controller.lights import TableLights
from companion.controller.store import GameStore
from companion.controller.table import Table

log = logging.getLogger(__name__)

BUTTON_STEPS = {"roll": {"action": "roll"}, "stop": {"action": "stop"}}


@dataclass
class Runtime:
    """The running table and the devices attached to it."""

    table: Table
    camera_loop: CameraLoop | None = None
    lights: TableLights | None = None
    buttons: Any = None
    closers: list[Any] = field(default_factory=list)

    def start(self) -> None:
        if self.lights is not None:
            self.lights.update(self.table.state())
            self.lights.start()
        if self.camera_loop is not None:
            self.camera_loop.start()

    def stop(self) -> None:
        """Stop the camera, turn the LEDs off, release the buttons (safe to call twice)."""
        if self.camera_loop is not None:
            self.camera_loop.stop()
        if self.lights is not None:
            self.lights.stop()
        if self.buttons is not None:
            self.buttons.close()


def press(table: Table, name: str) -> None:
    """A table button: roll again, stop, undo (a long press asks the phones to confirm)."""
    try:
        if name in BUTTON_STEPS:
            table.apply_step(dict(BUTTON_STEPS[name]), source="button")
        elif name == "undo":
            table.undo()
        elif name == "undo_long":
            table.ask("undo", "The undo button was held: undo the last step?")
    except ValueError as err:  # an illegal press changes nothing; the page says why
        table.ask("notice", f"Button {name}: {err}")


def open_camera_loop(table: Table, spec: str, options: dict[str, Any], profile: Any) -> CameraLoop:
    """The camera thread over `spec` with the real dice reader and settler."""
    from hardware.camera import open_camera
    from vision import Settler, draw_reading, read_dice

    def opener() -> Any:
        return open_camera(spec, **options)

    try:
        camera = opener()
    except Exception as err:  # noqa: BLE001 - no camera at start-up: play by hand, keep trying to open it
        log.warning("camera %s: %s", spec, err)
        camera = None
    return CameraLoop(
        table, camera,
        reader=functools.partial(read_dice, profile=profile),
        settler=Settler(),
        draw=draw_reading,
        reopen=opener,
    )


def open_lights(table: Table, strip_config: Any, layout: Any, fps: float) -> TableLights:
    from companion.ledview import scene_from_snapshot
    from hardware.leds import open_strip
    from hardware.leds.driver import LedDriver

    strip = open_strip(strip_config, layout=layout)
    lights = TableLights(LedDriver(strip, layout), scene_from_snapshot=scene_from_snapshot, fps=fps)
    table.subscribe(lights.update)
    return lights


def load_profile(path: str | Path | None) -> Any:
    from calibration.profile import default_profile
    from calibration.profile import load_profile as load

    return load(path) if path else default_profile()


def build_runtime(config: Any, *, data_dir: Path, camera: str | None, profile: Any) -> Runtime:
    """Everything `serve` runs, from a `companion.config.Config` plus the command line."""
    table = Table(GameStore(Path(data_dir) / "games.sqlite3"))
    runtime = Runtime(table)
    spec = camera or config.camera.spec
    if spec != "none":
        options = dataclasses.replace(config.camera, spec=spec).options()
        runtime.camera_loop = open_camera_loop(table, spec, options, profile)
    if config.leds.backend != "none":
        runtime.lights = open_lights(table, config.leds.strip_config(), config.leds.layout(),
                                     config.leds.fps)
    if config.buttons.enabled:
        from hardware.buttons import Buttons

        runtime.buttons = Buttons(config.buttons.pins, functools.partial(press, table),
                                  long_press=config.buttons.long_press,
                                  pull_up=config.buttons.pull_up)
    return runtime
