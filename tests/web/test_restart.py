"""Kill the real server process mid-turn (SIGKILL), start it again: the game is exactly where it was."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

PIN = "8642"
VOLATILE = ("version", "boot", "camera")


def start(cli: list[str], data: Path, port: int, leds: str = "none") -> subprocess.Popen:
    proc = subprocess.Popen(
        [*cli, "serve", "--camera", "none", "--leds", leds, "--host", "127.0.0.1",
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

    def status(self, path: str, body: object) -> int:
        """The answer's status code (a refusal is not an exception here)."""
        try:
            self.call(path, body)
        except urllib.error.HTTPError as err:
            text = err.read()
            # a body past 64 KB is refused by the server itself (413, in plain words)
            assert (json.loads(text)["error"] if err.code != 413 else text.decode()).strip()
            return err.code
        return 200

    def state(self) -> dict:
        return {k: v for k, v in self.call("/api/state").items() if k not in VOLATILE}


@pytest.mark.slow
def test_sigkill_mid_turn_then_restart_resumes_exactly(tmp_path, cli, free_port):
    data, port = tmp_path / "data", free_port
    proc = start(cli, data, port)
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

    proc = start(cli, data, port)
    try:
        after = phone.state()  # the same phone: its cookie (table code) is still good
        assert after == before and after["joined"] is True
        state = phone.call("/api/steps", {"set_aside": [1, 1], "rally": "double"})
        assert state["turn_total"] == 550 and state["dice_in_hand"] == 2
        assert phone.call("/api/undo", {})["phase"] == "set_aside"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


BAD_REQUESTS = [  # issue 22: each of these answered 500, or was saved and broke every restart
    ("/api/steps", {"adjust": "gain_item", "card": "X", "roll": None}),
    ("/api/steps", {"adjust": []}),
    ("/api/games", {"players": ["Ann", "Bo"], "colors": {"Ann": "mauve"}}),
    ("/api/games", {"players": ["x" * 100_000, "Bo"]}),
    ("/api/steps", {"action": "recruit", "comment": "x" * 100_000}),
    ("/api/games", {"players": ["Ann", "Ann\u200b"]}),
]


@pytest.mark.slow
def test_bad_requests_then_sigkill_then_restart_resumes_exactly(tmp_path, cli, free_port):
    # with the LEDs listening, as on the Pi: a refused request stores nothing, so the
    # table killed after them starts again exactly where it was
    data, port = tmp_path / "data", free_port
    proc = start(cli, data, port, leds="fake")
    try:
        phone = Phone(port)
        phone.call("/api/join", {"pin": PIN})
        phone.call("/api/games", {"players": ["Jane", "Joseph"], "colors": {"Jane": "red"},
                                  "companions": {"Jane": "Ugh"}})
        phone.call("/api/steps", {"use": "ugh", "roll": 6})
        for path, body in BAD_REQUESTS:
            too_big = len(json.dumps(body)) > 64 * 1024
            assert phone.status(path, body) == (413 if too_big else 400), (path, str(body)[:80])
        phone.call("/api/steps", {"action": "recruit"})
        before = phone.state() | {"advice": None}  # ready or not: the advisor's, not the game's
        assert before["army"]["Jane"] == 100 and before["history_length"] == 2
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    proc = start(cli, data, port, leds="fake")
    try:
        assert phone.state() | {"advice": None} == before
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


@pytest.mark.slow
def test_a_damaged_database_is_a_message_and_the_table_starts_afresh(tmp_path, cli, free_port):
    data, port = tmp_path / "data", free_port
    data.mkdir()
    (data / "games.sqlite3").write_bytes(b"\x00 scrambled by a power cut " * 500)
    proc = start(cli, data, port)
    try:
        state = Phone(port).state()
        assert "was damaged" in state["notice"] and state["game"] is None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    log = proc.stdout.read().decode()
    assert "was damaged" in log and "games.sqlite3.damaged-" in log and "Traceback" not in log
    assert len(list(data.glob("games.sqlite3.damaged-*"))) == 1


@pytest.mark.slow
@pytest.mark.browser
def test_an_open_phone_page_carries_on_after_the_server_restarts(tmp_path, phone, cli,
                                                                     free_port):
    # The Pi loses power mid-turn while the phones keep the page open: when it is back, the
    # page reconnects by itself, shows the game where it was and takes the next tap, with
    # no reload and no code typed again. Nothing the page was fetching when the table went
    # away is a script error.
    from playwright.sync_api import expect

    data, port = tmp_path / "data", free_port
    proc = start(cli, data, port)
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

    proc = start(cli, data, port)
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
