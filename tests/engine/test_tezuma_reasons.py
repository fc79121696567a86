"""Tezuma's reasons are codes now: said in English by the Formatter, they are the sentences the engine
wrote before it moved onto the trick-taking layer, trick for trick (data/tezuma-reasons.json holds
6,720 random tricks as that engine adjudicated them), and the example records replay as before (with
the scores' wording the first-hour review asked for: "1 trick", a penalty only when there is one)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from companion.cli import main
from companion.sim import random_game
from tests.engine.helpers import english

DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
CAPTURED = json.loads((DATA / "tezuma-reasons.json").read_text(encoding="utf-8"))["games"]


@pytest.mark.parametrize("chunk", range(4))
def test_random_tricks_read_and_go_as_before(chunk: int) -> None:
    compared = 0
    for captured in CAPTURED[chunk::4]:
        game = random_game(captured["game"], captured["players"], random.Random(captured["seed"]),
                           ability_rate=captured["ability_rate"])
        now = [[t.result.winner, t.result.next_lead, english(game, t.result)]
               for deal in game.state.deals for t in deal.tricks if t.result is not None]
        assert now == captured["tricks"], f"{captured['game']} seed {captured['seed']}"
        assert game.totals() == captured["totals"]
        compared += len(now)
    assert compared > 1000


@pytest.mark.parametrize("name", ["tezuma-2015", "tezuma"])
def test_example_records_replay_to_the_same_text(capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert main(["replay", str(EXAMPLES / f"{name}.jsonl")]) == 0
    assert capsys.readouterr().out == (DATA / f"{name}.replay.txt").read_text(encoding="utf-8")
