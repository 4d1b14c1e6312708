"""The camera loop with a fake camera, settler and reader: reads become steps or questions."""
from __future__ import annotations

import pytest

from companion.controller import CameraLoop, GameStore, Table
from vision.types import DiceWarning


@pytest.fixture
def loop_for(fakes):
    def make(table: Table, states: list[str], reader, camera=None, **kw) -> CameraLoop:
        return CameraLoop(table, camera or fakes.Camera(), reader=reader,
                          settler=fakes.Settler(states), clock=lambda: 0.0, **kw)
    return make


def test_settled_frame_applies_the_roll_with_its_picture(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank", color="red"))
    loop = loop_for(table, ["moving", "hand", "settled", "still"], reader)
    assert [loop.step() for _ in range(4)] == ["moving", "hand", "settled", "still"]
    assert reader.calls == 1
    state = table.state()
    assert state["phase"] == "set_aside"
    assert sorted(map(tuple, state["options"])) == [(1,), (1, 5), (5,)]
    last = state["history"][-1]
    assert last["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    assert last["source"] == "camera" and last["evidence"]
    picture = table.evidence(last["seq"])
    assert picture is not None and picture[:2] == b"\xff\xd8"  # a JPEG
    assert table.live.jpeg() is not None


def test_unsure_read_asks_the_phones_and_changes_nothing(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})
    before = table.position()
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank", conf=0.3))
    loop_for(table, ["settled"], reader).step()
    assert table.position() == before
    pending = table.state()["pending"]
    assert pending["kind"] == "roll" and "low confidence" in pending["reason"]
    assert pending["proposal"]["roll"] == [1, 2, 2, 4, 4, 5]
    assert table.pending_evidence() is not None
    # the players confirm by entering the roll: the picture goes with it
    state = table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert state["pending"] is None and state["history"][-1]["evidence"]


def test_the_table_plays_and_asks_at_the_readers_play_threshold(table, fakes, loop_for):
    from vision.types import PLAY_CONFIDENCE

    table.apply_step({"action": "recruit"})
    before = table.position()
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank", conf=PLAY_CONFIDENCE - 0.01))
    loop_for(table, ["settled"], reader).step()
    assert table.position() == before and "low confidence" in table.state()["pending"]["reason"]
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    table.apply_step({"set_aside": [1]})
    table.apply_step({"action": "roll"})
    reader.next.append(fakes.reading([2, 3, 3, 4, 6], "dragon", conf=PLAY_CONFIDENCE))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["history"][-1]["step"] == {"roll": [2, 3, 3, 4, 6], "event": "dragon"}


def test_wrong_count_missing_event_wrong_colour_and_warnings_all_ask(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})
    cases = [
        (fakes.reading([1, 2, 3, 4, 5], "blank"), "expected 6"),
        (fakes.reading([1, 2, 2, 4, 4, 5], None), "No Event die seen."),
        (fakes.reading([1, 2, 2, 4, 4, 5], "blank", color="blue"), "not Jane's colour"),
        (fakes.reading([1, 2, 2, 4, 4, 5], "blank", warnings=(DiceWarning("hand", "A hand is in the tray."),)),
         "hand is in the tray"),
    ]
    for read, words in cases:
        reader = fakes.Reader()
        reader.next.append(read)
        loop_for(table, ["settled"], reader).step()
        assert words in table.state()["pending"]["reason"]
        assert table.state()["phase"] == "roll"


def test_removed_dice_are_inferred_as_the_set_aside(table, fakes, loop_for):
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}])
    reader = fakes.Reader()
    reader.next.append(fakes.reading([2, 2, 4, 4], "blank"))  # the 1 and the 5 were taken out
    loop_for(table, ["settled"], reader).step()
    state = table.state()
    assert state["history"][-1]["step"] == {"set_aside": [1, 5]}
    assert state["phase"] == "decide" and state["turn_total"] == 150
    # the same leftover dice seen again are not a new roll
    reader.next.append(fakes.reading([2, 4, 2, 4], "blank"))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["phase"] == "decide" and len(table.state()["history"]) == 3


