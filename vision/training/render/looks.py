"""How a rendered die looks: body, pips or emblems, rounding, and the game's colour sets.

Pure data and sampling (numpy only), so the scene can be drawn, stored and tested
without Blender. Colours are sRGB triples in 0-1; the Blender side converts them.
"""
from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, replace

import numpy as np

RGB = tuple[float, float, float]

SOLDIER_FACES: tuple[int | str, ...] = (1, 6, 2, 5, 3, 4)  # per face slot (geometry.py)
EVENT_FACES: tuple[int | str, ...] = ("dragon", "rally", "blank", "blank", "blank", "blank")
EVENT_NAMES = ("blank", "dragon", "rally")

# The five Soldier colour sets. The box's own shades are not published, so these are the
# first five of the table's seat colours (companion/ledview.py DEFAULT_SEAT_COLORS) as
# body hues, each drawn afresh per table within a plausible range of dice plastics.
# name: (hue degrees, saturation range, value range)
COLOUR_SETS: dict[str, tuple[float, tuple[float, float], tuple[float, float]]] = {
    "red": (355.0, (0.7, 0.95), (0.5, 0.85)),
    "blue": (218.0, (0.6, 0.95), (0.35, 0.8)),
    "green": (135.0, (0.5, 0.9), (0.35, 0.75)),
    "yellow": (50.0, (0.65, 0.95), (0.8, 0.98)),
    "purple": (280.0, (0.45, 0.85), (0.3, 0.7)),
}
# Body colours the Event die (and a Soldier set "of its colour") may have besides them.
PLAIN_BODIES: dict[str, tuple[float, tuple[float, float], tuple[float, float]]] = {
    "black": (0.0, (0.0, 0.15), (0.03, 0.14)),
    "white": (40.0, (0.0, 0.08), (0.86, 0.97)),
}
STYLES = ("opaque", "marbled", "translucent", "pearl", "wood")


@dataclass(frozen=True)
class DieLook:
    """Everything about one die's appearance (the Blender side builds it from this)."""

    size: float = 0.016  # edge in metres
    bevel: float = 0.12  # rounding radius as a share of the edge
    style: str = "opaque"  # one of STYLES
    body: RGB = (0.8, 0.1, 0.1)
    body2: RGB = (1.0, 1.0, 1.0)  # marble veins / wood grain / pearl sheen colour
    pattern_scale: float = 1.0  # marble/wood pattern frequency (per die edge)
    pattern_seed: float = 0.0  # offset of the pattern, so no two dice share it
    roughness: float = 0.3
    coat: float = 0.0  # clear coat weight (glossy plastic)
    transmission: float = 0.0  # translucent resin: 0.6-1
    ink: RGB = (1.0, 1.0, 1.0)  # pips and emblems
    rim: RGB | None = None  # a ring of another colour round each pip
    engraved: float = 0.0  # pip depth as a share of the edge (0: printed on)
    pip_radius: float = 0.085  # share of the edge
    pip_offset: float = 0.25  # corner pips' distance from the face edge, share of the edge
    big_one: float = 1.0  # the single pip of the 1 face, times pip_radius
    emblem_seed: int = 0  # the Event die's Dragon and Rally stand-in emblems
    faces: tuple[int | str, ...] = SOLDIER_FACES


def hsv(h: float, s: float, v: float) -> RGB:
    """sRGB from hue in degrees, saturation and value in 0-1."""
    r, g, b = colorsys.hsv_to_rgb((h % 360) / 360, s, v)
    return (round(r, 4), round(g, 4), round(b, 4))


def lightness(rgb: RGB) -> float:
    """Rough perceived lightness (0-1) of an sRGB colour."""
    return 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2]


