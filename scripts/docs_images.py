"""Make the two pictures of docs/images/ (scripts/docs-images runs this in .venv).

    .venv/bin/python scripts/docs_images.py [--out DIR] [--only phone|camera]

phone-page.png: the phone page's Play tab in headless Chromium at a phone's size, over the
demo game (companion/demo) on a live table server: its first five rolls played by steps,
then Jane's roll read by the camera from the demo's frame, with the demo table's
calibration profile, and played by the table as at a real table. The script stops with a
message when the read is not played, so the picture never shows something the table did
not do.

camera-read.png: `dragon-farkle read --overlay` on that frame, with that profile.
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

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "images"
PIN = "2468"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
ROLL = 6  # the demo's roll in the pictures: Jane's second turn, many set-asides to choose from


def demo_roll() -> tuple[Any, Any]:
    """The bundled demo and the roll in the pictures."""
    from companion.demo import load_demo

    demo = load_demo()
    return demo, demo.rolls[ROLL - 1]


def camera_read(out: Path) -> Path:
    """The overlay `dragon-farkle read --overlay` draws on the demo's frame."""
    demo, roll = demo_roll()
    frame = demo.folder / roll.frame
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "companion", "read", str(frame), "--overlay", tmp,
                        "--profile", str(demo.profile)], check=True, stdout=subprocess.DEVNULL)
        target = out / "camera-read.png"
        shutil.copyfile(Path(tmp) / (frame.stem + ".png"), target)
    return target


def stage_game(table: Any) -> None:
    """The demo's first rolls by steps, then its sixth read by the camera and played."""
    import cv2

    from calibration.profile import load_profile
    from vision import read_dice
    from vision.overlay import draw_reading

    demo, roll = demo_roll()
    steps = [s for s in demo.record.steps if "expect" not in s]
    before = [i for i, s in enumerate(steps) if "roll" in s][ROLL - 1]
    table.set_camera("camera", "Camera working: roll in the tray.")  # as the camera loop says
    table.new_game(dict(demo.record.setup))
    table.apply_steps(steps[:before])
    frame = cv2.imread(str(demo.folder / roll.frame))
    reading = read_dice(frame, profile=load_profile(demo.profile))
    picture = draw_reading(frame, reading)
    table.live.show(picture, annotated=True)
    table.handle_reading(reading, frame, picture)
    state = table.state()
    played = table.game.steps[before:]
    if (len(played) != 1 or sorted(played[0].get("roll") or ()) != sorted(roll.roll)
            or played[0].get("event") != roll.event or state.get("phase") != "set_aside"):
        raise SystemExit(f"the camera's read was not played as {steps[before]}: "
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