def test_removing_non_scoring_dice_asks(table, fakes, loop_for):
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}])
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 4, 4, 5], "blank"))  # a 2 was taken out: not legal
    loop_for(table, ["settled"], reader).step()
    state = table.state()
    assert state["phase"] == "set_aside"
    assert "not a legal set-aside" in state["pending"]["reason"]


def test_rally_set_aside_asks_double_or_item(table, fakes, loop_for):
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 3, 4, 6, 6], "event": "rally"}])
    reader = fakes.Reader()
    reader.next.append(fakes.reading([3, 4, 6, 6], "rally"))
    loop_for(table, ["settled"], reader).step()
    pending = table.state()["pending"]
    assert pending["kind"] == "rally" and pending["proposal"]["set_aside"] == [1, 1]


def test_a_new_roll_in_decide_is_roll_again_then_the_roll(table, fakes, loop_for):
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                       {"set_aside": [1, 5]}])
    reader = fakes.Reader()
    reader.next.append(fakes.reading([5, 5, 3, 6], "blank"))
    loop_for(table, ["settled"], reader).step()
    steps = [h["step"] for h in table.state()["history"][-2:]]
    assert steps == [{"action": "roll"}, {"roll": [3, 5, 5, 6], "event": "blank"}]


def test_camera_failure_switches_to_manual_and_keeps_retrying(table, fakes, loop_for):
    camera = fakes.Camera()
    reopened = []

    def reopen():
        reopened.append(1)
        if len(reopened) < 3:
            raise OSError("no such device")
        return fakes.Camera()

    loop = loop_for(table, [], fakes.Reader(), camera=camera, reopen=reopen)
    loop.step()
    assert table.state()["camera"]["mode"] in ("manual", "camera")
    camera.fail = True
    assert loop.step() == "failed"
    cam = table.state()["camera"]
    assert cam["mode"] == "manual" and "Type each roll" in cam["message"]
    assert camera.closed
    assert loop.step() == "failed"  # reopening fails: still manual
    assert loop.step() == "failed"
    assert loop.step() == "still"   # the third reopen worked
    assert table.state()["camera"]["mode"] == "camera"
    assert len(reopened) == 3
    # typing a roll works all along
    table.apply_step({"action": "recruit"})


def test_reads_before_an_action_are_ignored(table, fakes, loop_for):
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 3, 4, 5, 6], "blank"))
    verdict_before = table.position()
    loop_for(table, ["settled"], reader).step()
    assert table.position() == verdict_before and table.state()["pending"] is None


def test_thread_runs_and_stops(tmp_path, fakes):
    t = Table(GameStore(tmp_path / "g.sqlite3"))
    loop = CameraLoop(t, fakes.Camera(), reader=fakes.Reader(), settler=fakes.Settler(), interval=0.01)
    loop.start()
    loop.stop()
    assert loop.camera.closed and t.state()["camera"]["mode"] == "camera"


def test_a_missing_camera_is_retried_less_and_less_often(tmp_path, fakes):
    t = Table(GameStore(tmp_path / "g.sqlite3"))
    opens = []

    def reopen():
        opens.append(1)
        if len(opens) >= 6:
            return fakes.Camera()
        raise RuntimeError("no camera found")

    waits = []

    class Stop:  # the loop's stop event: records each wait, stops after eight
        def is_set(self) -> bool:
            return len(waits) >= 8

        def wait(self, seconds: float) -> None:
            waits.append(seconds)

    loop = CameraLoop(t, None, reader=fakes.Reader(), settler=fakes.Settler(), reopen=reopen,
                      clock=lambda: 0.0, interval=0.1, retry_after=2.0, max_retry=10.0)
    loop._stop = Stop()
    loop.run()
    # five failed opens wait 2, 4, 8, 10, 10 s (each one leaked a pipe with Picamera2 before);
    # the camera that opens resets it: frames come every interval again
    assert waits == [2.0, 4.0, 8.0, 10.0, 10.0, 0.1, 0.1, 0.1]
    assert len(opens) == 6


