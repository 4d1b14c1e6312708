"""Profile round trip, default profile and every validation error of load_profile."""
from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.profile import (
    PROFILE_VERSION,
    CameraSettings,
    ColorModel,
    EventDie,
    FaceTemplate,
    LedPosition,
    Profile,
    ProfileError,
    default_profile,
    load_profile,
    save_profile,
)
from tests.jsonfuzz import json_documents


def _model(seed: int) -> ColorModel:
    rng = np.random.default_rng(seed)
    return ColorModel.from_pixels(rng.normal(120, 10, (50, 3)))


def _full() -> Profile:
    rng = np.random.default_rng(0)
    templates = tuple(FaceTemplate(face, rng.integers(0, 255, (48, 48, 3), dtype=np.uint8))
                      for face in ("blank", "dragon", "rally", "dragon"))
    return Profile(tray=((10, 10), (600, 12), (590, 470), (12, 460)), rotation=270,
                   colors={"Ann": _model(1), "Bo": _model(2)},
                   event=EventDie(_model(3), templates),
                   leds=(LedPosition(0, 10.0, 5.0), LedPosition(1, 30.0, 5.0)),
                   camera=CameraSettings(8000, 2.5, (1.6, 1.3), 2.4), die_side=41.5,
                   tray_colors=((120.0, 150.5, 90.0), (80.0, 140.0, 150.0)))


def test_round_trip_keeps_everything(tmp_path: Path) -> None:
    p = _full()
    save_profile(p, tmp_path / "prof")
    assert load_profile(tmp_path / "prof") == p
    assert load_profile(tmp_path / "prof" / "profile.json") == p


def test_a_version_1_profile_still_loads(tmp_path: Path) -> None:
    """Profiles saved before the dice size was measured load with die_side None."""
    save_profile(_full(), tmp_path / "old")
    path = tmp_path / "old" / "profile.json"
    doc = json.loads(path.read_text())
    del doc["die_side"]
    doc["version"] = 1
    path.write_text(json.dumps(doc))
    assert load_profile(tmp_path / "old") == dataclasses.replace(_full(), die_side=None)


def test_a_profile_saved_before_the_lens_position_loads_with_autofocus(tmp_path: Path) -> None:
    save_profile(_full(), tmp_path / "old")
    path = tmp_path / "old" / "profile.json"
    doc = json.loads(path.read_text())
    del doc["camera"]["lens_position"]
    path.write_text(json.dumps(doc))
    assert load_profile(tmp_path / "old").camera == CameraSettings(8000, 2.5, (1.6, 1.3))


def test_save_replaces_an_existing_profile_whole(tmp_path: Path) -> None:
    save_profile(_full(), tmp_path / "prof")
    save_profile(default_profile(), tmp_path / "prof")
    assert load_profile(tmp_path / "prof") == default_profile()
    assert not (tmp_path / "prof" / "templates").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prof"]


def test_default_profile_needs_no_calibration() -> None:
    p = default_profile()
    assert (p.version, p.tray, p.rotation, dict(p.colors), p.event, p.leds) == \
        (PROFILE_VERSION, None, 0, {}, None, ())
    assert p.in_tray((1e6, -5))


def test_in_tray_uses_the_polygon() -> None:
    p = _full()
    assert p.in_tray((300, 240)) and not p.in_tray((5, 5)) and not p.in_tray((620, 240))


@pytest.mark.parametrize("kwargs", [
    {"rotation": 45}, {"version": PROFILE_VERSION + 1}, {"die_side": 2}, {"die_side": "big"}, {"tray": ((0, 0), (1, 1))}, {"colors": {"": _model(1)}},
    {"tray_colors": ((1, 2, 3),) * 5}, {"tray_colors": ((1, 2),)}, {"tray_colors": ((1, 2, -1),)},
])
def test_profile_rejects_bad_values(kwargs: dict) -> None:
    with pytest.raises(ProfileError):
        Profile(**kwargs)


def test_event_die_needs_every_face() -> None:
    img = np.zeros((16, 16, 3), np.uint8)
    with pytest.raises(ProfileError, match="missing: rally"):
        EventDie(_model(1), (FaceTemplate("blank", img), FaceTemplate("dragon", img)))
    with pytest.raises(ProfileError, match="face must be"):
        FaceTemplate("skull", img)


def _write(tmp_path: Path, doc: object) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir(exist_ok=True)
    (folder / "profile.json").write_text(json.dumps(doc))
    return folder


def _good_doc(tmp_path: Path) -> dict:
    save_profile(_full(), tmp_path / "good")
    return json.loads((tmp_path / "good" / "profile.json").read_text())


