"""What the LEDs should show (`Scene`) and where on the strip it goes (`LedLayout`).

A Scene is plain data built from the game state; a layout is plain data built from
the configuration. `render_scene` turns both, plus the time, into pixel colours.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

RGB = tuple[int, int, int]
FLASHES = ("farkle", "dragon", "rally", "hot_dice", "bank", "win")
ARMY_GOAL = 5000


class LayoutError(ValueError):
    """A segment that does not fit the strip, or a malformed layout."""


@dataclass(frozen=True)
class Scene:
    """The table as the LEDs show it. Positions along the tray edge run 0..1.

    Sequences are stored as tuples, so a Scene is immutable and hashable.
    """

    players: Sequence[tuple[str, RGB, int]] = ()  # seat order: name, dice colour, army
    current: int | None = None
    dragon_damage: int = 0
    dragon_health: int = 3
    flash: str | None = None
    flash_started: float = 0.0
    settable: Sequence[float] = ()
    winner: int | None = None
    hint: float | None = None
    asked: Sequence[float] = ()  # dice the camera asks the phones about: their LEDs blink

    def __post_init__(self) -> None:
        players = tuple((str(n), _rgb(c), int(a)) for n, c, a in self.players)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "settable", tuple(float(p) for p in self.settable))
        object.__setattr__(self, "asked", tuple(float(p) for p in self.asked))
        if self.flash is not None and self.flash not in FLASHES:
            raise ValueError(f"unknown flash {self.flash!r}; known: {', '.join(FLASHES)}")
        for name, index in (("current", self.current), ("winner", self.winner)):
            if index is not None and not 0 <= index < len(players):
                raise ValueError(f"Scene.{name}={index} but there are {len(players)} players")


def _rgb(color: Sequence[int]) -> RGB:
    r, g, b = (max(0, min(255, int(c))) for c in color)
    return (r, g, b)


@dataclass(frozen=True)
class Segment:
    """`length` LEDs from `start`; `reverse` when the strip runs the other way there."""

    start: int
    length: int
    reverse: bool = False

    def indices(self) -> range:
        if self.reverse:
            return range(self.start + self.length - 1, self.start - 1, -1)
        return range(self.start, self.start + self.length)

    def split(self, parts: int) -> tuple[Segment, ...]:
        """Cut into `parts` nearly equal pieces (in the segment's own direction)."""
        if parts <= 0:
            return ()
        bounds = [round(i * self.length / parts) for i in range(parts + 1)]
        pieces = [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(parts)]
        if self.reverse:
            end = self.start + self.length
            return tuple(Segment(end - b - n, n, True) for b, n in pieces)
        return tuple(Segment(self.start + b, n) for b, n in pieces)


SEGMENT_NAMES = ("turn", "armies", "dragon", "flash", "tray")


@dataclass(frozen=True)
class LedLayout:
    """Where each part of the scene goes on a strip of `count` LEDs.

    armies: one segment per seat, or a single segment shared equally by all players.
    flash: the region event animations (Farkle, Dragon, ...) play over; None = whole strip.
    """

    count: int
    turn: Segment | None = None
    armies: tuple[Segment, ...] = ()
    dragon: Segment | None = None
    flash: Segment | None = None
    tray: Segment | None = None
    army_goal: int = ARMY_GOAL
    _cache: dict[int, tuple[Segment, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.count, int) or self.count <= 0:
            raise LayoutError(f"the LED count must be a positive integer, got {self.count!r}")
        if self.army_goal <= 0:
            raise LayoutError(f"army_goal must be positive, got {self.army_goal}")
        object.__setattr__(self, "armies", tuple(self.armies))
        for name, seg in self.named_segments():
            if seg.start < 0 or seg.length <= 0 or seg.start + seg.length > self.count:
                raise LayoutError(
                    f"LED segment {name} ({seg.start}..{seg.start + seg.length - 1}) "
                    f"does not fit a strip of {self.count} LEDs"
                )

    def named_segments(self) -> Iterable[tuple[str, Segment]]:
        for name in ("turn", "dragon", "flash", "tray"):
            seg = getattr(self, name)
            if seg is not None:
                yield name, seg
        for i, seg in enumerate(self.armies):
            yield f"armies[{i}]", seg

    def army_segments(self, players: int) -> tuple[Segment, ...]:
        """The army segment for each of `players` seats (a shared one is split)."""
        cached = self._cache.get(players)
        if cached is None:
            if len(self.armies) == 1 and players > 1:
                cached = self.armies[0].split(players)
            else:
                cached = self.armies[:players]
            self._cache[players] = cached
        return cached

    @classmethod
    def default(cls, count: int = 60) -> LedLayout:
        """A layout for one strip: turn, armies, dragon, then the tray edge; flashes everywhere."""
        if count < 10:
            raise LayoutError(f"the default layout needs at least 10 LEDs, got {count}")
        turn = max(1, count // 12)
        dragon = max(3, count // 12)
        tray = max(4, count // 3)
        armies = count - turn - dragon - tray
        return cls(
            count=count,
            turn=Segment(0, turn),
            armies=(Segment(turn, armies),),
            dragon=Segment(turn + armies, dragon),
            tray=Segment(count - tray, tray),
            flash=None,
        )

    @classmethod
    def from_mapping(cls, count: int, segments: Mapping[str, Any]) -> LedLayout:
        """Build from config data: {"turn": [start, length], "armies": [[s, n], ...], ...}."""
        unknown = sorted(set(segments) - set(SEGMENT_NAMES))
        if unknown:
            raise LayoutError(f"unknown LED segment {unknown[0]!r}; known: {', '.join(SEGMENT_NAMES)}")
        kwargs: dict[str, Any] = {"count": count}
        for name, value in segments.items():
            if name == "armies":
                nested = isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple))
                items = value if nested else [value]
                kwargs[name] = tuple(_segment(f"armies[{i}]", v) for i, v in enumerate(items))
            else:
                kwargs[name] = _segment(name, value)
        return cls(**kwargs)


def _segment(name: str, value: Any) -> Segment:
    """[start, length] or [start, length, "reverse"] -> Segment."""
    if isinstance(value, Segment):
        return value
    ok = isinstance(value, (list, tuple)) and len(value) in (2, 3)
    ok = ok and all(isinstance(v, int) and not isinstance(v, bool) for v in value[:2])
    if ok and len(value) == 3:
        ok = value[2] == "reverse"
    if not ok:
        raise LayoutError(
            f"LED segment {name} must be [start, length] or [start, length, \"reverse\"], got {value!r}"
        )
    return Segment(value[0], value[1], len(value) == 3)