def test_a_failing_reader_is_reported_and_the_table_goes_on(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})

    class Broken:
        calls = 0

        def __call__(self, frame):
            self.calls += 1
            if self.calls == 1:
                raise FileNotFoundError("dice model missing")
            return fakes.reading([1, 2, 2, 4, 4, 5], "blank")

    loop = loop_for(table, ["settled", "moving", "settled"], Broken())
    assert loop.step() == "error"
    assert table.state()["camera"]["mode"] == "manual"
    assert "dice model missing" in table.state()["camera"]["message"]
    assert loop.step() == "moving"
    assert loop.step() == "settled"
    assert table.state()["camera"]["mode"] == "camera" and table.state()["phase"] == "set_aside"


def test_replay_camera_and_real_settler_hand_over_one_read_per_photo(table, fakes):
    from hardware.camera import ReplayCamera
    from vision.settle import Settler

    now = [0.0]
    camera = ReplayCamera(hold=2.0, transition=0.5, clock=lambda: now[0])
    reader = fakes.Reader()
    reader.next += [fakes.reading([1, 2, 2, 4, 4, 5], "blank") for _ in range(3)]
    loop = CameraLoop(table, camera, reader=reader, settler=Settler(), clock=lambda: now[0])
    states = []
    for _ in range(50):  # 5 s of frames at 10 per second: two photos and a bit
        states.append(loop.step())
        now[0] += 0.1
    assert states.count("settled") == reader.calls
    assert 2 <= reader.calls <= 3
    assert "moving" in states and "still" in states
    assert table.live.jpeg() is not None


def test_a_roll_the_players_corrected_is_kept_as_a_labelled_photo(table, fakes, loop_for,
                                                                  tmp_path):
    import json

    from vision.photolog import PhotoLog

    assert table.state()["photos"] is None  # no photo log: nothing said about photos
    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4, 5], "blank")
    unsure = fakes.soldier(3, 60.0 + 80 * 5, conf=0.3)  # the 5 read as an unsure 3
    reader.next.append(type(read)(dice=(*read.dice[:5], unsure, read.dice[6]), warnings=()))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["pending"]["kind"] == "roll"
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})  # the players' answer
    manifest = json.loads((tmp_path / "dice-photos/manifest.json").read_text())
    [entry] = manifest["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]
    assert entry["dice"][5]["bbox"] == list(map(float, unsure.box))
    assert (tmp_path / "dice-photos" / entry["file"]).is_file()
    assert table.state()["photos"] == {"kept": 1, "limit": 500, "learning": None,
                                       "folder": str(tmp_path / "dice-photos")}
    # a question dismissed, or answered by hand with no camera question, keeps nothing
    table.apply_steps([{"set_aside": [1]}, {"action": "roll"}])
    reader.next.append(fakes.reading([2, 2, 4, 4, 3], "blank", conf=0.3))
    loop_for(table, ["settled"], reader).step()
    table.dismiss()
    table.apply_step({"roll": [2, 2, 4, 4, 3], "event": "blank"})
    assert len(PhotoLog(tmp_path / "dice-photos")) == 1


def test_the_table_keeps_photos_only_from_a_real_camera(tmp_path):
    import dataclasses

    from companion.config import CameraConfig
    from companion.controller.runtime import photo_log

    assert photo_log(CameraConfig(spec="replay"), tmp_path) is None
    assert photo_log(CameraConfig(spec="none"), tmp_path) is None
    usb = CameraConfig(spec="usb:0")
    assert photo_log(dataclasses.replace(usb, keep_photos=0), tmp_path) is None
    log = photo_log(usb, tmp_path)
    assert log.folder == tmp_path / "dice-photos" and log.limit == 500


def test_a_sure_read_the_players_took_back_and_fixed_is_kept(table, fakes, loop_for, tmp_path):
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 6], "blank"))  # surely, but the 6 was a 5
    loop_for(table, ["settled"], reader).step()
    assert table.state()["history"][-1]["source"] == "camera"
    assert len(table.photos) == 0  # played as read: nothing checked yet
    table.undo()  # "Wrong read? Fix it"
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]
    # Taken back, then something other than the roll: no photo.
    table.apply_steps([{"set_aside": [1]}, {"action": "roll"}])
    reader.next.append(fakes.reading([2, 2, 4, 4, 6], "blank"))
    loop_for(table, ["settled"], reader).step()
    table.undo()
    table.undo()  # the "roll again" too: the players changed their mind
    table.apply_step({"action": "stop"})
    assert len(table.photos) == 1


