"""The demo game's table and the dice in each of its frames (pure; rendering is frames.py).

The default `dragon-farkle serve` replays a game of Dragon Farkle played on one pinned
table: Jane's red Soldier dice, Joseph's blue ones and a black Event die in a green felt
tray under a Pi camera. `demo_scene()` is that table, written out so it never changes;
`roll_dice` lays out one roll (the dice in hand and the Event die, where they came to
rest), `left_after` takes a set-aside out of it, and `colour_dice` / `event_dice` are
the pictures the calibration procedures learn the table from. scripts/demo_frames.py
renders them all.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from vision.training.render.looks import EVENT_FACES, DieLook
from vision.training.render.placement import depth_inside, die, place
from vision.training.render.scene import (
    IRRADIANCE,
    CameraSpec,
    DieSpec,
    LightSpec,
    PostSpec,
    SceneSpec,
    SurfaceSpec,
    TraySpec,
)

DIE = 0.016  # edge of a Soldier die, metres
DIE_PX = 48.0  # a die's side in the picture: a Pi camera seeing the whole tray
TOUCH = 0.0  # dice of a roll come to rest apart: the demo shows the camera reading, not
# its limits (touching dice are asked about, and the first roll must be played)
# The Event die rests this many die widths from the walls and (centre to centre) from the
# other dice: its dark body in a wall's shadow or against another die is a die the reader
# cannot find, and the camera would ask about most rolls.
EVENT_WALL = 1.8
EVENT_APART = 2.0
# Where a roll is laid out by another seed than 17: roll 1, what a newcomer sees first, is
# read surely by the shipped reader (seed 17 put a die in a corner whose two views it
# reads differently, so the camera asked about the very first roll).
LAYOUT_SEEDS = {1: 18}
EVENT_SHOTS = 3  # calibration pictures of each Event-die face (the wizard takes three)


def _lamp(x: float, y: float, z: float, size: float, kelvin: float, share: float) -> LightSpec:
    """A lamp aimed at the tray centre giving it `share` of the scene's irradiance."""
    dist2 = x * x + y * y + z * z
    cos = z / math.sqrt(dist2)
    return LightSpec(x, y, z, size, IRRADIANCE * share * math.pi * dist2 / cos, kelvin)


def _soldier(body: tuple[float, float, float]) -> DieLook:
    return DieLook(size=DIE, bevel=0.1, style="opaque", body=body, roughness=0.5, coat=0.0,
                   ink=(0.97, 0.97, 0.95), pip_radius=0.09, pip_offset=0.25, big_one=1.0)


def demo_scene() -> SceneSpec:
    """The demo's table: the same tray, camera, lamps, dice looks and finishing in every frame."""
    focal = 320 / math.tan(math.radians(66.0 / 2))
    height = focal * DIE / DIE_PX + DIE  # camera height giving dice DIE_PX wide
    event = DieLook(size=DIE * 1.1, bevel=0.12, style="opaque", body=(0.06, 0.06, 0.065),
                    roughness=0.4, ink=(0.86, 0.72, 0.36), engraved=0.015, pip_radius=0.09,
                    emblem_seed=32, faces=EVENT_FACES)
    tray = TraySpec(
        shape="square", half=0.095, depth_ratio=0.78, yaw=0.0, wall_height=0.03,
        wall_thickness=0.015, floor_thickness=0.006,
        floor=SurfaceSpec("felt", (0.09, 0.32, 0.18), (0.06, 0.22, 0.12), 0.92, 0.0015, 0.35),
        wall=SurfaceSpec("wood", (0.8, 0.66, 0.48), (0.68, 0.54, 0.38), 0.5, 0.004, 0.1),
        table=SurfaceSpec("wood", (0.55, 0.4, 0.25), (0.4, 0.28, 0.16), 0.45, 0.005, 0.05))
    return SceneSpec(
        width=640, height=480,
        camera=CameraSpec(0.004, -0.003, height, yaw=0.0, tilt=0.0, tilt_dir=0.0, hfov=66.0,
                          k1=0.0, lens="normal"),
        lights=(_lamp(0.3, -0.2, 0.9, 0.3, 4800.0, 0.7), _lamp(-0.35, 0.3, 1.0, 0.6, 5600.0, 0.3)),
        ambient=0.12, ambient_kelvin=6000.0, tray=tray,
        post=PostSpec(exposure=-0.1, white_balance=0.85, vignette=0.12, blur=0.4, motion=0.0,
                      noise=2.0, jpeg=88),
        sets=(("red", _soldier((0.72, 0.05, 0.07))), ("blue", _soldier((0.07, 0.24, 0.7)))),
        event=event, event_colour="black", samples=2, kind="dragon-farkle")


