"""Start-up trouble reaches the players: a stored game that no longer replays is set aside,
and every phone shows the state's `notice` on every tab until a new game starts."""
from __future__ import annotations

import pytest

from companion.controller import GameStore
from companion.controller.runtime import load_keeper
from tests.web.conftest import PIN
from web import create_app

pytestmark = pytest.mark.browser


def test_a_game_set_aside_at_start_up_is_said_on_every_tab(tmp_path, serve, phone,
                                                            advisor_cache):
    from playwright.sync_api import expect

    data = tmp_path / "data"
    data.mkdir()
    store = GameStore(data / "games.sqlite3")
    game = store.new_game({"players": ["Jane", "Joseph"]})
    for seq, step in enumerate([{"action": "recruit"}, {"adjust": []}]):  # an older file's step
        store.append_step(game, seq, step)
    app = create_app({"DATA_DIR": str(data), "TABLE_PIN": PIN, "ADVISOR_CACHE": advisor_cache,
                      "CALIBRATION": load_keeper(None, data)})
    server = serve(app)
    page = phone()
    page.goto(f"http://127.0.0.1:{server.effective_port}/?code={PIN}")
    notice = page.locator("#notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("set-aside")
    for tab in ("table", "history", "play"):
        page.locator(f"nav button[data-tab={tab}]").tap()
        expect(notice).to_be_visible()
    page.evaluate("""() => fetch("/api/games", {method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({players: ["Ann", "Bo"]})})""")
    expect(notice).to_be_hidden()