def _jpeg_width(data: bytes) -> int:
    import cv2
    import numpy as np

    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape[1]


def test_dice_the_players_mark_on_the_photo_let_a_missed_die_be_kept(table, fakes, loop_for,
                                                                     tmp_path):
    from companion.controller.table import TableError
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4], "blank")  # the 5 at x = 460 was missed
    false = fakes.soldier(6, 560.0, conf=0.3)  # and a speck taken, unsurely, for a 6
    reader.next.append(type(read)(dice=(*read.dice, false), warnings=()))
    loop_for(table, ["settled"], reader).step()
    pending = table.state()["pending"]
    assert pending["markable"] and pending["marks"] == [] and pending["photo_roll"] is None
    assert _jpeg_width(table.pending_evidence()) == 640  # full size, to mark small dice on
    before = table.position()
    said = table.mark_pending({"x": 460 / 640, "y": 105 / 480, "face": 5})["said"]
    assert said == "Marked: a die the camera missed, showing 5."
    # the grey test frame has no die for the detector: the mark is a die-sized box at the tap
    assert table._marks.missed[0].box == (450, 95, 20, 20)
    state = table.mark_pending({"x": 565 / 640, "y": 95 / 480, "face": "none"})  # the speck
    assert state["said"] == "Crossed out: no die there."
    assert state["pending"]["marks"] == [
        {"kind": "missed", "face": 5, "x": 0.7188, "y": 0.2188},
        {"kind": "not_die", "face": "none", "x": 0.875, "y": 0.2083}]
    assert state["pending"]["photo_roll"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    said = table.mark_pending({"x": 60 / 640, "y": 100 / 480, "face": 3})["said"]
    assert said == "That die shows 3."
    assert table.state()["pending"]["photo_roll"]["roll"] == [2, 2, 3, 4, 4, 5]
    said = table.mark_pending({"x": 60 / 640, "y": 100 / 480, "face": "clear"})["said"]
    assert said == "The die is as the camera read it again."
    assert table.position() == before  # marks never touch the game
    for bad, message in [({"x": 1.5, "y": 0.2, "face": 2}, "between 0 and 1"),
                         ({"x": 0.5, "y": 0.5}, "mark as"), ([0.5, 0.5], "mark as"),
                         ({"x": True, "y": 0.2, "face": 2}, "between 0 and 1"),
                         ({"x": 0.5, "y": 0.5, "face": 7}, "marked 1-6"),
                         ({"x": 0.1, "y": 0.9, "face": "none"}, "no box or mark there")]:
        with pytest.raises(ValueError, match=message):  # TableError or MarkError: a 400
            table.mark_pending(bad)
    assert len(table.state()["pending"]["marks"]) == 2  # refused marks change nothing
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})  # the players' answer
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]
    assert entry["dice"][5]["bbox"] == [450.0, 95.0, 20.0, 20.0]
    assert table.state()["pending"] is None
    assert _jpeg_width(table.evidence(table.state()["history"][-1]["seq"])) == 360  # as before
    with pytest.raises(TableError, match="no photo of the camera's to mark"):
        table.mark_pending({"x": 0.5, "y": 0.5, "face": 2})


