"""`render_scene`: a pure function from (scene, time, layout) to pixel colours.

No sleeps and no state: the LED driver calls it every tick with the current time,
so animations (breathing turn colour, Farkle blink, Dragon fire...) are functions of
`now - scene.flash_started`. Colours are full scale; brightness and gamma belong to
the pixel buffer of the strip.
"""
from __future__ import annotations

import colorsys
import math

from hardware.leds.scene import RGB, LedLayout, Scene, Segment

OFF: RGB = (0, 0, 0)
RED: RGB = (255, 0, 0)
GOLD: RGB = (255, 180, 0)
WHITE: RGB = (255, 255, 255)
ASK: RGB = (40, 150, 255)  # sky blue, as the phone page marks the dice it asks about
DRAGON_WHOLE: RGB = (0, 90, 20)
DRAGON_HURT: RGB = (255, 0, 0)
UNLIT = 0.06  # the unfilled part of an army bar, so each segment's extent stays visible
FLASH_SECONDS = {"farkle": 1.5, "dragon": 2.0, "rally": 1.5, "hot_dice": 1.5, "bank": 1.2, "win": 6.0}
_RAINBOW: tuple[RGB, ...] = tuple(
    tuple(int(c * 255) for c in colorsys.hsv_to_rgb(i / 64, 1.0, 1.0)) for i in range(64)  # type: ignore[misc]
)
_TAU = 2 * math.pi


def render_scene(scene: Scene, now: float, layout: LedLayout) -> list[RGB]:
    """The colour of every LED of `layout` at time `now` (seconds, any epoch)."""
    pixels: list[RGB] = [OFF] * layout.count
    _draw_armies(pixels, scene, layout)
    if layout.dragon is not None:
        _draw_dragon(pixels, scene, layout.dragon)
    if layout.turn is not None:
        _draw_turn(pixels, scene, layout.turn, now)
    if layout.tray is not None:
        _draw_tray(pixels, scene, layout.tray, now)
    region = layout.flash or Segment(0, layout.count)
    if scene.winner is not None:
        _overlay(pixels, region, "win", max(0.0, now - scene.flash_started), scene, fade=False)
    elif scene.flash is not None:
        elapsed = now - scene.flash_started
        if 0.0 <= elapsed < FLASH_SECONDS[scene.flash]:
            _overlay(pixels, region, scene.flash, elapsed, scene, fade=True)
    return pixels


def flash_active(scene: Scene, now: float) -> bool:
    """True while the scene's flash animation is still playing (the driver may tick faster)."""
    if scene.flash is None:
        return False
    return 0.0 <= now - scene.flash_started < FLASH_SECONDS[scene.flash]


def _scale(color: RGB, factor: float) -> RGB:
    return (int(color[0] * factor), int(color[1] * factor), int(color[2] * factor))


def _draw_armies(pixels: list[RGB], scene: Scene, layout: LedLayout) -> None:
    segments = layout.army_segments(len(scene.players))
    for (_, color, army), seg in zip(scene.players, segments):
        filled = max(0.0, min(1.0, army / layout.army_goal)) * seg.length
        dim = _scale(color, UNLIT)
        for n, i in enumerate(seg.indices()):
            part = filled - n
            if part >= 1.0:
                pixels[i] = color
            elif part > 0.0:
                pixels[i] = _scale(color, max(UNLIT, part))
            else:
                pixels[i] = dim


def _draw_dragon(pixels: list[RGB], scene: Scene, seg: Segment) -> None:
    health = max(1, scene.dragon_health)
    for n, i in enumerate(seg.indices()):
        counter = n * health // seg.length
        pixels[i] = DRAGON_HURT if counter < scene.dragon_damage else DRAGON_WHOLE


def _player_color(scene: Scene, index: int | None) -> RGB | None:
    return scene.players[index][1] if index is not None else None


def _draw_turn(pixels: list[RGB], scene: Scene, seg: Segment, now: float) -> None:
    if scene.winner is not None:
        color, level = _player_color(scene, scene.winner), 1.0
    else:
        color = _player_color(scene, scene.current)
        level = 0.65 + 0.35 * (0.5 + 0.5 * math.sin(_TAU * now / 2.5))  # slow breathing
    if color is None:
        return
    shown = _scale(color, level)
    for i in seg.indices():
        pixels[i] = shown


def _draw_tray(pixels: list[RGB], scene: Scene, seg: Segment, now: float) -> None:
    lit = list(seg.indices())
    color = _player_color(scene, scene.current) or WHITE
    for pos in scene.settable:
        pixels[lit[_tray_index(pos, seg.length)]] = color
    if scene.hint is not None:
        level = 0.4 + 0.6 * (0.5 + 0.5 * math.sin(_TAU * now * 2.0))
        pixels[lit[_tray_index(scene.hint, seg.length)]] = _scale(WHITE, level)
    on = (now * 1.5) % 1.0 < 0.6  # a blink, 1.5 a second: the die to check on the phone
    for pos in scene.asked:
        pixels[lit[_tray_index(pos, seg.length)]] = ASK if on else OFF


def _tray_index(pos: float, length: int) -> int:
    return round(max(0.0, min(1.0, pos)) * (length - 1))


def _overlay(
    pixels: list[RGB], region: Segment, flash: str, t: float, scene: Scene, *, fade: bool
) -> None:
    """Blend the flash animation over `region`; it fades out over its last quarter."""
    duration = FLASH_SECONDS[flash]
    alpha = min(1.0, (duration - t) / (0.25 * duration)) if fade else 1.0
    pattern = _PATTERNS[flash]
    winner = _player_color(scene, scene.winner) or GOLD
    length = region.length
    for n, i in enumerate(region.indices()):
        color = pattern(n, length, t, winner)
        if alpha >= 1.0:
            pixels[i] = color
        else:
            base = pixels[i]
            pixels[i] = (
                int(base[0] + (color[0] - base[0]) * alpha),
                int(base[1] + (color[1] - base[1]) * alpha),
                int(base[2] + (color[2] - base[2]) * alpha),
            )


def _farkle(n: int, length: int, t: float, _: RGB) -> RGB:
    return RED if (t * 2.0) % 1.0 < 0.5 else OFF  # three red blinks


def _dragon(n: int, length: int, t: float, _: RGB) -> RGB:
    flicker = 0.55 + 0.45 * math.sin(n * 1.7 + t * 23.0) * math.sin(n * 0.63 - t * 13.0)
    return (int(255 * flicker), int(70 * flicker * flicker), 0)


def _rally(n: int, length: int, t: float, _: RGB) -> RGB:
    return GOLD if (n - int(t * 30.0)) % 6 < 2 else (0, 120, 40)


def _hot_dice(n: int, length: int, t: float, _: RGB) -> RGB:
    return _RAINBOW[int((n / length + t * 1.5) * 64) % 64]


def _bank(n: int, length: int, t: float, _: RGB) -> RGB:
    return GOLD if n < length * min(1.0, t / 0.6) else OFF  # a gold wipe along the strip


def _win(n: int, length: int, t: float, winner: RGB) -> RGB:
    """The winner's colour glowing, a bright comet running round, gold sparkles hopping."""
    distance = (t * 20.0 - n) % length
    if distance < 5:
        return winner
    if (n * 7 + int(t * 12)) % 11 == 0:
        return GOLD
    return _scale(winner, 0.3)


_PATTERNS = {
    "farkle": _farkle,
    "dragon": _dragon,
    "rally": _rally,
    "hot_dice": _hot_dice,
    "bank": _bank,
    "win": _win,
}
