"""Training helpers that need no torch: noise negatives, augmentation, the split, sampling."""
from __future__ import annotations

import json

import cv2
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


def test_balance_draws_small_sets_as_often_as_big_ones_and_noise_frames_as_before():
    sets = ["rune55"] * 900 + ["byler"] * 100 + ["garbage"] * 40
    natural = data.set_weights(sets, 1.0)
    assert np.allclose(natural, 1 / len(sets))  # power 1: every photo alike, as uniform draws
    even = data.set_weights(sets, 0.0)
    assert np.isclose(even.sum(), 1.0)
    rune, byler, noise = even[:900].sum(), even[900:1000].sum(), even[1000:].sum()
    assert np.isclose(rune, byler) and np.isclose(noise, 40 / len(sets))
    assert np.allclose(even[:900], even[0]) and np.allclose(even[900:1000], even[900])
    half = data.set_weights(sets, 0.5)  # in between: byler's share grows, but less
    assert 100 / 1040 < half[900:1000].sum() < byler


def test_dark_dice_are_sampled_more_often():
    img = np.full((100, 200, 3), 230, np.uint8)
    img[30:70, 20:60] = 25  # a black die at (40, 50); a white one at (140, 50)
    labels = np.array([[40, 50, 40, 3], [140, 50, 40, 5]], np.float32)
    dice = np.array([(0, 0), (0, 1)])
    cum = data.dark_weights([(img, labels)], dice, 3.0)
    assert np.allclose(cum, [0.75, 1.0])
    assert np.allclose(data.dark_weights([(img, labels)], dice, 1.0), [0.5, 1.0])


def test_swap_colours_makes_a_light_die_dark_or_recolours_it():
    die = np.full((20, 20, 3), (40, 200, 230), np.uint8)  # a yellow die ...
    die[8:12, 8:12] = 10  # ... with a black pip
    seen = set()
    for seed in range(40):
        out = augment.swap_colours(die, np.random.default_rng(seed))
        assert out.shape == die.shape and out.dtype == np.uint8
        body, pip = out[0, 0].astype(int), out[10, 10].astype(int)
        if body.mean() < pip.mean():
            seen.add("negative")  # a dark die with light pips
        elif np.ptp(body) == 0:
            seen.add("grey")
        elif sorted(body) == sorted(die[0, 0]) and list(body) != list(die[0, 0]):
            seen.add("shuffled")
    assert seen == {"negative", "grey", "shuffled"}


def test_solid_synthetic_die_keeps_its_top_face_in_the_middle():
    """The more real-looking dice: side faces and glints around a top face that stays
    centred, so the pasted label (the face's centre and side) still fits it."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        tile, alpha = synth.render_face(40, 5, rng, solid=True)
        t = tile.shape[0]
        assert tile.shape == (t, t, 3) and alpha.shape == (t, t) and t > 40
        assert alpha.max() <= 1.0 and alpha.min() >= 0.0
        c = t // 2
        assert alpha[c - 15:c + 15, c - 15:c + 15].min() > 0.5  # the top face is solid
        assert alpha[:3, :3].max() == 0  # the far corner is empty
    flat, a = synth.render_face(40, 5, rng)
    assert flat.shape == (40, 40, 3) and a.shape == (40, 40)
    img = np.full((200, 300, 3), 120, np.uint8)
    labels = synth.paste(img, np.zeros((0, 4), np.float32), rng, 6, solid=True)
    assert len(labels) >= 1 and np.all((labels[:, 3] >= 1) & (labels[:, 3] <= 7))
    for cx, cy, side, _ in labels:  # each label's centre has a pasted die on it
        assert np.abs(img[int(cy), int(cx)].astype(int) - 120).max() > 0


def _white_tray_with_dice() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A white tray with two dark 30 px dice, each with three light pips."""
    img = np.full((160, 200, 3), 235, np.uint8)
    centres = np.array([[50.0, 60.0], [140.0, 100.0]])
    for cx, cy in centres.astype(int):
        cv2.rectangle(img, (cx - 15, cy - 15), (cx + 15, cy + 15), (40, 30, 160), -1)
        for d in (-8, 0, 8):
            cv2.circle(img, (cx + d, cy + d), 3, (250, 250, 250), -1)
    return img, centres, np.array([30.0, 30.0])


