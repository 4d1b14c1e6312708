"""Putting the table together: store, engine, camera loop, reader, LEDs and buttons.

`build_runtime` is what `dragon-farkle serve` calls; each device comes from its own
package (hardware, vision, calibration) and is optional: without a camera the table
runs on typed rolls, without LEDs nothing lights up. A device that fails to start (no SPI,
a GPIO pin another program holds, a missing library) is left out and the phones are told
why, as for the camera: the game never waits on its lights or buttons.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.controller.advisor import TableAdvisor
from companion.controller.calibrate import ProfileKeeper
from companion.controller.camera_loop import CameraLoop
from companion.controller.demo import DemoDirector
from companion.controller.errors import StoreError
from companion.controller.learning import DiceLearning
from companion.controller.lights import TableLights
from companion.controller.store import GameStore
from companion.controller.table import Table

log = logging.getLogger(__name__)
OUR_DICE = "our-dice"  # DATA/our-dice: the weights `learn-dice` learned on this table's photos

BUTTON_STEPS = {"roll": {"action": "roll"}, "stop": {"action": "stop"}}


@dataclass
class Runtime:
    """The running table and the devices attached to it."""

    table: Table
    camera_loop: CameraLoop | None = None
    lights: TableLights | None = None
    buttons: Any = None
    calibration: ProfileKeeper | None = None
    demo: DemoDirector | None = None  # the demo game moving the replay camera

    def start(self) -> None:
        advisor = self.table.advisor
        if advisor is not None and self.table.settings.get("advisor"):
            state = self.table.state_obj  # build the game's own table first, then the named ones
            advisor.warm(state.rules.table if state is not None else None)
        if self.lights is not None:
            self.lights.update(self.table.state())
            self.lights.start()
        if self.demo is not None:
            self.demo.update(self.table.state())  # a game resumed waiting for a roll
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
    except (ValueError, StoreError) as err:  # an illegal press changes nothing; the page says why
        table.ask("notice", f"Button {name}: {err}")


def open_camera_loop(table: Table, camera_config: Any, keeper: ProfileKeeper) -> CameraLoop | None:
    """The camera thread with the real dice reader and settler (None without a reader)."""
    try:
        from vision import Settler, draw_reading, read_dice
    except ImportError as err:  # a checkout without the reader: the table still plays by hand
        log.error("dice reader unavailable (%s): rolls must be typed", err)
        table.set_camera("manual", f"The dice reader is not available ({err}): type each roll.")
        return None
    def opener() -> Any:  # the profile's values as they are now: a camera plugged back in
        return camera_config.open(camera_settings(keeper.profile))  # gets the latest lock

    try:
        camera = opener()
    except Exception as err:  # noqa: BLE001 - no camera at start-up: play by hand, keep trying
        log.warning("camera %s: %s", camera_config.spec, err)
        camera = None
    loop = CameraLoop(
        table, camera,
        reader=keeper.read_with(read_dice),
        settler=Settler(tray=keeper.profile.tray),
        draw=draw_reading,
        reopen=opener,
    )

    def new_tray(profile: Any) -> None:  # watch only the newly framed tray from now on
        loop.settler = Settler(tray=profile.tray)

    keeper.listeners.append(new_tray)
    keeper.camera = lambda: loop.camera
    return loop


def follow_demo(table: Table, loop: CameraLoop) -> DemoDirector | None:
    """The demo game moving the loop's replay camera as the game goes (None when the demo's
    files cannot be read: the camera loop then reports the camera as not working)."""
    from companion.demo import DemoError, load_demo

    try:
        demo = load_demo()
    except DemoError as err:
        log.error("%s", err)
        return None
    director = DemoDirector(demo, table, lambda: loop.camera)
    table.subscribe(director.update)
    return director


def demo_profile(camera_config: Any) -> Path | None:
    """The demo table's calibration profile when the camera plays the demo game."""
    from companion.demo import DemoError, load_demo

    if not camera_config.is_demo:
        return None
    try:
        return load_demo().profile
    except DemoError:
        return None


def camera_settings(profile: Any) -> dict[str, Any] | None:
    """Locked exposure/gain/white balance and the lens position from the profile (Picamera2
    names), or None = automatic."""
    cam = getattr(profile, "camera", None)
    pairs = (("ExposureTime", getattr(cam, "exposure_us", None)),
             ("AnalogueGain", getattr(cam, "analogue_gain", None)),
             ("ColourGains", getattr(cam, "awb_gains", None)),
             ("LensPosition", getattr(cam, "lens_position", None)))
    settings = {name: value for name, value in pairs if value is not None}
    return settings or None


def open_lights(table: Table, led_config: Any, profile: Any = None) -> TableLights:
    from companion.ledview import scene_from_snapshot

    lights = TableLights(led_config.open_driver(), scene_from_snapshot=scene_from_snapshot,
                         fps=led_config.fps, leds=getattr(profile, "leds", ()) or (),
                         hint=getattr(led_config, "hint", False))
    table.subscribe(lights.update)
    return lights


