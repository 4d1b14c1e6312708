"""Property tests: random legal games never break the rules' invariants."""
from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.records import export_record, replay_record
from companion.rules import (
    GameState,
    IllegalMove,
    Phase,
    apply,
    checkpoint,
    legal_steps,
    new_game,
    snapshot,
)

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]
COMPANIONS = [None, "hiccup", "ugh", "sidia", "tabby", "skree", "Mystery Mage"]
ITEMS = ["lucky_dragons_tooth", "sack_of_holding", "magic_item"]


@st.composite
def setups(draw: st.DrawFn) -> dict[str, Any]:
    players = NAMES[: draw(st.integers(2, 5))]
    armies = {p: 50 * draw(st.integers(0, 120)) for p in players}
    return {
        "players": players,
        "table": draw(st.sampled_from(["default", "gude", "classic"])),
        "dragon_health": draw(st.integers(3, 5)),
        "armies": armies,
        "companions": {p: draw(st.sampled_from(COMPANIONS)) for p in players},
        "items": {p: draw(st.lists(st.sampled_from(ITEMS), max_size=1)) for p in players},
        "in_keep": [p for p in players if draw(st.booleans()) and armies[p] > 0][:2],
    }


def _fill(step: dict[str, Any], state: GameState, draw: st.DrawFn) -> dict[str, Any]:
    """A concrete step from a legal-step template with "needs"."""
    step = {k: v for k, v in step.items() if k != "needs"}
    if "new_companion" in step:
        step["new_companion"] = draw(st.sampled_from(["ugh", "tabby", "hiccup", "Mystery Mage"]))
    if step.get("use") == "sidia":
        step["predict"] = draw(st.integers(1, 6))
    if step.get("use") in ("ugh", "sidia", "hiccup"):
        step["roll"] = draw(st.integers(1, 6))
    if step.get("use") == "hiccup":
        step["die"] = draw(st.sampled_from(list(state.turn.last_roll or (1,))))
    return step


def _roll(state: GameState, draw: st.DrawFn) -> dict[str, Any]:
    n = state.turn.dice_in_hand
    faces = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    event = draw(st.sampled_from(["blank", "blank", "blank", "blank", "dragon", "rally"]))
    return {"roll": faces, "event": event}


def _adjustment(state: GameState, draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["soldiers", "gain_item", "ignore_farkle", "ignore_dragon", "reroll_die"]))
    step: dict[str, Any] = {"adjust": kind, "card": "Mystery Card", "player": draw(st.sampled_from(state.names))}
    if kind == "soldiers":
        step["amount"] = 50 * draw(st.integers(-10, 10).filter(bool))
    if kind == "reroll_die":
        step.pop("player")
        step["die"] = draw(st.sampled_from(list(state.turn.last_roll or (1,))))
        step["roll"] = draw(st.integers(1, 6))
    if kind in ("ignore_farkle", "ignore_dragon"):
        step.pop("player")
    return step


def _check(state: GameState, turn_ended: bool = False) -> None:
    cp = checkpoint(state)
    assert all(a >= 0 and a % 50 == 0 for a in cp["army"].values()), cp
    assert cp["turn_total"] >= 0 and cp["turn_total"] % 50 == 0
    assert 1 <= cp["dice_in_hand"] <= 6
    assert cp["player"] in state.names
    assert 0 <= cp["damage"] <= state.rules.dragon_health + 1  # a Rally can overshoot the last point
    assert (cp["winner"] is not None) == (state.phase is Phase.GAME_OVER)
    if turn_ended and state.phase is not Phase.GAME_OVER:
        for seat in state.seats:
            assert len(seat.items) <= 1 or "sack_of_holding" in seat.items
    if state.phase is Phase.ROLL and state.turn.action is not None and state.turn.action.value == "final_battle":
        assert cp["damage"] < state.rules.dragon_health
        assert state.seats[state.turn.roller].in_keep
    json.dumps(snapshot(state))


@settings(max_examples=int(os.environ.get("RULES_PROPERTY_EXAMPLES", "25")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups(), data=st.data())
def test_random_legal_games_keep_the_invariants(setup: dict[str, Any], data: st.DataObject) -> None:
    state = new_game(setup)
    _check(state)
    for _ in range(50):
        if state.phase is Phase.GAME_OVER:
            break
        choices: list[dict[str, Any]] = [_fill(s, state, data.draw) for s in legal_steps(state)]
        if state.phase in (Phase.ROLL, Phase.DECIDE):
            choices += [_roll(state, data.draw)] * 3
        choices.append(_adjustment(state, data.draw))
        step = data.draw(st.sampled_from(choices))
        try:
            new, _ = apply(state, step)
        except IllegalMove:
            # Only card uses and adjustments with drawn values may be refused.
            assert "use" in step or "adjust" in step, step
            continue
        # A card or adjustment may hand a cancelled Farkle's turn back: that is no turn end.
        ended = new.current != state.current and "use" not in step and "adjust" not in step
        _check(new, turn_ended=ended)
        state = new
    result = replay_record(export_record(state))
    assert result.ok, result.describe()


@settings(max_examples=30, deadline=None)
@given(setup=setups(), data=st.data())
def test_random_steps_are_either_applied_or_change_nothing(setup: dict[str, Any], data: st.DataObject) -> None:
    state = new_game(setup)
    step = data.draw(st.one_of(
        st.fixed_dictionaries({"action": st.sampled_from(["recruit", "brawl", "final_battle", "roll", "stop", "x"]),
                               "target": st.sampled_from(NAMES)}),
        st.fixed_dictionaries({"roll": st.lists(st.integers(0, 7), max_size=7),
                               "event": st.sampled_from(["blank", "dragon", "rally", "moon"])}),
        st.fixed_dictionaries({"set_aside": st.lists(st.integers(1, 6), max_size=6)}),
        st.fixed_dictionaries({"use": st.sampled_from(["ugh", "sidia", "tabby", "hiccup", "skree"]),
                               "roll": st.integers(0, 7)}),
    ))
    before = checkpoint(state)
    try:
        new, _ = apply(state, step)
    except IllegalMove:
        assert checkpoint(state) == before
    else:
        _check(new)
