"""The table code holds (issue 22, finding 4): wrong codes cost time per client and for
the whole table, a search of all 10,000 four-digit codes takes more than a day, waits are
answered 429 with Retry-After, wrong codes are logged, and a longer code can be asked for."""
from __future__ import annotations

import logging
import time

import pytest

from web import create_app

PIN = "2468"
DAY = 24 * 3600


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def search_time(limiter, clock: Clock, codes: int, addresses: int) -> float:
    """Seconds a stranger needs to try `codes` codes from `addresses` addresses in turn,
    each try made as soon as the table allows it."""
    start, tried = clock.now, 0
    while tried < codes:
        n = tried % addresses
        wait = limiter.admit(f"10.{n >> 16}.{(n >> 8) & 255}.{n & 255}")
        if wait > 0:
            clock.now += wait
        else:
            tried += 1
    return clock.now - start


@pytest.mark.parametrize("addresses", [1, 1000])
def test_a_search_of_all_four_digit_codes_takes_more_than_a_day(addresses):
    from web.joinlimit import JoinLimiter

    clock = Clock()
    assert search_time(JoinLimiter(clock=clock), clock, 10_000, addresses) > DAY


def test_one_client_gets_a_few_tries_free_then_waits_that_double():
    from web.joinlimit import JoinLimiter

    clock = Clock()
    limiter = JoinLimiter(clock=clock)
    assert [limiter.admit("phone") for _ in range(5)] == [0, 0, 0, 0, 0]
    assert limiter.admit("phone") == 0  # the sixth is tested; the seventh waits
    assert limiter.admit("phone") == pytest.approx(2)
    clock.now += 2
    assert limiter.admit("phone") == 0
    assert limiter.admit("phone") == pytest.approx(4)
    assert limiter.admit("other") == 0  # another phone is not held up by this one
    limiter.right("phone")
    assert limiter.admit("phone") == 0  # a right code forgets the wrong ones


def test_wrong_codes_are_answered_429_with_retry_after_and_logged(app, caplog):
    stranger = app.test_client()
    with caplog.at_level(logging.WARNING, logger="web.api"):
        answers = [stranger.post("/api/join", json={"pin": f"{n:04d}"}) for n in range(7)]
    assert [a.status_code for a in answers] == [403] * 6 + [429]
    assert answers[-1].headers["Retry-After"] == "2"
    assert "wait 2 s" in answers[-1].json["error"]
    # while it must wait, even the right code is not tested: no free guesses
    assert stranger.post("/api/join", json={"pin": PIN}).status_code == 429
    assert sum("wrong table code from 127.0.0.1" in r.getMessage() for r in caplog.records) == 6
    assert any("join refused" in r.getMessage() for r in caplog.records)
    app.extensions["dragon_farkle"].joins.clock = lambda: time.monotonic() + 2.5  # 2.5 s later
    assert stranger.post("/api/join", json={"pin": PIN}).status_code == 200


def test_the_whole_table_runs_out_of_tries_across_addresses(app):
    answers = [app.test_client().post("/api/join", json={"pin": "0000"},
                                      environ_base={"REMOTE_ADDR": f"10.0.0.{n}"}) for n in range(11)]
    assert [a.status_code for a in answers] == [403] * 10 + [429]
    assert 8 <= int(answers[-1].headers["Retry-After"]) <= 10  # one try per 10 s for the whole table


def test_a_longer_code_is_made_kept_and_joins_by_its_link(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CODE_LENGTH": 8})
    pin = app.extensions["dragon_farkle"].pin
    assert len(pin) == 8 and pin.isdigit()
    assert create_app({"DATA_DIR": str(tmp_path), "CODE_LENGTH": 8}).extensions["dragon_farkle"].pin == pin
    player = app.test_client()
    assert player.post("/api/join", json={"pin": pin}).status_code == 200
    link = player.get("/api/code").json["link"]
    assert link.endswith(f"/?code={pin}")  # the QR code's link: one scan joins
    assert app.test_client().post("/api/join", json={"pin": link.split("code=")[1]}).status_code == 200
    shorter = create_app({"DATA_DIR": str(tmp_path), "CODE_LENGTH": 4}).extensions["dragon_farkle"].pin
    assert len(shorter) == 4


@pytest.mark.parametrize("config", [{"CODE_LENGTH": 3}, {"CODE_LENGTH": 17}, {"TABLE_PIN": "1" * 17}])
def test_codes_the_table_cannot_take_are_refused_at_start(tmp_path, config):
    with pytest.raises(ValueError, match="table code"):
        create_app({"DATA_DIR": str(tmp_path), **config})


def test_serve_takes_the_code_length_from_the_command_line_and_the_file(tmp_path):
    from companion.cli import build_parser
    from companion.cli.serve import settings

    config = tmp_path / "table.toml"
    config.write_text('[server]\ncode_length = 6\nnames = ["dragon.lan"]\n')
    parser = build_parser()
    assert settings(parser.parse_args(["serve", "--config", str(config)])).server.code_length == 6
    args = parser.parse_args(["serve", "--config", str(config), "--code-length", "10"])
    assert settings(args).server.code_length == 10 and settings(args).server.names == ("dragon.lan",)
