"""Real-browser tests: headless Debian Chromium driven by Playwright, phone-sized, by tapping."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.browser
PIN = "2468"


def step_button(page, step: dict):
    return page.locator(f"#controls button[data-step='{json.dumps(step, separators=(',', ':'))}']")



def type_roll(page, faces: list[int], event: str) -> None:
    for face in faces:
        page.locator(f"#entry [data-face='{face}']").tap()
    page.locator(f"#entry label[data-event='{event}']").tap()
    page.locator("#enter-roll").tap()


def read_in_a_new_game(table, faces: list[int], **changed) -> None:
    """A new game, Recruit, and the camera's read of `faces` in a row (x = 60, 140, ...;
    y = 100; 20 px boxes, confidence 0.97) with the Event die showing blank; `changed`:
    {"d1": Die, ...} read instead of die 1, ...."""
    from vision.types import Die, Reading

    table.new_game({"players": ["Ann", "Bob"]})
    table.apply_step({"action": "recruit"})
    dice = [changed.get(f"d{i}") or Die("soldier", f, (60 + 80 * i, 100),
                                          (50 + 80 * i, 90, 20, 20), 0.97)
            for i, f in enumerate(faces)]
    dice.append(Die("event", "blank", (500, 400), (490, 390, 20, 20), 0.97))
    table.handle_reading(Reading(dice=tuple(dice), warnings=()), np.full((480, 640, 3), 60, np.uint8))


def tap_photo(page, x: float, y: float):
    """Tap the camera's photo on the question at (x, y) of the 640 x 480 frame, once it is
    shown and the phone has joined (a watcher's taps on a photo do nothing; the click waits
    for the photo to be still); returns the photo's locator."""
    from playwright.sync_api import expect

    expect(page.locator("#who")).to_contain_text("Playing")
    photo = page.locator("#pending .markpic img")
    expect(photo).to_be_visible()
    # (a function, not an expression: the page's CSP refuses to evaluate strings while it polls)
    page.wait_for_function("() => document.querySelector('#pending .markpic img').naturalWidth > 0")
    box = photo.bounding_box()
    photo.click(position={"x": box["width"] * x / 640, "y": box["height"] * y / 480})
    return photo


def random_read(table, rng) -> None:
    """The camera reads the dice in hand at random faces (the first one unsure half the
    time) and the Event die."""
    from vision.types import Die, Reading

    n = table.state().get("dice_in_hand") or 6
    dice = [Die("soldier", rng.randint(1, 6), (60.0 + 80 * k, 100.0), (48 + 80 * k, 88, 24, 24),
                0.5 if k == 0 and rng.random() < 0.5 else 0.97, choices=(rng.randint(1, 6),))
            for k in range(n)]
    dice.append(Die("event", rng.choice(["blank", "dragon", "rally"]), (500.0, 400.0),
                    (488, 388, 24, 24), 0.97))
    table.handle_reading(Reading(tuple(dice), ()), np.full((480, 640, 3), 70, np.uint8))


def joined_phone(live_server, phone, players=("Jane", "Joseph"), *, setup=None):
    """A new game of `players` at the table (or `setup(table)` instead) and a phone that
    joined it by the join link, with its script errors collected; returns (table, page,
    errors)."""
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    if setup is None:
        table.new_game({"players": list(players)})
    else:
        setup(table)
    page = phone()
    errors = collect_errors(page)
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#who")).to_contain_text("Playing")
    return table, page, errors


