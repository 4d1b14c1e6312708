"""Make the two pictures of docs/images/ (scripts/docs-images runs this in .venv).

    .venv/bin/python scripts/docs_images.py [--out DIR] [--only phone|camera]

phone-page.png: the phone page's Play tab in headless Chromium at a phone's size, over a
staged game on a live table server: two turns played by steps, then a roll the camera
read itself. The roll is a frame drawn by vision.synthetic (no public photo shows the
Event die) and read by the shipped reader with a profile calibrated, as the Table tab
does, on drawn frames of each player's dice and of each Event-die face; the table plays
the read as it would at a real table. The script stops with a message when the read is
not played, so the picture never shows something the table did not do.

camera-read.png: `dragon-farkle read --overlay` on a bundled sample photo.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "images"
SAMPLE = REPO / "vision/samples/byler-2019-12-08/images/IMG_20191208_111328.jpg"
PIN = "2468"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
WHITE = (240, 240, 240)
DICE = {"blue": (170, 90, 30), "green": (60, 140, 40)}  # BGR body colours of the players' dice
PLAYERS = {"Ann": "blue", "Bo": "green"}
EARLIER = [  # the game before the picture: Ann banks 550, Bo 700 (a Rally doubled)
    {"action": "recruit"}, {"roll": [4, 4, 4, 1, 2, 6], "event": "blank"},
    {"set_aside": [1, 4, 4, 4]}, {"action": "roll"}, {"roll": [5, 3], "event": "blank"},
    {"set_aside": [5]}, {"action": "stop"},
    {"action": "recruit"}, {"roll": [3, 3, 3, 5, 2, 6], "event": "rally"},
    {"set_aside": [3, 3, 3, 5], "rally": "double"}, {"action": "stop"},
    {"action": "recruit"},
]
ROLL = ([1, 5, 5, 3, 4, 6], "blank")  # what the camera sees in Ann's tray


def camera_read(out: Path) -> Path:
    """The overlay `dragon-farkle read --overlay` draws on the bundled sample photo."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "companion", "read", str(SAMPLE), "--overlay", tmp],
                       check=True, stdout=subprocess.DEVNULL)
        target = out / "camera-read.png"
        shutil.copyfile(Path(tmp) / (SAMPLE.stem + ".png"), target)
    return target


def calibrated_profile(rng: np.random.Generator) -> Any:
    """A profile learned as the Table tab learns one: each player's six dice, then each
    Event-die face alone in the tray (three frames a face)."""
    from calibration.procedures import learn_color, learn_event
    from calibration.profile import Profile
    from vision.synthetic import SynthDie, procedural_background, random_event_frame, render_frame

    def floor() -> np.ndarray:
        return procedural_background((480, 640), rng)

    colors = {name: learn_color(render_frame(
        [SynthDie(k + 1, (90 + 90 * k, 240), 44, 20.0 * k, bgr, WHITE) for k in range(6)],
        background=floor(), rng=rng)[0]) for name, bgr in DICE.items()}
    event = learn_event({face: [random_event_frame(face, rng, background=floor())[0]
                                for _ in range(3)] for face in ("blank", "dragon", "rally")})
    return Profile(event=event, colors=colors)


def roll_frame(rng: np.random.Generator) -> np.ndarray:
    """Ann's six dice and the Event die lying in the tray, as the camera would see them."""
    from vision.synthetic import SynthDie, procedural_background, render_frame

    faces, event = ROLL
    places = [(150, 140), (300, 120), (470, 170), (200, 300), (380, 330), (520, 360)]
    dice = [SynthDie(f, p, 46, float(rng.uniform(0, 90)), DICE[PLAYERS["Ann"]], WHITE)
            for f, p in zip(faces, places)]
    dice.append(SynthDie(event, (90, 400), 48, 30.0))
    return render_frame(dice, background=procedural_background((480, 640), rng), rng=rng)[0]


def stage_game(table: Any) -> None:
    """Two turns by steps, then Ann's roll read by the camera and played by the table."""
    from vision import read_dice
    from vision.overlay import draw_reading

    rng = np.random.default_rng(3)
    profile = calibrated_profile(rng)
    table.set_camera("camera", "Camera working: roll in the tray.")  # as the camera loop says
    table.new_game({"players": list(PLAYERS), "colors": PLAYERS})
    table.apply_steps(EARLIER)
    frame = roll_frame(rng)
    reading = read_dice(frame, profile=profile)
    table.handle_reading(reading, frame, draw_reading(frame, reading))
    state = table.state()
    faces, event = ROLL
    if sorted(state.get("last_roll") or []) != sorted(faces) or state.get("phase") != "set_aside":
        raise SystemExit(f"the camera's read was not played as {faces} + {event}: "
                         f"phase {state.get('phase')}, pending {state.get('pending')}")
    if not table.advisor.wait(120):
        raise SystemExit("the advisor's tables were not ready within two minutes")


def phone_page(out: Path) -> Path:
    """The Play tab of a phone that joined the staged game, as a PNG."""
    from playwright.sync_api import expect, sync_playwright

    from web import create_app
    from web.serving import make_server

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATA_DIR": tmp, "TABLE_PIN": PIN, "SSE_KEEPALIVE": 1.0})
        server = make_server(app, host="127.0.0.1", port=0, phones=4)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            stage_game(app.extensions["dragon_farkle"].table)
            base = f"http://127.0.0.1:{server.effective_port}"
            target = out / "phone-page.png"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                            args=CHROMIUM_ARGS)
                ctx = browser.new_context(viewport={"width": 390, "height": 844},
                                          device_scale_factor=2, is_mobile=True, has_touch=True)
                page = ctx.new_page()
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{base}/?code={PIN}")
                expect(page.locator("#who")).to_contain_text("Playing")
                expect(page.locator("#controls .advised")).to_have_count(1)
                expect(page.locator("#toast")).to_be_hidden()  # "Joined: you can play" fades
                page.wait_for_load_state("networkidle")
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(target))
                ctx.close()
                browser.close()
            if errors:
                raise SystemExit(f"the page's script failed: {errors}")
        finally:
            app.extensions["dragon_farkle"].broadcaster.close_all()
            time.sleep(0.3)
            server.close()
            thread.join(timeout=5)
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT, help="folder for the pictures")
    ap.add_argument("--only", choices=("phone", "camera"), help="make one picture only")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only != "phone":
        print(camera_read(args.out))
    if args.only != "camera":
        if not Path(CHROMIUM).exists():
            print(f"{CHROMIUM} is missing (apt-get install chromium)", file=sys.stderr)
            return 1
        print(phone_page(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
