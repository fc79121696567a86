"""The command line: games, replay (text and JSON), export, cards."""

import json
import random
from pathlib import Path

import pytest

from companion.cli import main
from companion.record import dumps, export_lines
from companion.sim import random_game
from tests.engine.helpers import game_with, trick

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_games_lists_both_editions(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "tezuma-2015" in out and "tezuma " in out


@pytest.fixture
def finished(tmp_path):
    game = random_game("tezuma-2015", 4, random.Random(5), ability_rate=0.4)
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(export_lines(game)) + "\n", encoding="utf-8")
    return game, path


def test_replay_json_matches_the_schema(capsys, finished):
    game, path = finished
    code, out, _ = run(capsys, "replay", "--json", str(path))
    data = json.loads(out)
    assert code == 0
    assert set(data) == {"game", "players", "deals", "totals", "winners", "revokes", "pending"}
    assert data["totals"] == game.totals() and data["winners"] == game.winners() and data["pending"] is None
    trick0 = data["deals"][0]["tricks"][0]
    assert {"winner", "reason", "cards"} <= set(trick0)
    assert set(trick0["cards"][0]) == {"seat", "card", "ability"}
    assert all(len(d["tricks"]) == 12 for d in data["deals"])


def test_replay_text_prints_tricks_scores_and_totals(capsys, finished):
    _game, path = finished
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert out.count("trick ") == 48 and "Totals:" in out and "Winner" in out


def test_replay_of_an_unfinished_journal_names_the_pending_decision(capsys, tmp_path):
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1")
    path = tmp_path / "current.jsonl"
    path.write_text("\n".join(export_lines(game)) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "replay", "--json", str(path))
    assert code == 0 and json.loads(out)["pending"] == {"kind": "play", "seat": 2, "prompt": "P3: play (trick 1)"}


def test_replay_of_an_illegal_record_prints_what_it_could_then_fails(capsys, tmp_path):
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1", "B2", "B3")
    lines = [*export_lines(game), dumps({"type": "play", "seat": 0, "cards": ["B9"]})]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 1
    assert "trick  1" in out and f"line {len(lines)}" in err and "B9 was already played" in err


def test_replay_of_a_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err


def test_export_folds_undos(capsys, tmp_path):
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1")
    lines = export_lines(game)
    journal = [*lines, dumps({"type": "play", "seat": 2, "cards": ["B5"]}), dumps({"type": "undo"})]
    src = tmp_path / "journal.jsonl"
    src.write_text("\n".join(journal) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "export", str(src))
    assert code == 0 and out.splitlines() == lines


def test_cards_set_list_delete_export_import(capsys, tmp_path):
    facts = tmp_path / "facts.json"
    assert run(capsys, "cards", "--facts", str(facts), "set", "tezuma-2015", "points:3:5", "8")[0] == 0
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "list")
    assert "tezuma-2015 points:3:5 = 8 (told by a table)" in out
    assert "tezuma-2015 points:1 (chart #1): points for 8-12 tricks" in out
    code, _, err = run(capsys, "cards", "--facts", str(facts), "set", "tezuma-2015", "points:9:5", "8")
    assert code == 2 and "points:<card>:<tricks>" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"tezuma-2015": {"points": {"3": {"5": 9}}}, "tezuma": {"points": {"C": {"4": 6}}}}))
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "import", str(other))
    assert code == 0 and "changed: tezuma-2015 points:3:5: 8 -> 9" in out
    code, out, _ = run(capsys, "cards", "--facts", str(facts), "export")
    assert json.loads(out) == {"tezuma-2015": {"points": {"3": {"5": 9}}}, "tezuma": {"points": {"C": {"4": 6}}}}
    assert run(capsys, "cards", "--facts", str(facts), "delete", "tezuma", "points:C:4")[0] == 0
    assert json.loads(facts.read_text()) == {"tezuma-2015": {"points": {"3": {"5": 9}}}}


def test_cards_refuses_a_damaged_facts_file(capsys, tmp_path):
    facts = tmp_path / "facts.json"
    facts.write_text("{not json")
    code, _, err = run(capsys, "cards", "--facts", str(facts), "list")
    assert code == 2 and "not valid JSON" in err
    assert facts.read_text() == "{not json"  # nothing lost


@pytest.mark.parametrize("name", ["tezuma-2015.jsonl", "tezuma.jsonl"])
def test_shipped_examples_replay_to_the_end(capsys, name):
    code, out, _ = run(capsys, "replay", "--json", str(EXAMPLES / name))
    data = json.loads(out)
    assert code == 0 and data["pending"] is None and data["winners"]
