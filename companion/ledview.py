"""Rules engine snapshot -> LED `Scene`: what the strip shows for the game right now.

The controller calls `scene_from_snapshot` after every step with the events that step
caused; the LED driver then renders that scene every tick. Pure: no clock is read
(`now` is passed in and becomes the start time of any flash animation).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hardware.leds import Scene

RGB = tuple[int, int, int]

COLOR_NAMES: dict[str, RGB] = {
    "red": (255, 0, 0),
    "orange": (255, 90, 0),
    "yellow": (255, 200, 0),
    "green": (0, 200, 0),
    "teal": (0, 160, 140),
    "blue": (0, 40, 255),
    "purple": (150, 0, 220),
    "pink": (255, 40, 120),
    "white": (255, 255, 255),
    "black": (70, 70, 70),  # an LED cannot show black: a dim grey stands for it
    "grey": (110, 110, 110),
    "gray": (110, 110, 110),
    "brown": (140, 60, 10),
}
DEFAULT_SEAT_COLORS = ("red", "blue", "green", "yellow", "purple", "orange")

# Event kind -> flash, and which flash wins when one step causes several.
FLASH_FOR_EVENT = {
    "won": "win",
    "farkle": "farkle",
    "army_wiped": "farkle",
    "dragon_ate": "dragon",
    "dragon_evaded": "dragon",
    "damage": "dragon",
    "rally_double": "rally",
    "rally_item": "rally",
    "hot_dice": "hot_dice",
    "banked": "bank",
    "brawl_won": "bank",
}
FLASH_PRIORITY = ("win", "farkle", "dragon", "rally", "hot_dice", "bank")


def parse_color(value: Any, *, who: str = "colour") -> RGB:
    """(r, g, b), "#rrggbb" or a colour name -> (r, g, b); ValueError says what was wrong."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text in COLOR_NAMES:
            return COLOR_NAMES[text]
        if text.startswith("#") and len(text) == 7:
            try:
                return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
            except ValueError:
                pass
        known = ", ".join(sorted(COLOR_NAMES))
        raise ValueError(f"{who}: unknown colour {value!r}; use a name ({known}) or #rrggbb")
    ok = isinstance(value, (list, tuple)) and len(value) == 3
    if ok and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value):
        return (value[0], value[1], value[2])
    raise ValueError(f"{who}: a colour must be a name, #rrggbb or [r, g, b] from 0 to 255, got {value!r}")


def player_names(snapshot: Mapping[str, Any]) -> list[str]:
    """Seat order names from the snapshot ("players" as names or as objects with "name")."""
    players = snapshot.get("players")
    if players is None:
        return list(snapshot.get("army", {}))
    return [p["name"] if isinstance(p, Mapping) else str(p) for p in players]


def seat_colors(names: Sequence[str], colors: Mapping[str, Any]) -> list[RGB]:
    """Each player's LED colour: theirs from `colors`, else a distinct default by seat."""
    taken = {parse_color(c, who=n) for n, c in colors.items() if n in names}
    spare = [COLOR_NAMES[c] for c in DEFAULT_SEAT_COLORS if COLOR_NAMES[c] not in taken]
    out = []
    for name in names:
        if name in colors:
            out.append(parse_color(colors[name], who=f"colour of {name}"))
        else:
            out.append(spare.pop(0) if spare else COLOR_NAMES["white"])
    return out


def flash_for(events: Iterable[Any], step: Mapping[str, Any] | None = None) -> str | None:
    """The flash a step calls for: from its events (Event objects, dicts with "kind", or kind
    strings) and, for a roll step, from the Event die (a Dragon or Rally roll)."""
    found = set()
    if step is not None and "roll" in step and step.get("event") in ("dragon", "rally"):
        found.add(step["event"])
    for event in events:
        kind = event if isinstance(event, str) else _kind(event)
        flash = FLASH_FOR_EVENT.get(kind or "")
        if flash:
            found.add(flash)
    return next((f for f in FLASH_PRIORITY if f in found), None)


def _kind(event: Any) -> str | None:
    if isinstance(event, Mapping):
        return event.get("kind")
    return getattr(event, "kind", None)


def scene_from_snapshot(
    snapshot: Mapping[str, Any],
    *,
    colors: Mapping[str, Any],
    events: Iterable[Any] = (),
    step: Mapping[str, Any] | None = None,
    now: float,
    settable: Sequence[float] = (),
    hint: float | None = None,
    asked: Sequence[float] = (),
) -> Scene:
    """The LED scene for a rules `snapshot()`; `step` is the step just applied, `events` its events.

    settable / hint / asked: positions (0..1 along the tray edge) of dice that may be set
    aside, of the advisor's hint, and of the dice the camera asks the phones about, from
    the camera reading and the calibration profile.
    """
    names = player_names(snapshot)
    armies = snapshot.get("army", {})
    palette = seat_colors(names, colors)
    players = [(n, c, int(armies.get(n, 0))) for n, c in zip(names, palette)]
    flash = flash_for(events, step)
    over = snapshot.get("phase") == "game_over" or snapshot.get("winner") is not None
    return Scene(
        players=players,
        current=None if over else _seat(names, snapshot.get("player")),
        dragon_damage=int(snapshot.get("damage") or 0),
        dragon_health=int(snapshot.get("dragon_health") or 3),
        flash=flash,
        flash_started=now if flash or over else 0.0,
        settable=tuple(settable),
        winner=_seat(names, snapshot.get("winner")),
        hint=hint,
        asked=tuple(asked),
    )


def _seat(names: Sequence[str], name: Any) -> int | None:
    return names.index(name) if name in names else None