def collect_errors(page) -> list[str]:
    """The page's script errors and what its Content-Security-Policy refused, as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text else None)
    return errors


def unsure_of_one_die(table) -> None:
    """A new game whose camera read has the fifth die unsure: a 6, or else a 5."""
    from vision.types import Die

    read_in_a_new_game(table, [1, 2, 2, 4, 4, 6],
                       d5=Die("soldier", 6, (460, 100), (450, 90, 20, 20), 0.5, choices=(6, 5)))


def prompt(page):
    return page.locator("#turn .prompt")


def test_a_whole_short_game_played_by_tapping(live_server, phone):
    from playwright.sync_api import expect

    base, app = live_server
    page = phone()
    errors = collect_errors(page)
    page.goto(base + "/")
    # no game yet: the Table tab opens; join with the code, start the default two-player game
    page.locator("#pin").fill(PIN)
    page.locator("#join button[type=submit]").tap()
    expect(page.locator("#who")).to_contain_text("Playing")
    page.locator("nav button[data-tab=table]").tap()
    expect(page.locator("#code")).to_have_text(PIN)
    page.locator("#setup button[type=submit]").tap()
    expect(prompt(page)).to_contain_text("Jane chooses")

    step_button(page, {"action": "recruit"}).tap()
    expect(prompt(page)).to_contain_text("Jane rolls 6")
    type_roll(page, [1, 1, 1, 1, 1, 1], "rally")
    step_button(page, {"set_aside": [1, 1, 1, 1, 1, 1], "rally": "double"}).tap()
    expect(page.locator("#turn .stat b").nth(1)).to_have_text("6,000")
    step_button(page, {"action": "stop"}).tap()
    expect(page.locator(".player[data-player=Jane] .army")).to_contain_text("6,000")

    step_button(page, {"action": "recruit"}).tap()  # Joseph
    type_roll(page, [2, 2, 3, 4, 6, 6], "blank")   # a Farkle
    expect(prompt(page)).to_contain_text("Jane chooses")

    step_button(page, {"action": "final_battle"}).tap()
    type_roll(page, [2, 2, 3, 4, 6, 6], "rally")   # two damage, nothing lost
    expect(page.locator("#turn .dragon-hp")).to_contain_text("damage 2 / 3")
    type_roll(page, [2, 2, 3, 4, 6, 6], "dragon")  # the third: the dragon is defeated
    expect(prompt(page)).to_contain_text("Jane has defeated the dragon")
    expect(page.locator(".player[data-player=Jane]")).to_contain_text("WINNER")

    page.locator("nav button[data-tab=history]").tap()
    expect(page.locator("#history li")).to_have_count(9)
    page.locator("#undo").tap()
    expect(page.locator("#history li")).to_have_count(8)
    page.locator("nav button[data-tab=stats]").tap()
    expect(page.locator("#chart svg polyline")).to_have_count(2)
    expect(page.locator("#faces .facerow")).to_have_count(2)
    assert app.extensions["dragon_farkle"].table.state()["phase"] == "roll"
    assert errors == []


def test_two_phones_see_the_same_updates(live_server, phone):
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Ann", "Bob", "Cy"]})
    player, watcher = phone(), phone()
    player.goto(f"{base}/?code={PIN}")
    watcher.goto(base + "/")
    expect(player.locator("#who")).to_contain_text("Playing")
    expect(watcher.locator("#who")).to_contain_text("Watching")
    expect(watcher.locator("#live")).to_have_class("live on")
    expect(step_button(watcher, {"action": "recruit"})).to_be_disabled()

    step_button(player, {"action": "brawl", "target": "Cy"}).tap()
    for page in (player, watcher):
        expect(prompt(page)).to_contain_text("Ann rolls 6")
        expect(page.locator("#turn .scoreboard")).to_contain_text("Cy")
    # a roll from elsewhere (the camera, another phone) reaches both
    table.apply_step({"roll": [1, 5, 2, 3, 4, 4], "event": "blank"}, source="camera")
    for page in (player, watcher):
        expect(page.locator("#controls .opt")).to_have_count(3)
    # the watcher's tap is refused; the player's goes through and both see it
    assert watcher.evaluate(
        "fetch('/api/steps', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({set_aside: [1]})}).then(r => r.status)") == 403
    step_button(player, {"set_aside": [1, 5]}).tap()
    for page in (player, watcher):
        expect(page.locator("#turn .stat b").nth(1)).to_have_text("150")


def test_phone_layout_screenshot(live_server, phone, tmp_path):
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Jane", "Joseph", "Mila"], "armies": {"Joseph": 2350, "Mila": 4200},
                    "colors": {"Jane": "red", "Joseph": "blue", "Mila": "green"},
                    "companions": {"Mila": "ugh"}})
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 1, 3, 5, 6], "event": "rally"}])
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#controls .rally-row").first).to_be_visible()
    page.wait_for_timeout(300)  # let the join toast and the flash settle
    path = tmp_path / "phone-layout.png"
    page.screenshot(path=str(path))
    print(f"phone layout screenshot: {path}")
    image = cv2.imread(str(path))
    assert image.shape[:2] == (1688, 780)  # 390x844 CSS pixels at device scale 2
    assert float(image.std()) > 20  # not blank
    colours = np.unique(image.reshape(-1, 3)[::7], axis=0)
    assert len(colours) > 200  # text, dice, cards: a real page, not a flat fill
    # the set-aside choices are big enough to tap
    box = page.locator("#controls .rally-row button").first.bounding_box()
    assert box["height"] >= 40 and box["width"] >= 140


def test_framing_the_tray_and_learning_a_dice_colour_by_tapping(live_server, phone):
    from playwright.sync_api import expect

    base, app = live_server
    parts = app.extensions["dragon_farkle"]
    parts.table.new_game({"players": ["Ann", "Bob"]})
    parts.table.live.show(np.zeros((480, 640, 3), np.uint8))
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#who")).to_contain_text("Playing")
    page.locator("nav button[data-tab=table]").tap()
    img = page.locator("#calib-img")
    expect(img).to_be_visible()
    page.wait_for_function("() => document.getElementById('calib-img').naturalWidth > 0")
    box = img.bounding_box()
    corners = [(0.25, 0.2), (0.75, 0.2), (0.75, 0.8), (0.25, 0.8)]
    for fx, fy in corners:
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
    expect(page.locator("#calib svg circle")).to_have_count(4)
    page.locator("#calib button.primary").tap()
    expect(page.locator("#calib .card-head")).to_contain_text("tray framed")
    tray = parts.calibration.profile.tray
    for (x, y), (fx, fy) in zip(tray, corners):
        assert abs(x - fx * 640) < 4 and abs(y - fy * 480) < 4

    # Learning a dice colour also measures the dice, and the page says how big they look.
    from vision.synthetic import SynthDie, procedural_background, render_frame

    rng = np.random.default_rng(2)
    dice = [SynthDie(f, (200.0 + 48 * i, 240.0), 40, 10.0 * i, (40, 40, 200), (240, 240, 240))
            for i, f in enumerate([1, 2, 3, 4, 5, 6])]
    parts.table.live.show(render_frame(dice, background=procedural_background((480, 640), rng),
                                       rng=rng)[0])
    page.locator("select[name=calib-color]").select_option("red")
    page.locator("#calib button", has_text="Learn").tap()
    expect(page.locator("#calib .tags")).to_contain_text("px wide")
    assert "red" in parts.calibration.profile.colors and parts.calibration.profile.die_side

    # An Event-die picture without the die, or with it near the picture's edge, is refused
    # and not counted; a good one is, and the pictures can be started again.
    background = procedural_background((480, 640), rng)
    parts.table.live.show(background)
    page.locator("#calib .seg button", has_text="Dragon").tap()
    expect(page.locator("#toast")).to_contain_text("Event die")
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(0)")

    def event_die_at(x: float) -> np.ndarray:
        die = SynthDie("dragon", (x, 250.0), 44.0, 20.0)
        return render_frame([die], background=background, rng=rng)[0]

    parts.table.live.show(event_die_at(605.0))
    page.locator("#calib .seg button", has_text="Dragon").tap()
    expect(page.locator("#toast")).to_contain_text("nearer the middle")
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(0)")
    parts.table.live.show(event_die_at(330.0))
    page.locator("#calib .seg button", has_text="Dragon").tap()
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(1)")
    # Where the die was found is drawn on the picture; a wrong find is forgotten alone.
    expect(page.locator("#calib svg rect.event-found")).to_have_count(1)
    expect(page.locator("#calib .event-found-text")).to_contain_text("last dragon picture")
    page.locator("#calib button", has_text="Forget the last picture").tap()
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(0)")
    expect(page.locator("#calib svg rect.event-found")).to_have_count(0)
    page.locator("#calib .seg button", has_text="Dragon").tap()
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(1)")
    page.locator("#calib button", has_text="pictures again").tap()
    expect(page.locator("#calib .seg button", has_text="Dragon")).to_contain_text("(0)")
    expect(page.locator("#calib button", has_text="pictures again")).to_have_count(0)

    # An Event die whose Rally pictures show no emblem: the page says why and what to do.
    import dataclasses

    from calibration.event_die import learn_event
    from calibration.profile import EventDie

    seen = {f: [render_frame([SynthDie(f, (330.0, 250.0), 44.0, 20.0)],
                             background=background, rng=rng)[0]] for f in ("blank", "dragon", "rally")}
    event = learn_event(seen)
    blank = [t for t in event.templates if t.face == "blank"]
    parts.calibration._replace(event=EventDie(event.body, tuple(
        t for t in event.templates if t.face != "rally") + tuple(
        dataclasses.replace(t, face="rally") for t in blank)))
    page.locator("nav button[data-tab=play]").tap()
    page.locator("nav button[data-tab=table]").tap()
    expect(page.locator("#calib .event-advice")).to_contain_text("Rally pictures the camera sees no emblem")


def test_a_wrong_camera_read_is_fixed_from_the_page(live_server, phone):
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    read_in_a_new_game(table, [1, 2, 2, 4, 4, 6])
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#controls .opt")).to_have_count(1)  # only the 1 scores
    page.get_by_text("Wrong read? Fix it").tap()
    expect(page.locator("#entry-dice .die")).to_have_count(6)
    page.locator("#entry-dice .die").last.tap()  # remove the 6 ...
    page.locator("#entry [data-face='5']").tap()  # ... it was a 5
    page.locator("#enter-roll").tap()
    expect(page.locator("#controls .opt")).to_have_count(3)  # 1, 5, 1+5
    assert table.state()["history"][-1]["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}


def test_the_dice_are_learned_from_the_table_tab(live_server, phone, tmp_path):
    import threading
    from types import SimpleNamespace

    from playwright.sync_api import expect

    from companion.controller.learning import DiceLearning
    from vision.photolog import PhotoLog

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.photos = PhotoLog(tmp_path / "dice-photos")
    go = threading.Event()

    def learn(*args, **kwargs):
        assert go.wait(10)
        return SimpleNamespace(installed=True, lines=["Learned from 20 photos (140 dice)."])

    table.learning = DiceLearning(table.photos.folder, tmp_path / "our-dice", base=tmp_path,
                                  current=lambda: tmp_path, profile=lambda: None,
                                  use_new=False, on_change=table.refresh, learn=learn)
    table.refresh()
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    page.locator("nav button[data-tab=table]").tap()
    button = page.locator("#learn-dice")
    expect(button).to_have_text("Learn our dice")
    button.tap()
    expect(button).to_have_text("Learning your dice...")  # the live update, while it runs
    expect(button).to_be_disabled()
    go.set()
    expect(page.locator("#learn-dice-status")).to_contain_text("Learned from 20 photos")
    expect(button).to_be_enabled()


def test_dice_are_marked_on_the_photo_and_the_photo_kept(live_server, phone, tmp_path):
    from playwright.sync_api import expect

    from vision.photolog import PhotoLog
    from vision.types import Die

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.photos = PhotoLog(tmp_path / "dice-photos")
    # the sixth die, a 5 at (460, 100), missed, and a 2 read as 3
    read_in_a_new_game(table, [1, 2, 2, 4, 4],
                       d1=Die("soldier", 3, (140, 100), (130, 90, 20, 20), 0.4))
    page = phone()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "pending.jpg" in r.url else None)
    page.goto(f"{base}/?code={PIN}")
    photo = tap_photo(page, 460, 100)
    expect(page.locator("#facepick")).to_be_visible()
    page.locator("#facepick [data-face='5']").tap()
    expect(page.locator("#pending .mark.missed")).to_have_count(1)
    expect(page.locator("#toast")).to_have_text("Marked: a die the camera missed, showing 5.")
    expect(page.locator("#facepick")).to_have_count(0)
    mark = page.locator("#pending .mark.missed").bounding_box()  # drawn where it was tapped
    now = photo.bounding_box()
    assert abs(mark["x"] + mark["width"] / 2 - (now["x"] + now["width"] * 460 / 640)) < 3
    assert abs(mark["y"] + mark["height"] / 2 - (now["y"] + now["height"] * 100 / 480)) < 3
    tap_photo(page, 140, 100)
    page.locator("#facepick [data-face='2']").tap()
    expect(page.locator("#pending .mark.face")).to_have_text("2")
    expect(page.locator("#photo-roll .die")).to_have_count(6)  # 1 2 2 4 4 5
    expect(page.locator("#pending .btn.good")).to_have_text("✓ Play as marked")
    expect(page.locator("#pending .btn.good")).to_be_enabled()  # the marks make up the roll
    page.get_by_text("Correct it").tap()  # the keypad starts from the photo's faces
    expect(page.locator("#entry-dice .die")).to_have_count(6)
    page.locator("#enter-roll").tap()
    expect(page.locator("#pending")).to_be_hidden()
    assert table.state()["history"][-1]["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]
    x, y, w, h = entry["dice"][5]["bbox"]
    assert abs(x + w / 2 - 460) < 4 and abs(y + h / 2 - 100) < 4
    assert len(fetched) == 1, fetched  # one photo, not fetched again for each mark


def test_the_camera_is_taught_from_the_table_tab_without_a_game(live_server, phone, tmp_path):
    from playwright.sync_api import expect

    from vision.photolog import PhotoLog
    from vision.types import Die, Reading

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.photos = PhotoLog(tmp_path / "dice-photos")
    table.refresh()
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    page.locator("nav button[data-tab=table]").tap()
    page.locator("#teach").tap()
    expect(page.locator("#pending")).to_contain_text("Roll your dice in the tray")  # Play tab
    frame = np.full((480, 640, 3), 60, np.uint8)
    dice = (Die("soldier", 3, (100, 100), (90, 90, 20, 20), 0.9),
            Die("soldier", 6, (200, 100), (190, 90, 20, 20), 0.3))  # the 6 was a 5
    table.handle_reading(Reading(dice=dice, warnings=()), frame)
    tap_photo(page, 200, 100)
    page.locator("#facepick [data-face='5']").tap()
    expect(page.locator("#photo-roll .die")).to_have_count(2)
    page.locator("#keep-photo").tap()
    expect(page.locator("#toast")).to_have_text("Kept: 1 photo of your dice.")
    expect(page.locator("#pending")).to_contain_text("Roll your dice in the tray")
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [3, 5]
    page.locator("#pending").get_by_text("Stop teaching").tap()
    expect(page.locator("#pending")).to_be_hidden()
    assert table.teaching is False


def test_a_wrong_read_taken_back_is_fixed_on_its_photo(live_server, phone, tmp_path):
    from playwright.sync_api import expect

    from vision.photolog import PhotoLog

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.photos = PhotoLog(tmp_path / "dice-photos")
    read_in_a_new_game(table, [1, 2, 2, 4, 4, 6])  # surely read, but the 6 was a 5
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    page.get_by_text("Wrong read? Fix it").tap()
    expect(page.locator("#pending .markpic img")).to_be_visible()
    expect(page.locator("#pending .btn.good")).to_have_count(0)  # not offered as right
    tap_photo(page, 460, 100)  # (the click waits for the page to stop scrolling to it)
    page.locator("#facepick [data-face='5']").tap()
    page.locator("#pending .btn.good").tap()  # "Play as marked"
    expect(page.locator("#pending")).to_be_hidden()
    assert table.state()["history"][-1]["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    [entry] = table.photos.manifest()["images"]
    assert [d["value"] for d in entry["dice"]] == [1, 2, 2, 4, 4, 5, "blank"]


def test_an_unsure_die_is_settled_with_one_tap_on_its_choices(live_server, phone):
    # No photo log here: the choices still make up the roll played.
    from playwright.sync_api import expect

    from vision.types import Die

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    assert table.photos is None
    read_in_a_new_game(table, [1, 2, 2, 4, 4, 6],
                       d5=Die("soldier", 6, (460, 100), (450, 90, 20, 20), 0.5, choices=(6, 5, 4)))
    page = phone()
    errors = collect_errors(page)
    page.goto(f"{base}/?code={PIN}")
    row = page.locator("#unsure .unsure-die")
    expect(row).to_have_count(1)
    # the read dice drawn on the clean photo: the unsure one dashed and numbered
    expect(page.locator("#pending .readbox")).to_have_count(7)
    expect(page.locator("#pending .readbox.unsure")).to_have_count(1)
    expect(page.locator("#pending .readbox.unsure i")).to_have_text("1")
    expect(page.locator("#pending .readbox.unsure b")).to_have_text("6")
    expect(page.locator("#unsure")).to_contain_text("Which face is this die?")
    choices = row.locator("button.choice")
    expect(choices).to_have_count(3)
    assert [c.get_attribute("data-face") for c in choices.all()] == ["6", "5", "4"]
    # the die cut from the photo: its background is the photo, moved to the die
    style = row.locator(".cut").get_attribute("style")
    assert "pending.jpg" in style and "background-position" in style
    expect(page.locator("#pending .btn.good")).to_have_text("✓ That's right")
    row.locator("button.choice[data-face='5']").tap()
    expect(page.locator("#toast")).to_have_text("That die shows 5.")
    expect(row.locator("button.choice.on")).to_have_attribute("data-face", "5")
    expect(page.locator("#pending .mark.face")).to_have_text("5")
    expect(page.locator("#pending .btn.good")).to_have_text("✓ Play as marked")
    page.locator("#pending .btn.good").tap()
    expect(page.locator("#pending")).to_be_hidden()
    assert table.state()["history"][-1]["step"] == {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}
    assert not errors, errors


def test_other_opens_the_face_picker_on_the_unsure_die(live_server, phone):
    from playwright.sync_api import expect

    _, page, errors = joined_phone(live_server, phone, setup=unsure_of_one_die)
    page.locator("#unsure .unsure-die").get_by_text("Other…").tap()
    expect(page.locator("#facepick")).to_be_visible()
    expect(page.locator("#pending .mark.at")).to_have_count(1)  # the picker is on that die
    page.locator("#facepick [data-face='none']").tap()
    expect(page.locator("#pending .mark.not_die")).to_have_count(1)
    expect(page.locator("#unsure .unsure-die")).to_contain_text("No die")
    # five dice and the Event die where six are rolled: not playable as marked
    expect(page.locator("#pending .btn.good")).to_be_disabled()
    assert not errors, errors


def test_the_face_picker_closes_as_soon_as_a_face_is_picked(live_server, phone):
    # On slow Wi-Fi the picker stayed open until the table answered, and a second tap on it
    # was a script error (its spot was already cleared). It now closes at once, and the
    # mark arrives with the table's answer.
    from playwright.sync_api import expect

    table, page, errors = joined_phone(live_server, phone, setup=unsure_of_one_die)
    page.locator("#unsure .unsure-die").get_by_text("Other…").tap()
    held = []
    page.route("**/api/pending/mark", lambda route: held.append(route))  # the answer waits
    page.locator("#facepick [data-face='3']").tap()
    expect(page.locator("#facepick")).to_have_count(0)  # closed before the answer
    expect(page.locator("#pending .mark.at")).to_have_count(0)
    page.wait_for_timeout(100)
    assert len(held) == 1 and not table.state()["pending"]["marks"]
    held.pop().continue_()
    expect(page.locator("#unsure .unsure-die")).to_contain_text("Marked 3")
    assert [m["face"] for m in table.state()["pending"]["marks"]] == [3]
    assert not errors, errors
    page.unroute("**/api/pending/mark")


def test_the_table_tab_shows_the_tables_own_wifi_before_the_table(live_server, phone):
    # scripts/pi-hotspot leaves the Pi's network in the data folder: a joined phone shows
    # the others how to join it first, then the table.
    import json
    from pathlib import Path

    from playwright.sync_api import expect

    base, app = live_server
    (Path(app.config["DATA_DIR"]) / "wifi.json").write_text(
        json.dumps({"name": "Our table", "password": "dragons!"}))
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    page.locator("nav button[data-tab=table]").tap()
    expect(page.locator("#code")).to_have_text(PIN)
    wifi = page.locator("#wifi-join img.qr")
    expect(wifi).to_be_visible()
    page.wait_for_function("() => document.querySelector('#wifi-join img.qr').naturalWidth > 0")
    expect(page.locator("#wifi-join")).to_contain_text("join the table's Wi-Fi “Our table”")
    expect(page.locator("#join")).to_contain_text("2. Then scan this to open the table")
    assert page.locator("#join img.qr").count() == 2


def test_random_taps_never_break_the_page(live_server, phone):
    # A few hundred taps on whatever buttons the page shows (seeded), with camera reads
    # (sure and unsure) arriving meanwhile: no script error, and the page still follows
    # the table afterwards.
    import contextlib
    import random

    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    table, page, errors = joined_phone(live_server, phone, ("Ann", "Bo"))
    rng = random.Random(13)
    for i in range(250):
        if i % 15 == 7:  # the camera reads the dice in hand, sometimes unsure of one
            random_read(table, rng)
        buttons = page.locator("button:visible, nav button, label[data-event]:visible")
        count = buttons.count()
        if not count:
            continue
        # a button covered by a dialog, or gone meanwhile: the next tap is another one
        with contextlib.suppress(PlaywrightError):
            buttons.nth(rng.randrange(count)).click(timeout=1000, no_wait_after=True)
    # still following the table: a step from elsewhere shows up
    table.new_game({"players": ["Cy", "Di"]})
    page.locator("nav button[data-tab=play]").click()
    expect(prompt(page)).to_contain_text("Cy chooses")
    assert not errors, sorted(set(errors))


def test_random_taps_with_the_tables_answers_late_and_out_of_order(live_server, phone):
    # The Wi-Fi at a table is slow and uneven: every answer from the table (/api/...) is held
    # back and let go later in a random order, while the player taps on (seeded) and the
    # camera reads dice. No script error, and once everything has arrived the page shows the
    # table's latest state, not an older answer that came last.
    import contextlib
    import random

    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    table, page, errors = joined_phone(live_server, phone, ("Ann", "Bo"))
    held: list = []
    page.route("**/api/**", lambda route: held.append(route))
    rng = random.Random(106)
    for i in range(150):
        if i % 20 == 9:
            random_read(table, rng)
        while held and rng.random() < 0.6:  # some answers arrive, in any order
            with contextlib.suppress(PlaywrightError):
                held.pop(rng.randrange(len(held))).continue_()
        buttons = page.locator("button:visible, nav button, label[data-event]:visible")
        count = buttons.count()
        if not count:
            continue
        with contextlib.suppress(PlaywrightError):
            buttons.nth(rng.randrange(count)).click(timeout=1000, no_wait_after=True)
    page.unroute("**/api/**")
    while held:
        with contextlib.suppress(PlaywrightError):
            held.pop(rng.randrange(len(held))).continue_()
    page.wait_for_timeout(500)
    version = table.state()["version"]
    page.wait_for_function(f"() => S && S.version === {version}")
    assert not errors, sorted(set(errors))
    table.new_game({"players": ["Cy", "Di"]})  # still following the table
    page.locator("nav button[data-tab=play]").click()
    expect(prompt(page)).to_contain_text("Cy chooses")


def test_the_next_roll_can_be_typed_while_the_last_is_on_its_way(live_server, phone):
    # A quick player types the next roll before the table has answered the last one: the
    # keypad is cleared at once and keeps the new faces (it used to ignore them, then wipe
    # the keypad when the answer came). A refused roll comes back to be corrected.
    from playwright.sync_api import expect

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    table.new_game({"players": ["Jane", "Joseph"], "armies": {"Jane": 6000, "Joseph": 0}})
    table.apply_step({"action": "final_battle"})
    page = phone()
    page.goto(f"{base}/?code={PIN}")
    expect(prompt(page)).to_contain_text("Jane rolls")

    held = []
    page.route("**/api/steps", lambda route: held.append(route))  # the answer waits
    type_roll(page, [2, 2, 3, 4, 6, 6], "rally")
    expect(page.locator("#entry .muted.small")).to_have_text("0 / 6 dice")
    held.pop().fulfill(status=400, json={"error": "The game moved on before your tap arrived."})
    expect(page.locator("#toast")).to_contain_text("The game moved on")
    expect(page.locator("#entry .muted.small")).to_have_text("6 / 6 dice")  # back to correct
    expect(page.locator("#entry label[data-event='rally'] input")).to_be_checked()
    page.locator("#enter-roll").tap()  # two damage, nothing lost: roll on
    expect(page.locator("#entry .muted.small")).to_have_text("0 / 6 dice")  # cleared at once
    for face in [2, 2, 3, 4, 6, 6]:
        page.locator("#entry [data-face='" + str(face) + "']").tap()
    expect(page.locator("#entry .muted.small")).to_have_text("6 / 6 dice")
    assert len(held) == 1
    held[0].continue_()  # now the table answers
    expect(page.locator("#turn .dragon-hp")).to_contain_text("damage 2 / 3")
    expect(page.locator("#entry .muted.small")).to_have_text("6 / 6 dice")  # still there
    page.unroute("**/api/steps")
    page.locator("#entry label[data-event='dragon']").tap()
    page.locator("#enter-roll").tap()
    expect(page.locator(".player[data-player=Jane]")).to_contain_text("WINNER")


def test_a_tab_opened_while_joining_stays_open(live_server, phone):
    # The join link opens the game once joined, but a player who opened the Table tab while
    # the join was on its way stays there (the page used to switch back to Play under their
    # finger). With no game yet, the page stays on the Table tab, where a game is started.
    from playwright.sync_api import expect

    base, app = live_server
    app.extensions["dragon_farkle"].table.new_game({"players": ["Jane", "Joseph"]})
    page = phone()
    held = []
    page.route("**/api/join", lambda route: held.append(route))  # the answer waits
    page.goto(f"{base}/?code={PIN}")
    expect(prompt(page)).to_contain_text("Jane chooses")
    expect(step_button(page, {"action": "recruit"})).to_be_disabled()  # watching until joined
    page.wait_for_function("() => document.readyState === 'complete'")
    page.wait_for_timeout(200)
    assert len(held) == 1
    page.locator("nav button[data-tab=table]").tap()
    expect(page.locator("#tab-table")).to_be_visible()
    held.pop().continue_()
    expect(page.locator("#who")).to_contain_text("Playing")
    expect(page.locator("#toast")).to_contain_text("Joined")
    expect(step_button(page, {"action": "recruit"})).to_be_enabled()
    expect(page.locator("#tab-table")).to_be_visible()
    expect(page.locator("#tab-play")).to_be_hidden()
    page.unroute("**/api/join")

    other = phone()  # nothing tapped: the join link opens the game
    other.goto(f"{base}/?code={PIN}")
    expect(other.locator("#who")).to_contain_text("Playing")
    expect(other.locator("#tab-play")).to_be_visible()


def test_the_table_tab_keeps_its_place_while_the_camera_picture_loads(live_server, phone):
    # The calibration card's picture arrives after the card: the card keeps the picture's
    # shape meanwhile, so "Start the game" below it stays where the player is about to tap
    # (it used to move down by the picture's height when the picture came).
    from playwright.sync_api import expect

    base, app = live_server
    app.extensions["dragon_farkle"].table.live.show(np.zeros((720, 1280, 3), np.uint8))
    page = phone()
    held = []
    page.route("**/stream/frame.jpg?calib=*", lambda route: held.append(route))
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#who")).to_contain_text("Playing")
    expect(page.locator("#calib .calib-wrap")).to_be_visible()  # no game: the Table tab
    start = page.locator("#setup button[type=submit]")
    before = start.bounding_box()
    wrap = page.locator("#calib .calib-wrap").bounding_box()
    assert abs(wrap["height"] / wrap["width"] - 720 / 1280) < 0.02, wrap
    assert len(held) == 1
    held.pop().continue_()
    page.wait_for_function("() => document.getElementById('calib-img').naturalWidth > 0")
    assert start.bounding_box()["y"] == before["y"]
    page.unroute("**/stream/frame.jpg?calib=*")


def test_the_first_state_is_fetched_again_when_the_wifi_drops_it(live_server, phone):
    # The page loaded, but its first look at the table was lost on the way (Wi-Fi): it asks
    # again instead of leaving the join link unused, and nothing is a script error.
    from playwright.sync_api import expect

    base, app = live_server
    app.extensions["dragon_farkle"].table.new_game({"players": ["Jane", "Joseph"]})
    page = phone()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    tries = []

    def lossy(route):
        tries.append(route.request.url)
        if len(tries) == 1:
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route("**/api/state", lossy)
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#who")).to_contain_text("Playing")
    expect(prompt(page)).to_contain_text("Jane chooses")
    assert len(tries) == 2 and not errors, (tries, errors)


def test_a_closed_live_stream_is_opened_again(live_server, phone):
    # A phone that slept, or a page back from the browser's cache, can find its live stream
    # closed for good: the page opens it again and follows the table on.
    from playwright.sync_api import expect

    table, page, errors = joined_phone(live_server, phone)
    expect(page.locator("#live")).to_have_class("live on")
    assert page.evaluate("stream.close(), stream.readyState") == 2  # CLOSED
    table.apply_step({"action": "recruit"})
    expect(prompt(page)).to_contain_text("Jane rolls 6", timeout=10_000)
    expect(page.locator("#live")).to_have_class("live on")
    assert page.evaluate("stream.readyState") == 1 and not errors, errors  # OPEN


def test_a_tap_that_gets_no_answer_says_so_plainly(live_server, phone):
    # A tap lost on the Wi-Fi used to show the browser's own words ("Failed to fetch" here,
    # "Load failed" on an iPhone); it now says what happened and what to do.
    from playwright.sync_api import expect

    table, page, errors = joined_phone(live_server, phone)
    page.route("**/api/steps", lambda route: route.abort("internetdisconnected"))
    step_button(page, {"action": "recruit"}).tap()
    expect(page.locator("#toast")).to_contain_text("The table did not answer")
    assert table.state()["phase"] == "choose_action" and not errors, errors
    page.unroute("**/api/steps")
    step_button(page, {"action": "recruit"}).tap()  # the Wi-Fi is back
    expect(prompt(page)).to_contain_text("Jane rolls 6")
