"""The one configuration file: defaults, the documented example, and errors naming option and file."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from companion.config import (
    SCHEMA,
    CameraConfig,
    Config,
    ConfigError,
    example_config_text,
    load_config,
    pi_config_text,
)
from hardware.camera import open_camera
from hardware.leds import LedLayout, Scene, open_strip
from hardware.leds.scene import SEGMENT_NAMES


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "companion.toml"
    path.write_text(text)
    return path


def test_defaults_run_on_a_laptop():
    config = load_config(None)
    assert config.camera.spec == "replay" and config.leds.backend == "fake"
    assert not config.buttons.enabled
    assert config.leds.layout() == LedLayout.default(60)
    strip = open_strip(config.leds.strip_config())
    assert strip.count == 60
    strip.close()


def test_example_documents_every_option_and_equals_the_defaults(tmp_path):
    text = example_config_text()
    for section, keys in SCHEMA.items():
        assert f"[{section}]" in text
        for key in keys:
            forms = (f"\n{key} =", f"\n# {key} =", f"[{section}.{key}]", f"[[{section}.{key}]]")
            assert any(form in text for form in forms), f"{section}.{key} undocumented"
    for name in SEGMENT_NAMES:
        assert f"\n{name} = [" in text or f"\n# {name} = [" in text, f"segment {name} undocumented"
    config = load_config(write(tmp_path, text))
    defaults = Config()
    assert config.camera == defaults.camera and config.buttons == defaults.buttons
    assert config.leds.layout() == defaults.leds.layout()
    assert config.leds.hint is False and defaults.leds.hint is False  # advisor hint: opt-in
    assert config.server.data_dir == tmp_path / "data"  # relative to the file
    assert config.profile is None


def test_pi_config_switches_on_the_pi_devices(tmp_path):
    config = load_config(write(tmp_path, pi_config_text()))
    assert config.camera.spec == "picamera" and config.leds.backend == "neopixel_spi"
    assert config.server.data_dir == Path("/var/lib/dragon-farkle")
    assert config.profile == Path("/var/lib/dragon-farkle/profile")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[leds]\ncount = "abc"\n', "companion.toml: leds.count must be a positive integer, got 'abc'"),
        ("[leds]\nbrightness = 2\n", "leds.brightness must be a number from 0 to 1, got 2"),
        ('[leds]\nbackend = "ws2801"\n', 'leds.backend must be one of "fake", "neopixel_spi"'),
        ('[camera]\nspec = "webcam"\n', "camera.spec must be a camera spec"),
        ("[camera]\nsize = [640]\n", "camera.size must be [width, height]"),
        ("[camera]\nkeep_photos = -1\n", "camera.keep_photos must be a whole number, 0 or more"),
        ('[camera]\nmodels = "/nowhere"\n', "camera.models must be a model folder holding"),
        ("[buttons]\nroll = 99\n", "buttons.roll must be a GPIO number from 0 to 27"),
        ("[buttons]\nroll = 6\n", "buttons: two buttons share a pin"),
        ("[server]\nport = 0\n", "server.port must be a port number"),
        ('[leds]\nhint = "yes"\n', "leds.hint must be true or false, got 'yes'"),
        ("[leds]\ncuont = 3\n", "unknown option leds.cuont; known: backend, count"),
        ("[led]\ncount = 3\n", r"unknown section \[led\]"),
        ("[leds.segments]\ntray = [50, 20]\n", r"leds.segments: LED segment tray \(50..69\) does not fit"),
        ('[[leds.gpio]]\nkind = "rgbled"\npins = [1, 2, 3]\nsegment = "nowhere"\n',
         "leds.gpio: gpio rgbled shows segment 'nowhere'"),
        ("[leds\ncount = 3\n", "companion.toml: not valid TOML"),
        ("[leds.segments]\narmies = 5\n", r"leds.segments: LED segment armies\[0\] must be \[start, length\]"),
        ("[leds.segments]\narmies = []\n", r"leds.segments: LED segment armies\[0\] must be"),
        ('[leds]\nsegments = "all"\n', "leds.segments must be a table of segments"),
        ('[[leds.gpio]]\nkind = "bargraph"\npins = "5,6"\nsegment = "turn"\n',
         "companion.toml: leds.gpio\\[0\\].pins must be a list of GPIO numbers"),
        ('[camera]\nspec = 3\n', "camera.spec must be"),
        ("[camera]\nsettle_seconds = 0\n", "camera.settle_seconds must be a number from 0.5 to 30"),
        ("camera = 3\n", "camera must be a table"),
    ],
)
def test_errors_name_the_file_and_the_option(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")
                       if "\\" not in message else message):
        load_config(write(tmp_path, text))


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_partial_file_keeps_other_defaults(tmp_path):
    config = load_config(write(tmp_path, '[leds]\ncount = 120\n[server]\nport = 8080\npin_code = "1234"\n'))
    assert config.leds.count == 120 and config.leds.layout() == LedLayout.default(120)
    assert config.server.port == 8080 and config.server.pin_code == "1234"
    assert config.camera.spec == "replay"


def test_gpio_leds_and_buttons_from_the_file(tmp_path, mock_factory):
    text = """
