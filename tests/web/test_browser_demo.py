"""What a newcomer sees first: `dragon-farkle serve` with its defaults plays the demo game. A
game started from a phone, Recruit, and the camera plays the roll by itself within a minute."""
from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def table_code(proc: subprocess.Popen, seen: list[str], within: float = 60.0) -> str:
    """The table code `serve` prints for the players, read from its output as it comes."""
    watch = selectors.DefaultSelector()
    watch.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        if watch.select(timeout=0.5):
            line = proc.stdout.readline().decode(errors="replace")
            seen.append(line)
            found = re.search(r"Table code: (\S+)", line)
            if found:
                return found.group(1)
    raise AssertionError("serve printed no table code:\n" + "".join(seen))


def test_the_default_table_plays_the_demo_game_by_camera(tmp_path, phone, advisor_cache, cli,
                                                       free_port):
    from playwright.sync_api import expect

    from companion.demo import load_demo

    port, seen = free_port, []
    proc = subprocess.Popen([*cli, "serve", "--port", str(port), "--data",
                             str(tmp_path / "data")], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, cwd=tmp_path,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        code = table_code(proc, seen)
        page = phone()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{port}/?code={code}")  # the join link's address
        expect(page.locator("#who")).to_contain_text("Playing", timeout=20_000)
        page.locator("nav button[data-tab=table]").tap()
        page.locator("#setup button[type=submit]").tap()  # the page's game: Jane red, Joseph blue
        expect(page.locator("#turn .prompt")).to_contain_text("Jane chooses")
        page.locator("#controls button[data-step='{\"action\":\"recruit\"}']").tap()
        tapped = time.monotonic()
        # only a roll the camera played offers to take its read back
        expect(page.locator("#turn .lastroll button")).to_have_text("Wrong read? Fix it",
                                                                    timeout=60_000)
        assert time.monotonic() - tapped < 60
        state = json.loads(page.evaluate("() => fetch('/api/state').then(r => r.text())"))
        first = load_demo().rolls[0]
        assert state["phase"] == "set_aside" and state["history"][-1]["source"] == "camera"
        assert sorted(state["history"][-1]["step"]["roll"]) == sorted(first.roll)
        expect(page.locator("#controls .opt").first).to_be_visible()  # the set-asides to choose
        assert errors == []
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
