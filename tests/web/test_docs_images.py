"""scripts/docs_images.py, which makes the README's pictures, still works: the demo game's
roll is read by the camera and played, the phone page is photographed in headless Chromium,
and `dragon-farkle read --overlay` draws on the demo's frame."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "docs_images.py"


def make(out: Path, only: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--only", only],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.browser
@pytest.mark.slow
def test_the_phone_page_picture(tmp_path):
    if not os.path.exists("/usr/bin/chromium"):
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail("REQUIRE_BROWSER=1 but /usr/bin/chromium is missing")
        pytest.skip("/usr/bin/chromium not installed")
    done = make(tmp_path, "phone")
    assert done.returncode == 0, done.stderr[-2000:]
    picture = cv2.imread(str(tmp_path / "phone-page.png"))
    assert picture.shape[:2] == (1688, 780)  # 390x844 CSS px at twice the density
    assert picture.std() > 20  # a page, not a blank screen


def test_the_camera_read_picture(tmp_path):
    done = make(tmp_path, "camera")
    assert done.returncode == 0, done.stderr[-2000:]
    from companion.demo import load_demo

    picture = cv2.imread(str(tmp_path / "camera-read.png"))
    demo = load_demo()
    photo = cv2.imread(str(demo.folder / demo.rolls[5].frame))
    assert picture.shape == photo.shape
    assert (cv2.absdiff(picture, photo).max(axis=2) > 60).mean() > 0.005  # the boxes and labels
