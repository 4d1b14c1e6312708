"""Fixtures for the web tests: an app over a temporary data folder, clients, a live server."""
from __future__ import annotations

import os
import shutil
import socket
import sys
import threading
from pathlib import Path

import pytest

from web import create_app

PIN = "2468"


@pytest.fixture
def app(tmp_path, advisor_cache):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "TABLE_PIN": PIN,
                       "SSE_KEEPALIVE": 0.2, "ADVISOR_CACHE": advisor_cache})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def player(app):
    """A client that has entered the table code."""
    c = app.test_client()
    assert c.post("/api/join", json={"pin": PIN}).status_code == 200
    return c


@pytest.fixture
def game(app, player):
    """A started two-player game, its advice ready; returns the joined client."""
    r = player.post("/api/games", json={"players": ["Jane", "Joseph"],
                                        "colors": {"Jane": "red", "Joseph": "blue"}})
    assert r.status_code == 200, r.json
    assert app.extensions["dragon_farkle"].table.advisor.wait(60)
    return player


@pytest.fixture
def live_server(tmp_path, advisor_cache):
    """The app served by waitress on a free port, in a thread; yields (base url, app)."""
    from companion.controller.runtime import load_keeper
    from web.serving import make_server, stop

    data = tmp_path / "data"
    app = create_app({"DATA_DIR": str(data), "TABLE_PIN": PIN, "SSE_KEEPALIVE": 1.0,
                      "CALIBRATION": load_keeper(None, data), "ADVISOR_CACHE": advisor_cache})
    server = make_server(app, host="127.0.0.1", port=0, phones=12)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}", app
    stop(server, app)
    thread.join(timeout=5)


@pytest.fixture
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now: for a `dragon-farkle serve`
    started by a test."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cli() -> list[str]:
    """The `dragon-farkle` command of this Python: the script beside it, one on PATH, or
    `python -m companion`."""
    exe = Path(sys.executable).with_name("dragon-farkle")
    found = str(exe) if exe.exists() else shutil.which("dragon-farkle")
    return [found] if found else [sys.executable, "-m", "companion"]


@pytest.fixture
def serve():
    """Serves apps by waitress on free ports in threads: serve(app, **make_server options)
    gives the server (its `effective_port`); all are stopped when the test ends."""
    from web.serving import make_server, stop

    running = []

    def start(app, **options):
        server = make_server(app, host="127.0.0.1", port=0, **options)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        running.append((app, server, thread))
        return server

    yield start
    for app, server, thread in running:
        stop(server, app)
        thread.join(timeout=5)


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser():
    """Headless Debian Chromium through Playwright; skipped without it unless REQUIRE_BROWSER=1."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {CHROMIUM} is missing (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"  # Debian's webkit2gtk-driver
XVFB = "/usr/bin/Xvfb"


@pytest.fixture(scope="module")
def webkit_screen():
    """A virtual screen for WebKit (its DISPLAY); skipped without WebKitWebDriver and Xvfb
    unless REQUIRE_BROWSER=1."""
    import subprocess

    missing = [p for p in (WEBKIT_DRIVER, XVFB) if not os.path.exists(p)]
    if missing:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {', '.join(missing)} missing "
                        "(apt-get install webkit2gtk-driver xvfb)")
        pytest.skip(f"{', '.join(missing)} not installed")
    read, write = os.pipe()  # Xvfb picks a free display and writes its number here
    screen = subprocess.Popen([XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                               "-nolisten", "tcp"], pass_fds=(write,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    if not number.isdigit():
        screen.kill()
        pytest.fail(f"{XVFB} did not start (exit code {screen.wait(timeout=10)})")
    try:
        yield f":{number}"
    finally:
        screen.terminate()
        screen.wait(timeout=10)


@pytest.fixture
def webkit(webkit_screen):
    """WebKit (WebKitGTK, the engine family of Safari and every iPhone browser) through
    Selenium: makes phone-sized windows (390 CSS px wide), all closed when the test ends.
    Listed after live_server, it closes them before the server stops: a window left open
    holds its live stream, and the server's loop then fails on a closed socket."""
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    drivers = []

    def make():
        service = Service(executable_path=WEBKIT_DRIVER,
                          env={**os.environ, "DISPLAY": webkit_screen})
        driver = webdriver.WebKitGTK(options=Options(), service=service)
        driver.set_window_size(390, 844)
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        driver.quit()


@pytest.fixture
def phone(browser):
    """Makes phone-sized browser contexts (390x844 CSS px, touch); all closed afterwards."""
    contexts = []

    def make():
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
        contexts.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in contexts:
        ctx.close()