def test_marks_taken_back_or_contradicting_the_roll_keep_no_photo(table, fakes, loop_for,
                                                                  tmp_path):
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4], "blank"))
    loop_for(table, ["settled"], reader).step()
    table.mark_pending({"x": 0.7, "y": 0.2, "face": 6})
    assert table.mark_pending({"x": 0.7, "y": 0.2, "face": "clear"})["said"] == "The mark is taken back."
    assert table.state()["pending"]["marks"] == []
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert len(table.photos) == 0  # a die missed and not marked: which box is the 5's?
    table.apply_steps([{"set_aside": [1]}, {"action": "roll"}])
    reader.next.append(fakes.reading([2, 2, 4, 4], "blank"))
    loop_for(table, ["settled"], reader).step()
    table.mark_pending({"x": 0.7, "y": 0.2, "face": 6})  # the players say 6 on the photo ...
    table.apply_step({"roll": [2, 2, 4, 4, 3], "event": "blank"})  # ... and 3 in the roll
    assert len(table.photos) == 0


def test_a_missed_event_die_marked_with_its_face_is_kept(table, fakes, loop_for, tmp_path):
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], None))
    loop_for(table, ["settled"], reader).step()
    table.mark_pending({"x": 0.5, "y": 0.8, "face": "dragon"})
    assert table.state()["pending"]["photo_roll"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "dragon"}
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "dragon"})
    [entry] = table.photos.manifest()["images"]
    assert entry["dice"][-1]["kind"] == "event" and entry["dice"][-1]["value"] == "dragon"


