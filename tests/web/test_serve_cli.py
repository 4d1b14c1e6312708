"""`dragon-farkle serve` refuses bad options with a message instead of starting."""
from __future__ import annotations

import pytest

from companion.cli import main


@pytest.mark.parametrize("args, words", [
    (["--camera", "webcam"], "unknown camera spec"),
    (["--config", "/nonexistent/companion.toml"], "no such configuration file"),
    (["--leds", "rainbow"], "rainbow"),
])
def test_bad_options_exit_2_with_a_message(tmp_path, capsys, args, words):
    assert main(["serve", "--data", str(tmp_path), "--port", "0", *args]) == 2
    assert words in capsys.readouterr().err


def test_a_second_table_on_the_same_data_folder_is_refused(tmp_path, capsys):
    from companion.cli.serve import hold_data_folder

    held = hold_data_folder(tmp_path)  # a table serving from this folder
    try:
        assert main(["serve", "--data", str(tmp_path), "--port", "0", "--camera", "none",
                     "--leds", "none"]) == 2
        assert "Another table is already running on the data folder" in capsys.readouterr().err
    finally:
        held.close()
    hold_data_folder(tmp_path).close()  # free again once that table stops


def test_a_data_folder_that_cannot_be_used_is_a_message(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    assert main(["serve", "--data", str(taken), "--port", "0", "--camera", "none"]) == 2
    assert "cannot use the data folder" in capsys.readouterr().err


def test_serve_help_lists_its_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for option in ("--camera", "--leds", "--host", "--port", "--data", "--pin", "--profile", "--config"):
        assert option in out


IP_OUTPUT = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: eth0    inet 192.168.1.23/24 brd 192.168.1.255 scope global dynamic eth0\\       valid_lft 86000sec
3: wlan0    inet 10.42.0.1/24 brd 10.42.0.255 scope global noprefixroute wlan0\\       valid_lft forever
4: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\\       valid_lft forever
"""


def test_the_interfaces_addresses_are_read_from_ip():
    from web.serving import interface_addresses

    assert interface_addresses(IP_OUTPUT) == ["192.168.1.23", "10.42.0.1"]
    assert interface_addresses("") == []


def test_a_pi_on_its_own_network_announces_its_address_there(monkeypatch):
    # No default route (the Pi's own Wi-Fi, no internet): the UDP connect fails, and the
    # address comes from the interfaces instead of 127.0.0.1, which no phone can open.
    import socket

    from web import serving

    class Offline(socket.socket):
        def connect(self, address):
            raise OSError(101, "Network is unreachable")

    monkeypatch.setattr(serving.socket, "socket", Offline)
    monkeypatch.setattr(serving, "interface_addresses", lambda: ["10.42.0.1"])
    assert serving.lan_addresses() == ["10.42.0.1"]
    monkeypatch.setattr(serving, "interface_addresses", list)
    assert serving.lan_address() == "127.0.0.1"


def test_the_local_name_is_given_only_where_something_answers_for_it(tmp_path, monkeypatch):
    from web import serving

    monkeypatch.setattr(serving.sys, "platform", "linux")
    monkeypatch.setattr(serving.socket, "gethostname", lambda: "dragonpi")
    pid = tmp_path / "pid"
    assert serving.local_name(avahi_pid=pid) is None  # no avahi running
    pid.write_text("123")
    assert serving.local_name(avahi_pid=pid) == "dragonpi.local"


def test_the_announcement_gives_the_link_and_every_other_address(capsys):
    from types import SimpleNamespace

    from companion.cli.serve import announce

    app = SimpleNamespace(extensions={"dragon_farkle": SimpleNamespace(pin="2468")})
    announce(app, "0.0.0.0", 8000, ["192.168.1.23", "10.42.0.1"], "dragonpi.local")
    out = capsys.readouterr().out
    assert "table is open: http://192.168.1.23:8000/" in out
    assert "also: http://10.42.0.1:8000/  http://dragonpi.local:8000/" in out
    assert "join link: http://192.168.1.23:8000/?code=2468" in out
    announce(app, "10.42.0.1", 8000, ["192.168.1.23"], "dragonpi.local")
    out = capsys.readouterr().out
    assert "table is open: http://10.42.0.1:8000/" in out and "also" not in out


@pytest.mark.parametrize("args, words", [
    (["--code-length", "3"], "--code-length must be 4 to 16"),
    (["--pin", "12345678901234567"], "at most 16 characters"),
])
def test_codes_serve_cannot_take_exit_2_with_a_message(tmp_path, capsys, args, words):
    assert main(["serve", "--data", str(tmp_path), "--port", "0", "--camera", "none", *args]) == 2
    assert words in capsys.readouterr().err
