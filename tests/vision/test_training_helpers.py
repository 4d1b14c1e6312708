"""Training helpers that need no torch: noise negatives, augmentation, the split, sampling."""
from __future__ import annotations

import numpy as np

from vision.training import augment, data, synth


def test_garbage_frames_are_noise_of_every_kind():
    rng = np.random.default_rng(0)
    frames = [synth.garbage(48, 64, rng) for _ in range(30)]
    assert all(f.shape == (48, 64, 3) and f.dtype == np.uint8 for f in frames)
    # pure noise has large neighbour differences, blurred noise small ones: both occur
    rough = [float(np.abs(np.diff(f.astype(int), axis=1)).mean()) for f in frames]
    assert max(rough) > 60 and min(rough) < 20


def test_motion_blur_smears_a_dot_into_a_streak_of_the_same_light():
    for seed in range(5):
        img = np.zeros((41, 41, 3), np.uint8)
        img[20, 20] = 250
        out = augment.motion_blur(img, np.random.default_rng(seed))
        lit = out[..., 0] > 0
        assert out.shape == img.shape and lit.sum() >= 3
        assert abs(int(out[..., 0].astype(int).sum()) - 250) < 25
        ys, xs = np.nonzero(lit)
        assert max(np.ptp(ys), np.ptp(xs)) >= 2  # a streak, not a blob


def test_validation_split_is_fixed_by_name():
    entry = {"file": "images/train_six_1.jpg"}
    first = data.is_validation("matteop65-train", entry)
    assert all(data.is_validation("matteop65-train", entry) == first for _ in range(3))
    assert data.is_validation("byler-2019-12-08", {"file": "x.jpg", "split": "test"})
    assert not data.is_validation("byler-2019-12-08", {"file": "x.jpg", "split": "train"})
    names = [{"file": f"images/{i}.jpg"} for i in range(2000)]
    share = np.mean([data.is_validation("matteop65-train", e) for e in names])
    assert 0.17 < share < 0.23


def test_photometric_strength_scales_the_changes():
    """Strength 0 leaves light and sharpness alone (only the hue may turn); weaker
    changes move a dark die's pixels less than full-strength ones on average."""
    rng = np.random.default_rng(3)
    img = np.random.default_rng(0).integers(20, 110, (36, 36, 3)).astype(np.uint8)
    grey = np.repeat(img[..., :1], 3, axis=2)  # no hue to turn
    for _ in range(20):
        assert np.array_equal(augment.photometric(grey, rng, 0.0), grey)
    change = {k: np.mean([np.abs(augment.photometric(img, rng, k).astype(int) - img).mean()
                          for _ in range(200)]) for k in (0.5, 1.0)}
    assert change[0.5] < 0.8 * change[1.0], change


def test_share_subset_is_fixed_by_name():
    names = [f"images/{i}.jpg" for i in range(2000)]
    assert [data.hash_share(n) for n in names[:5]] == [data.hash_share(n) for n in names[:5]]
    assert 0.72 < np.mean([data.hash_share(n) < 0.75 for n in names]) < 0.78


def test_dark_dice_are_sampled_more_often():
    img = np.full((100, 200, 3), 230, np.uint8)
    img[30:70, 20:60] = 25  # a black die at (40, 50); a white one at (140, 50)
    labels = np.array([[40, 50, 40, 3], [140, 50, 40, 5]], np.float32)
    dice = np.array([(0, 0), (0, 1)])
    cum = data.dark_weights([(img, labels)], dice, 3.0)
    assert np.allclose(cum, [0.75, 1.0])
    assert np.allclose(data.dark_weights([(img, labels)], dice, 1.0), [0.5, 1.0])
