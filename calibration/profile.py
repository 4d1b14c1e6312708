"""The calibration profile: what the reader knows about one table's tray, camera and dice.

A profile is a folder holding `profile.json` plus small PNG images (the Event die's
face templates). This module reads and writes that folder: `load_profile` names the
file and the field of anything wrong in it, and `save_profile` never leaves half a
profile behind. What a profile holds (`Profile`, `ColorModel`, ...) and the checks on
each value live in calibration.profile_types; they are importable from here too.
`default_profile()` needs no calibration at all: whole frame, no rotation, generic
colour names, no Event die. Neither module imports anything from `vision`, so
`vision.reader` can import them without a cycle.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from calibration.profile_types import (
    DIE_SIDE_RANGE,
    EVENT_FACES,
    MAX_NAME,
    MAX_TRAY_COLORS,
    PROFILE_VERSION,
    ROTATIONS,
    CameraSettings,
    ColorModel,
    EventDie,
    FaceTemplate,
    LedPosition,
    Profile,
    ProfileError,
    default_profile,
    is_die_side,
    is_number,
)

__all__ = [
    "DIE_SIDE_RANGE", "EVENT_FACES", "MAX_NAME", "MAX_TRAY_COLORS", "PROFILE_FILE",
    "PROFILE_VERSION", "ROTATIONS",
    "TEMPLATE_DIR", "CameraSettings", "ColorModel", "EventDie", "FaceTemplate", "LedPosition",
    "Profile", "ProfileError", "default_profile", "load_profile", "save_profile",
]
PROFILE_FILE = "profile.json"
TEMPLATE_DIR = "templates"


# ---------------------------------------------------------------- save / load

def save_profile(profile: Profile, path: str | os.PathLike[str]) -> Path:
    """Write `profile` to the folder `path` (created or replaced whole); returns the folder.

    Written to a temporary sibling first, so a failure never leaves half a profile.
    """
    dest = Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        doc = _to_json(profile, tmp)
        (tmp / PROFILE_FILE).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            dest.rename(old)
            tmp.rename(dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read a profile folder (or its profile.json). Raises ProfileError naming file and field."""
    p = Path(path)
    folder = p.parent if p.name == PROFILE_FILE or p.is_file() else p
    file = folder / PROFILE_FILE
    if not file.is_file():
        raise ProfileError(f"{file}: no such profile file")
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{file}: not a readable JSON file ({exc})") from None
    try:
        return _from_json(doc, folder)
    except _FieldError as exc:
        raise ProfileError(f"{file}: field '{exc.field}': {exc.problem}") from None
    except ProfileError as exc:
        raise ProfileError(f"{file}: {exc}") from None


class _FieldError(Exception):
    def __init__(self, field_name: str, problem: str) -> None:
        super().__init__(f"{field_name}: {problem}")
        self.field = field_name
        self.problem = problem


def _to_json(profile: Profile, folder: Path) -> dict[str, Any]:
    event = None
    if profile.event is not None:
        (folder / TEMPLATE_DIR).mkdir()
        files = []
        for i, t in enumerate(profile.event.templates):
            rel = f"{TEMPLATE_DIR}/{t.face}_{i:02d}.png"
            _write_png(folder / rel, t.image)
            files.append({"face": t.face, "file": rel})
        event = {"body": _color_json(profile.event.body), "templates": files}
    cam = profile.camera
    return {
        "version": profile.version,
        "tray": None if profile.tray is None else [[float(x), float(y)] for x, y in profile.tray],
        "rotation": profile.rotation,
        "colors": {name: _color_json(m) for name, m in profile.colors.items()},
        "event": event,
        "leds": [{"index": led.index, "x": led.x, "y": led.y} for led in profile.leds],
        "camera": {"exposure_us": cam.exposure_us, "analogue_gain": cam.analogue_gain,
                   "awb_gains": None if cam.awb_gains is None else list(cam.awb_gains),
                   "lens_position": cam.lens_position},
        "die_side": profile.die_side,
        "tray_colors": [list(c) for c in profile.tray_colors],
    }


