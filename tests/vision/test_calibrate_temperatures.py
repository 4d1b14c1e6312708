"""The temperature fit (vision.training.calibrate) sees the detections the reader sees."""
from __future__ import annotations

import json
from pathlib import Path

import cv2

from vision.faces import NOT_DIE
from vision.onnxnets import MODEL_DIR
from vision.training import calibrate

SAMPLES = Path(__file__).resolve().parents[2] / "vision" / "samples" / "byler-2019-12-08"
PHOTO = "images/IMG_20191208_112652.jpg"  # two dice, 34 and 36 px
CUT = (240, 262, 140)  # x, y, side of the square cut round them
ZOOM = 640 / 140  # blown up to 640 px: dice of about 160 px


def _big_dice_set(root: Path) -> int:
    """A one-photo validation set whose two dice are about 160 px wide (as a camera close
    over a small tray sees them, or rune55's photos): byler's photo cut round them and
    blown up. Returns how many dice it labels."""
    entry = next(e for e in json.loads((SAMPLES / "manifest.json").read_text())["images"]
                 if e["file"] == PHOTO)
    x0, y0, side = CUT
    image = cv2.imread(str(SAMPLES / PHOTO))[y0:y0 + side, x0:x0 + side]
    folder = root / "byler-2019-12-08"
    (folder / "images").mkdir(parents=True)
    cv2.imwrite(str(folder / PHOTO), cv2.resize(image, None, fx=ZOOM, fy=ZOOM,
                                                interpolation=cv2.INTER_CUBIC))
    dice = [{"value": d["value"], "bbox": [(d["bbox"][0] - x0) * ZOOM, (d["bbox"][1] - y0) * ZOOM,
                                           d["bbox"][2] * ZOOM, d["bbox"][3] * ZOOM]}
            for d in entry["dice"]]
    (folder / "manifest.json").write_text(json.dumps({"images": [
        {"file": PHOTO, "width": 640, "height": 640, "split": "test",
         "dice": dice}]}))
    return len(dice)


def test_big_dice_are_fitted_on_as_the_reader_reads_them_not_as_their_pips(tmp_path):
    labelled = _big_dice_set(tmp_path)
    member = {"file": "faces.onnx", "temperature": 1.0, "crop": 36}
    zs, y = calibrate.collect(MODEL_DIR, tmp_path, [member])
    # At the detector's default scale a die of 160 px is found as its pips, every one a
    # "not a die" that the classifier reads as a 1. The reader looks from further away.
    assert (y != NOT_DIE).sum() == labelled
    assert len(y) <= labelled + 1
    assert zs[0].shape == (len(y), 8)
