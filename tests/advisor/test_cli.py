"""`dragon-farkle advise`: the issue's JSON shape and the text with bars."""
from __future__ import annotations

import json

from companion.cli import main

KEYS = {"dice", "soldiers", "dice_left", "farkle_chance", "bank", "roll_on", "expected"}


def run(capsys, cache_folder, *argv: str) -> tuple[int, str, str]:
    code = main(["advise", *argv, "--cache", str(cache_folder)])
    out, err = capsys.readouterr()
    return code, out, err


def test_recruit_json_has_exactly_the_issue_shape(capsys, cache_folder, tables) -> None:
    code, out, _ = run(capsys, cache_folder, "2", "3", "4", "4", "4", "5", "--event", "blank", "--json")
    assert code == 0
    answer = json.loads(out)
    assert set(answer) == {"options", "best", "then"}
    assert [o["dice"] for o in answer["options"]] == [[5], [4, 4, 4], [4, 4, 4, 5]]
    for o in answer["options"]:
        assert set(o) == KEYS
        assert o["expected"] == max(o["bank"], o["roll_on"])
    assert answer["options"][2]["dice_left"] == 2 and answer["options"][2]["bank"] == 450
    assert answer["best"] == max(range(3), key=lambda i: answer["options"][i]["expected"])
    assert answer["then"] in ("roll", "stop")


def test_hot_dice_leave_six_and_turn_total_counts(capsys, cache_folder, tables) -> None:
    _code, out, _ = run(capsys, cache_folder, "1", "5", "--event", "blank", "--turn-total", "300", "--json")
    both = json.loads(out)["options"][-1]
    assert both["dice"] == [1, 5] and both["dice_left"] == 6 and both["bank"] == 450


def test_rally_doubles_and_dragon_forces(capsys, cache_folder, tables) -> None:
    _, out, _ = run(capsys, cache_folder, "1", "1", "3", "4", "--event", "rally", "--turn-total", "150", "--json")
    rally = json.loads(out)
    assert [o["soldiers"] for o in rally["options"]] == [200, 400]
    assert rally["rally"]["choice"] == "double" and rally["rally"]["item_costs"] >= 0
    _, out, _ = run(capsys, cache_folder, "1", "4", "--event", "dragon", "--turn-total", "450", "--json")
    dragon = json.loads(out)
    assert dragon["options"][0]["soldiers"] == 0 and dragon["options"][0]["bank"] == 450


def test_text_output_marks_the_best_with_a_bar(capsys, cache_folder, tables) -> None:
    code, out, _ = run(capsys, cache_folder, "2", "3", "4", "4", "4", "5", "--event", "blank")
    assert code == 0
    marked = [line for line in out.splitlines() if line.startswith(">")]
    assert len(marked) == 1 and "4 4 4 5" in marked[0] and "#" in marked[0]
    assert "Best: set aside 4 4 4 5" in out


def test_brawl_and_final_battle(capsys, cache_folder, tables) -> None:
    _, out, _ = run(capsys, cache_folder, "1", "3", "4", "4", "6", "--event", "blank", "--action", "brawl",
                    "--target", "650", "--json")
    brawl = json.loads(out)
    assert brawl["measure"] == "win_chance" and brawl["target"] == 650
    assert 0 < brawl["options"][0]["expected"] < 1
    _, out, _ = run(capsys, cache_folder, "1", "3", "3", "3", "4", "6", "--event", "rally",
                    "--action", "final-battle", "--army", "2000", "--json")
    fight = json.loads(out)
    assert fight["army"] == 1600 and fight["damage"] == 2 and fight["dice_left"] == 2
    assert 0 < fight["win_chance"] < 1 and fight["expected_loss"] > 0


def test_bad_input_is_a_clear_error(capsys, cache_folder, tables) -> None:
    code, _, err = run(capsys, cache_folder, "7", "2", "--event", "blank")
    assert code == 2 and "1 to 6" in err
    code, _, err = run(capsys, cache_folder, "1", "2", "--event", "blank", "--turn-total", "30")
    assert code == 2 and "multiple of 50" in err


def test_a_users_table_file_is_solved_and_used(capsys, cache_folder, tmp_path) -> None:
    mat = tmp_path / "our-mat.json"
    mat.write_text(json.dumps({"name": "ours", "three_pairs": 1500, "straight": 2500}))
    code, out, _ = run(capsys, cache_folder, "1", "2", "3", "4", "5", "6", "--event", "blank",
                       "--table", str(mat), "--json")
    assert code == 0
    straight = json.loads(out)["options"][-1]
    assert straight["dice"] == [1, 2, 3, 4, 5, 6] and straight["soldiers"] == 2500
    assert straight["dice_left"] == 6
    assert list(cache_folder.glob("ours-*.npz"))
