"""The shipped example record (3 players, so the NPC plays) and `companion replay` on Tourney."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.record import read_record
from companion.games.tourney import Play, Tourney

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tourney.jsonl"


def replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["replay", *argv, str(EXAMPLE)])
    return code, capsys.readouterr().out


def test_the_example_is_a_whole_three_player_game_entered_in_the_books_order() -> None:
    """Every trick: the lead's card, every prediction, then the plays; the NPC's card after the last
    prediction (or as the lead). The engine still accepts the other order: test_rules.py."""
    played = read_record(EXAMPLE.read_text(encoding="utf-8").splitlines()).game
    assert played.is_over() and played.setup.players == ("Aki", "Ben", "Chie")
    game = Tourney(played.setup)
    for action in played.actions:
        if isinstance(action, Play) and game.trick.turns:
            assert not game.missing_predictions(game.trick), f"a play while predictions are open: {action}"
        game.push(action)
    assert game.summary() == played.summary()


def test_replay_json_gives_places_and_hits_per_trick(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = replay(capsys, "--json")
    data = json.loads(out)
    assert code == 0 and data["pending"] is None and data["winners"]
    tricks = [trick for deal in data["deals"] for trick in deal["tricks"]]
    assert len(tricks) == 21
    for trick in tricks:
        assert sorted(trick["places"]) == [1, 2, 3, 4]
        assert trick["places"][trick["winner"]] == 1
        assert trick["hits"][3] is None and all(isinstance(hit, bool) for hit in trick["hits"][:3])
    assert any(trick["winner"] == 3 for trick in tricks)  # the NPC wins some
    for deal in data["deals"]:
        assert deal["scores"] == [h + t for h, t in zip(deal["hit_points"], deal["trick_points"], strict=True)]
        assert len(deal["npc_row"]) == 7
        # per player, so 3 entries; tricks_won has the NPC's as a 4th (record-format.md says so)
        assert len(deal["hit_points"]) == len(deal["trick_points"]) == 3 and len(deal["tricks_won"]) == 4


def test_replay_text_names_the_npc_and_prints_every_trick(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = replay(capsys)
    assert code == 0
    assert out.count("\n  trick ") == 21 and "NPC:" in out and "for predictions" in out and "Winner" in out
    assert "places [" not in out  # the data is in --json; the text says it in words
    assert "front card of" in out  # the NPC's card explained
