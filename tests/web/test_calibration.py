"""Framing the tray from a phone: the profile changes, is saved, and the reader uses it."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.controller.runtime import load_keeper
from web import create_app

PIN = "2468"


@pytest.fixture
def setup(tmp_path):
    keeper = load_keeper(None, tmp_path)
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "TABLE_PIN": PIN, "CALIBRATION": keeper})
    client = app.test_client()
    client.post("/api/join", json={"pin": PIN})
    return app, client, keeper, tmp_path


def test_frame_the_tray_saves_the_profile_and_the_reader_uses_it(setup):
    app, client, keeper, folder = setup
    first = client.get("/api/calibration").json
    assert first["tray_set"] is False and first["frame"] is None  # no picture yet
    r = client.post("/api/calibration/tray", json={"points": [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9]]})
    assert r.status_code == 400 and "No camera picture yet" in r.json["error"]
    app.extensions["dragon_farkle"].table.live.show(np.zeros((480, 640, 3), np.uint8))
    corners = [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]
    r = client.post("/api/calibration/tray", json={"points": corners, "rotation": 90})
    assert r.status_code == 200, r.json
    assert r.json["tray"] == corners and r.json["rotation"] == 90
    assert r.json["frame"] == [640, 480]  # the page keeps the picture's shape while it loads
    assert keeper.profile.tray[1] == (576.0, 48.0)
    seen = []
    keeper.read_with(lambda frame, profile: seen.append(profile))("frame")
    assert seen[0].tray == keeper.profile.tray
    again = load_keeper(None, folder)  # a restart finds the saved profile
    assert again.profile.tray == keeper.profile.tray and again.profile.rotation == 90
    assert client.post("/api/calibration/tray", json={"points": []}).json["tray_set"] is False


@pytest.mark.parametrize("body, words", [
    ({"points": [[0.1, 0.1], [0.9, 0.1]]}, "3 to 12"),
    ({"points": [[0.1, 0.1], [0.9, 0.1], [1.5, 0.9]]}, "between 0 and 1"),
    ({"points": [[0.1, 0.1], [0.12, 0.1], [0.1, 0.12]]}, "tiny"),
    ({"points": [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9]], "rotation": 45}, "rotation"),
    ([1, 2], "Send"),
])
def test_bad_tray_requests_change_nothing(setup, body, words):
    app, client, keeper, _ = setup
    app.extensions["dragon_farkle"].table.live.show(np.zeros((480, 640, 3), np.uint8))
    before = keeper.profile
    r = client.post("/api/calibration/tray", json=body)
    assert r.status_code == 400 and words in r.json["error"]
    assert keeper.profile == before


def test_watchers_cannot_calibrate_and_no_camera_means_no_calibration(setup, tmp_path):
    app, _, _, _ = setup
    assert app.test_client().post("/api/calibration/tray", json={"points": []}).status_code == 403
    plain = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "x"), "TABLE_PIN": PIN})
    r = plain.test_client().get("/api/calibration")
    assert r.status_code == 404 and "camera" in r.json["error"]


def show(app, frame):
    app.extensions["dragon_farkle"].table.live.show(frame)


def test_find_the_tray_learn_a_colour_and_the_event_die(setup):
    from vision.synthetic import SynthDie, procedural_background, random_event_frame, render_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(7)
    frame = np.full((480, 640, 3), 30, np.uint8)
    frame[60:420, 80:560] = (60, 120, 60)  # a green tray floor in a dark room
    show(app, frame)
    r = client.post("/api/calibration/find_tray", json={})
    assert r.status_code == 200, r.json
    xs = [x for x, _ in keeper.profile.tray]
    assert min(xs) == pytest.approx(80, abs=12) and max(xs) == pytest.approx(560, abs=12)
    # ... and the colours the empty tray shows, its green floor among them (Lab)
    green = cv2.cvtColor(np.uint8([[[60, 120, 60]]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    assert min(np.linalg.norm(np.subtract(c, green)) for c in keeper.profile.tray_colors) < 5

    background = procedural_background((480, 640), rng)
    dice = [SynthDie(f, (90.0 + 90 * i, 240.0), 48, 10.0 * i, (40, 40, 200), (240, 240, 240))
            for i, f in enumerate([1, 2, 3, 4, 5, 6])]
    show(app, render_frame(dice, background=background, rng=rng)[0])
    r = client.post("/api/calibration/color", json={"name": "Red"})
    assert r.status_code == 200, r.json
    assert r.json["colors"] == ["red"] and "red" in keeper.profile.colors
    assert 44 <= r.json["die_side"] <= 75  # 48 px top face and sides: frames are scaled by it

    for i, face in enumerate(["blank", "dragon", "rally"]):
        show(app, random_event_frame(face, rng, background=background)[0])
        r = client.post("/api/calibration/event", json={"face": face})
        assert r.status_code == 200, r.json
        assert r.json["event_die"] is (i == 2)
    assert keeper.profile.event is not None


def test_an_event_die_picture_that_cannot_be_used_is_not_kept(setup):
    """A picture without the Event die (the tray empty, or the die not yet put down) is
    refused and forgotten: the next pictures still work. Before, it was kept, and every
    later picture failed on it until the table restarted."""
    from vision.synthetic import procedural_background, random_event_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(8)
    background = procedural_background((480, 640), rng)
    show(app, background)  # an empty tray
    r = client.post("/api/calibration/event", json={"face": "blank"})
    assert r.status_code == 400 and "Event die" in r.json["error"]
    assert keeper.event_frames == {} and keeper.profile.event is None
    for face in ["blank", "dragon", "rally"]:
        show(app, random_event_frame(face, rng, background=background)[0])
        r = client.post("/api/calibration/event", json={"face": face})
        assert r.status_code == 200, r.json
    assert r.json["event_frames"] == {"blank": 1, "dragon": 1, "rally": 1}
    learned = keeper.profile.event
    assert learned is not None
    show(app, background)
    assert client.post("/api/calibration/event", json={"face": "dragon"}).status_code == 400
    assert keeper.profile.event is learned and len(keeper.event_frames["dragon"]) == 1


def test_a_picture_the_event_die_cannot_be_learned_with_is_not_kept(setup):
    """A die is found in the last face's picture, but it is not the Event die (another
    colour): learning fails, the picture is refused with a way out, and the next right
    picture learns the die."""
    from vision.synthetic import SynthDie, procedural_background, random_event_frame, render_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(10)
    background = procedural_background((480, 640), rng)
    for face in ["blank", "dragon"]:
        show(app, random_event_frame(face, rng, background=background)[0])
        assert client.post("/api/calibration/event", json={"face": face}).status_code == 200
    green = SynthDie(4, (320.0, 240.0), 48.0, 20.0, (40, 160, 40), (240, 240, 240))
    show(app, render_frame([green], background=background, rng=rng)[0])
    r = client.post("/api/calibration/event", json={"face": "rally"})
    assert r.status_code == 400 and "start the Event die's pictures again" in r.json["error"]
    assert "rally" not in keeper.event_frames and keeper.profile.event is None
    show(app, random_event_frame("rally", rng, background=background)[0])
    r = client.post("/api/calibration/event", json={"face": "rally"})
    assert r.status_code == 200 and r.json["event_die"] is True


def test_the_event_die_pictures_can_be_started_again(setup):
    """A face tapped wrong is undone by starting the pictures again; the die learned so far
    stays in use until every face has a new picture."""
    from vision.synthetic import procedural_background, random_event_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(9)
    background = procedural_background((480, 640), rng)
    for face in ["blank", "dragon", "rally"]:
        show(app, random_event_frame(face, rng, background=background)[0])
        assert client.post("/api/calibration/event", json={"face": face}).status_code == 200
    learned = keeper.profile.event
    r = client.post("/api/calibration/event/restart", json={})
    assert r.status_code == 200 and r.json["event_frames"] == {"blank": 0, "dragon": 0, "rally": 0}
    assert keeper.event_frames == {} and keeper.profile.event is learned
    assert client.get("/api/calibration").json["event_frames"] == {}
    for i, face in enumerate(["blank", "dragon", "rally"]):
        show(app, random_event_frame(face, rng, background=background)[0])
        r = client.post("/api/calibration/event", json={"face": face})
        assert r.status_code == 200 and (keeper.profile.event is learned) is (i < 2)


@pytest.mark.parametrize("path, body, words", [
    ("/api/calibration/color", {"name": "red"}, "no dice found"),
    ("/api/calibration/color", {"name": ""}, "Name the dice colour"),
    ("/api/calibration/event", {"face": "purple"}, "blank, dragon or rally"),
])
def test_calibration_steps_explain_what_to_fix(setup, path, body, words):
    app, client, keeper, _ = setup
    show(app, np.full((480, 640, 3), 90, np.uint8))  # an empty, even picture
    before = keeper.profile
    r = client.post(path, json=body)
    assert r.status_code == 400 and words in r.json["error"]
    assert keeper.profile == before


def test_lock_exposure_needs_a_camera_that_can_lock(setup):
    _, client, keeper, _ = setup
    r = client.post("/api/calibration/lock", json={})
    assert r.status_code == 400 and "Only the Pi camera" in r.json["error"]

    class LockingCamera:  # what hardware.camera's Picamera2 backend answers to lock()
        def lock(self):
            return {"ExposureTime": 9000, "AnalogueGain": 1.25, "ColourGains": [1.9, 1.5],
                    "LensPosition": 2.25}

    keeper.camera = LockingCamera
    r = client.post("/api/calibration/lock", json={})
    assert r.status_code == 200 and r.json["camera_locked"] is True
    cam = keeper.profile.camera
    assert (cam.exposure_us, cam.analogue_gain, cam.awb_gains) == (9000, 1.25, (1.9, 1.5))
    assert cam.lens_position == 2.25  # the focus the scan found: a restart skips the scan


def test_lock_again_measures_the_light_again_first(setup):
    # A locked camera keeps its values: "Lock again" after the light changed must let auto
    # exposure (and autofocus) measure again before locking, not read back the old lock.
    _, client, keeper, _ = setup
    calls: list = []

    class PiCameraLike:
        settle_seconds = 1.0
        locked = False
        exposure = 9000

        def lock(self):
            calls.append("lock")
            self.locked = True
            return {"ExposureTime": self.exposure, "AnalogueGain": 1.0}

        def unlock(self):
            calls.append("unlock")
            self.locked = False
            self.exposure = 4000  # the room got brighter: auto exposure finds less

    camera = PiCameraLike()
    keeper.camera = lambda: camera
    keeper.sleep = lambda seconds: calls.append(("sleep", seconds))
    assert client.post("/api/calibration/lock", json={}).status_code == 200
    assert calls == ["lock"] and keeper.profile.camera.exposure_us == 9000
    calls.clear()
    assert client.post("/api/calibration/lock", json={}).status_code == 200
    assert calls == ["unlock", ("sleep", 1.3), "lock"]
    assert keeper.profile.camera.exposure_us == 4000


def test_mapping_leds_needs_a_strip(setup):
    _, client, _, _ = setup
    r = client.post("/api/calibration/leds", json={})
    assert r.status_code == 400 and "No LED strip" in r.json["error"]


def _inside(point, box):
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def test_the_page_shows_where_the_event_die_was_found_and_the_last_picture_can_be_forgotten(setup):
    """After each Event-die picture the page is told where the die was found (to draw it
    on the picture) and whether the reader takes that for a die; a picture whose box is
    not on the die is forgotten alone, and the die learned before it is in use again."""
    from vision.synthetic import procedural_background, random_event_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(9)
    background = procedural_background((480, 640), rng)
    learned = []
    for face in ["blank", "dragon", "rally", "blank"]:
        frame, (x, y, w, h) = random_event_frame(face, rng, background=background)
        show(app, frame)
        r = client.post("/api/calibration/event", json={"face": face})
        assert r.status_code == 200, r.json
        last = client.get("/api/calibration").json["event_last"]
        assert last["face"] == face and last["sure"] is True
        bx, by, bw, bh = last["box"]  # 0..1 of the picture: the die's top face
        assert _inside(((bx + bw / 2) * 640, (by + bh / 2) * 480), (x, y, w, h))
        assert 0.5 * w / 640 < bw < 1.2 * w / 640
        learned.append(keeper.profile.event)
    assert learned[0] is None and learned[1] is None and learned[2] is not None
    assert learned[3] is not learned[2]  # the second blank picture learned the die again

    r = client.post("/api/calibration/event/forget", json={})
    assert r.status_code == 200 and r.json["event_frames"] == {"blank": 1, "dragon": 1, "rally": 1}
    assert keeper.profile.event is learned[2] and r.json["event_last"] is None
    r = client.post("/api/calibration/event/forget", json={})
    assert r.json["event_frames"] == {"blank": 1, "dragon": 1, "rally": 0}
    assert keeper.profile.event is None and r.json["event_die"] is False
    assert load_keeper(None, setup[3]).profile.event is None  # saved as it is now
    client.post("/api/calibration/event/forget", json={})
    client.post("/api/calibration/event/forget", json={})
    r = client.post("/api/calibration/event/forget", json={})
    assert r.status_code == 400 and "No Event-die picture to forget" in r.json["error"]
    assert keeper.event_frames == {} and client.get("/api/calibration").json["event_last"] is None


def test_a_thing_found_that_the_reader_does_not_take_for_a_die_is_shown_as_unsure(setup):
    """The die half out of the picture, a dark corner of the tray can be found instead
    (a rendered table's calibration learned one): the page is told the camera is not sure."""
    app, client, _, _ = setup
    frame = np.full((480, 640, 3), (60, 110, 40), np.uint8)  # green felt
    wedge = np.array([[500, 330], [560, 330], [530, 385]])  # a dark wedge of a die's size
    cv2.fillPoly(frame, [wedge], (25, 25, 25))
    show(app, frame)
    r = client.post("/api/calibration/event", json={"face": "blank"})
    assert r.status_code == 200, r.json
    last = r.json["event_last"]
    assert last["face"] == "blank" and last["sure"] is False
    assert _inside(((last["box"][0] + last["box"][2] / 2) * 640,
                    (last["box"][1] + last["box"][3] / 2) * 480), (500, 330, 60, 55))


def test_an_event_die_picture_with_the_die_near_the_edge_is_refused(setup):
    """Near the edge of the camera's view the die is seen from the side, and its top face
    is learned off centre: the page asks for it nearer the middle, and keeps nothing."""
    from vision.synthetic import SynthDie, procedural_background, render_frame

    app, client, keeper, _ = setup
    rng = np.random.default_rng(9)
    background = procedural_background((480, 640), rng)
    near, _ = render_frame([SynthDie("blank", (600.0, 240.0), 44.0, 20.0)],
                           background=background, rng=rng)
    show(app, near)
    r = client.post("/api/calibration/event", json={"face": "blank"})
    assert r.status_code == 400 and "nearer the middle" in r.json["error"]
    assert keeper.event_frames == {} and keeper.profile.event is None
    middle, _ = render_frame([SynthDie("blank", (330.0, 250.0), 44.0, 20.0)],
                             background=background, rng=rng)
    show(app, middle)
    assert client.post("/api/calibration/event", json={"face": "blank"}).status_code == 200
    assert len(keeper.event_frames["blank"]) == 1
