"""Nothing a player typed runs as script on the phones (issue 22, finding 6): the page
builds no markup from data (no innerHTML), and a Content-Security-Policy forbids inline
script, so even a stored colour or name full of markup stays text."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import web

STATIC = Path(web.__file__).parent / "static"
TEMPLATES = Path(web.__file__).parent / "templates"
EVIL = '"><img src=x onerror="window.__pwned=1"><svg onload="window.__pwned=2">'


def test_every_answer_forbids_inline_script_and_framing(client):
    for path in ("/", "/api/state", "/static/app.js"):
        r = client.get(path)
        policy = r.headers.get("Content-Security-Policy", "")
        script = re.search(r"script-src ([^;]*)", policy)
        assert script and "'self'" in script.group(1), (path, policy)
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, (path, policy)
        assert "frame-ancestors 'none'" in policy
        assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_the_page_scripts_never_parse_markup():
    for js in STATIC.glob("*.js"):
        text = js.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser",
                     "createContextualFragment", "eval(", "new Function"):
            assert sink not in text, f"{js.name} uses {sink}"


def test_the_page_itself_has_no_inline_script_or_handlers():
    for html in TEMPLATES.glob("*.html"):
        text = html.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), html.name
        assert not re.search(r"\son[a-z]+\s*=", text, re.IGNORECASE), html.name
        assert "javascript:" not in text.lower()


def test_markup_in_a_stored_colour_and_name_stays_text(live_server, phone, monkeypatch):
    """A game stored with markup in its colours and a name (an older version, or a file
    edited by hand: the API refuses such set-ups) shows on every tab without running it."""
    from playwright.sync_api import expect

    from companion.controller import moves
    from tests.web.test_browser import PIN, collect_errors

    base, app = live_server
    table = app.extensions["dragon_farkle"].table
    name = "<b>Ann</b>"
    setup = {"players": [name, "Bo"], "colors": {name: EVIL, "Bo": "red;background:url(/x)"}}
    with pytest.raises(ValueError, match="unknown colour"):  # refused as input today
        table.new_game(setup)
    monkeypatch.setattr(moves, "check_setup", lambda s: s)  # as an older version stored it
    table.new_game(setup)
    for step in ({"action": "recruit"}, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"}, {"set_aside": [1]},
                 {"action": "stop"}):
        table.apply_step(step)
    page = phone()
    errors = collect_errors(page)
    page.goto(f"{base}/?code={PIN}")
    expect(page.locator("#who")).to_contain_text("Playing")
    expect(page.locator(".player").first).to_contain_text(name)  # as text, tags and all
    for tab in ("history", "stats", "table", "play"):
        page.locator(f"nav button[data-tab={tab}]").tap()
        if tab == "stats":
            expect(page.locator("#chart svg polyline")).to_have_count(2)
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img[src=x], main svg[onload]").count() == 0
    swatch = page.locator(".player .swatch").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert swatch.startswith("rgb")  # a palette colour instead of the stored markup
    assert errors == [], errors
    # The policy holds on its own too: a script put in by hand is refused, and said so.
    page.evaluate("""() => { const s = document.createElement("script");
                             s.textContent = "window.__pwned = 3"; document.body.appendChild(s); }""")
    assert page.evaluate("window.__pwned") is None
    expect_refused = [e for e in errors if "Content Security Policy" in e]
    assert expect_refused, errors