def test_marks_without_a_photo_log_make_up_the_roll_and_keep_nothing(table, fakes, loop_for):
    # A table that keeps no photos (camera.keep_photos = 0) still lets the players settle
    # the camera's unsure dice on the photo; the roll they make up is what they play.
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4], "blank")
    unsure = fakes.soldier(3, 560.0, conf=0.4, choices=(3, 5, 2))
    reader.next.append(type(read)(dice=(*read.dice, unsure), warnings=()))
    loop_for(table, ["settled"], reader).step()
    pending = table.state()["pending"]
    assert pending["markable"] and pending["photo_size"] == [640, 480]
    assert [(d["read"], d["sure"]) for d in pending["dice"]] == [
        (1, True), (2, True), (2, True), (4, True), (4, True), ("blank", True), (3, False)]
    assert pending["dice"][-1]["box"] == [0.8594, 0.1875, 0.0312, 0.0417]
    [asked] = pending["unsure"]
    assert asked["read"] == 3 and asked["choices"] == [3, 5, 2] and asked["marked"] is None
    assert asked["x"] == 0.875 and asked["box"] == [0.8594, 0.1875, 0.0312, 0.0417]
    state = table.mark_pending({"x": asked["x"], "y": asked["y"], "face": 5})
    assert state["pending"]["unsure"][0]["marked"] == 5  # still listed, now settled
    assert state["pending"]["photo_roll"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    table.apply_step(state["pending"]["photo_roll"])
    assert table.photos is None and table.state()["pending"] is None


def test_teaching_the_camera_keeps_each_checked_roll_without_a_game(table, fakes, loop_for,
                                                                    tmp_path):
    from companion.controller.table import TableError
    from vision.photolog import PhotoLog

    with pytest.raises(TableError, match="keeps no photos"):
        table.set_teaching(True)  # no photo log: nothing to teach with
    table.photos = PhotoLog(tmp_path / "dice-photos")
    with pytest.raises(TableError, match='"on": true'):
        table.set_teaching("yes")
    assert table.set_teaching(True)["teaching"] is True
    reader = fakes.Reader()
    read = fakes.reading([3, 5, 5], "dragon")
    unreadable = fakes.soldier(None, 300.0, conf=0.0)  # a die the camera could not read
    reader.next.append(type(read)(dice=(*read.dice, unreadable), warnings=()))
    loop_for(table, ["settled"], reader).step()  # no game: teaching needs none
    pending = table.state()["pending"]
    assert pending["kind"] == "teach" and pending["markable"]
    assert pending["proposal"] == {"roll": [3, 5, 5], "event": "dragon"}
    with pytest.raises(TableError, match="no face yet"):
        table.keep_taught()
    table.mark_pending({"x": 300 / 640, "y": 100 / 480, "face": 6})  # the unreadable die
    table.mark_pending({"x": 0.5, "y": 0.8, "face": 1})  # and one it missed
    assert table.state()["pending"]["photo_roll"] == {"roll": [1, 3, 5, 5, 6], "event": "dragon"}
    state = table.keep_taught()
    assert state["said"] == "Kept: 1 photo of your dice." and state["pending"] is None
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [3, 5, 5, 6, 1, "dragon"]
    with pytest.raises(TableError, match="no photo to keep"):
        table.keep_taught()
    # A read the players agree with is kept as read; stopping drops an open photo.
    reader.next.append(fakes.reading([2, 4], None))
    loop_for(table, ["settled"], reader).step()
    assert table.keep_taught()["said"] == "Kept: 2 photos of your dice."
    reader.next.append(fakes.reading([2, 4], None))
    loop_for(table, ["settled"], reader).step()
    assert table.set_teaching(False)["pending"] is None
    reader.next.append(fakes.reading([2, 4], None))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["pending"] is None  # not teaching and no game: ignored


def test_teaching_during_a_game_leaves_the_game_as_it_was(table, fakes, loop_for, tmp_path):
    from vision.photolog import PhotoLog

    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.apply_step({"action": "recruit"})
    before = table.position()
    table.set_teaching(True)
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank"))  # a sure, legal roll
    loop_for(table, ["settled"], reader).step()
    assert table.position() == before and table.state()["pending"]["kind"] == "teach"
    table.keep_taught()
    table.set_teaching(False)
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank"))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["history"][-1]["step"]["roll"] == [1, 2, 2, 4, 4, 5]  # played again


def test_a_disputed_read_is_asked_again_with_its_photo_to_mark(table, fakes, loop_for, tmp_path):
    from companion.controller.table import TableError
    from vision.photolog import PhotoLog

    table.apply_step({"action": "recruit"})
    with pytest.raises(TableError, match="not a roll the camera read"):
        table.dispute()  # the last move was typed
    table.photos = PhotoLog(tmp_path / "dice-photos")
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4], "blank")
    speck = fakes.soldier(6, 560.0)  # surely read, but a speck; the real 5 at x = 460 missed
    reader.next.append(type(read)(dice=(*read.dice, speck), warnings=()))
    loop_for(table, ["settled"], reader).step()
    assert table.state()["history"][-1]["step"]["roll"] == [1, 2, 2, 4, 4, 6]  # played
    state = table.dispute()  # "Wrong read? Fix it"
    assert state["history"][-1]["step"] == {"action": "recruit"}  # the roll taken back
    pending = state["pending"]
    assert pending["kind"] == "roll" and pending["markable"]
    assert pending["proposal"] == {"roll": [1, 2, 2, 4, 4, 6], "event": "blank", "disputed": True}
    assert _jpeg_width(table.pending_evidence()) == 640
    table.mark_pending({"x": 560 / 640, "y": 100 / 480, "face": "none"})
    table.mark_pending({"x": 460 / 640, "y": 100 / 480, "face": 5})
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]
    assert entry["dice"][5]["bbox"] == [450.0, 90.0, 20.0, 20.0]  # the marked die, not the speck
    assert table.state()["history"][-1]["evidence"]  # the photo goes with the fixed roll