def srgb_to_linear(rgb: RGB) -> RGB:
    """sRGB (0-1) -> linear RGB, what Blender's colour inputs take."""
    def f(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return (f(rgb[0]), f(rgb[1]), f(rgb[2]))


def kelvin_rgb(kelvin: float) -> RGB:
    """Normalised sRGB colour of a black body at `kelvin` (Tanner Helland's fit), for
    lamps from candle-warm 1,900 K to daylight 6,500 K and beyond."""
    t = kelvin / 100
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = [min(255.0, max(0.0, c)) / 255 for c in (r, g, b)]
    m = max(rgb)
    return (rgb[0] / m, rgb[1] / m, rgb[2] / m)


def named_body(rng: np.random.Generator, name: str) -> RGB:
    """A body colour of the named colour set (COLOUR_SETS or PLAIN_BODIES), drawn within
    its range: each table's dice are their own shade."""
    hue, sat, val = {**COLOUR_SETS, **PLAIN_BODIES}[name]
    return hsv(hue + rng.normal(0, 6), rng.uniform(*sat), rng.uniform(*val))


def any_body(rng: np.random.Generator) -> RGB:
    """A body colour of any hue, pale to deep, or black, white or grey."""
    if rng.random() < 0.2:
        return hsv(rng.uniform(0, 360), rng.uniform(0, 0.1), rng.uniform(0.03, 0.97))
    return hsv(rng.uniform(0, 360), rng.uniform(0.25, 1.0), rng.uniform(0.2, 1.0))


def contrasting_ink(rng: np.random.Generator, body: RGB) -> RGB:
    """Pip colour: mostly white on dark and black on light bodies, sometimes a colour
    (gold, red, ...) that still stands out from the body."""
    light = lightness(body)
    if rng.random() < 0.25:
        for _ in range(20):
            ink = hsv(rng.uniform(0, 360), rng.uniform(0.4, 1.0), rng.uniform(0.2, 1.0))
            if abs(lightness(ink) - light) > 0.3:
                return ink
    return hsv(0, 0, rng.uniform(0.85, 1.0)) if light < 0.55 else \
        hsv(0, 0, rng.uniform(0.0, 0.12))


def sample_look(rng: np.random.Generator, *, body: RGB | None = None, size: float = 0.016,
                style: str | None = None, event: bool = False) -> DieLook:
    """A random die look (body of any hue unless given, any style, pips of any kind)."""
    body = any_body(rng) if body is None else body
    style = style or str(rng.choice(STYLES, p=[0.5, 0.17, 0.15, 0.08, 0.1]))
    look = DieLook(
        size=size, bevel=float(rng.choice([rng.uniform(0.04, 0.1), rng.uniform(0.1, 0.24)])),
        style=style, body=body, roughness=float(rng.uniform(0.15, 0.6)),
        coat=float(rng.uniform(0, 1)) if rng.random() < 0.4 else 0.0,
        ink=contrasting_ink(rng, body), pattern_scale=float(rng.uniform(0.6, 2.5)),
        pattern_seed=float(rng.uniform(0, 100)),
        pip_radius=float(rng.uniform(0.065, 0.1)),
        pip_offset=float(rng.uniform(0.22, 0.29)),
        big_one=float(rng.uniform(1.2, 1.9)) if rng.random() < 0.15 else 1.0,
        emblem_seed=int(rng.integers(0, 2**31)),
        faces=EVENT_FACES if event else SOLDIER_FACES)
    if rng.random() < 0.2:
        look = replace(look, rim=contrasting_ink(rng, look.ink))
    if rng.random() < 0.5:
        look = replace(look, engraved=float(rng.uniform(0.01, 0.04)))
    if style == "marbled":
        look = replace(look, body2=any_body(rng) if rng.random() < 0.6 else look.ink)
    elif style == "translucent":
        look = replace(look, transmission=float(rng.uniform(0.6, 1.0)),
                       roughness=float(rng.uniform(0.0, 0.25)))
    elif style == "pearl":
        look = replace(look, body2=hsv(rng.uniform(0, 360), 0.2, 1.0), coat=1.0)
    elif style == "wood":
        wood = hsv(rng.uniform(20, 40), rng.uniform(0.3, 0.7), rng.uniform(0.35, 0.85))
        look = replace(look, body=wood, body2=hsv(25, 0.7, lightness(wood) * 0.55),
                       ink=hsv(0, 0, 0.05) if rng.random() < 0.8 else look.ink,
                       roughness=float(rng.uniform(0.45, 0.8)), coat=0.0, rim=None)
    # pips stay on the flat part of the face (off the rounded edge) and apart
    k = 1.45 if look.rim else 1.0
    radius = min(look.pip_radius, (0.47 - look.bevel) / 3.2 / k)
    offset = min(max(look.pip_offset, look.bevel + 0.03 + radius * k), 0.5 - 2.2 * radius * k)
    look = replace(look, pip_radius=radius, pip_offset=offset)
    return look


def set_look(rng: np.random.Generator, name: str, *, size: float = 0.016) -> DieLook:
    """A Soldier die of the named colour set: mostly plain opaque plastic, printed or
    engraved pips, the set's body shade drawn afresh."""
    body = named_body(rng, name)
    style = str(rng.choice(["opaque", "marbled", "pearl"], p=[0.8, 0.1, 0.1]))
    look = sample_look(rng, body=body, size=size, style=style)
    if style == "marbled":
        look = replace(look, body2=hsv(0, 0, 0.95) if lightness(body) < 0.5 else hsv(0, 0, 0.1))
    return look


def event_look(rng: np.random.Generator, body_name: str | None = None, *,
               size: float = 0.016) -> tuple[DieLook, str]:
    """The Event die: body black, white, a set's colour or any hue; an ink for its
    emblems; returns (look, body colour name, "other" when of no set)."""
    if body_name is None:
        body_name = str(rng.choice(["black", "white", "set", "other"], p=[0.3, 0.2, 0.3, 0.2]))
        if body_name == "set":
            body_name = str(rng.choice(list(COLOUR_SETS)))
    body = any_body(rng) if body_name == "other" else named_body(rng, body_name)
    look = sample_look(rng, body=body, size=size, style="opaque", event=True)
    if rng.random() < 0.3:  # gold print, as many game dice have
        look = replace(look, ink=hsv(rng.uniform(38, 50), rng.uniform(0.5, 0.8), 0.85))
    return look, body_name
