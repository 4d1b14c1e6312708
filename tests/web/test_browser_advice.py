"""The advisor on the phone page, in headless Chromium at 390x844: bars, the best choice, the switch."""
from __future__ import annotations

import json
import time

import cv2
import pytest

pytestmark = pytest.mark.browser
PIN = "2468"


def step_button(page, step: dict):
    return page.locator(f"#controls button[data-step='{json.dumps(step, separators=(',', ':'))}']")


def box(locator, timeout: float = 10.0) -> dict:
    """The element's bounding box, waited for: Playwright gives None while the element is
    not shown (on a busy machine the whole suite once got None here, the page most likely
    redrawing its buttons on a state update at that moment)."""
    end = time.monotonic() + timeout
    while (found := locator.bounding_box()) is None and time.monotonic() < end:
        time.sleep(0.05)
    assert found is not None, f"{locator} not shown"
    return found


def test_bars_on_each_choice_the_best_marked_and_the_switch(live_server, phone, tmp_path):
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Jane", "Joseph"], "colors": {"Jane": "red", "Joseph": "blue"}})
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 2, 3, 5, 6], "event": "blank"}])
    assert table.advisor.wait(60)
    rows = table.state()["advice"]["display"]
    page = phone()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#controls .opt .adv")).to_have_count(len(rows))
    best = next(r for r in rows if r["best"])
    advised = step_button(page, best["step"])
    expect(advised).to_have_class("btn opt wide has-adv advised")
    expect(page.locator("#controls .advised")).to_have_count(1)
    expect(advised.locator(".best")).to_have_text("best")
    expect(advised.locator(".fig")).to_have_text(best["figure"])
    for row in rows:  # each bar as long as its share, inside a button big enough to tap
        button = step_button(page, row["step"])
        track = box(button.locator(".track"))
        fill = box(button.locator(".track b"))
        assert fill["width"] / track["width"] == pytest.approx(max(0.02, row["fraction"]), abs=0.03)
        assert box(button)["height"] >= 48
    page.wait_for_timeout(2000)  # let the join toast go
    path = tmp_path / "phone-advice.png"
    page.screenshot(path=str(path))
    print(f"advisor screenshot: {path}")
    image = cv2.imread(str(path))
    assert image.shape[:2] == (1688, 780) and float(image.std()) > 20

    step_button(page, best["step"]).tap()  # then stop or roll again, each with its bar
    expect(step_button(page, {"action": "stop"}).locator(".adv")).to_have_count(1)
    expect(step_button(page, {"action": "roll"}).locator(".adv")).to_have_count(1)
    expect(page.locator("#controls .advised")).to_have_count(1)

    page.locator("nav button[data-tab=table]").tap()  # the switch: off for the whole table
    page.locator("#settings .switch").tap()
    expect(page.locator("#advisor-switch")).not_to_be_checked()
    page.locator("nav button[data-tab=play]").tap()
    expect(page.locator("#controls .adv")).to_have_count(0)
    assert table.state()["advice"] is None and table.store.settings() == {"advisor": False}
    assert errors == []


def test_the_final_battle_note_shows_the_win_chance_and_soldiers_lost(live_server, phone):
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Jane", "Joseph"], "armies": {"Jane": 6000}})
    table.apply_step({"action": "final_battle"})
    assert table.advisor.wait(60)
    (row,) = table.state()["advice"]["display"]
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    note = page.locator("#controls .advice-note")
    expect(note).to_contain_text(row["figure"])
    expect(note).to_contain_text("soldiers lost")