def load_keeper(path: str | Path | None, data_dir: Path, *,
                fallback: Path | None = None) -> ProfileKeeper:
    """The profile at `path`, or the one the wizard saved in the data folder, or the one at
    `fallback` (the demo table's), or the default; the wizard saves to the data folder."""
    from calibration.profile import default_profile, load_profile

    where = Path(path) if path else Path(data_dir) / "profile"
    if path or where.exists():
        return ProfileKeeper(load_profile(where), where)
    if fallback is not None:
        return ProfileKeeper(load_profile(fallback), where)
    return ProfileKeeper(default_profile(), where)


def advisor_folder(data_dir: Path) -> Path:
    """Where the advisor's tables are cached: DATA/advisor, or $DRAGON_FARKLE_ADVISOR_CACHE
    (the same variable the web app reads as its ADVISOR_CACHE setting)."""
    return Path(os.environ.get("DRAGON_FARKLE_ADVISOR_CACHE") or Path(data_dir) / "advisor")


def real_camera(camera_config: Any) -> bool:
    """Whether the table reads a real camera: not the replay camera, nor none."""
    from hardware.camera.base import CameraSpecError
    from hardware.camera.open import parse_spec

    try:
        return parse_spec(camera_config.spec)[0] != "replay"
    except CameraSpecError:  # "none", or a bad spec the camera loop reports
        return False


def photo_log(camera_config: Any, data_dir: Path) -> Any:
    """Where a real camera's checked rolls are kept (DATA/dice-photos), or None: the
    replay camera plays photos that are labelled already, and keep_photos = 0 keeps none."""
    from vision.photolog import PhotoLog

    if camera_config.keep_photos <= 0 or not real_camera(camera_config):
        return None
    return PhotoLog(Path(data_dir) / "dice-photos", limit=camera_config.keep_photos)


def models_folder(camera_config: Any, data_dir: Path, *, learned: bool = True) -> Path:
    """The dice reader's weights: `models` under [camera] when set (retrained on a
    laptop, vision/training/retrain.py), else with `learned` DATA/our-dice when
    `dragon-farkle learn-dice` installed it, else the bundled ones ($DICE_MODELS while
    developing: vision.onnxnets.model_dir)."""
    from vision.onnxnets import model_dir

    if camera_config.models:
        return Path(camera_config.models).expanduser()
    ours = Path(data_dir) / OUR_DICE
    if learned and (ours / "faces.json").is_file():
        from vision.faces import FaceReader

        try:
            FaceReader(ours)  # reads faces.json and the learned layers
        except (OSError, ValueError) as err:
            log.warning("not using the learned dice weights in %s (%s): using the bundled "
                        "ones; run `dragon-farkle learn-dice` again", ours, err)
            return model_dir()
        return ours
    return model_dir()


def build_runtime(config: Any, *, data_dir: Path, camera: str | None, keeper: ProfileKeeper) -> Runtime:
    """Everything `serve` runs, from a `companion.config.Config` plus the command line."""
    advisor = TableAdvisor(advisor_folder(data_dir))
    camera_config = dataclasses.replace(config.camera, spec=camera) if camera else config.camera
    from vision.onnxnets import model_dir

    trained = models_folder(camera_config, data_dir, learned=False)  # what learning starts from
    models = models_folder(camera_config, data_dir)
    if models != model_dir():  # weights retrained or learned on this table's photos
        log.info("reading dice with the weights in %s", models)
        os.environ["DICE_MODELS"] = str(models)
    table = Table(GameStore(Path(data_dir) / "games.sqlite3"), advisor=advisor,
                  photos=photo_log(camera_config, data_dir))
    if table.photos is not None:
        table.learning = DiceLearning(
            table.photos.folder, Path(data_dir) / OUR_DICE, base=trained, current=model_dir,
            profile=lambda: keeper.profile, use_new=not camera_config.models,
            on_change=table.refresh)

        def locate(frame: Any, point: Any, dice: Any, taken: Any) -> Any:  # a tapped die, calibrated
            from vision.locate import mark_box

            return mark_box(frame, point, dice, taken=taken, profile=keeper.profile)

        table.locate = locate
    runtime = Runtime(table)
    if camera_config.spec != "none":
        runtime.camera_loop = open_camera_loop(table, camera_config, keeper)
        runtime.calibration = keeper
        if real_camera(camera_config):  # the replay camera's table is the demo's, not yours
            table.learn_event_view = keeper.learn_event_view
        if runtime.camera_loop is not None and camera_config.is_demo:
            runtime.demo = follow_demo(table, runtime.camera_loop)
    if config.leds.backend != "none":
        try:
            runtime.lights = open_lights(table, config.leds, keeper.profile)
        except Exception as err:  # noqa: BLE001 - StripError, Blinka, gpiozero, lgpio: play without
            device_failed(table, "The LEDs are off", err)
        else:
            keeper.lights = runtime.lights
    try:
        runtime.buttons = config.buttons.open(functools.partial(press, table))
    except Exception as err:  # noqa: BLE001 - "GPIO busy", no pin factory: play from the phones
        device_failed(table, "The table buttons do not work", err)
    return runtime


def device_failed(table: Table, what: str, err: Exception) -> None:
    """Log a device that did not start and tell every phone, after any notice already there."""
    log.error("%s: %s", what, err)
    sentence = (f"{what}: {err}. The game goes on without them; on the Pi, "
                "`dragon-farkle doctor` says what to fix.")
    pending = table.pending or {}
    if pending.get("kind") == "notice":
        sentence = f"{pending['reason']} {sentence}"
    table.ask("notice", sentence)
