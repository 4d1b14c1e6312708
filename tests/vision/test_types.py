"""The result dataclasses: validation and the JSON shape of `dragon-farkle read --json`."""
from __future__ import annotations

import json

import pytest

from vision.types import DiceWarning, Die, Reading


def test_die_json_has_exactly_the_documented_keys():
    d = Die("soldier", 5, (10.26, 20), (4.4, 5, 30, 31), 0.9871, "red")
    j = d.to_json()
    assert list(j) == ["kind", "value", "center", "box", "confidence", "color"]
    assert j == {"kind": "soldier", "value": 5, "center": [10.3, 20.0], "box": [4, 5, 30, 31],
                 "confidence": 0.987, "color": "red"}
    json.dumps(j)


def test_reading_json_and_helpers():
    ev = Die("event", "dragon", (1, 1), (0, 0, 2, 2), 0.7)
    r = Reading((Die("soldier", None, (0, 0), (0, 0, 1, 1), 0.1), ev),
                (DiceWarning("touching", "Two dice touch.", (1, 2, 3, 4)),))
    j = r.to_json()
    assert j["dice"][0]["value"] is None and j["dice"][1]["value"] == "dragon"
    assert j["warnings"] == [{"code": "touching", "message": "Two dice touch.", "box": [1, 2, 3, 4]}]
    assert r.event is ev and r.soldier_values == (None,)


@pytest.mark.parametrize("kind,value,conf", [
    ("soldier", 7, 0.5), ("soldier", "dragon", 0.5), ("event", 3, 0.5), ("pawn", 1, 0.5),
    ("soldier", 1, 1.5), ("soldier", 1, -0.1)])
def test_invalid_dice_are_rejected(kind, value, conf):
    with pytest.raises(ValueError):
        Die(kind, value, (0, 0), (0, 0, 1, 1), conf)
