"""The Event die end to end, on rendered Dragon Farkle tables no network was trained on.

    .venv/bin/python benchmarks/vision_event_tables.py [--tables 6] [--start 0] [--rolls 20]
                                                       [--event-pictures 2] [--no-retakes] [-v]
                                                       [--cache DIR] [--render-only]

Each table (numbers 100000 and up, far from the training renders') is pinned: one tray,
camera and light, two or three players' colour sets (one sometimes of the Event die's
own colour) and an Event die whose body is black, white, a set's colour or any other.
For each table the frames a player would take are rendered: the empty tray, each
player's six dice alone, the Event die alone showing each face (six frames a face at
random spots: calibration learns from --event-pictures of them, 2 unless told, those
the phone page keeps, which refuses a die near the picture's edge; --no-retakes: the
first ones as taken), then
`--rolls` rolls (one player's 1-6 Soldier dice and the Event die; every fifth with two
players' dice). They are cached in `--cache` (default
.cache/vision_event_tables, resumable; a frame whose table or dice change is rendered
again). Rendering needs the `render` extra (bpy); reading the cache does not (without
bpy, the tables not cached are left out and named).

The table is then calibrated through calibration.procedures.build_profile (tray,
players, Event die, each part kept or reported on its own) and every roll read with
vision.read_dice(profile=...); again with the profile learning, roll after roll, the
Event die's faces the players give for the rolls not played right ("learning": what a
real camera's table does, companion/controller/teaching.py); and without calibration.
Printed per table and
overall: whether the calibration found the Event die (and why not), the Event die found
with its face right (x of the rolls that show it), Soldier dice taken for the Event die,
Soldier dice right and those given another player's colour (the table asks when half a
roll's dice are not the roller's), rolls played right / asked / played wrong
(vision.evaluate.roll_outcome with the reading's warnings) and milliseconds per frame
(median, one core); overall, also why the rolls asked were asked
(vision.evaluate.why_asked), and the Event-die pictures the players are asked to check
(the reader does not take the square learned from for a die:
calibration.event_die.unsure_pictures, the phone page's red box), against those learned
off the die.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as on the table (companion/__init__.py)
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "vision_event_tables"
FIRST_TABLE = 100000
FACES = ("blank", "dragon", "rally")
MAX_EVENT_PICTURES = 6  # of each face (--event-pictures)
# Per table: the Event die's body, the players' colour sets, the tray floor (None: drawn).
# The first two are the cases: a black Event die alone on teal felt, and black
# Soldier dice beside a black Event die.
TEAL = (0.05, 0.35, 0.36)
TABLES: tuple[tuple[str, tuple[str, ...], tuple[float, float, float] | None], ...] = (
    ("black", ("red", "blue"), TEAL),
    ("black", ("black", "green"), None),
    ("white", ("white", "purple"), None),
    ("white", ("yellow", "blue", "red"), None),
    ("red", ("red", "green"), None),
    ("other", ("purple", "yellow"), None),
)


def table_scene(k: int) -> Any:
    """The pinned SceneSpec of table k (FIRST_TABLE + k)."""
    from vision.training.render.looks import event_look, set_look
    from vision.training.render.scene import sample_scene

    rng = np.random.default_rng([FIRST_TABLE + k, 21])
    scene = sample_scene(rng, kind="dragon-farkle")
    body, players, floor = TABLES[k % len(TABLES)]
    size = scene.sets[0][1].size
    event, colour = event_look(rng, body, size=size * float(rng.uniform(1.0, 1.2)))
    sets = tuple((name, set_look(rng, name, size=size)) for name in players)
    scene = replace(scene, sets=sets, event=event, event_colour=colour)
    if floor is not None:
        dark = tuple(v * 0.75 for v in floor)
        scene = replace(scene, tray=replace(scene.tray, floor=replace(
            scene.tray.floor, kind="felt", colour=floor, colour2=dark)))
    return scene


def table_frames(scene: Any, k: int, rolls: int, event_pictures: int = 2
                 ) -> list[tuple[str, list[Any]]]:
    """(name, dice) of every frame of table k: "tray", "player-NAME", "event-FACE-i"
    (`event_pictures` a face), "roll-i"; drawn from the table's number alone (pictures
    past the first two from a stream of their own, so the other frames stay as they are)."""
    from vision.training.render.placement import place

    rng = np.random.default_rng([FIRST_TABLE + k, 22])
    more = np.random.default_rng([FIRST_TABLE + k, 23])
    event = scene.event
    out: list[tuple[str, list[Any]]] = [("tray", [])]
    for name, look in scene.sets:
        items = [(int(rng.integers(1, 7)), look, name, "soldier") for _ in range(6)]
        out.append((f"player-{name}", place(rng, scene, items, touch=0.0, in_view=1.0)))
    for face in FACES:
        for i in range(MAX_EVENT_PICTURES):  # all drawn: the first N the same for any N
            pick = rng if i < 2 else more
            die = place(pick, scene, [(face, event, "event", "event")], in_view=1.0)
            if i < event_pictures:
                out.append((f"event-{face}-{i}", die))
    for i in range(rolls):
        players = [scene.sets[i % len(scene.sets)]]
        if i % 5 == 4:
            players.append(scene.sets[(i + 1) % len(scene.sets)])
        items = [(FACES[i % 3], event, "event", "event")]
        for name, look in players:
            items += [(int(rng.integers(1, 7)), look, name, "soldier")
                      for _ in range(int(rng.integers(1, 7)))]
        order = rng.permutation(len(items))
        out.append((f"roll-{i:02d}", place(rng, scene, [items[j] for j in order], in_view=1.0)))
    return out


def _key(scene: Any, dice: list[Any]) -> str:
    return hashlib.sha1(stable_repr((scene, dice)).encode()).hexdigest()[:10]


_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d*(?:e[-+]?\d+)?")  # a number with a point


def stable_repr(value: Any) -> str:
    """repr(value) as alike under numpy 1 and 2 as can be: numpy's scalars written as numpy
    1 writes them ("0.5", not numpy 2's "np.float64(0.5)"), and every number with a point
    to 9 significant digits, since the two compute some of a table's numbers a last bit
    apart (a lamp's size 0.9875365147716106 against ...105). The cached frames are named by
    it: a cache rendered under numpy 2 was rendered again, table by table, under numpy 1."""
    if int(np.__version__.split(".")[0]) < 2:
        text = repr(value)
    else:
        with np.printoptions(legacy="1.25"):
            text = repr(value)
    return _FLOAT.sub(lambda m: f"{float(m.group()):.9g}", text)


def frame_path(cache: Path, k: int, name: str, scene: Any, dice: list[Any]) -> Path:
    return cache / f"table-{FIRST_TABLE + k}" / f"{name}-{_key(scene, dice)}.jpg"


def render_missing(cache: Path, k: int, scene: Any, frames: list[tuple[str, list[Any]]]) -> int:
    """Render and cache the frames of table k not cached yet; how many were rendered.
    The JPEG is written before its labels, each atomically: a frame with labels is done."""
    todo = [(n, d) for n, d in frames
            if not frame_path(cache, k, n, scene, d).with_suffix(".json").exists()]
    if not todo:
        return 0
    from vision.training.render.frames import render_roll

    for i, (name, dice) in enumerate(todo):
        path = frame_path(cache, k, name, scene, dice)
        path.parent.mkdir(parents=True, exist_ok=True)
        t0 = time.time()
        roll = render_roll(scene, dice, seed=(FIRST_TABLE + k) * 100 + i)
        _write(path, roll.jpeg)
        _write(path.with_suffix(".json"),
               json.dumps({"dice": roll.dice, "ignore": roll.ignore}).encode())
        print(f"  rendered table {FIRST_TABLE + k} {name} ({i + 1}/{len(todo)}, "
              f"{time.time() - t0:.0f} s)", flush=True)
    return len(todo)


def rendered(cache: Path, tables: list[tuple[int, Any, list[tuple[str, list[Any]]]]]
             ) -> list[tuple[int, Any, list[tuple[str, list[Any]]]]]:
    """The tables (k, scene, frames) whose frames are all in `cache`: those missing are
    rendered first with the render extra (bpy); without it they are named and left out."""
    missing = [k for k, s, f in tables if load(cache, k, s, f) is None]
    if not missing:
        return tables
    try:
        import bpy  # noqa: F401
    except ImportError:
        print(f"table(s) {', '.join(str(FIRST_TABLE + k) for k in missing)} not rendered "
              f"in {cache}, and rendering needs the render extra: .venv/bin/pip "
              "install 'bpy==4.5.*'; reading the others")
        return [t for t in tables if t[0] not in missing]
    for k, scene, frames in tables:
        if k in missing:
            render_missing(cache, k, scene, frames)
    return tables


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def load(cache: Path, k: int, scene: Any, frames: list[tuple[str, list[Any]]]
         ) -> dict[str, tuple[np.ndarray, list[dict]]] | None:
    """{name: (BGR frame, labels)} of table k, or None when a frame is not cached."""
    out = {}
    for name, dice in frames:
        path = frame_path(cache, k, name, scene, dice)
        if not path.with_suffix(".json").exists():
            return None
        labels = json.loads(path.with_suffix(".json").read_text())["dice"]
        out[name] = (cv2.imread(str(path)), labels)
    return out


def phone_pictures(frames: dict[str, tuple[np.ndarray, list[dict]]], profile: Any,
                   wanted: int) -> dict[str, list[np.ndarray]]:
    """The Event-die pictures of each face the phone page keeps, `wanted` a face: the
    players take the face's pictures in turn, and the page refuses one where the die is
    not found or lies near the edge of the camera's view (as
    companion/controller/calibrate.py capture_event does), so they take the next. A face
    with fewer pictures kept than wanted makes up its number with the first refused."""
    from calibration.event_die import event_boxes, near_edge
    from calibration.finding import CalibrationError

    out = {}
    for face in FACES:
        names = sorted(n for n in frames if n.startswith(f"event-{face}-"))
        kept = []
        for name in names:
            image = frames[name][0]
            try:
                box = event_boxes({face: [image]}, die_side=profile.die_side)[face][0]
            except CalibrationError:
                continue
            if not near_edge(image, box):
                kept.append(name)
            if len(kept) == wanted:
                break
        kept += [n for n in names if n not in kept][:wanted - len(kept)]
        out[face] = [frames[n][0] for n in sorted(kept)]
    return out


def calibrate(frames: dict[str, tuple[np.ndarray, list[dict]]], event_pictures: int = 2,
              retakes: bool = True
              ) -> tuple[Any, list[str], str, list[tuple[str, Any, bool | None, bool]]]:
    """(profile, what could not be calibrated, the Event-die verdict, the Event-die
    pictures learned from: event_pictures) through the real calibration code, one part
    at a time so a failing part leaves the others; `event_pictures` pictures of each
    Event face, those the phone page keeps (phone_pictures) unless not `retakes` (then
    the first ones)."""
    from calibration.procedures import CalibrationError, build_profile

    profile, failed, notes = build_profile(), [], []
    parts: list[tuple[str, dict]] = [("tray", {"tray": frames["tray"][0]})]
    players = {n.split("-", 1)[1]: f for n, (f, _) in frames.items() if n.startswith("player-")}
    parts.append(("players", {"players": players}))
    for what, kwargs in parts:
        try:
            profile = build_profile(base=profile, notes=notes, **kwargs)
        except CalibrationError as exc:
            failed.append(f"{what}: {exc}")
    if retakes:
        event = phone_pictures(frames, profile, event_pictures)
    else:
        event = {face: [frames[n][0] for n in sorted(frames) if n.startswith(f"event-{face}-")]
                 [:event_pictures] for face in FACES}
    try:
        profile = build_profile(base=profile, notes=notes, event=event)
    except CalibrationError as exc:
        failed.append(f"event: {exc}")
    if profile.event is None:
        return profile, failed, "NOT found (" + failed[-1].split(": ", 1)[1] + ")", []
    # Did it learn the right die? Every box it chose must be on the labelled Event die.
    pictures = event_pictures_of(frames, event, profile)
    wrong = [name for name, _, on_die, _ in pictures if on_die is False]
    if wrong:
        return profile, failed, f"learned the wrong thing in {wrong[0]}", pictures
    return profile, failed, "found" + "".join(f" ({n})" for n in notes), pictures


def event_pictures_of(frames: dict[str, tuple[np.ndarray, list[dict]]],
                      event: dict[str, list[np.ndarray]], profile: Any
                      ) -> list[tuple[str, Any, bool | None, bool]]:
    """Each Event-die picture learned from (`event`, by face, frames of `frames`): (name,
    the box the calibration learned the die from (found as it found them: at the players'
    dice size; None: left out), whether that box is on the labelled die (None: no label or
    no box), and whether the phone page shows it as sure:
    calibration.event_die.surely_a_die)."""
    from calibration.event_die import event_boxes, surely_a_die

    boxes = event_boxes(event, die_side=profile.die_side, left_out=[])
    out = []
    for face, found in boxes.items():
        names = [n for img in event[face] for n, (f, _) in frames.items() if f is img]
        for name, box in zip(names, found):
            image, labels = frames[name]
            on_die = sure = None
            if box is not None:
                sure = surely_a_die(image, box)
                if labels:  # else hidden by a wall
                    x, y, w, h = box
                    lx, ly, lw, lh = labels[0]["bbox"]
                    on_die = lx <= x + w / 2 <= lx + lw and ly <= y + h / 2 <= ly + lh
            out.append((name, box, on_die, bool(sure)))
    return out


@dataclass
class Counts:
    """What the reader made of a table's rolls."""

    rolls: int = 0
    event_rolls: int = 0  # rolls whose Event die is labelled (not hidden)
    event_found: int = 0  # ... read as the Event die
    event_right: int = 0  # ... with its face right
    soldiers: int = 0
    soldiers_right: int = 0
    soldiers_as_event: int = 0
    soldiers_other_colour: int = 0  # read as a Soldier die of another colour set than its own
    right: int = 0
    asked: int = 0
    wrong: int = 0
    asked_why: Counter = field(default_factory=Counter)  # vision.evaluate.why_asked
    ms: list[float] = field(default_factory=list)

    def add(self, o: Counts) -> None:
        for k, v in vars(o).items():
            setattr(self, k, getattr(self, k) + v)

    def line(self) -> str:
        ms = statistics.median(self.ms) if self.ms else float("nan")
        return (f"Event die found {self.event_found}/{self.event_rolls}, face right "
                f"{self.event_right}/{self.event_rolls}; Soldier dice taken for it "
                f"{self.soldiers_as_event}; Soldier dice right {self.soldiers_right}/"
                f"{self.soldiers}, given another colour {self.soldiers_other_colour}; "
                f"rolls played right {self.right} / asked {self.asked} / "
                f"played wrong {self.wrong} of {self.rolls}; {ms:.0f} ms/frame median")


def score_roll(dice: Any, labels: list[dict], warnings: Any) -> Counts:
    """Counts of one roll's reading against its labels."""
    from vision.evaluate import is_right, match, roll_outcome, why_asked

    c = Counts(rolls=1)
    setattr(c, roll_outcome(dice, labels, warnings), 1)
    c.asked_why.update(why_asked(dice, labels, warnings))
    pairs = dict(match(dice, labels))
    for li, lab in enumerate(labels):
        die = dice[pairs[li]] if li in pairs else None
        if lab["kind"] == "event":
            c.event_rolls += 1
            c.event_found += die is not None and die.kind == "event"
            c.event_right += die is not None and is_right(die, lab["value"])
        else:
            c.soldiers += 1
            c.soldiers_right += die is not None and is_right(die, lab["value"])
            c.soldiers_as_event += die is not None and die.kind == "event"
            c.soldiers_other_colour += (die is not None and die.kind == "soldier"
                                        and die.color != lab.get("set"))
    return c


def wrong_text(dice: Any, labels: list[dict]) -> str:
    """A roll played wrong, die by die: what each labelled die was read as."""
    from vision.evaluate import is_right, match

    pairs = dict(match(dice, labels))
    out = []
    for li, lab in enumerate(labels):
        die = dice[pairs[li]] if li in pairs else None
        read = "missed" if die is None else " ".join(
            part for part in (die.kind, str(die.value), die.color, f"{die.confidence:.2f}") if part)
        mark = "" if die is not None and is_right(die, lab["value"]) else " <-"
        out.append(f"{lab.get('set', lab['kind'])} {lab['value']}: {read}{mark}")
    extra = len(dice) - len(pairs)
    return "; ".join(out) + (f"; {extra} not a labelled die" if extra else "")


def read_rolls(frames: dict[str, tuple[np.ndarray, list[dict]]], profile: Any,
               learn: bool = False, verbose: bool = False, models: Path | None = None
               ) -> Counts:
    """The rolls read in turn with `profile`. learn: as a real camera's table does, the
    players answer every roll not played right, and a view of the Event die's face they
    give is learned (learned_from_answer) before the next roll is read. verbose: print
    each roll played wrong (wrong_text). models: the model folder read with (None: the
    bundled one, or $DICE_MODELS)."""
    from vision import read_dice

    total = Counts()
    for name in sorted(n for n in frames if n.startswith("roll-")):
        image, labels = frames[name]
        t0 = time.process_time()
        reading = read_dice(image, profile=profile, models=models)
        ms = 1000 * (time.process_time() - t0)
        c = score_roll(reading.dice, labels, reading.warnings)
        c.ms.append(ms)
        if verbose and c.wrong:
            print(f"    {name} played wrong: {wrong_text(reading.dice, labels)}")
        total.add(c)
        if learn and not c.right:
            profile = learned_from_answer(profile, image, reading.dice, labels)
    return total


def learned_from_answer(profile: Any, image: np.ndarray, dice: Any, labels: list[dict]) -> Any:
    """The profile after the players answered a roll with its labels (the Event die's
    face, no marks on the photo): with one more view of that face when the table would
    learn one (companion/controller/teaching.py, through its ProfileKeeper)."""
    from companion.controller.calibrate import ProfileKeeper
    from companion.controller.marks import PhotoMarks
    from vision.photolog import event_view_to_learn
    from vision.types import PLAY_CONFIDENCE

    events = [lab["value"] for lab in labels if lab["kind"] == "event"]
    if len(events) != 1:
        return profile
    view = event_view_to_learn(dice, PhotoMarks(image, list(dice)).event_label(events[0]),
                               PLAY_CONFIDENCE)
    if view is None:
        return profile
    keeper = ProfileKeeper(profile, None)  # learns as the table's does, saves nothing
    try:
        keeper.learn_event_view(image, *view)
    except ValueError:  # a square too small: the table learns nothing either
        return profile
    return keeper.profile


def describe(k: int, scene: Any, frames: dict[str, tuple[np.ndarray, list[dict]]]) -> str:
    body, players, _ = TABLES[k % len(TABLES)]
    sides = [max(d["top_bbox"][2:]) for n, (_, labs) in frames.items() if n.startswith("roll")
             for d in labs]
    f = scene.tray.floor
    floor = f"{f.kind} rgb({', '.join(f'{v:.2f}' for v in f.colour)})"
    return (f"table {FIRST_TABLE + k}: Event die {body}, players {', '.join(players)}, "
            f"{scene.tray.shape} tray, {floor}, {scene.camera.lens} lens, "
            f"dice ~{np.median(sides):.0f} px")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=len(TABLES), help="how many tables")
    ap.add_argument("--start", type=int, default=0, metavar="K",
                    help=f"begin at table {FIRST_TABLE} + K (default 0), to split the tables "
                         "between processes")
    ap.add_argument("--rolls", type=int, default=20)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--render-only", action="store_true", help="render the missing frames, read none")
    ap.add_argument("--no-retakes", action="store_true",
                    help="calibrate with the first --event-pictures pictures of each face, as "
                         "taken, not those the phone page keeps (it refuses a die near the edge)")
    ap.add_argument("--event-pictures", type=int, default=2, choices=range(1, MAX_EVENT_PICTURES + 1), metavar="N",
                    help="pictures of each Event face the calibration learns from")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each roll played wrong")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    tables = []
    for k in range(args.start, args.start + args.tables):
        scene = table_scene(k)
        pictures = args.event_pictures if args.no_retakes else MAX_EVENT_PICTURES
        tables.append((k, scene, table_frames(scene, k, args.rolls, pictures)))
    tables = rendered(args.cache, tables)
    if not tables:
        return 2
    if args.render_only:
        return 0
    from vision.evaluate import why_text

    totals = {"calibrated": Counts(), "learning": Counts(), "uncalibrated": Counts()}
    found = 0
    shown: Counter = Counter()  # Event pictures: (learned on the die?, shown as sure?)
    for k, scene, names in tables:
        frames = load(args.cache, k, scene, names)
        assert frames is not None
        print(describe(k, scene, frames))
        profile, failed, verdict, pictures = calibrate(frames, args.event_pictures,
                                                       retakes=not args.no_retakes)
        found += verdict.startswith("found")
        shown.update((on, sure) for _, box, on, sure in pictures if box is not None)
        print(f"  calibration: Event die {verdict}"
              + "".join(f"; {f}" for f in failed if not f.startswith("event")))
        for mode, prof in (("calibrated", profile), ("learning", profile), ("uncalibrated", None)):
            c = read_rolls(frames, prof, learn=mode == "learning", verbose=args.verbose)
            totals[mode].add(c)
            print(f"  {mode:12s} {c.line()}")
    print(f"overall, {len(tables)} tables: calibration found the Event die on {found}")
    off = shown[(False, False)] + shown[(False, True)]
    print(f"  Event-die pictures learned from: {sum(shown.values())}, off the die {off}; "
          f"the players are asked to check {shown[(False, False)]} of those, and "
          f"{shown[(True, False)] + shown[(None, False)]} on the die (or unlabelled)")
    for mode, c in totals.items():
        print(f"  {mode:12s} {c.line()}")
        print(f"  {'':12s} why asked (rolls; one can have several): {why_text(c.asked_why)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
