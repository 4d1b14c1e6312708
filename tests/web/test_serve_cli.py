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


def test_serve_help_lists_its_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for option in ("--camera", "--leds", "--host", "--port", "--data", "--pin", "--profile", "--config"):
        assert option in out