[leds]
backend = "gpio"
count = 20
[leds.segments]
turn = [0, 2]
armies = [[2, 5], [7, 5]]
[[leds.gpio]]
kind = "rgbled"
pins = [17, 27, 22]
segment = "turn"
[[leds.gpio]]
kind = "bargraph"
pins = [12, 16, 20]
segment = "armies[1]"
[buttons]
enabled = true
undo = ""
"""
    config = load_config(write(tmp_path, text))
    assert config.buttons.pins == {"roll": 5, "stop": 6, "undo": None}
    driver = config.leds.open_driver(pin_factory=mock_factory)
    driver.scene = Scene(players=[("Ann", (255, 0, 0), 0), ("Bo", (0, 255, 0), 5000)], current=0)
    driver.tick(0.625)  # the breathing turn light at its peak
    assert mock_factory.pin(17).state == pytest.approx(0.4)  # brightness 0.4 on the PWM LED
    assert [mock_factory.pin(p).state for p in (12, 16, 20)] == [1, 1, 1]  # Bo's army: full
    driver.close()
    assert mock_factory.pin(17).state == 0
    pressed = []
    buttons = config.buttons.open(pressed.append, pin_factory=mock_factory)
    mock_factory.pin(6).drive_low()
    assert pressed == ["stop"]
    buttons.close()


def test_disabled_buttons_open_nothing():
    assert load_config(None).buttons.open(print) is None


def test_camera_options_open_the_configured_camera(tmp_path, photos):
    config = load_config(write(tmp_path, f'[camera]\nspec = "replay:{photos[0].parent}"\nreplay_hold = 0\n'))
    camera = open_camera(config.camera.spec, **config.camera.options())
    assert camera.hold is None and len(camera.paths) == 3
    camera.close()
    with config.camera.open(clock=lambda: 0.0) as camera:
        assert camera.read().shape == (48, 64, 3)


def test_picamera_options_carry_the_profile_settings():
    options = CameraConfig(spec="picamera").options({"ExposureTime": 9000})
    assert options == {"size": (640, 480), "settle_seconds": 1.0, "settings": {"ExposureTime": 9000}}


def test_the_example_is_valid_toml_for_tomllib():
    tomllib.loads(example_config_text())


def test_retrained_models_are_read_from_the_configured_folder(tmp_path, monkeypatch):
    import shutil

    from companion.controller.runtime import build_runtime, load_keeper
    from vision.onnxnets import MODEL_DIR, model_dir

    folder = tmp_path / "retrained"
    shutil.copytree(MODEL_DIR, folder)
    config = load_config(write(tmp_path, f'[camera]\nmodels = "{folder}"\n'))
    assert config.camera.models == str(folder)
    # "" reads the bundled models; set through monkeypatch, so the DICE_MODELS that
    # build_runtime sets is taken back after the test instead of leaking into the next
    monkeypatch.setenv("DICE_MODELS", "")
    assert model_dir() == MODEL_DIR
    build_runtime(config, data_dir=tmp_path, camera="none", keeper=load_keeper(None, tmp_path))
    assert model_dir() == folder


def test_dice_learned_at_the_table_are_read_with_unless_models_is_set(tmp_path, monkeypatch,
                                                                       caplog):
    import json
    import shutil

    from companion.controller.runtime import models_folder
    from vision.onnxnets import MODEL_DIR

    monkeypatch.setenv("DICE_MODELS", "")
    camera = CameraConfig()
    assert models_folder(camera, tmp_path) == MODEL_DIR  # nothing learned yet
    ours = tmp_path / "our-dice"
    shutil.copytree(MODEL_DIR, ours)
    assert models_folder(camera, tmp_path) == ours
    assert models_folder(camera, tmp_path, learned=False) == MODEL_DIR
    assert models_folder(CameraConfig(models=str(MODEL_DIR)), tmp_path) == MODEL_DIR
    # A learned folder that does not load (a head file lost) falls back to the bundled one.
    meta = json.loads((ours / "faces.json").read_text())
    meta["members"][0]["head"] = "gone.head.npz"
    (ours / "faces.json").write_text(json.dumps(meta))
    assert models_folder(camera, tmp_path) == MODEL_DIR
    assert "not using the learned dice weights" in caplog.text


def test_a_table_with_a_camera_learns_from_the_trained_weights_not_the_learned_ones(
        tmp_path, monkeypatch):
    import shutil

    import companion.controller.runtime as rt
    from vision.onnxnets import MODEL_DIR, model_dir

    monkeypatch.setenv("DICE_MODELS", "")
    monkeypatch.setattr(rt, "open_camera_loop", lambda table, camera, keeper: None)
    shutil.copytree(MODEL_DIR, tmp_path / "our-dice")  # learned before this start
    config = load_config(write(tmp_path, "[leds]\nbackend = \"none\"\n"))
    runtime = rt.build_runtime(config, data_dir=tmp_path, camera="usb:0",
                               keeper=rt.load_keeper(None, tmp_path))
    learning = runtime.table.learning
    assert model_dir() == tmp_path / "our-dice"  # the camera reads with the learned ones
    assert learning.base == MODEL_DIR and learning.current() == tmp_path / "our-dice"
    assert learning.photos == tmp_path / "dice-photos" and learning.use_new


def test_a_table_with_a_camera_fits_marked_dice_with_its_calibration(tmp_path, monkeypatch):

    import numpy as np

    import companion.controller.runtime as rt

    monkeypatch.setenv("DICE_MODELS", "")
    monkeypatch.setattr(rt, "open_camera_loop", lambda table, camera, keeper: None)
    config = load_config(write(tmp_path, "[leds]\nbackend = \"none\"\n"))
    keeper = rt.load_keeper(None, tmp_path)
    runtime = rt.build_runtime(config, data_dir=tmp_path, camera="usb:0", keeper=keeper)
    keeper._replace(die_side=50.0)  # calibrated after the start: the locator sees it
    blank = np.full((480, 640, 3), 90, np.uint8)  # no die to find: a square of the die's size
    assert runtime.table.locate(blank, (100.0, 100.0), [], []) == (75, 75, 50, 50)