BAD = [
    (lambda d: d.update(version="one"), "'version'"),
    (lambda d: d.update(version=PROFILE_VERSION + 1), "newer program"),
    (lambda d: d.update(version=0), "'version'"),
    (lambda d: d.update(rotation=45), "'rotation'"),
    (lambda d: d.update(rotation=True), "'rotation'"),
    (lambda d: d.update(tray=[[0, 0], [1, 1]]), "'tray'"),
    (lambda d: d.update(tray=[[0, 0], [1, "x"], [2, 2]]), "'tray[1]'"),
    (lambda d: d.update(tray_colors=[[1, 2]]), "'tray_colors[0]'"),
    (lambda d: d.update(tray_colors=[[1, 2, 300]]), "'tray_colors[0]'"),
    (lambda d: d.update(tray_colors=[[1, 2, 3]] * 5), "'tray_colors'"),
    (lambda d: d.update(tray_colors={"floor": [1, 2, 3]}), "'tray_colors'"),
    (lambda d: d.update(colors=[]), "'colors'"),
    (lambda d: d["colors"]["Ann"].update(mean=[1, 2]), "'colors.Ann.mean'"),
    (lambda d: d["colors"]["Ann"].update(cov=[[1, 2, 3]]), "'colors.Ann.cov'"),
    (lambda d: d["colors"].update({"x" * 40: d["colors"]["Ann"]}), "characters"),
    (lambda d: d.update(event=5), "'event'"),
    (lambda d: d["event"].update(body=None), "'event.body'"),
    (lambda d: d["event"].update(templates=[]), "'event.templates'"),
    (lambda d: d["event"]["templates"][0].update(face="skull"), "'event.templates[0].face'"),
    (lambda d: d["event"]["templates"][0].update(file="../x.png"), "'event.templates[0].file'"),
    (lambda d: d["event"]["templates"][0].update(file="templates/none.png"), "cannot read image"),
    (lambda d: d["event"].update(templates=d["event"]["templates"][:1]), "missing"),
    (lambda d: d.update(leds=[{"index": -1, "x": 0, "y": 0}]), "'leds[0]'"),
    (lambda d: d.update(leds=[{"index": 1, "x": 0, "y": 0}] * 2), "twice"),
    (lambda d: d.update(camera={"exposure_us": -3}), "'camera.exposure_us'"),
    (lambda d: d.update(camera={"analogue_gain": "high"}), "'camera.analogue_gain'"),
    (lambda d: d.update(camera={"awb_gains": [1]}), "'camera.awb_gains'"),
    (lambda d: d.update(camera={"lens_position": -0.5}), "'camera.lens_position'"),
    (lambda d: d.update(colours={}), "'colours'"),
    (lambda d: d.update(die_side=0), "'die_side'"),
    (lambda d: d.update(die_side="40"), "'die_side'"),
]


@pytest.mark.parametrize(("edit", "message"), BAD)
def test_load_names_the_file_and_the_bad_field(tmp_path: Path, edit, message: str) -> None:
    doc = _good_doc(tmp_path)
    edit(doc)
    folder = _write(tmp_path, doc)
    if (tmp_path / "good" / "templates").exists():
        import shutil
        shutil.copytree(tmp_path / "good" / "templates", folder / "templates", dirs_exist_ok=True)
    with pytest.raises(ProfileError, match=re.escape(message)) as info:
        load_profile(folder)
    assert str(folder / "profile.json") in str(info.value)
    assert isinstance(info.value, ValueError)


def test_load_rejects_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such profile"):
        load_profile(tmp_path / "nothing")
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "profile.json").write_text("{not json")
    with pytest.raises(ProfileError, match="not a readable JSON"):
        load_profile(folder)
    (folder / "profile.json").write_text("[1, 2]")
    with pytest.raises(ProfileError, match="JSON object"):
        load_profile(folder)


def test_profile_module_does_not_import_vision() -> None:
    import calibration.profile as mod

    source = Path(mod.__file__).read_text()
    assert "import vision" not in source and "from vision" not in source


def test_the_profile_s_values_import_nothing_from_vision_either() -> None:
    import calibration.profile_types as mod

    source = Path(mod.__file__).read_text()
    assert "import vision" not in source and "from vision" not in source


def test_camera_settings_from_a_camera_library_round_trip(tmp_path: Path) -> None:
    cam = CameraSettings(np.int64(12000), np.float32(1.5), [np.float32(1.7), 1.2])  # type: ignore[arg-type]
    assert cam.exposure_us == 12000 and isinstance(cam.exposure_us, int)
    save_profile(Profile(camera=cam), tmp_path / "p")
    assert load_profile(tmp_path / "p").camera == cam


_KEYS = ["version", "tray", "rotation", "colors", "event", "leds", "camera", "die_side", "mean",
         "cov", "body", "templates", "face", "file", "index", "x", "y", "exposure_us",
         "analogue_gain", "awb_gains", "lens_position"]
_JSON = json_documents(_KEYS)


@settings(max_examples=200, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(doc=_JSON, over_a_good_one=st.booleans())
def test_any_profile_file_loads_or_is_refused_with_its_field(tmp_path: Path, doc, over_a_good_one
                                                           ) -> None:
    # A profile edited by hand or cut short: a ProfileError naming the file, nothing else.
    if over_a_good_one:
        good = {"version": 2, "tray": [[0, 0], [10, 0], [10, 10]], "rotation": 0, "colors": {},
                "event": None, "leds": [], "camera": {}, "die_side": None}
        doc = good | doc if isinstance(doc, dict) else good
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / "profile.json").write_text(json.dumps(doc, allow_nan=True))
    try:
        load_profile(folder)
    except ProfileError as err:
        assert "profile.json" in str(err)
