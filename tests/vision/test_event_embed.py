"""The learned comparison of Event faces (vision.event_embed) and its place in vision.event.

No network is shipped (it read no better than the ink maps: vision/training/README.md),
so these check the plumbing with a stand-in comparison: the colour windows themselves,
made unit vectors.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.event_die import learn_event
from calibration.profile import Profile
from vision import event, event_embed
from vision.event import event_face
from vision.synthetic import procedural_background, random_event_frame

FACES = ("blank", "dragon", "rally")


def test_windows_become_the_network_s_channels_first_input() -> None:
    rows = np.arange(2 * event.WIN * event.WIN * 3, dtype=np.float32).reshape(2, -1)
    x = event_embed.embed_input(rows)
    assert x.shape == (2, 3, event.WIN, event.WIN)
    # a row runs over pixels with the three Lab differences of each pixel in turn
    assert x[0, 1, 0, 0] == rows[0, 1] and x[1, 0, 0, 1] == rows[1, 3]


def test_the_network_file_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.setenv("DICE_MODELS", str(tmp_path))
    monkeypatch.delenv("DICE_EVENT_EMBED", raising=False)
    assert event_embed.path() is None  # none in the model folder
    (tmp_path / event_embed.FILE).write_bytes(b"")
    assert event_embed.path() == tmp_path / event_embed.FILE
    monkeypatch.setenv("DICE_EVENT_EMBED", "0")
    assert event_embed.path() is None
    other = tmp_path / "other.onnx"
    monkeypatch.setenv("DICE_EVENT_EMBED", str(other))
    with pytest.raises(FileNotFoundError, match="names no file"):
        event_embed.path()
    other.write_bytes(b"")
    assert event_embed.path() == other


def test_a_colour_map_tells_a_white_glint_from_a_green_emblem() -> None:
    square = np.full((30, 30, 3), 20, np.uint8)  # a black face
    square[4:8, 10:20] = (255, 255, 255)  # a glint
    square[12:18, 12:18] = (40, 200, 40)  # a green emblem
    ink = event._ink(square, 24.0)
    tint = event._ink(square, 24.0, colour=True)
    assert tint.shape == (30, 30, 3) and np.abs(tint).max() <= 1.0
    # as ink both are far from the body; in colour the emblem is green (a < 0), the glint not
    assert ink[6, 15] > 0.8 and ink[15, 15] > 0.8
    assert tint[15, 15, 1] < -0.3 and abs(tint[6, 15, 1]) < 0.1
    assert tint[6, 15, 0] > 0.3 and tint[15, 15, 0] > 0.3  # both lighter than the body


@pytest.fixture(scope="module")
def frames() -> dict[str, list[np.ndarray]]:
    rng = np.random.default_rng(11)
    return {f: [random_event_frame(f, rng, background=procedural_background((360, 480), rng))[0]
                for _ in range(3)] for f in FACES}


def test_the_learned_comparison_decides_the_face(monkeypatch: pytest.MonkeyPatch,
                                                 frames: dict[str, list[np.ndarray]]) -> None:
    calls = []

    def unit_rows(windows: np.ndarray, file: Path) -> np.ndarray:
        calls.append(len(windows))
        w = np.asarray(windows, np.float32)
        return w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-6)

    monkeypatch.setattr(event_embed, "path", lambda: Path("stand-in.onnx"))
    monkeypatch.setattr(event_embed, "embed", unit_rows)
    profile = Profile(event=learn_event(frames))
    rng = np.random.default_rng(12)
    right = 0
    for i in range(15):
        face = FACES[i % 3]
        frame, box = random_event_frame(face, rng,
                                        background=procedural_background((360, 480), rng))
        got = event_face(frame, box, profile=profile)
        right += got is not None and got[0] == face
    learned = event._learned(profile.event)
    assert learned.vectors is not None
    assert learned.vectors.shape == (len(learned.names) * learned.turns, 3 * event.WIN ** 2)
    assert len(calls) > 15  # the learned views once, then every die's colour windows
    assert right >= 12


def test_without_a_network_the_ink_maps_decide(monkeypatch: pytest.MonkeyPatch,
                                               frames: dict[str, list[np.ndarray]]) -> None:
    monkeypatch.setattr(event_embed, "path", lambda: None)
    profile = Profile(event=learn_event(frames))
    frame = frames["dragon"][0]
    assert event._learned(profile.event).vectors is None
    views = event.query_views(frame, [(240.0, 180.0, 40.0)])
    both = event.query_views(frame, [(240.0, 180.0, 40.0)], colour=True)
    assert np.array_equal(views, both[0])  # the colour views leave the ink views as they were
    assert both[1].shape == (len(views), 3 * event.WIN ** 2)


def test_a_comparison_that_tells_nothing_apart_leaves_every_face_unsure(
        monkeypatch: pytest.MonkeyPatch, frames: dict[str, list[np.ndarray]]) -> None:
    monkeypatch.setattr(event_embed, "path", lambda: Path("stand-in.onnx"))
    monkeypatch.setattr(event_embed, "embed",
                        lambda windows, file: np.ones((len(windows), 4), np.float32) / 2)
    profile = Profile(event=learn_event(frames))
    rng = np.random.default_rng(13)
    reads = []
    for i in range(6):
        frame, box = random_event_frame(FACES[i % 3], rng,
                                        background=procedural_background((360, 480), rng))
        reads.append(event_face(frame, box, profile=profile))
    assert any(r is not None for r in reads)
    assert all(r is None or r[1] == 0.0 for r in reads)  # no margin between the faces
