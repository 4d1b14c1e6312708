"""`advise(snapshot)` on the rules engine's states, and whole turns played through `apply`."""
from __future__ import annotations

import json
import math
import random

import pytest

from companion.advisor import query as q
from companion.advisor.api import advise
from companion.advisor.turn import TABBY
from companion.rules import apply, new_game, snapshot


def step_for(state, answer) -> dict:
    """The engine step that follows the advice."""
    snap = snapshot(state)
    if snap["phase"] == "set_aside":
        row = answer["options"][answer["best"]]
        step = {"set_aside": row["dice"]}
        if snap["last_event"] == "rally":
            step["rally"] = "double"
        return step
    if answer["best"] is not None and answer["options"][answer["best"]].get("card") == "tabby":
        return {"use": "tabby"}
    return {"action": answer["then"]}


def play_recruit_turn(state, rng: random.Random, folder):
    """One Recruit turn of the player to move, every choice taken from `advise`."""
    me = state.current
    before = state.seats[me].army
    state, _ = apply(state, {"action": "recruit"})
    while state.current == me and snapshot(state)["phase"] != "choose_action":
        snap = snapshot(state)
        if snap["phase"] == "roll":
            faces = [rng.randint(1, 6) for _ in range(snap["dice_in_hand"])]
            event = rng.choice(("blank",) * 4 + ("dragon", "rally"))
            state, _ = apply(state, {"roll": faces, "event": event})
            continue
        answer = advise(state, folder=folder)
        json.dumps(answer, allow_nan=False)              # what the page receives
        if answer["hint"]["option"] is not None:
            assert snap["options"][answer["hint"]["option"]] == answer["options"][answer["best"]]["dice"]
        state, _ = apply(state, step_for(state, answer))
    return state, state.seats[me].army - before


def test_turns_played_through_the_engine_bank_what_the_advisor_expects(tables, cache_folder) -> None:
    rng = random.Random(5)
    state = new_game({"players": ["Ann", "Bo"]})
    banked = []
    for _ in range(700):
        state, gained = play_recruit_turn(state, rng, cache_folder)
        banked.append(gained)
    mean = sum(banked) / len(banked)
    sd = math.sqrt(sum((b - mean) ** 2 for b in banked) / (len(banked) - 1))
    exact = q.recruit_roll(tables, 6, 0, 0)
    assert abs(mean - exact) < 4 * sd / math.sqrt(len(banked)), (mean, exact)


def test_tabby_is_recommended_when_it_saves_soldiers(tables, cache_folder) -> None:
    state = new_game({"players": ["Ann", "Bo"], "companions": {"Ann": "tabby"}})
    state, _ = apply(state, {"action": "recruit"})
    state, _ = apply(state, {"roll": [1, 1, 1, 5, 2, 3], "event": "dragon"})
    answer = advise(state, folder=cache_folder)
    assert answer["phase"] == "decide" and answer["options"][0]["soldiers"] == 0
    assert answer["options"][answer["best"]]["card"] == "tabby"
    assert answer["hint"]["card"] == "tabby"
    state, _ = apply(state, {"use": "tabby"})
    after = advise(state, folder=cache_folder)          # Tabby spent: no longer counted
    assert after["phase"] == "set_aside"
    row = after["options"][after["best"]]
    assert row["roll_on"] == pytest.approx(q.recruit_roll(tables, row["dice_left"], row["bank"], 0))


def test_snapshot_dict_and_state_agree_without_cards(tables, cache_folder) -> None:
    state = new_game({"players": ["Ann", "Bo"]})
    state, _ = apply(state, {"action": "recruit"})
    state, _ = apply(state, {"roll": [2, 3, 4, 4, 4, 5], "event": "blank"})
    from_state, from_dict = advise(state, folder=cache_folder), advise(snapshot(state), folder=cache_folder)
    assert from_state == from_dict
    assert from_dict["measure"] == "soldiers" and len(from_dict["options"]) == 3