def _placed(scene: SceneSpec, items: list[tuple[int | str, DieLook, str, str]], seed: Sequence[int],
            touch: float) -> list[DieSpec]:
    """`items` at rest in the tray, all in view; the layout is fixed by `seed` (a seed that
    leaves a die without room, or the Event die by a wall or a die, is followed by the next one)."""
    for attempt in range(50):
        rng = np.random.default_rng([*seed, attempt])
        order = rng.permutation(len(items))
        dice = place(rng, scene, [items[i] for i in order], touch=touch, in_view=1.0)
        if len(dice) == len(items) and all(_clear(scene, d, dice) for d in dice):
            return dice
    raise ValueError(f"no room in the tray for {len(items)} dice")


def _clear(scene: SceneSpec, die: DieSpec, dice: Sequence[DieSpec]) -> bool:
    """False for an Event die by a wall or by another die (EVENT_WALL, EVENT_APART)."""
    if die.kind != "event":
        return True
    size = die.look.size
    return (depth_inside(scene.tray.polygon(), die.x, die.y) >= EVENT_WALL * size
            and all(math.hypot(d.x - die.x, d.y - die.y) >= EVENT_APART * size
                    for d in dice if d is not die))


def roll_dice(scene: SceneSpec, faces: Sequence[int], event: str, colour: str, number: int, *,
              stray: tuple[str, int] | None = None) -> list[DieSpec]:
    """Roll `number` of the game as it came to rest: `faces` of the `colour` set and the
    Event die showing `event`; `stray` (colour, face): one more die left in the tray."""
    items: list[tuple[int | str, DieLook, str, str]] = [
        (int(f), scene.look(colour), colour, "soldier") for f in faces]
    assert scene.event is not None
    items.append((event, scene.event, "event", "event"))
    if stray is not None:
        items.append((int(stray[1]), scene.look(stray[0]), stray[0], "soldier"))
    return _placed(scene, items, (number, LAYOUT_SEEDS.get(number, 17)), TOUCH)


def left_after(dice: Sequence[DieSpec], taken: Sequence[int], colour: str) -> list[DieSpec]:
    """The dice still in the tray once the set-aside `taken` (faces of the roller's
    `colour`) is taken out, where they lay; a stray die of another colour goes too."""
    out = [d for d in dice if d.kind == "event" or d.set == colour]
    for face in taken:
        out.remove(next(d for d in out if d.kind == "soldier" and d.face == face))
    return out


def colour_dice(scene: SceneSpec, colour: str) -> list[DieSpec]:
    """Calibration: one player's six dice apart in the tray, showing 1 to 6."""
    look = scene.look(colour)
    items = [(face, look, colour, "soldier") for face in range(1, 7)]
    return _placed(scene, items, (len(colour), sum(map(ord, colour))), 0.0)


def event_dice(scene: SceneSpec) -> dict[str, list[list[DieSpec]]]:
    """Calibration: the Event die alone showing each face, moved a little each time."""
    spots = ((-0.03, 0.01, 10.0), (0.02, -0.02, 55.0), (0.035, 0.025, 130.0))
    return {face: [[die(scene, "event", face, x + 0.01 * k, y, yaw + 20 * k)]
                   for x, y, yaw in spots[:EVENT_SHOTS]]
            for k, face in enumerate(("blank", "dragon", "rally"))}
