"""Rules snapshot -> LED Scene, with the real engine from companion.rules."""
from __future__ import annotations

import pytest

from companion.ledview import flash_for, parse_color, scene_from_snapshot, seat_colors
from companion.rules import Event, apply, new_game, snapshot

COLORS = {"Ann": "red", "Bo": "#0000ff"}


def play(setup, steps):
    state = new_game(setup)
    events = ()
    for step in steps:
        state, events = apply(state, step)
    return snapshot(state), events


def test_start_of_game():
    snap, _ = play({"players": ["Ann", "Bo"], "armies": {"Bo": 1200}}, [])
    scene = scene_from_snapshot(snap, colors=COLORS, now=5.0)
    assert scene.players == (("Ann", (255, 0, 0), 0), ("Bo", (0, 0, 255), 1200))
    assert scene.current == 0 and scene.winner is None and scene.flash is None
    assert (scene.dragon_health, scene.dragon_damage) == (3, 0)


def test_dragon_roll_evading_a_farkle_flashes_dragon():
    steps = [{"action": "recruit"}, {"roll": [2, 3, 4, 6, 6, 2], "event": "dragon"}]
    snap, events = play({"players": ["Ann", "Bo"]}, steps)
    scene = scene_from_snapshot(snap, colors=COLORS, events=events, step=steps[-1], now=7.0)
    assert scene.flash == "dragon" and scene.flash_started == 7.0


def test_farkle_flashes_and_passes_the_turn():
    steps = [{"action": "recruit"}, {"roll": [2, 3, 4, 6, 6, 2], "event": "blank"}]
    snap, events = play({"players": ["Ann", "Bo"]}, steps)
    scene = scene_from_snapshot(snap, colors=COLORS, events=events, step=steps[-1], now=1.0)
    assert scene.flash == "farkle" and scene.current == 1


def test_bank_adds_to_the_army_bar():
    steps = [{"action": "recruit"}, {"roll": [1, 2, 3, 4, 6, 6], "event": "blank"},
             {"set_aside": [1]}, {"action": "stop"}]
    snap, events = play({"players": ["Ann", "Bo"]}, steps)
    scene = scene_from_snapshot(snap, colors=COLORS, events=events, now=1.0)
    assert scene.flash == "bank" and scene.players[0][2] == 100 and scene.current == 1


def test_colours_fall_back_to_distinct_seat_colours():
    assert seat_colors(["A", "B", "C"], {"A": "blue"}) == [(0, 40, 255), (255, 0, 0), (0, 200, 0)]


@pytest.mark.parametrize("bad", ["chartreuse-ish", "#12345", [1, 2], [0, 0, 300], "#zzzzzz"])
def test_bad_colours_are_named(bad):
    with pytest.raises(ValueError, match="colour"):
        parse_color(bad, who="colour of Ann")


def test_flash_priority_and_event_forms():
    assert flash_for([Event("banked", "Ann"), Event("won", "Ann")]) == "win"
    assert flash_for([{"kind": "hot_dice"}, "farkle"]) == "farkle"
    assert flash_for([], {"roll": [1], "event": "rally"}) == "rally"
    assert flash_for([Event("set_aside", "Ann")]) is None


def test_game_over_names_the_winner_and_clears_the_turn():
    snap = {"players": ["Ann", "Bo"], "army": {"Ann": 0, "Bo": 900}, "player": "Bo",
            "phase": "game_over", "winner": "Bo", "damage": 3, "dragon_health": 3}
    scene = scene_from_snapshot(snap, colors=COLORS, events=[Event("won", "Bo")], now=3.0)
    assert scene.winner == 1 and scene.current is None and scene.flash == "win"


def test_settable_and_hint_pass_through():
    snap, _ = play({"players": ["Ann", "Bo"]}, [])
    scene = scene_from_snapshot(snap, colors=COLORS, now=0.0, settable=[0.2, 0.8], hint=0.2)
    assert scene.settable == (0.2, 0.8) and scene.hint == 0.2
