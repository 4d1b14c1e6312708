"""Calibration procedures and `dragon-farkle calibrate` on synthetic frames (files made here)."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.event_die import event_boxes, learn_event
from calibration.finding import CalibrationError, find_dice, segment_dice
from calibration.procedures import build_profile, learn_color, learn_tray
from calibration.profile import load_profile
from companion.cli import main
from vision import read_dice
from vision.color import die_color
from vision.event import event_face
from vision.synthetic import SynthDie, procedural_background, random_event_frame, render_frame

FACES = ("blank", "dragon", "rally")


def _tray_frame(tall: bool = False) -> np.ndarray:
    frame = np.full((480, 640, 3), (40, 60, 90), np.uint8)  # dark desk
    x0, y0, x1, y1 = (220, 40, 420, 440) if tall else (80, 60, 560, 420)
    frame[y0:y1, x0:x1] = (200, 205, 210)  # light tray floor
    dice = [SynthDie(2, ((x0 + x1) / 2, (y0 + y1) / 2), 40, 30, (40, 40, 200), (240, 240, 240))]
    out, _ = render_frame(dice, background=frame, rng=np.random.default_rng(0))
    return out


def _player_frame(bgr: tuple[int, int, int], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dice = [SynthDie(k + 1, (90 + 90 * k, 240 + 40 * (k % 2)), 44, 17.0 * k, bgr, (240, 240, 240))
            for k in range(6)]
    return render_frame(dice, background=procedural_background((480, 640), rng), rng=rng)[0]


def test_learn_tray_finds_the_floor_and_turns_a_tall_tray() -> None:
    polygon, rotation = learn_tray(_tray_frame())
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    assert rotation == 0
    # The floor (80..560 x 60..420), grown by a few pixels.
    assert abs(min(xs) - 80) <= 15 and abs(max(xs) - 560) <= 15
    assert abs(min(ys) - 60) <= 15 and abs(max(ys) - 420) <= 15
    assert learn_tray(_tray_frame(tall=True))[1] == 90


def test_learn_tray_whole_frame_and_failure() -> None:
    assert learn_tray(np.full((240, 320, 3), 200, np.uint8))[0] is None
    noise = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match="tray"):
        learn_tray(noise)


def test_learn_tray_on_real_photos() -> None:
    import vision

    folder = Path(vision.__file__).resolve().parent / "samples" / "byler-2019-12-08" / "images"
    with_tray = cv2.imread(str(folder / "IMG_20191208_112933.jpg"))  # a dice tray, walls and all
    polygon, _ = learn_tray(with_tray)
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    assert len(polygon) == 4 and min(xs) < 70 and max(xs) > 570 and min(ys) < 110 and max(ys) > 490
    assert max(ys) < 560  # the lip below the tray is not in it
    plain = cv2.imread(str(folder / "IMG_20191208_112104.jpg"))  # dice on a plain white board
    assert learn_tray(plain)[0] is None


def test_learn_color_finds_six_dice_and_tells_players_apart() -> None:
    red, blue = _player_frame((40, 40, 200), 1), _player_frame((200, 90, 30), 2)
    assert len(segment_dice(red)) == 6
    profile = build_profile(players={"Ann": red, "Bo": blue})
    test_red, test_blue = _player_frame((45, 45, 190), 3), _player_frame((190, 95, 35), 4)
    for frame, name in ((test_red, "Ann"), (test_blue, "Bo")):
        for box in segment_dice(frame):
            got, conf = die_color(frame, box, profile=profile)
            assert got == name and conf > 0.5


def test_build_profile_measures_the_dice_and_refuses_dice_too_small_to_read() -> None:
    profile = build_profile(players={"Ann": _player_frame((40, 40, 200), 1)})
    assert 40 <= profile.die_side <= 70  # top face 44 px, with the sides the camera sees
    other = _player_frame((200, 90, 30), 2)  # faces 1-6 left to right
    dice = sorted(read_dice(other, profile=profile).dice, key=lambda d: d.center[0])
    assert [d.value for d in dice] == [1, 2, 3, 4, 5, 6]
    rng = np.random.default_rng(5)
    tiny = [SynthDie(k + 1, (100 + 60 * k, 240), 6, 0.0, (40, 40, 200), (240, 240, 240))
            for k in range(6)]
    frame = render_frame(tiny, background=procedural_background((480, 640), rng), rng=rng)[0]
    with pytest.raises(CalibrationError, match="closer"):
        build_profile(players={"Ann": frame})


def test_learn_color_without_dice_says_what_to_do() -> None:
    with pytest.raises(CalibrationError, match="no dice found"):
        learn_color(np.full((240, 320, 3), 128, np.uint8))
    with pytest.raises(CalibrationError, match="player 'Ann'"):
        build_profile(players={"Ann": np.full((240, 320, 3), 128, np.uint8)})


def test_learn_event_needs_every_face() -> None:
    rng = np.random.default_rng(0)
    frame, _ = random_event_frame("blank", rng, background=procedural_background((240, 320), rng))
    with pytest.raises(CalibrationError, match="missing: dragon, rally"):
        learn_event({"blank": [frame]})
    with pytest.raises(CalibrationError, match="unknown Event-die face"):
        learn_event({"blank": [frame], "dragon": [frame], "rally": [frame], "skull": [frame]})


def test_cli_calibrate_from_files_then_read_back(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(5)
    files: dict[str, list[str]] = {}
    for face in FACES:
        for i in range(2):
            frame, _ = random_event_frame(face, rng, background=procedural_background((360, 480), rng))
            path = tmp_path / f"{face}{i}.png"
            cv2.imwrite(str(path), frame)
            files.setdefault(face, []).append(str(path))
    cv2.imwrite(str(tmp_path / "tray.png"), _tray_frame())
    cv2.imwrite(str(tmp_path / "ann.png"), _player_frame((40, 40, 200), 1))
    args = ["calibrate", "--tray", str(tmp_path / "tray.png"), "--player", f"Ann={tmp_path / 'ann.png'}",
            "--out", str(tmp_path / "prof")]
    for face in FACES:
        args += ["--event-face", f"{face}={','.join(files[face])}"]
    assert main(args) == 0
    out = capsys.readouterr().out
    profile = load_profile(tmp_path / "prof")
    assert list(profile.colors) == ["Ann"] and profile.tray is not None and profile.event
    assert "wrote" in out and f"dice {profile.die_side:.0f} px wide" in out
    assert "Raise the camera's resolution" not in out  # dice this big need no advice
    frame, box = random_event_frame("rally", rng, background=procedural_background((360, 480), rng))
    assert event_face(frame, box, profile=profile)[0] == "rally"


def _calibrate_event_cli(frames: dict[str, list[np.ndarray]], tmp_path: Path) -> int:
    """`dragon-farkle calibrate` on the Event-die frames, written as files in tmp_path;
    the profile goes to tmp_path / "prof"."""
    files = []
    for face, imgs in frames.items():
        names = [str(tmp_path / f"{face}{i}.png") for i in range(len(imgs))]
        for name, img in zip(names, imgs):
            cv2.imwrite(name, img)
        files += ["--event-face", f"{face}={','.join(names)}"]
    return main(["calibrate", *files, "--out", str(tmp_path / "prof")])


def test_an_event_die_picture_without_the_die_is_left_out_when_its_face_has_another(
        tmp_path: Path, capsys) -> None:
    """A picture where the Event die cannot be found (a lamp's glare turned one rendered
    Dragon picture's red top face white) fails the calibration, unless the caller takes
    notes: then it is left out, and said, while its face keeps another picture. The
    command line takes notes and prints them."""
    rng = np.random.default_rng(15)
    background = procedural_background((360, 480), rng)
    frames = {f: [random_event_frame(f, rng, background=background)[0] for _ in range(2)]
              for f in FACES}
    frames["dragon"].append(background)  # no die at all
    with pytest.raises(CalibrationError, match="not found in dragon frame 3"):
        learn_event(frames)
    notes: list[str] = []
    event = learn_event(frames, left_out=notes)
    assert notes == ["the Event die was not found in dragon frame 3: that picture is left out"]
    assert len(event.faces("dragon")) == 2 and len(event.templates) == 6
    with pytest.raises(CalibrationError, match="not found in any rally frame"):
        learn_event({**frames, "rally": [background]}, left_out=[])
    assert _calibrate_event_cli(frames, tmp_path) == 0
    assert "note: the Event die was not found in dragon frame 3" in capsys.readouterr().out
    assert load_profile(tmp_path / "prof").event is not None


def test_an_event_die_found_where_the_reader_sees_no_die_is_said_for_checking(
        tmp_path: Path, capsys) -> None:
    """With the die half out of the picture, a patch of its colour that is no die (a
    rendered table's dark wall corner) can be learned from: the calibration says which
    picture to check, and the command line prints it. Whole dice are not mentioned."""
    rng = np.random.default_rng(9)
    background = procedural_background((480, 640), rng)
    frames = {f: [random_event_frame(f, rng, background=background)[0]] for f in FACES}
    notes: list[str] = []
    assert build_profile(event=frames, notes=notes).event is not None and notes == []
    wedge = background.copy()  # a wedge of the Event die's body colour, no die
    cv2.fillPoly(wedge, [np.array([[500, 330], [560, 330], [530, 385]])], (40, 40, 150))
    frames["blank"].append(wedge)
    assert build_profile(event=frames, notes=notes).event is not None
    assert notes == [("in blank frame 2 the Event die was found where the camera is not sure "
                      "there is a die: check that picture shows the whole die")]
    assert _calibrate_event_cli(frames, tmp_path) == 0
    assert "note: in blank frame 2 the Event die was found where" in capsys.readouterr().out


def test_a_dark_corner_beside_the_dice_is_not_taken_for_one() -> None:
    """A player's dice are found by the reader's networks, not by colour alone: the tray's
    shadowed corner is as unlike the felt as a die and of its size, and the segmentation
    boxes it (on the rendered tables it taught players' colours wrong)."""
    rng = np.random.default_rng(4)
    dice = [SynthDie(v, (90.0 + 80 * i, 150.0), 44.0, 15.0 * i, (40, 40, 190), (240, 240, 240))
            for i, v in enumerate([2, 4, 6])]
    frame, _ = render_frame(dice, background=procedural_background((360, 480), rng), rng=rng)
    for x0, y0, x1, y1 in [(380, 260, 424, 272), (380, 260, 392, 304)]:  # an L of shadow
        cv2.rectangle(frame, (x0, y0), (x1, y1), (35, 35, 60), -1)
    corner = [b for b in segment_dice(frame) if b[0] > 350]
    assert corner  # colour alone takes it for a die
    found = find_dice(frame)
    assert len(found) == 3 and all(b[0] + b[2] / 2 < 300 and b[1] < 200 for b in found)


def test_cli_calibrate_bad_input_writes_nothing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "prof"
    assert main(["calibrate", "--player", f"Ann={tmp_path / 'none.png'}", "--out", str(out)]) == 2
    assert "cannot read image" in capsys.readouterr().err
    assert main(["calibrate", "--event-face", "skull=a.png", "--out", str(out)]) == 2
    assert "blank, dragon or rally" in capsys.readouterr().err
    assert not out.exists()


class _FakeCamera:
    """Shows the picture for the current prompt; each Enter moves to the next one."""

    def __init__(self, frames: list[np.ndarray]) -> None:
        self.frames, self.index, self.closed = frames, -1, False

    def read(self) -> np.ndarray:
        return self.frames[self.index]

    def close(self) -> None:
        self.closed = True


def test_cli_calibrate_from_the_camera(tmp_path: Path, monkeypatch, capsys) -> None:
    import hardware.camera

    rng = np.random.default_rng(8)
    frames = [_tray_frame(), _player_frame((40, 40, 200), 1)]
    for face in FACES:
        frames += [random_event_frame(face, rng, background=procedural_background((360, 480), rng))[0]
                   for _ in range(2)]
    camera = _FakeCamera(frames)
    prompts: list[str] = []

    def enter(prompt: str) -> str:
        prompts.append(prompt)
        camera.index += 1
        return ""
    monkeypatch.setattr(hardware.camera, "open_camera", lambda spec: camera)
    monkeypatch.setattr("builtins.input", enter)
    args = ["calibrate", "--camera", "usb:0", "--tray", "camera", "--player", "Ann",
            "--out", str(tmp_path / "prof")]
    for face in FACES:
        args += ["--event-face", f"{face}=2"]
    assert main(args) == 0, capsys.readouterr().err
    assert camera.closed and len(prompts) == 8 and "Ann" in prompts[1]
    profile = load_profile(tmp_path / "prof")
    assert list(profile.colors) == ["Ann"] and profile.tray is not None and profile.event


def test_small_dice_get_advice_on_the_page_and_the_command_line() -> None:
    import dataclasses

    from calibration.procedures import SMALL_DIE_SIDE, die_side_advice
    from calibration.profile import default_profile
    from companion.controller.calibrate import ProfileKeeper

    assert die_side_advice(None) is None and die_side_advice(SMALL_DIE_SIDE) is None
    advice = die_side_advice(16.4)
    assert advice.startswith("The dice are only 16 pixels wide") and "[1280, 720]" in advice
    keeper = ProfileKeeper(dataclasses.replace(default_profile(), die_side=16.4), None)
    assert keeper.summary()["die_side_advice"] == advice
    keeper = ProfileKeeper(dataclasses.replace(default_profile(), die_side=40.0), None)
    assert keeper.summary()["die_side_advice"] is None


def test_a_closer_look_reading_pips_as_ones_is_not_a_better_look() -> None:
    from calibration.finding import pips_of
    from vision.detect import Candidate
    from vision.faces import FaceRead

    def read(label: int) -> FaceRead:
        return FaceRead(label, 1.0, (0.0,) * 8, True)

    die = [(Candidate((100.0, 100.0), 80.0, 0.9), read(5))]
    spots = [Candidate((100.0 + dx, 100.0 + dy), 16.0, 0.9)
             for dx, dy in ((-20, -20), (20, -20), (0, 0), (-20, 20), (20, 20))]
    assert pips_of([(c, read(1)) for c in spots], die)  # a 5's pips, each read as a 1
    # Small dice inside a "die" that was a cluster of them show all faces: dice.
    assert not pips_of([(c, read(v)) for c, v in zip(spots, (1, 3, 6, 2, 4))], die)
    assert not pips_of([(c, read(1)) for c in spots[:2]], die)  # two: too few to tell
    far = [Candidate((400.0 + 30 * i, 300.0), 16.0, 0.9) for i in range(4)]
    assert not pips_of([(c, read(1)) for c in far], die)  # elsewhere: other dice


RENDERS = Path(__file__).parent / "renders" / "event_black_on_teal"


def test_finds_a_black_event_die_alone_on_teal_felt() -> None:
    """Crops of rendered calibration frames (benchmarks/vision_event_tables.py, table
    100000): a black Event die alone on teal felt, each face twice. Colour segmentation
    alone missed the die in one of them; every box learned must lie on the die."""
    labels = json.loads((RENDERS / "boxes.json").read_text())
    frames: dict[str, list[np.ndarray]] = {}
    for name in sorted(labels):
        frames.setdefault(name.split("-")[1], []).append(cv2.imread(str(RENDERS / f"{name}.jpg")))
    found = event_boxes(frames)
    assert sorted(found) == sorted(FACES)
    for face, boxes in found.items():
        for i, (x, y, w, h) in enumerate(boxes):
            lx, ly, lw, lh = labels[f"event-{face}-{i}"]
            assert lx <= x + w / 2 <= lx + lw and ly <= y + h / 2 <= ly + lh, (face, i)
    assert len(learn_event(frames).templates) == 6


def test_a_face_square_far_smaller_than_the_blank_faces_is_grown_to_a_whole_face() -> None:
    """The Event die's face is about as big in every picture; a square far smaller than
    the blank pictures' (the detector boxed a big ring emblem instead of the face) is
    grown round its centre to their median side, and the others are left alone."""
    from calibration.event_die import PART_OF_FACE, _whole_faces

    boxes = {"blank": [(0.0, 0.0, 40.0, 40.0), (100.0, 100.0, 44.0, 44.0)],
             "dragon": [(50.0, 50.0, 30.0, 30.0), None],  # 0.71 of 42: a lens can do that
             "rally": [(10.0, 10.0, 24.0, 24.0), (200.0, 0.0, 52.0, 52.0)]}
    got = _whole_faces(boxes)
    assert got["rally"][0] == (1.0, 1.0, 42.0, 42.0)  # the ring's centre, the blank side
    assert got["blank"] == boxes["blank"] and got["dragon"] == boxes["dragon"]
    assert got["rally"][1] == boxes["rally"][1]
    assert 24 / 42 < PART_OF_FACE < 30 / 42
    no_blank = {"blank": [None], "dragon": boxes["dragon"], "rally": boxes["rally"]}
    assert _whole_faces(no_blank) == no_blank  # nothing to measure a face by


def test_event_die_faces_boxed_whole_are_left_as_found(monkeypatch) -> None:
    """Faces whose emblems are not taken for their edge come out as they did before the
    rule: the same squares with PART_OF_FACE as without it."""
    from calibration import event_die

    rng = np.random.default_rng(21)
    background = procedural_background((360, 480), rng)
    frames = {f: [random_event_frame(f, rng, background=background)[0] for _ in range(2)]
              for f in FACES}
    found = event_boxes(frames)
    monkeypatch.setattr(event_die, "PART_OF_FACE", 0.0)  # no square is grown
    assert event_boxes(frames) == found


def test_play_adds_views_of_a_face_up_to_a_few_and_they_are_saved(tmp_path: Path) -> None:
    """A face the players gave for a roll the camera was unsure of is learned as one
    more view (with_view_from_play) until that face has PLAY_VIEWS; the keeper saves
    the profile with it, and refuses, saving nothing, a square too small or a face the
    Event die does not have."""
    import dataclasses

    from calibration.event_die import PLAY_VIEWS, with_view_from_play
    from calibration.profile import default_profile
    from companion.controller.calibrate import ProfileKeeper

    rng = np.random.default_rng(16)
    background = procedural_background((360, 480), rng)
    event = learn_event({f: [random_event_frame(f, rng, background=background)[0]] for f in FACES})
    frame, box = random_event_frame("dragon", rng, background=background, others=2)
    more = with_view_from_play(event, frame, box, "dragon")
    assert more is not None and more.templates[:-1] == event.templates
    assert len(more.faces("dragon")) == 2 and more.templates[-1].face == "dragon"
    assert event_face(frame, box, profile=dataclasses.replace(default_profile(), event=more))[0] == "dragon"
    for _ in range(PLAY_VIEWS - 2):
        more = with_view_from_play(more, frame, box, "dragon")
    assert len(more.faces("dragon")) == PLAY_VIEWS
    assert with_view_from_play(more, frame, box, "dragon") is None
    with pytest.raises(ValueError):
        with_view_from_play(event, frame, box, "skull")

    keeper = ProfileKeeper(dataclasses.replace(default_profile(), event=event), tmp_path / "prof")
    assert keeper.learn_event_view(frame, box, "dragon")
    assert len(load_profile(tmp_path / "prof").event.faces("dragon")) == 2
    with pytest.raises(ValueError):
        keeper.learn_event_view(frame, (box[0], box[1], 4, 4), "rally")
    assert len(load_profile(tmp_path / "prof").event.templates) == len(event.templates) + 1
    assert not ProfileKeeper(default_profile(), None).learn_event_view(frame, box, "blank")


def test_emblems_the_camera_cannot_see_get_advice_on_the_page_and_the_command_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An Event die whose Dragon or Rally pictures show no emblem (the light washed them
    out) is still learned, but the players are told why its face will be asked every
    roll, and what to do; a die whose emblems show gets no such advice."""
    import dataclasses

    from calibration import procedures
    from calibration.event_die import EMBLEM_INK, emblem_advice, plain_emblems
    from calibration.profile import EventDie, default_profile
    from companion.controller.calibrate import ProfileKeeper
    from vision.event import face_ink

    rng = np.random.default_rng(41)
    background = procedural_background((360, 480), rng)
    seen = {f: [random_event_frame(f, rng, background=background)[0] for _ in range(2)]
            for f in ("blank", "dragon", "rally")}
    event = learn_event(seen)
    ink = face_ink(event)
    assert min(ink["dragon"] + ink["rally"]) >= EMBLEM_INK > max(ink["blank"])
    assert plain_emblems(event) == [] and emblem_advice(event) is None
    # The Rally pictures as plain as the blank ones: the blank views, named Rally.
    blank = [t for t in event.templates if t.face == "blank"]
    washed = EventDie(event.body, tuple(t for t in event.templates if t.face != "rally")
                      + tuple(dataclasses.replace(t, face="rally") for t in blank))
    assert plain_emblems(washed) == ["rally"]
    advice = emblem_advice(washed)
    assert advice.startswith("In the Event die's Rally pictures the camera sees no emblem")
    keeper = ProfileKeeper(dataclasses.replace(default_profile(), event=washed), None)
    assert keeper.summary()["event_advice"] == advice
    keeper = ProfileKeeper(dataclasses.replace(default_profile(), event=event), None)
    assert keeper.summary()["event_advice"] is None
    assert ProfileKeeper(default_profile(), None).summary()["event_advice"] is None
    # `dragon-farkle calibrate` says it with the other notes on the Event die's pictures.
    notes: list[str] = []
    build_profile(event=seen, notes=notes)
    assert not any("sees no emblem" in n for n in notes)
    monkeypatch.setattr(procedures, "emblem_advice", lambda e: "See the emblems.")
    build_profile(event=seen, notes=notes)
    assert notes[-1] == "See the emblems."