def _color_json(m: ColorModel) -> dict[str, Any]:
    return {"mean": list(m.mean), "cov": [list(r) for r in m.cov]}


def _from_json(doc: Any, folder: Path) -> Profile:
    if not isinstance(doc, dict):
        raise _FieldError("(top level)", "must be a JSON object")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _FieldError("version", f"must be an integer, got {version!r}")
    if version > PROFILE_VERSION:
        raise _FieldError("version", f"profile version {version} was made by a newer program "
                                     f"(this one reads version {PROFILE_VERSION}); update it")
    if version < 1:
        raise _FieldError("version", f"must be at least 1, got {version}")
    known = {"version", "tray", "rotation", "colors", "event", "leds", "camera", "die_side",
             "tray_colors"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise _FieldError(unknown[0], "unknown field (misspelt?)")
    rotation = doc.get("rotation", 0)
    if rotation not in ROTATIONS or isinstance(rotation, bool):
        raise _FieldError("rotation", f"must be 0, 90, 180 or 270, got {rotation!r}")
    return Profile(
        version=PROFILE_VERSION,
        tray=_parse_tray(doc.get("tray")),
        rotation=int(rotation),
        colors=_parse_colors(doc.get("colors", {})),
        event=_parse_event(doc.get("event"), folder),
        leds=_parse_leds(doc.get("leds", [])),
        camera=_parse_camera(doc.get("camera", {})),
        die_side=_parse_die_side(doc.get("die_side")),
        tray_colors=_parse_tray_colors(doc.get("tray_colors", [])),
    )

def _parse_die_side(raw: Any) -> float | None:
    if raw is not None and not is_die_side(raw):
        raise _FieldError("die_side", f"must be null or 4-1000 pixels, got {raw!r}")
    return None if raw is None else float(raw)


def _parse_tray_colors(raw: Any) -> tuple[tuple[float, float, float], ...]:
    if not isinstance(raw, list) or len(raw) > MAX_TRAY_COLORS:
        raise _FieldError("tray_colors", f"must be a list of at most {MAX_TRAY_COLORS} "
                                         "[L, a, b] colours")
    out = []
    for i, c in enumerate(raw):
        if not isinstance(c, list) or len(c) != 3 or not all(
                is_number(v) and 0 <= v <= 255 for v in c):
            raise _FieldError(f"tray_colors[{i}]", f"must be 3 Lab numbers 0-255, got {c!r}")
        out.append((float(c[0]), float(c[1]), float(c[2])))
    return tuple(out)


def _parse_tray(raw: Any) -> tuple[tuple[float, float], ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) < 3:
        raise _FieldError("tray", "must be null or a list of at least 3 [x, y] points")
    pts = []
    for i, pt in enumerate(raw):
        if not isinstance(pt, list) or len(pt) != 2 or not all(is_number(v) for v in pt):
            raise _FieldError(f"tray[{i}]", f"must be [x, y] numbers, got {pt!r}")
        pts.append((float(pt[0]), float(pt[1])))
    return tuple(pts)


def _parse_colors(raw: Any) -> dict[str, ColorModel]:
    if not isinstance(raw, dict):
        raise _FieldError("colors", "must be an object {name: {mean, cov}}")
    out = {}
    for name, m in raw.items():
        if not name or len(name) > MAX_NAME:
            raise _FieldError(f"colors.{name}", f"name must be 1-{MAX_NAME} characters")
        out[name] = _parse_color(m, f"colors.{name}")
    return out


def _parse_color(raw: Any, where: str) -> ColorModel:
    if not isinstance(raw, dict):
        raise _FieldError(where, "must be an object with 'mean' and 'cov'")
    mean = raw.get("mean")
    if not isinstance(mean, list) or len(mean) != 3 or not all(is_number(v) for v in mean):
        raise _FieldError(f"{where}.mean", f"must be 3 numbers (Lab), got {mean!r}")
    cov = raw.get("cov")
    if not isinstance(cov, list) or len(cov) != 3 or not all(
            isinstance(r, list) and len(r) == 3 and all(is_number(v) for v in r) for r in cov):
        raise _FieldError(f"{where}.cov", "must be a 3x3 list of numbers")
    return ColorModel(tuple(float(v) for v in mean), tuple(tuple(float(v) for v in r) for r in cov))


def _parse_event(raw: Any, folder: Path) -> EventDie | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _FieldError("event", "must be null or an object with 'body' and 'templates'")
    body = _parse_color(raw.get("body"), "event.body")
    items = raw.get("templates")
    if not isinstance(items, list) or not items:
        raise _FieldError("event.templates", "must be a non-empty list of {face, file}")
    templates = []
    for i, item in enumerate(items):
        where = f"event.templates[{i}]"
        if not isinstance(item, dict) or item.get("face") not in EVENT_FACES:
            raise _FieldError(f"{where}.face", f"must be one of {', '.join(EVENT_FACES)}")
        rel = item.get("file")
        if not isinstance(rel, str) or Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise _FieldError(f"{where}.file", f"must be a relative path inside the profile "
                                               f"folder, got {rel!r}")
        image = _read_png(folder / rel)
        if image is None:
            raise _FieldError(f"{where}.file", f"cannot read image {folder / rel}")
        templates.append(FaceTemplate(item["face"], image))
    try:
        return EventDie(body, tuple(templates))
    except ProfileError as exc:
        raise _FieldError("event.templates", str(exc)) from None


def _parse_leds(raw: Any) -> tuple[LedPosition, ...]:
    if not isinstance(raw, list):
        raise _FieldError("leds", "must be a list of {index, x, y}")
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("index"), int) \
                or not is_number(item.get("x")) or not is_number(item.get("y")) or item["index"] < 0:
            raise _FieldError(f"leds[{i}]", f"must be {{index >= 0, x, y}}, got {item!r}")
        out.append(LedPosition(item["index"], float(item["x"]), float(item["y"])))
    if len({led.index for led in out}) != len(out):
        raise _FieldError("leds", "the same LED index appears twice")
    return tuple(out)


