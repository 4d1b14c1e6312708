"""The phone page in WebKit, the engine of Safari and of every browser on an iPhone:
a whole short game by tapping, joining, a typed roll, the live update from the table, the
camera's question answered with one tap or marked on its photo, the tray framed by tapping
its corners, a WebKit phone and a Chromium phone at one table, and random taps.
(WebKitGTK on a virtual screen, not Safari itself: the same engine, another port.)"""
from __future__ import annotations

import json

import pytest
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.web.conftest import PIN

# Selenium's own WebKitGTK driver set-up still uses an API it deprecates.
pytestmark = pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning")


def until(driver, check, seconds: float = 10):
    """Wait for `check(driver)` to be true (or a value), failing after `seconds`; the page
    re-renders on every live update, so an element found may be gone a moment later, and
    a toast can lie over a button for a moment."""
    return WebDriverWait(driver, seconds, poll_frequency=0.1, ignored_exceptions=(
        StaleElementReferenceException, ElementClickInterceptedException)).until(check)


def text_of(driver, css: str) -> str:
    return driver.execute_script(
        "var e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css)


def tap(driver, css: str) -> None:
    """Click the element once it is there, enabled and still (found afresh if a render
    replaced it). Still: at the same place on two looks in a row. Content that arrives
    late above it (the advisor's answer, the calibration card) moves it down, and WebDriver
    clicks where it was: the tap then lands on nothing, and the test waits in vain."""
    seen: dict[str, list] = {}

    def click(d):
        found = d.find_elements(By.CSS_SELECTOR, css)
        if not found or not found[0].is_enabled():
            return False
        box = d.execute_script(
            "arguments[0].scrollIntoView({block: 'center'});"
            "var r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
            found[0])
        if box != seen.get("box"):
            seen["box"] = box
            return False
        found[0].click()
        return True

    until(driver, click)


def picture(driver, css: str, width: int | None = None) -> None:
    """Wait for the image at `css` to load (`width` px wide, if given) and be laid out,
    then scroll it to the middle of the screen (in the same script: no element handle
    for a live re-render to make stale)."""
    until(driver, lambda d: d.execute_script(
        "var i = document.querySelector(arguments[0]);"
        "var ok = !!i && i.naturalWidth > 0 && (!arguments[1] || i.naturalWidth === arguments[1])"
        " && i.getBoundingClientRect().width > 100;"
        "if (ok) i.scrollIntoView({block: 'center'}); return ok;", css, width))


def tap_at(driver, css: str, fx: float, fy: float, width: int | None = None) -> None:
    """Tap the image at `css` (once `picture` has it) at (fx, fy), each 0-1 of its width and
    height, once the phone has joined (a watcher's taps on a photo do nothing). The image
    is found afresh for the tap: a live update may have re-rendered it since."""
    from selenium.webdriver.common.action_chains import ActionChains

    until(driver, lambda d: "Playing" in text_of(d, "#who"))
    picture(driver, css, width)

    def tap_once(d):
        img = d.find_element(By.CSS_SELECTOR, css)
        w, h = img.size["width"], img.size["height"]
        ActionChains(d).move_to_element_with_offset(  # offsets from the image's centre
            img, round(w * (fx - 0.5)), round(h * (fy - 0.5))).click().perform()
        return True

    until(driver, tap_once)


def test_a_roll_typed_on_an_iphone_engine_reaches_the_table(live_server, webkit):
    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Ann", "Bob"]})
    page = webkit()
    page.get(f"{base}/?code={PIN}")
    page.execute_script("window.__errors = []; window.addEventListener('error', "
                        "function (e) { window.__errors.push(String(e.message)); });")
    until(page, lambda d: "Playing" in text_of(d, "#who"))
    until(page, lambda d: "Ann chooses" in text_of(d, "#turn .prompt"))
    tap(page, "#controls button[data-step='{\"action\":\"recruit\"}']")
    until(page, lambda d: "Ann rolls 6" in text_of(d, "#turn .prompt"))
    for face in (1, 2, 2, 3, 4, 6):
        tap(page, f"#entry [data-face='{face}']")
    tap(page, "#entry label[data-event='blank']")
    tap(page, "#enter-roll")
    until(page, lambda d: table.state()["history"][-1]["step"] == {
        "roll": [1, 2, 2, 3, 4, 6], "event": "blank"})
    # a change made at the table (another phone, a button) arrives by the live stream
    table.apply_step({"set_aside": [1]})
    until(page, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#controls button[data-step='{\"action\":\"stop\"}']"))
    assert page.execute_script("return window.__errors || []") == []


def test_the_cameras_unsure_die_is_settled_with_one_tap_on_an_iphone_engine(live_server, webkit):
    from tests.web.test_browser import read_in_a_new_game
    from vision.types import Die

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    read_in_a_new_game(table, [1, 2, 2, 4, 4, 6],
                       d5=Die("soldier", 6, (460, 100), (450, 90, 20, 20), 0.5, choices=(6, 5, 4)))
    page = webkit()
    page.get(f"{base}/?code={PIN}")
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#pending .readbox")) == 7)
    # Read in one script, not as element handles: a live update can re-render the card
    # between finding an element and reading it (WebKit then answers "stale element").
    assert until(page, lambda d: d.execute_script(
        "return document.querySelectorAll('#unsure button.choice').length") == 3)
    assert until(page, lambda d: "pending.jpg" in d.execute_script(
        "var e = document.querySelector('#unsure .cut');"
        " return e ? e.getAttribute('style') || '' : '';"))
    picture(page, "#pending .markpic img", 640)  # the photo itself loaded and laid out
    tap(page, "#unsure button.choice[data-face='5']")
    until(page, lambda d: "Play as marked" in text_of(d, "#pending .btn.good"))
    tap(page, "#pending .btn.good")
    until(page, lambda d: table.state()["history"][-1]["step"] == {
        "roll": [1, 2, 2, 4, 4, 5], "event": "blank"})


def test_a_missed_die_is_marked_by_a_tap_on_the_photo_on_an_iphone_engine(live_server, webkit):
    from tests.web.test_browser import read_in_a_new_game

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    read_in_a_new_game(table, [1, 2, 2, 4, 4])  # the sixth die, at (460, 100), missed
    page = webkit()
    page.get(f"{base}/?code={PIN}")
    tap_at(page, "#pending .markpic img", 460 / 640, 100 / 480, width=640)
    tap(page, "#facepick [data-face='5']")
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#pending .mark.missed")) == 1)
    marks = table.state()["pending"]["marks"]
    assert marks[0]["face"] == 5 and abs(marks[0]["x"] - 460 / 640) < 0.02
    until(page, lambda d: "Play as marked" in text_of(d, "#pending .btn.good"))


def test_the_tray_is_framed_by_tapping_its_corners_on_an_iphone_engine(live_server, webkit):
    import numpy as np

    base, app = live_server
    parts = app.extensions["dragon_farkle"]
    parts.table.new_game({"players": ["Ann", "Bob"]})
    parts.table.live.show(np.zeros((480, 640, 3), np.uint8))
    page = webkit()
    page.get(f"{base}/?code={PIN}")
    until(page, lambda d: "Playing" in text_of(d, "#who"))
    tap(page, "nav button[data-tab=table]")
    corners = [(0.25, 0.2), (0.75, 0.2), (0.75, 0.8), (0.25, 0.8)]
    for fx, fy in corners:
        tap_at(page, "#calib-img", fx, fy)
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#calib svg circle")) == 4)
    tap(page, "#calib button.primary")
    until(page, lambda d: "tray framed" in text_of(d, "#calib .card-head"))
    for (x, y), (fx, fy) in zip(parts.calibration.profile.tray, corners):
        assert abs(x - fx * 640) < 6 and abs(y - fy * 480) < 6


def step(driver, step: dict) -> None:
    tap(driver, f"#controls button[data-step='{json.dumps(step, separators=(',', ':'))}']")


def type_roll(driver, faces: list[int], event: str) -> None:
    for face in faces:
        tap(driver, f"#entry [data-face='{face}']")
    tap(driver, f"#entry label[data-event='{event}']")
    tap(driver, "#enter-roll")


def test_a_whole_short_game_on_an_iphone_engine(live_server, webkit):
    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    page = webkit()
    page.get(base + "/")
    def join(d):  # type the code and send it (found afresh if a render replaced the form)
        d.find_element(By.CSS_SELECTOR, "#pin").send_keys(PIN)
        d.find_element(By.CSS_SELECTOR, "#join button[type=submit]").click()
        return True

    until(page, join)
    until(page, lambda d: "Playing" in text_of(d, "#who"))
    tap(page, "nav button[data-tab=table]")
    tap(page, "#setup button[type=submit]")  # the default two-player game
    until(page, lambda d: "Jane chooses" in text_of(d, "#turn .prompt"))
    step(page, {"action": "recruit"})
    type_roll(page, [1, 1, 1, 1, 1, 1], "rally")
    step(page, {"set_aside": [1, 1, 1, 1, 1, 1], "rally": "double"})
    step(page, {"action": "stop"})
    until(page, lambda d: "6,000" in text_of(d, ".player[data-player=Jane] .army"))
    step(page, {"action": "recruit"})  # Joseph
    type_roll(page, [2, 2, 3, 4, 6, 6], "blank")  # a Farkle
    step(page, {"action": "final_battle"})  # Jane
    type_roll(page, [2, 2, 3, 4, 6, 6], "rally")
    type_roll(page, [2, 2, 3, 4, 6, 6], "dragon")  # the third damage
    until(page, lambda d: "WINNER" in text_of(d, ".player[data-player=Jane]"))
    assert table.state()["winner"] == "Jane"
    tap(page, "nav button[data-tab=history]")
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history li")) == 9)
    tap(page, "#undo")
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history li")) == 8)
    tap(page, "nav button[data-tab=stats]")
    until(page, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chart svg polyline")) == 2)


def test_an_iphone_and_an_android_phone_at_one_table(live_server, webkit, phone):
    # A tap on the WebKit phone reaches the Chromium phone by its live stream, and back.
    from playwright.sync_api import expect

    base, app = live_server
    app.extensions["dragon_farkle"].table.new_game({"players": ["Ann", "Bob"]})
    iphone, android = webkit(), phone()
    iphone.get(f"{base}/?code={PIN}")
    android.goto(f"{base}/?code={PIN}")
    until(iphone, lambda d: "Ann chooses" in text_of(d, "#turn .prompt"))
    expect(android.locator("#turn .prompt")).to_contain_text("Ann chooses")
    step(iphone, {"action": "recruit"})
    expect(android.locator("#turn .prompt")).to_contain_text("Ann rolls 6")
    for face in (1, 1, 2, 3, 4, 6):
        android.locator(f"#entry [data-face='{face}']").tap()
    android.locator("#entry label[data-event='blank']").tap()
    android.locator("#enter-roll").tap()
    until(iphone, lambda d: d.find_elements(
        By.CSS_SELECTOR, "#controls button[data-step='{\"set_aside\":[1,1]}']"))


RANDOM_TAPS = """
var errors = window.__errors = window.__errors || [];
if (!window.__watching) {
  window.__watching = true;
  window.addEventListener("error", function (e) { errors.push(String(e.message)); });
  window.addEventListener("unhandledrejection", function (e) {
    if (!e.defaultPrevented) errors.push("rejection: " + String(e.reason && e.reason.message || e.reason));
  });
}
window.confirm = function () { return false; };  // "Start a new game?": keep this one
var seed = arguments[0], taps = arguments[1], done = 0;
function next() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
for (var i = 0; i < taps; i++) {
  var shown = Array.prototype.filter.call(document.querySelectorAll("button, label[data-event]"),
    function (b) { return b.offsetParent !== null && !b.disabled; });
  if (!shown.length) continue;
  shown[Math.floor(next() * shown.length)].click();
  done++;
}
return done;
"""


def random_taps_in_bursts(page, table, rng) -> None:
    """25 bursts of 8 seeded random taps, a random camera read before each; then a new game
    started at the table must reach the page, with no script error on the way."""
    from tests.web.test_browser import random_read

    tapped = 0
    for burst in range(25):
        random_read(table, rng)
        tapped += page.execute_script(RANDOM_TAPS, 1000 + burst, 8)
        page.execute_script("return new Promise(function (r) { setTimeout(r, 150); });")
    assert tapped > 150
    table.new_game({"players": ["Cy", "Di"]})
    until(page, lambda d: "Cy" in text_of(d, "#players") or "Cy chooses" in text_of(d, "#turn"))
    assert page.execute_script("return window.__errors") == []


def test_random_taps_never_break_the_page_on_an_iphone_engine(live_server, webkit):
    # Seeded random taps on whatever the page shows, in bursts, with camera reads (sure and
    # unsure) arriving between them: no script error in WebKit, and the page still follows
    # the table afterwards. (Listeners added after the page loaded: what happens on load
    # is covered by the other tests.)
    import random

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Ann", "Bo"]})
    page = webkit()
    page.get(f"{base}/?code={PIN}")
    until(page, lambda d: "Playing" in text_of(d, "#who"))
    random_taps_in_bursts(page, table, random.Random(13))


def test_random_taps_with_slow_uneven_answers_on_an_iphone_engine(live_server, webkit):
    # The same on a slow, uneven Wi-Fi: every answer from the table (/api/...) takes 0 to
    # 0.4 s, so answers arrive out of order and after the next taps.
    import random
    import threading
    import time

    from flask import request

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Ann", "Bo"]})
    delays, lock = random.Random(7), threading.Lock()

    @app.before_request
    def uneven_wifi():
        if request.path.startswith("/api/"):
            with lock:
                wait = 0.4 * delays.random()
            time.sleep(wait)

    page = webkit()
    page.get(f"{base}/?code={PIN}")
    until(page, lambda d: "Playing" in text_of(d, "#who"))
    random_taps_in_bursts(page, table, random.Random(31))
    version = table.state()["version"]
    until(page, lambda d: d.execute_script("return S && S.version") == version)
