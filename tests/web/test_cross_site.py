"""Other pages cannot act through a joined phone's browser, nor read the table through
DNS rebinding (issue 22, finding 10): state-changing requests need a JSON body or a
custom header, a POST from another origin is 403, and Host must be one of the table's."""
from __future__ import annotations

import http.client
import json
import socket

import pytest

PIN = "2468"
BODYLESS = ["/api/undo", "/api/dispute", "/api/pending/dismiss", "/api/dice/learn",
            "/api/teach/keep", "/api/calibration/lock", "/api/calibration/leds",
            "/api/calibration/find_tray"]


@pytest.mark.parametrize("path", BODYLESS)
@pytest.mark.parametrize("form", ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data"])
def test_a_plain_form_post_is_refused_and_changes_nothing(app, game, path, form):
    table = app.extensions["dragon_farkle"].table
    game.post("/api/steps", json={"action": "recruit"})
    before = table.version
    r = game.post(path, data=b"", content_type=form)
    assert r.status_code == 400 and "must be JSON" in r.json["error"]
    assert table.version == before and table.state()["phase"] == "roll"


def test_the_pages_own_requests_pass(app, game):
    assert game.post("/api/undo", json={}).status_code == 400  # nothing to undo: it got through
    game.post("/api/steps", json={"action": "recruit"})
    assert game.post("/api/undo", headers={"X-Requested-With": "fetch"}).status_code == 200
    same = {"Origin": "http://localhost"}
    assert game.post("/api/steps", json={"action": "recruit"}, headers=same).status_code == 200


@pytest.mark.parametrize("origin", ["http://localhost:9999", "http://evil.example", "null",
                                    "https://localhost", "http://localhost.evil.example"])
def test_a_post_from_another_origin_is_403(app, game, origin):
    table = app.extensions["dragon_farkle"].table
    r = game.post("/api/steps", json={"action": "recruit"}, headers={"Origin": origin})
    assert r.status_code == 403 and "another page" in r.json["error"]
    assert table.game.steps == []


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "localhost.evil.example"])
def test_a_foreign_host_name_is_refused_even_for_reading(app, game, host):
    r = game.get("/api/state", headers={"Host": host})
    assert r.status_code == 421
    assert game.get("/", headers={"Host": host}).status_code == 421


def test_the_tables_own_names_are_answered(tmp_path):
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN, "TABLE_NAMES": "dragon.lan, Table.Home",
                      "PUBLIC_URL": "http://dragonpi.example:8000"})
    client = app.test_client()
    own = socket.gethostname().split(".")[0]
    for host in ("localhost:8000", "dragon.lan", "table.home.", "dragonpi.example:8000", own, f"{own}.local"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host


def test_addresses_are_answered_where_the_request_came_in():
    from web.guard import host_allowed, split_host

    assert split_host("[::1]:8000") == ("::1", 8000) and split_host("Pi.Local.") == ("pi.local", None)
    assert host_allowed("192.168.1.23:8000", "192.168.1.23", set())
    assert host_allowed("192.168.1.23", "::ffff:192.168.1.23", set())  # a dual-stack socket
    assert not host_allowed("10.9.9.9:8000", "192.168.1.23", set())
    assert host_allowed("[::1]:8000", "::1", set())
    assert host_allowed("10.9.9.9", None, set())  # no server saying where: an address is no rebinding
    assert not host_allowed("evil.example", "192.168.1.23", {"localhost"})


def test_the_server_checks_host_against_the_address_it_was_reached_at(tmp_path, serve):
    from web import create_app

    server = serve(create_app({"DATA_DIR": str(tmp_path), "TABLE_PIN": PIN}))
    port = server.effective_port

    def status(host: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/api/state", headers={"Host": host})
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status if r.status != 200 else json.loads(body) and 200

    assert status(f"127.0.0.1:{port}") == 200
    assert status(f"localhost:{port}") == 200
    assert status(f"10.9.9.9:{port}") == 421  # not where it came in
    assert status(f"attacker.example:{port}") == 421
