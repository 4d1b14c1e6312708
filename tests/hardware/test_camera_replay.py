"""ReplayCamera: photos held still, "moving" transitions, next_photo, errors; open_camera specs."""
from __future__ import annotations

import numpy as np
import pytest

from hardware.camera import CameraError, CameraSpecError, ReplayCamera, open_camera, parse_spec
from hardware.camera.replay import images_in

pytestmark = pytest.mark.hardware


def test_holds_each_photo_then_moves_to_the_next(photos, clock):
    cam = ReplayCamera(photos, hold=2.0, transition=0.5, clock=clock)
    first_moving = cam.read()
    clock.advance(0.25)
    second_moving = cam.read()
    assert not np.array_equal(first_moving, second_moving)  # dice still rolling
    clock.advance(0.5)
    still = [cam.read() for _ in range(3)]
    assert cam.index == 0
    assert all(np.array_equal(still[0], f) for f in still)  # several identical frames: settled
    assert still[0][20, 40, 0] == 60
    clock.advance(2.0)  # hold over: now in the transition to photo 1
    assert cam.index == 1 and cam.is_moving()
    clock.advance(0.5)
    assert cam.read()[20, 40, 0] == 120
    assert not cam.is_moving()


def test_loops_back_to_the_first_photo(photos, clock):
    cam = ReplayCamera(photos, hold=1.0, transition=0.0, clock=clock)
    seen = []
    for _ in range(4):
        seen.append(int(cam.read()[20, 40, 0]))
        clock.advance(1.0)
    assert seen == [60, 120, 180, 60]


def test_without_loop_it_stays_on_the_last_photo(photos, clock):
    cam = ReplayCamera(photos, hold=1.0, transition=0.0, loop=False, clock=clock)
    clock.advance(50)
    assert cam.index == 2
    assert cam.read()[20, 40, 0] == 180


def test_manual_mode_waits_for_next_photo(photos, clock):
    cam = ReplayCamera(photos, hold=None, transition=0.4, clock=clock)
    clock.advance(100)
    assert cam.index == 0 and cam.read()[20, 40, 0] == 60
    cam.next_photo()
    assert cam.is_moving()
    moving = cam.read()
    assert moving[20, 40, 0] != 120
    clock.advance(0.4)
    assert cam.read()[20, 40, 0] == 120


def test_folder_spec_and_resize(tmp_path, photos, clock):
    cam = open_camera(f"replay:{tmp_path / 'tray'}", size=(32, 24), transition=0, clock=clock)
    assert cam.paths == photos  # the images/ subfolder, sorted by name
    assert cam.read().shape == (24, 32, 3)


def test_file_list_spec_keeps_the_given_order(photos, clock):
    spec = "replay:" + ",".join(str(p) for p in reversed(photos))
    cam = open_camera(spec, transition=0, clock=clock)
    assert cam.read()[20, 40, 0] == 180


def test_images_in_ignores_other_files(tmp_path, make_photo):
    make_photo(tmp_path / "b.jpg", 10)
    make_photo(tmp_path / "a.png", 10)
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in images_in(tmp_path)] == ["a.png", "b.jpg"]


def test_missing_and_empty_sources_are_clear_errors(tmp_path):
    with pytest.raises(CameraSpecError, match="no such photo or folder"):
        ReplayCamera([tmp_path / "nope"])
    with pytest.raises(CameraSpecError, match="no photos"):
        ReplayCamera([tmp_path])
    with pytest.raises(ValueError):  # bad input is a ValueError too
        ReplayCamera([tmp_path], hold=-1)


def test_unreadable_photo_raises_camera_error(tmp_path, clock):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    cam = ReplayCamera([bad], clock=clock)
    with pytest.raises(CameraError, match="could not read"):
        cam.read()


def test_close_is_idempotent_and_read_after_close_fails(photos, clock):
    cam = ReplayCamera(photos, clock=clock)
    cam.close()
    cam.close()
    assert cam.closed
    with pytest.raises(CameraError, match="closed"):
        cam.read()


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("picamera", ("picamera", None)),
        ("usb:2", ("usb", 2)),
        ("usb", ("usb", 0)),
        ("replay", ("replay", None)),
        ("replay:/a, /b", ("replay", ["/a", "/b"])),
    ],
)
def test_parse_spec(spec, parsed):
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["webcam", "usb:x", "usb:-1", "picamera:3", ""])
def test_bad_specs_are_refused(spec):
    with pytest.raises(CameraSpecError):
        open_camera(spec)


def test_bare_replay_plays_the_bundled_vision_samples(tmp_path, make_photo, monkeypatch, clock):
    from hardware.camera import replay

    root = tmp_path / "vision_pkg"
    make_photo(root / "samples" / "b-set" / "images" / "1.png", 30)
    make_photo(root / "samples" / "a-set" / "images" / "2.png", 90)
    (root / "samples" / "README.md").parent.mkdir(parents=True, exist_ok=True)
    (root / "samples" / "README.md").write_text("not a set")
    monkeypatch.setattr(replay.resources, "files", lambda package: root)
    cam = open_camera("replay", transition=0, clock=clock)
    assert [p.parent.parent.name for p in cam.paths] == ["a-set", "b-set"]
    assert cam.read()[20, 40, 0] == 90


def test_frames_keep_one_size_like_a_real_camera(tmp_path, make_photo, clock):
    first = make_photo(tmp_path / "a.png", 50, size=(64, 48))
    square = make_photo(tmp_path / "b.png", 200, size=(40, 40))
    cam = ReplayCamera([first, square], hold=1.0, transition=0.5, clock=clock)
    shapes = set()
    for _ in range(12):
        shapes.add(cam.read().shape)
        clock.advance(0.25)
    assert shapes == {(48, 64, 3)}
    clock.now = 100.0 + 1.5 + 0.5  # photo 2, settled
    frame = cam.read()
    assert frame[24, 32, 0] == 200 and frame[24, 2, 0] == 0  # scaled to 48x48 in the middle, padded


def test_show_moves_to_the_photo_asked_for_once_the_player_has_thrown(photos, clock):
    cam = ReplayCamera(photos, hold=None, transition=0.4, clock=clock)
    clock.advance(1.0)
    assert cam.read()[20, 40, 0] == 60
    cam.show(2, after=1.5)
    clock.advance(1.0)  # still throwing: the tray is as it was
    assert cam.read()[20, 40, 0] == 60 and not cam.is_moving() and cam.index == 0
    clock.advance(0.5)
    assert cam.index == 2 and cam.is_moving()
    clock.advance(0.4)
    assert cam.read()[20, 40, 0] == 180 and not cam.is_moving()
    clock.advance(10.0)  # held until asked again
    assert cam.index == 2
    cam.show(2)  # the same photo again is a new throw: it moves again
    assert cam.is_moving() and cam.read()[20, 40, 0] != 180
    with pytest.raises(CameraSpecError, match="no photo 3"):
        cam.show(3)
