"""Kill the real server process mid-turn (SIGKILL), start it again: the game is exactly where it was."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

PIN = "8642"
VOLATILE = ("version", "boot", "camera")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command() -> list[str]:
    exe = Path(sys.executable).with_name("dragon-farkle")
    found = str(exe) if exe.exists() else shutil.which("dragon-farkle")
    return [found] if found else [sys.executable, "-m", "companion"]


def start(data: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [*command(), "serve", "--camera", "none", "--leds", "none", "--host", "127.0.0.1",
         "--port", str(port), "--data", str(data), "--pin", PIN],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=data.parent,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"serve exited: {proc.stdout.read().decode()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1).read()
            return proc
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("serve did not answer within 30 s")


class Phone:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def call(self, path: str, body: object | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data,
                                     headers={"Content-Type": "application/json"})
        with self.opener.open(req, timeout=10) as r:
            return json.loads(r.read())

    def state(self) -> dict:
        return {k: v for k, v in self.call("/api/state").items() if k not in VOLATILE}


@pytest.mark.slow
def test_sigkill_mid_turn_then_restart_resumes_exactly(tmp_path):
    data, port = tmp_path / "data", free_port()
    proc = start(data, port)
    try:
        phone = Phone(port)
        phone.call("/api/join", {"pin": PIN})
        phone.call("/api/games", {"players": ["Jane", "Joseph"], "armies": {"Jane": 1000, "Joseph": 300}})
        for step in [{"action": "brawl", "target": "Joseph"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"},
                     {"set_aside": [1, 5]}, {"action": "roll"}, {"roll": [1, 1, 3, 4], "event": "rally"}]:
            phone.call("/api/steps", step)
        before = phone.state()
        assert before["phase"] == "set_aside" and before["turn_total"] == 150
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    proc = start(data, port)
    try:
        after = phone.state()  # the same phone: its cookie (table code) is still good
        assert after == before and after["joined"] is True
        state = phone.call("/api/steps", {"set_aside": [1, 1], "rally": "double"})
        assert state["turn_total"] == 550 and state["dice_in_hand"] == 2
        assert phone.call("/api/undo", {})["phase"] == "set_aside"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.browser
def test_an_open_phone_page_carries_on_after_the_server_restarts(tmp_path, phone):
    # The Pi loses power mid-turn while the phones keep the page open: when it is back, the
    # page reconnects by itself, shows the game where it was and takes the next tap, with
    # no reload and no code typed again. Nothing the page was fetching when the table went
    # away is a script error.
    from playwright.sync_api import expect

    data, port = tmp_path / "data", free_port()
    proc = start(data, port)
    try:
        page = phone()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{port}/?code={PIN}")
        expect(page.locator("#who")).to_contain_text("Playing")
        page.locator("#setup button[type=submit]").tap()  # Jane and Joseph
        expect(page.locator("#turn .prompt")).to_contain_text("Jane chooses")
        expect(page.locator("#live")).to_have_class("live on")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    expect(page.locator("#live")).not_to_have_class("live on")  # the page sees the table gone
    page.locator("nav button[data-tab=table]").tap()  # what it fetches now fails
    page.wait_for_timeout(1000)
    page.locator("nav button[data-tab=play]").tap()

    proc = start(data, port)
    try:
        expect(page.locator("#live")).to_have_class("live on", timeout=20_000)
        expect(page.locator("#who")).to_contain_text("Playing")
        expect(page.locator("#turn .prompt")).to_contain_text("Jane chooses")
        page.locator("#controls button[data-step='{\"action\":\"recruit\"}']").tap()
        expect(page.locator("#turn .prompt")).to_contain_text("Jane rolls 6")
        assert Phone(port).state()["phase"] == "roll"
        assert not errors, errors
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