def test_brawl_sides_and_final_battle(tables, cache_folder) -> None:
    state = new_game({"players": ["Jane", "Joseph"], "armies": {"Jane": 6000, "Joseph": 300}})
    start = advise(state, folder=cache_folder)
    assert set(start["actions"]) == {"recruit", "brawl", "final_battle"}
    state, _ = apply(state, {"action": "brawl", "target": "Joseph"})
    state, _ = apply(state, {"roll": [1, 2, 2, 4, 4, 5], "event": "blank"})
    attacker = advise(state, folder=cache_folder)
    assert attacker["measure"] == "win_chance"
    assert attacker["options"][0]["bank"] == pytest.approx(q.attacker_stop(tables, 100))
    state, _ = apply(state, {"set_aside": [1, 5]})
    state, _ = apply(state, {"action": "stop"})
    state, _ = apply(state, {"roll": [1, 3, 4, 4, 6], "event": "blank"})
    defender = advise(state, folder=cache_folder)
    row = defender["options"][0]
    assert row["bank"] == 0.0 and row["roll_on"] == pytest.approx(q.defender_win(tables, 4, 50))
    fight = new_game({"players": ["Ivan", "Mila"], "armies": {"Ivan": 5000}})
    fight, _ = apply(fight, {"action": "final_battle"})
    answer = advise(fight, folder=cache_folder)
    win, loss = q.battle(tables, 6, 3, 5000, False)
    assert answer["final_battle"]["win_chance"] == pytest.approx(win)
    assert answer["final_battle"]["expected_loss"] == pytest.approx(loss)


def test_flags_follow_the_cards(tables, cache_folder) -> None:
    state = new_game({"players": ["Ann", "Bo"], "companions": {"Ann": "tabby"},
                      "items": {"Ann": ["lucky_dragons_tooth"]}})
    state, _ = apply(state, {"action": "recruit"})
    answer = advise(state, folder=cache_folder)
    assert answer["decision"]["roll_on"] == pytest.approx(q.recruit_roll(tables, 6, 0, TABBY | 2))
    assert answer["decision"]["farkle_chance"] == 0.0


def test_display_rows_mark_the_best_with_bars(tables, cache_folder) -> None:
    state = new_game({"players": ["Ann", "Bo"]})
    state, _ = apply(state, {"action": "recruit"})
    state, _ = apply(state, {"roll": [2, 3, 4, 4, 4, 5], "event": "blank"})
    answer = advise(state, folder=cache_folder)
    rows = answer["display"]
    assert [r["best"] for r in rows].count(True) == 1 and rows[answer["best"]]["best"]
    assert rows[answer["best"]]["fraction"] == 1.0
    assert all(0 <= r["fraction"] <= 1 for r in rows)
    assert rows[2]["label"] == "keep 4 4 4 5"
    state, _ = apply(state, {"set_aside": [4, 4, 4, 5]})
    decide = advise(state, folder=cache_folder)["display"]
    assert [r["label"] for r in decide] == ["stop", "roll"]
    assert sum(r["best"] for r in decide) == 1


def test_bad_snapshot_is_a_clear_error(cache_folder) -> None:
    from companion.advisor import AdviceError

    with pytest.raises(AdviceError, match="snapshot"):
        advise({"nothing": 1}, folder=cache_folder)
    with pytest.raises(AdviceError, match="missing"):
        advise({"phase": "decide", "action": "recruit", "table": "default"}, folder=cache_folder)


def test_after_a_farkle_the_tooth_rescue_is_valued(tables, cache_folder) -> None:
    state = new_game({"players": ["Ann", "Bo"], "items": {"Ann": ["lucky_dragons_tooth"]}})
    state, _ = apply(state, {"action": "recruit"})
    state, _ = apply(state, {"roll": [2, 3, 4, 4, 4, 1], "event": "blank"})
    state, _ = apply(state, {"set_aside": [1, 4, 4, 4]})
    state, _ = apply(state, {"action": "roll"})
    state, _ = apply(state, {"roll": [2, 3], "event": "blank"})
    answer = advise(state, folder=cache_folder)
    assert answer["phase"] == "choose_action" and answer["player"] == "Bo"
    rescue = answer["tooth"]["options"][0]
    assert rescue["card"] == "lucky_dragons_tooth" and rescue["bank"] == 500
    assert rescue["roll_on"] == pytest.approx(q.recruit_roll(tables, 2, 500, 0))