def test_a_disputed_read_without_a_photo_log_is_asked_again_too(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 6], "blank"))
    loop_for(table, ["settled"], reader).step()
    before = table.position()
    state = table.dispute()
    assert table.position() != before
    assert state["history"][-1]["step"] == {"action": "recruit"}  # the roll taken back
    assert state["pending"]["markable"] and state["pending"]["unsure"] == []  # all read surely
    state = table.mark_pending({"x": 460 / 640, "y": 100 / 480, "face": 5})  # the 6 is a 5
    assert state["pending"]["photo_roll"]["roll"] == [1, 2, 2, 4, 4, 5]


def test_a_disputed_read_after_a_restart_is_a_plain_undo(table, store, fakes, loop_for):
    from companion.controller import Table

    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 6], "blank"))
    loop_for(table, ["settled"], reader).step()
    table = Table(store)  # the server restarted: the game is stored, the frame is not
    table.resume()
    assert table.state()["history"][-1]["step"]["roll"] == [1, 2, 2, 4, 4, 6]
    state = table.dispute()
    assert state["pending"] is None
    assert state["history"][-1]["step"] == {"action": "recruit"}  # the roll taken back


def test_the_question_shows_the_clean_frame_and_the_history_the_drawn_read(table, fakes):
    # The phones draw the read dice on the question's photo themselves (pending.dice), so
    # no label hides a die; the history keeps the picture with the camera's read drawn.
    import cv2
    import numpy as np

    table.apply_step({"action": "recruit"})
    frame = np.full((480, 640, 3), 60, np.uint8)
    drawn = np.full((480, 640, 3), 250, np.uint8)
    table.handle_reading(fakes.reading([1, 2, 2, 4, 4], "blank"), frame, drawn)
    shown = cv2.imdecode(np.frombuffer(table.pending_evidence(), np.uint8), cv2.IMREAD_COLOR)
    assert shown.shape == (480, 640, 3) and abs(float(shown.mean()) - 60) < 3
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    seq = table.state()["history"][-1]["seq"]
    kept = cv2.imdecode(np.frombuffer(table.evidence(seq), np.uint8), cv2.IMREAD_COLOR)
    assert abs(float(kept.mean()) - 250) < 3


def test_an_unread_event_die_offers_its_three_faces(table, fakes, loop_for):
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 6], None))
    read = reader.next[-1]
    unread = fakes.event(None, conf=0.0)  # a face without pips, no calibrated Event die
    reader.next[-1] = type(read)(dice=(*read.dice, unread), warnings=())
    loop_for(table, ["settled"], reader).step()
    [asked] = table.state()["pending"]["unsure"]
    assert asked["read"] is None and asked["choices"] == ["blank", "dragon", "rally"]
    state = table.mark_pending({"x": asked["x"], "y": asked["y"], "face": "dragon"})
    assert state["pending"]["photo_roll"] == {"roll": [1, 2, 2, 4, 4, 6], "event": "dragon"}
    assert state["pending"]["unsure"][0]["marked"] == "dragon"


def _learning(table) -> list:
    learned: list = []
    table.learn_event_view = lambda frame, box, face: learned.append((frame.shape, list(box), face)) or True
    return learned


def test_an_event_face_the_players_gave_for_an_unsure_read_is_learned(table, fakes, loop_for):
    """The players' answer for a roll whose Event die the camera read unsurely teaches
    the profile that view of the face (its square as read); without a photo log too."""
    learned = _learning(table)
    assert table.photos is None
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4, 5], "blank")
    reader.next.append(type(read)(dice=(*read.dice[:6], fakes.event("rally", conf=0.6)), warnings=()))
    loop_for(table, ["settled"], reader).step()
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})  # the players' answer
    assert learned == [(fakes.Camera().read().shape, [590.0, 390.0, 20.0, 20.0], "blank")]


