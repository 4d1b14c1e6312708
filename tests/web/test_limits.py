"""One stranger's request cannot take the table's memory or crash a view (issue 22,
finding 5 and the limits): bodies of at most 64 KB (413), table codes of at most 16
characters before anything is done with them, and JSON nested too deep is a 400."""
from __future__ import annotations

import http.client
import json

import pytest

PIN = "2468"


def test_a_body_over_64_kb_is_413_with_a_sentence_and_changes_nothing(app, game):
    table = app.extensions["dragon_farkle"].table
    before = table.version
    r = game.post("/api/steps", data=json.dumps({"action": "recruit", "comment": "x" * 70_000}),
                  content_type="application/json")
    assert r.status_code == 413 and "at most 64 KB" in r.json["error"]
    assert table.version == before
    assert game.post("/api/steps", json={"action": "recruit"}).status_code == 200


def test_a_huge_table_code_is_refused_before_it_is_read(app, client):
    r = client.post("/api/join", data=json.dumps({"pin": "1" * 5_000_000}), content_type="application/json")
    assert r.status_code == 413


@pytest.mark.parametrize("pin", ["1" * 17, " " * 10 + "2468" + "\u200b" * 3])
def test_codes_over_16_characters_are_refused_untested(app, client, pin):
    r = client.post("/api/join", json={"pin": pin})
    assert r.status_code == 400 and "at most 16 characters" in r.json["error"]
    assert app.extensions["dragon_farkle"].joins.wrong("127.0.0.1") == 0  # no try charged


@pytest.mark.parametrize("pin", [["2468"], {"pin": "2468"}, None, True, 2.5])
def test_a_code_that_is_not_text_or_a_number_is_a_400(client, pin):
    r = client.post("/api/join", json={"pin": pin})
    assert r.status_code == 400 and "table code" in r.json["error"]


def test_a_code_as_a_number_and_in_another_scripts_digits_still_joins(app):
    assert app.test_client().post("/api/join", json={"pin": 2468}).status_code == 200
    assert app.test_client().post("/api/join", json={"pin": "٢٤٦٨"}).status_code == 200


@pytest.mark.parametrize("depth", [25, 30_000])  # 30,000 deep: 60 KB, past the parser's recursion
@pytest.mark.parametrize("path", ["/api/join", "/api/steps", "/api/games", "/api/pending/mark"])
def test_json_nested_too_deep_is_a_400(app, client, game, path, depth):
    for who in (client, game) if path == "/api/join" else (game,):  # join: before any code is checked
        r = who.post(path, data="[" * depth + "]" * depth, content_type="application/json")
        assert r.status_code == 400 and "nested too deeply" in r.json["error"], (path, r.data[:200])


def test_the_server_refuses_a_large_body_without_reading_it(tmp_path, serve):
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN})
    server = serve(app)
    conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=10)
    conn.putrequest("POST", "/api/join")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(50_000_000))
    conn.endheaders()  # no body sent: refused on the header alone
    assert conn.getresponse().status == 413
