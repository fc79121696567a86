"""The trick-game contract, through Plain Tricks (a game that implements only the contract).

The shared property tests (test_every_game.py) run on it like on every product game; these check
what the contract itself promises: its abstract methods, a deal's scores and totals, and a deal that
waits, visibly, for a card fact before it can be scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from companion.engine.base import ActionType, Answer, Question
from companion.engine.tricks import Deal, FactNeeded, SuitedCard, TrickGame
from companion.errors import CompanionError, IllegalAction, NoSeat
from companion.registry import extra_package, game_class
from tests.games import TEST_GAME_PACKAGE
from tests.plain_tricks.rules import PlainTricks, Play

# A two-player deal, P2 leading: P1 wins R6, P2 G5 and R5 (P1 discards B6), P1 B2.
DEAL = ["R2", "R6", "G1", "G5", "R5", "B6", "B1", "B2"]


def new_game() -> PlainTricks:
    return PlainTricks(PlainTricks.new_setup(["A", "B"], cards={}))


def test_a_trick_game_must_give_the_contracts_abstract_methods() -> None:
    """Exactly the three the docstring of engine/tricks.py lists: the rest comes from the layer and the actions."""
    assert TrickGame.__abstractmethods__ == {"tricks_in_deal", "resolve", "score_deal"}
    lacking = type("Lacking", (PlainTricks,), {"resolve": TrickGame.resolve})  # the layer's, not Plain's
    with pytest.raises(TypeError, match=r"abstract method.*resolve"):
        lacking(lacking.new_setup(["A", "B"], cards={}))


def test_a_played_deal_scores_tricks_and_sixes_and_the_next_deal_starts() -> None:
    game = new_game()
    for text in DEAL:
        game.push_text(text)
    first = game.state.deals[0]
    assert [trick.result.winner for trick in first.tricks if trick.result] == [0, 1, 1, 0]
    assert first.scores == [2 + 1, 2 + 1] and game.totals() == [3, 3]
    assert len(game.state.deals) == 2 and game.decision is not None and game.decision.seat == 0  # P2 deals, P1 leads


class FactTricks(PlainTricks):
    """Plain Tricks whose 6s are worth a number the print lost: the table tells it once."""

    game_id = "fact-tricks"
    KEY = "points:six"
    action_types: ClassVar[Mapping[str, ActionType]] = {"answer": Answer, **PlainTricks.action_types}  # read first

    def score_deal(self, deal: Deal[Any]) -> list[int] | FactNeeded:
        six = self.state.learned.get(self.KEY)
        if six is None:
            return FactNeeded(Question(self.KEY, "points for a 6?", 0, 5))
        return [won + six * sum(card.rank == 6 for card in captured)
                for won, captured in zip(deal.tricks_won, deal.captured, strict=True)]



def test_a_deal_that_needs_a_card_fact_waits_for_it_in_state_and_decision() -> None:
    game = FactTricks(FactTricks.new_setup(["A", "B"], cards={}))
    for text in DEAL:
        game.push_text(text)
    deal = game.state.deal
    assert deal.index == 0 and deal.scores is None and deal.missing_fact is not None
    decision = game.decision
    assert decision.kind == "answer" and decision.question == deal.missing_fact and decision.actor is None
    assert game.pending() == {"kind": "answer", "seat": None, "prompt": "points for a 6?", "question": "points:six"}
    with pytest.raises(NoSeat):
        _ = decision.seat
    game.push_text("3")
    assert deal.scores == [2 + 3, 2 + 3] and deal.missing_fact is None and len(game.state.deals) == 2
    game.pop()
    assert game.state.deal.missing_fact is not None and game.totals() == [0, 0]


def test_the_tables_answer_checks_applies_lists_and_reads_itself_through_the_layer() -> None:
    """An Answer is a GameAction: a game that lists it in its action types gives nothing more."""
    game = FactTricks(FactTricks.new_setup(["A", "B"], cards={}))
    with pytest.raises(IllegalAction, match="no question about 'points:six' is open"):
        game.check(Answer(FactTricks.KEY, 3))
    assert game.parse("R2") == Play(1, SuitedCard("R", 2))  # no question open: the text is a card
    for text in DEAL:
        game.push_text(text)
    question = game.state.deal.missing_fact
    answers = [action for action in game.generate_legal_actions() if isinstance(action, Answer)]
    assert answers == [Answer(FactTricks.KEY, value) for value in range(question.minimum, question.maximum + 1)]
    with pytest.raises(IllegalAction, match=f"points are 0-{question.maximum}, not 100") as refused:
        game.check(Answer(FactTricks.KEY, 100))
    assert refused.value.code == "answer_range"
    with pytest.raises(IllegalAction, match="answer with a number: points for a 6"):
        game.parse("R2")
    assert game.parse("4") == Answer(FactTricks.KEY, 4)


def test_only_the_tests_know_the_test_game() -> None:
    package = Path(__file__).resolve().parents[2] / "companion"
    assert not [path for path in package.rglob("*.py") if "plain_tricks" in path.read_text(encoding="utf-8")]


def test_the_test_game_is_not_a_product_game() -> None:
    with pytest.raises(CompanionError, match="unknown game"):
        game_class(PlainTricks.game_id)
    with extra_package(TEST_GAME_PACKAGE):
        assert game_class(PlainTricks.game_id) is PlainTricks


def test_the_layer_checks_parses_and_lists_through_the_games_actions() -> None:
    """check, parse and generate_legal_actions are the layer's: they ask the game's GameActions."""
    game = new_game()
    assert len(list(game.generate_legal_actions())) == 18  # the lead may put down any of the deck
    with pytest.raises(IllegalAction, match="is not an action of Plain Tricks"):
        game.check(Answer("points:six", 3))  # an action, but not one of this game's
    with pytest.raises(IllegalAction, match="P2's turn"):
        game.check(Play(0, SuitedCard("R", 6)))  # P2 leads the first deal
    speechless = type("Speechless", (PlainTricks,), {"action_types": {}})
    with pytest.raises(IllegalAction, match="'R6' is not an action of Plain Tricks"):
        speechless(speechless.new_setup(["A", "B"], cards={})).parse("R6")


def test_a_finished_game_refuses_every_action() -> None:
    game = new_game()
    for _ in range(2):
        for text in DEAL:
            game.push_text(text)
    assert game.decision is None and list(game.generate_legal_actions()) == []
    with pytest.raises(IllegalAction, match="the game is over"):
        game.parse("R1")