def test_an_event_face_read_right_and_surely_is_not_learned_again(table, fakes, loop_for):
    learned = _learning(table)
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    read = fakes.reading([1, 2, 2, 4, 4, 5], "blank")
    unsure = fakes.soldier(3, 60.0 + 80 * 5, conf=0.3)  # asked about a Soldier die
    reader.next.append(type(read)(dice=(*read.dice[:5], unsure, read.dice[6]), warnings=()))
    loop_for(table, ["settled"], reader).step()
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert learned == []


def test_an_event_face_read_surely_but_wrong_and_fixed_is_learned(table, fakes, loop_for):
    learned = _learning(table)
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "rally"))  # surely, but it was blank
    loop_for(table, ["settled"], reader).step()
    assert table.state()["history"][-1]["source"] == "camera" and learned == []
    table.undo()  # "Wrong read? Fix it"
    table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert [face for *_, face in learned] == ["blank"]


def test_a_face_that_cannot_be_learned_leaves_the_game_going(table, fakes, loop_for):
    def refuse(frame, box, face):
        raise ValueError("could not see the Event die's face in that frame")

    table.learn_event_view = refuse
    table.apply_step({"action": "recruit"})
    reader = fakes.Reader()
    reader.next.append(fakes.reading([1, 2, 2, 4, 4, 5], "blank", conf=0.3))
    loop_for(table, ["settled"], reader).step()
    state = table.apply_step({"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    assert state["history"][-1]["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    assert state["pending"] is None


def test_only_a_real_cameras_table_learns_event_faces(tmp_path):
    from companion.config import Config
    from companion.controller.runtime import build_runtime, load_keeper

    for spec, learns in (("replay", False), ("none", False), ("usb:97", True)):
        keeper = load_keeper(None, tmp_path / spec.replace(":", ""))
        runtime = build_runtime(Config(), data_dir=tmp_path / spec.replace(":", ""), camera=spec,
                                keeper=keeper)  # a USB camera not plugged in: tried again later
        assert runtime.table.learn_event_view == (keeper.learn_event_view if learns else None)


def test_the_event_die_on_the_photo_is_the_one_read_or_marked_as_it(fakes):
    """PhotoMarks.event_label: the one die on the photo taken for the Event die, with the
    players' face; none when two are, or when the face marked on it is another."""
    import numpy as np

    from companion.controller.marks import PhotoMarks
    from vision.photolog import event_view_to_learn

    frame = np.zeros((480, 640, 3), np.uint8)
    stray = fakes.soldier(4, 300.0)  # a Soldier die...
    stray = type(stray)("event", "blank", stray.center, stray.box, 0.5)  # ...taken for the Event die
    real = fakes.soldier(1, 100.0, conf=0.7)  # the Event die, read as a 1
    marks = PhotoMarks(frame, [real, stray])
    assert marks.event_label("dragon") == {"value": "dragon", "bbox": [290.0, 90.0, 20.0, 20.0],
                                           "kind": "event"}
    assert marks.event_label(None) is None
    marks.faces[0] = "dragon"  # the players mark the real one: two Event dice, none learned
    assert marks.event_label("dragon") is None
    marks.faces[1] = 4  # and the stray its face: the real one is learned
    label = marks.event_label("dragon")
    assert label == {"value": "dragon", "bbox": [90.0, 90.0, 20.0, 20.0], "kind": "event"}
    assert event_view_to_learn([real, stray], label, 0.8) == ([90.0, 90.0, 20.0, 20.0], "dragon")
    marks.faces[0] = "rally"  # a mark at odds with the answer
    assert marks.event_label("dragon") is None
    sure = fakes.event("dragon", conf=0.95)
    assert event_view_to_learn([sure], PhotoMarks(frame, [sure]).event_label("dragon"), 0.8) is None
    assert event_view_to_learn([sure], None, 0.8) is None
