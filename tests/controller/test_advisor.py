"""The advisor at the table: advice in the state once per change, tied to the legal steps, switchable."""
from __future__ import annotations

import threading

import pytest

from companion.advisor import advise
from companion.controller import GameStore, Table
from companion.controller.advisor import TableAdvisor, for_page


def direct(table: Table) -> dict:
    """What the advisor itself says for the table's state, asked directly."""
    state = table.state_obj
    return advise(state, table=state.rules.table, folder=table.advisor.folder)


def legal_steps(table: Table) -> list[dict]:
    return table.state()["legal"]


def test_advice_after_a_roll_is_the_advisors_answer_tied_to_the_buttons(advised):
    advised.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 2, 3, 5, 6], "event": "blank"}])
    advice = advised.state()["advice"]
    expected = direct(advised)
    assert advice["options"] == expected["options"] and advice["best"] == expected["best"]
    assert advice["hint"] == expected["hint"]
    rows = advice["display"]
    assert [r["fraction"] for r in rows] == [r["fraction"] for r in expected["display"]]
    legal = [s["set_aside"] for s in legal_steps(advised) if "set_aside" in s]
    assert sorted(r["step"]["set_aside"] for r in rows) == sorted(legal)  # one bar per button
    best = [r for r in rows if r["best"]]
    assert len(best) == 1 and best[0]["step"]["set_aside"] == expected["options"][expected["best"]]["dice"]
    for row, option in zip(rows, expected["options"]):
        assert row["figure"] == f"≈ {option['expected']:,.0f}"


def test_stop_or_roll_rows_carry_the_action_steps(advised):
    advised.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 2, 3, 5, 6], "event": "blank"},
                         {"set_aside": [1, 1]}])
    advice, expected = advised.state()["advice"], direct(advised)["decision"]
    steps = {r["step"]["action"]: r for r in advice["display"]}
    assert set(steps) == {"stop", "roll"}
    assert steps["stop"]["figure"] == f"≈ {expected['bank']:,.0f}"
    assert steps["roll"]["figure"] == f"≈ {expected['roll_on']:,.0f}"
    assert steps[expected["then"]]["best"] and not steps[
        "stop" if expected["then"] == "roll" else "roll"]["best"]


def test_brawl_rows_are_win_chances(advised):
    advised.apply_steps([{"action": "brawl", "target": "Joseph"},
                         {"roll": [1, 5, 2, 3, 4, 4], "event": "blank"}])
    advice, expected = advised.state()["advice"], direct(advised)
    assert advice["measure"] == "win_chance"
    for row, option in zip(advice["display"], expected["options"]):
        assert row["figure"] == f"{option['expected']:.0%} win"
        assert row["fraction"] == pytest.approx(option["expected"])


def test_final_battle_shows_the_win_chance_and_soldiers_lost(store, advisor_cache):
    table = Table(store, advisor=TableAdvisor(advisor_cache))
    table.new_game({"players": ["Jane", "Joseph"], "armies": {"Jane": 6000}})
    assert table.advisor.wait(60)
    actions = {r["step"]["action"]: r for r in table.state()["advice"]["display"]}
    assert set(actions) == {"recruit", "brawl", "final_battle"}
    assert actions["recruit"]["fraction"] is None and actions["recruit"]["figure"].startswith("≈ ")
    table.apply_step({"action": "final_battle"})
    (row,) = table.state()["advice"]["display"]
    fight = direct(table)["final_battle"]
    assert row["step"] is None and row["figure"] == f"{fight['win_chance']:.0%} win"
    assert row["note"] == f"about {fight['expected_loss']:,.0f} soldiers lost"


def test_a_tabby_choice_points_at_the_card_and_a_rally_at_its_choice(store, advisor_cache):
    table = Table(store, advisor=TableAdvisor(advisor_cache))
    table.new_game({"players": ["Jane", "Joseph"], "companions": {"Jane": "tabby"}})
    table.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 3, 4, 5, 6], "event": "dragon"}])
    assert table.advisor.wait(60)
    rows = table.state()["advice"]["display"]
    assert {"use": "tabby"} in [r["step"] for r in rows]
    assert rows[0]["step"] == {"action": "roll"}  # the Dragon ate the 1 1 5: roll the rest
    advice = for_page({**direct(table), "rally": {"choice": "item"}, "best": 1})
    assert advice["display"][1]["step"] == {"use": "tabby"}  # a card row never gets a rally


def test_advice_is_computed_once_per_state_change(advised):
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return advise(*args, **kwargs)

    advised.advisor._advise = counting
    advised.apply_step({"action": "recruit"})
    for _ in range(5):
        advised.state()
    assert len(calls) == 1


def test_switched_off_nothing_is_computed_and_it_stays_off(advised, store):
    calls = []
    advised.advisor._advise = lambda *a, **k: calls.append(1) or advise(*a, **k)
    state = advised.set_settings({"advisor": False})
    assert state["advice"] is None and state["settings"] == {"advisor": False}
    advised.apply_steps([{"action": "recruit"}, {"roll": [1, 1, 2, 3, 5, 6], "event": "blank"}])
    assert advised.state()["advice"] is None and calls == []
    again = Table(store, advisor=advised.advisor)  # a restart on the same database
    assert again.state()["settings"] == {"advisor": False} and again.state()["advice"] is None
    assert again.set_settings({"advisor": True})["advice"]["display"]


@pytest.mark.parametrize(("changes", "words"), [
    ({"advisor": "no"}, "true or false"), ({"colour": True}, "Unknown setting"), ([], "JSON object"),
    ({}, "JSON object"),
])
def test_bad_settings_are_refused_and_change_nothing(advised, changes, words):
    before = advised.state()
    with pytest.raises(ValueError, match=words):
        advised.set_settings(changes)
    assert advised.state() == before and advised.store.settings() == {}


def test_no_advice_until_the_tables_are_built_then_the_state_is_sent_again(
        tmp_path, monkeypatch, advisor_cache):
    import shutil

    import companion.advisor as advisor_pkg

    shutil.copytree(advisor_cache, tmp_path / "cache")  # built before: only the wait is new
    release = threading.Event()
    real = advisor_pkg.tables_for

    def slow(table, *, folder=None):
        release.wait(30)
        return real(table, folder=folder)

    monkeypatch.setattr(advisor_pkg, "tables_for", slow)
    table = Table(GameStore(tmp_path / "g.sqlite3"), advisor=TableAdvisor(tmp_path / "cache"))
    seen = []
    table.subscribe(seen.append)
    table.new_game({"players": ["Ann", "Bob"]})
    assert table.state()["advice"] is None  # the page simply shows no advice yet
    release.set()
    assert table.advisor.wait(30)
    assert seen[-1]["advice"]["display"] and seen[-1]["version"] > seen[0]["version"]


def test_a_table_without_an_advisor_has_no_advice(table):
    table.apply_step({"action": "recruit"})
    assert table.state()["advice"] is None
