"""The shipped example record (3 players, so the NPC plays) and `companion replay` on Tourney."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.tourney.rules import Predict, PredictionsDown, Tourney
from companion.record import export_lines, read_record

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tourney.jsonl"
# The same game as records wrote it before predictions were entered by suit: each names its card
CARD_PREDICTIONS = Path(__file__).resolve().parent / "data" / "card-predictions.jsonl"
# The example as it was written while the device asked every prediction before the plays
FIRST = Path(__file__).resolve().parent / "data" / "suit-predictions-first.jsonl"


def replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["replay", *argv, str(EXAMPLE)])
    return code, capsys.readouterr().out


def test_the_example_is_a_whole_three_player_game_entered_as_the_device_asks() -> None:
    """Every trick: the playing cards in turn, a ``down`` line where the NPC's turn comes straight after
    a player's lead, then the predictions at the reveal; the same game as the record written while the
    device asked the predictions first (data/suit-predictions-first.jsonl), with the same summary."""
    played = read_record(EXAMPLE.read_text(encoding="utf-8").splitlines()).game
    assert played.is_over() and played.setup.players == ("Aki", "Ben", "Chie")
    game = Tourney(played.setup)
    for action in played.actions:
        if isinstance(action, Predict):
            assert len(game.trick.turns) == game.places, f"a prediction before the trick's last card: {action}"
        if isinstance(action, PredictionsDown):
            assert game.npc_waits(game.deal) and len(game.trick.turns) == 1
        game.push(action)
    assert game.summary() == played.summary()
    assert any(isinstance(action, PredictionsDown) for action in played.actions)
    before = read_record(FIRST.read_text(encoding="utf-8").splitlines()).game
    assert before.summary() == played.summary()


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


def test_the_example_enters_every_prediction_by_its_suit() -> None:
    played = read_record(EXAMPLE.read_text(encoding="utf-8").splitlines()).game
    predictions = [action for action in played.actions if isinstance(action, Predict)]
    assert len(predictions) == 63 and all(prediction.card is None for prediction in predictions)


def test_a_record_naming_each_predictions_card_still_replays_and_exports_unchanged(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Records written before suit-only predictions: read, replayed and written back byte for byte, and
    scored exactly as the same game with its predictions entered by suit (only ``predictions`` in the
    summary says the card)."""
    lines = CARD_PREDICTIONS.read_text(encoding="utf-8").splitlines()
    old = read_record(lines).game
    assert export_lines(old) == lines
    assert all(action.card is not None for action in old.actions if isinstance(action, Predict))
    new = read_record(EXAMPLE.read_text(encoding="utf-8").splitlines()).game
    old_summary, new_summary = old.summary(), new.summary()
    for summary in (old_summary, new_summary):
        for deal in summary["deals"]:
            for trick in deal["tricks"]:
                trick["predictions"] = [None if p is None else p[0] for p in trick["predictions"]]
    assert old_summary == new_summary
    assert main(["replay", str(CARD_PREDICTIONS)]) == 0
    old_text = capsys.readouterr().out
    assert main(["replay", str(EXAMPLE)]) == 0
    assert capsys.readouterr().out == old_text and "Winner" in old_text  # the text shows no prediction