def _parse_camera(raw: Any) -> CameraSettings:
    if not isinstance(raw, dict):
        raise _FieldError("camera", "must be an object")
    exp, gain, awb = raw.get("exposure_us"), raw.get("analogue_gain"), raw.get("awb_gains")
    if exp is not None and (not isinstance(exp, int) or isinstance(exp, bool) or exp <= 0):
        raise _FieldError("camera.exposure_us", f"must be a positive integer or null, got {exp!r}")
    if gain is not None and (not is_number(gain) or gain <= 0):
        raise _FieldError("camera.analogue_gain", f"must be a positive number or null, got {gain!r}")
    if awb is not None and (not isinstance(awb, list) or len(awb) != 2
                            or not all(is_number(v) and v > 0 for v in awb)):
        raise _FieldError("camera.awb_gains", f"must be [red, blue] positive numbers or null, "
                                              f"got {awb!r}")
    lens = raw.get("lens_position")
    if lens is not None and (not is_number(lens) or not 0 <= lens < 100):
        raise _FieldError("camera.lens_position", f"must be dioptres from 0 (infinity) up to "
                                                  f"100, or null, got {lens!r}")
    return CameraSettings(exp, None if gain is None else float(gain),
                          None if awb is None else (float(awb[0]), float(awb[1])),
                          None if lens is None else float(lens))


def _write_png(path: Path, image: np.ndarray) -> None:
    import cv2

    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ProfileError(f"{path}: could not encode the template image")
    path.write_bytes(buf.tobytes())


def _read_png(path: Path) -> np.ndarray | None:
    import cv2

    try:
        data = np.frombuffer(path.read_bytes(), dtype=np.uint8)
    except OSError:
        return None
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return img if img is not None and img.size else None