def test_background_gives_every_surface_in_the_colour_asked():
    rng = np.random.default_rng(0)
    for kind in augment.SURFACES:
        surf = augment.background(60, 80, rng, colour=(30, 120, 200), kind=kind, lamp=False)
        assert surf.shape == (60, 80, 3) and surf.dtype == np.uint8
        assert np.abs(np.median(surf.reshape(-1, 3), axis=0) - (30, 120, 200)).max() < 40, kind
    hues = {int(cv2.cvtColor(augment.background(4, 4, rng, kind="plain", lamp=False)[:1, :1],
                             cv2.COLOR_BGR2HSV)[0, 0, 0]) // 30 for _ in range(60)}
    assert len(hues) >= 5  # random surfaces come in every hue


def test_die_mask_covers_the_dice_and_not_the_tray():
    img, centres, sides = _white_tray_with_dice()
    mask = augment.die_mask(img, centres, sides)
    for cx, cy in centres.astype(int):
        assert mask[cy - 13:cy + 14, cx - 13:cx + 14].mean() > 0.95  # the whole face
    assert mask[5:20, 100:190].max() == 0 and mask[140:, :20].max() == 0  # bare tray


def test_new_background_keeps_the_dice_and_changes_the_tray():
    img, centres, sides = _white_tray_with_dice()
    green = augment.background(160, 200, np.random.default_rng(1), colour=(40, 160, 30),
                               kind="plain", lamp=False)
    out = augment.new_background(img, centres, sides, np.random.default_rng(2), surface=green)
    assert out.shape == img.shape
    for cx, cy in centres.astype(int):  # the dice's faces, pips included, are untouched
        face = (slice(cy - 12, cy + 13), slice(cx - 12, cx + 13))
        assert np.abs(out[face].astype(int) - img[face]).max() <= 2
    # away from the dice the tray is now (mostly) the new surface: blobs of the old one
    # may stay, so count pixels rather than demand every one
    far = np.ones(img.shape[:2], bool)
    for cx, cy in centres.astype(int):
        far[max(cy - 30, 0):cy + 31, max(cx - 30, 0):cx + 31] = False
    changed = np.abs(out.astype(int) - img).sum(axis=2) > 60
    assert changed[far].mean() > 0.5


def test_labels_found_wrong_are_corrected_only_where_they_still_say_what_was_seen(
        tmp_path, monkeypatch):
    folder = tmp_path / "some-set"
    folder.mkdir()
    images = [{"file": "images/a.jpg", "dice": [{"value": 5, "bbox": [0, 0, 9, 9]},
                                                {"value": 2, "bbox": [20, 0, 9, 9]}]},
              {"file": "images/b.jpg", "dice": [{"value": 4, "bbox": [0, 0, 9, 9]}]}]
    (folder / "manifest.json").write_text(json.dumps({"images": images}))
    fixes = {"some-set": [{"file": "images/a.jpg", "die": 0, "was": 5, "value": 3},
                          # the set changed under this one: its die says 4, not 6
                          {"file": "images/b.jpg", "die": 0, "was": 6, "value": 1},
                          {"file": "images/gone.jpg", "die": 0, "was": 1, "value": 2},
                          {"file": "images/a.jpg", "die": 7, "was": 1, "value": 2}],
             "another-set": [{"file": "images/b.jpg", "die": 0, "was": 4, "value": 1}]}
    path = tmp_path / "fixes.json"
    path.write_text(json.dumps(fixes))
    monkeypatch.setattr(data, "LABEL_FIXES", path)
    manifest = data.read_manifest(folder)
    assert [[d["value"] for d in e["dice"]] for e in manifest["images"]] == [[3, 2], [4]]
    assert manifest["label_fixes"] == 1
    assert manifest["images"][0]["dice"][0]["bbox"] == [0, 0, 9, 9]


def test_the_shipped_label_fixes_are_well_formed():
    doc = json.loads(data.LABEL_FIXES.read_text())
    fixes = [(name, f) for name, rows in doc.items() if not name.startswith("_") for f in rows]
    assert fixes and all(name in data.SETS for name, _ in fixes)
    for _, f in fixes:
        assert f["file"].startswith("images/") and isinstance(f["die"], int) and f["die"] >= 0
        assert f["was"] != f["value"] and {f["was"], f["value"]} <= set(range(1, 7))
        assert f["seen"]
    assert len({(n, f["file"], f["die"]) for n, f in fixes}) == len(fixes)


# A big 2 and a small 5 far from it (cx, cy, face side, value).
_TWO_DICE = np.array([[200, 200, 120, 2], [500, 300, 40, 5]], np.float32)


def test_a_hit_is_a_piece_of_a_die_only_inside_a_face_far_bigger_than_it():
    """vision.training.train.mine --piece-negatives: which hits are pieces of a die."""
    d = np.hypot(_TWO_DICE[:, 0] - 170, _TWO_DICE[:, 1] - 170)
    assert data.piece_of(_TWO_DICE, d, 30.0) == 0
    assert data.piece_of(_TWO_DICE, d, 0.6 * 120) is None  # the size of a die: not a piece
    far = np.hypot(_TWO_DICE[:, 0] - 260, _TWO_DICE[:, 1] - 260)  # past half a face off its centre
    assert data.piece_of(_TWO_DICE, far, 30.0) is None
    # a hit the size of another die whose centre it sits on is that die, not a piece
    two = np.array([[200, 200, 120, 2], [205, 205, 40, 6]], np.float32)
    assert data.piece_of(two, np.hypot(two[:, 0] - 204, two[:, 1] - 204), 38.0) is None
