"""Settling on synthetic sequences: dice rolling then stopping, a hand entering."""
from __future__ import annotations

import numpy as np
import pytest

from vision.settle import Settler
from vision.synthetic import SynthDie, procedural_background, render_frame

RNG_BG = procedural_background((480, 640), np.random.default_rng(0))


def _frame(positions, *, hand: tuple[int, int] | None = None, seed: int = 0) -> np.ndarray:
    dice = [SynthDie(3, p, 40, a, (40, 40, 200), (240, 240, 240), tilt=0.0) for p, a in positions]
    frame, _ = render_frame(dice, background=RNG_BG, rng=np.random.default_rng(0), noise=0.0)
    noise = np.random.default_rng(seed).normal(0, 2.0, frame.shape)  # sensor noise per frame
    frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    if hand is not None:
        x, y = hand
        frame[y:y + 300, x:x + 240] = (120, 150, 200)  # skin-like blob, a quarter of the view
    return frame


def _run(settler: Settler, frames: list[np.ndarray], dt: float = 1 / 30) -> list[str]:
    return [settler.update(f, i * dt).state for i, f in enumerate(frames)]


def test_rolling_dice_settle_once_then_stay_still() -> None:
    moving = [_frame([((100 + 20 * i, 200), 15 * i), ((400, 100 + 15 * i), 9 * i)], seed=i)
              for i in range(10)]
    rest = [_frame([((280, 200), 135), ((400, 235), 81)], seed=100 + i) for i in range(20)]
    states = _run(Settler(), moving + rest)
    assert set(states[:11]) == {"moving"}
    assert states.count("settled") == 1
    assert states[-1] == "still"
    i = states.index("settled")
    assert (i - 10) / 30 >= 0.3  # waited for settle_time


def test_settled_status_carries_the_frame() -> None:
    settler = Settler(settle_time=0.0)
    f = _frame([((200, 200), 0)])
    settler.update(f, 0.0)
    status = settler.update(f, 0.1)
    assert status.state == "settled" and status.frame is f


def test_hand_is_reported_and_a_pass_without_touching_dice_does_not_resettle() -> None:
    dice = [((200, 200), 10), ((300, 260), 40)]
    still = [_frame(dice, seed=i) for i in range(15)]
    hand = [_frame(dice, hand=(350 - 40 * i, 150), seed=50 + i) for i in range(5)]
    states = _run(Settler(), still + hand + still)
    assert states.count("settled") == 1
    assert "hand" in states[15:20]
    assert states[-1] == "still"


def test_dice_moved_by_a_hand_settle_again() -> None:
    a = [_frame([((200, 200), 10)], seed=i) for i in range(15)]
    hand = [_frame([((200, 200), 10)], hand=(150, 100), seed=30 + i) for i in range(3)]
    b = [_frame([((420, 300), 50)], seed=60 + i) for i in range(15)]
    assert _run(Settler(), a + hand + b).count("settled") == 2


def test_empty_tray_and_resting_hand_with_known_empty_frame() -> None:
    empty = _frame([])
    settler = Settler(empty=empty, settle_time=0.1)
    assert _run(settler, [_frame([], seed=i) for i in range(8)])[-1] == "empty"
    resting = [_frame([], hand=(200, 100), seed=20 + i) for i in range(8)]
    states = [settler.update(f, 1 + i / 30).state for i, f in enumerate(resting)]
    assert states[-1] == "hand"


def test_rejects_bad_frames_and_options() -> None:
    with pytest.raises(ValueError):
        Settler().update(np.zeros((10, 10), np.uint8), 0.0)
    with pytest.raises(ValueError):
        Settler(motion_share=0.5, hand_share=0.1)


def test_for_profile_watches_only_the_tray() -> None:
    from calibration.profile import Profile

    settler = Settler.for_profile(Profile(tray=((0, 0), (300, 0), (300, 480), (0, 480))))
    dice = [((150, 200), 10)]
    frames = [_frame(dice, seed=i) for i in range(15)]
    outside = [_frame(dice + [((450 + 10 * i, 300), 9 * i)], seed=40 + i) for i in range(10)]
    states = _run(settler, frames + outside)
    assert states.count("settled") == 1 and set(states[15:]) == {"still"}
