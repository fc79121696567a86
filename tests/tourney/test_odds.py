"""Tourney's odds (the engine's, which the pickers start by): a card scaled by the share of its
suit's unseen cards that can still be in a hand; a prediction's suit by how many of it can still be
out of sight, none of a suit the seat proved it lacks."""

from __future__ import annotations

import pytest

from companion.engine.tricks import SuitedCard
from companion.games.tourney.rules import Tourney
from tests.tourney.test_ui import simulated


def revealed_by_suit() -> Tourney:
    """Four Shamrocks played and four revealed by suit alone: ten are unseen, six can be in a hand."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=simulated(4).setup.cards))
    for text in ("S1", "S2", "S3", "S4", "S", "S", "S", "S"):
        game.push_text(text)
    return game


def test_a_suit_revealed_by_suit_alone_weighs_its_unseen_cards_by_what_can_still_be_held() -> None:
    game = revealed_by_suit()
    unseen = [card for card in game.deck() if card not in game.deal.seen]
    seat = game.next_player()
    odds = game.card_odds(seat, unseen)
    assert game.room("S") == 6
    assert odds[SuitedCard("S", 7)] == pytest.approx(0.6 * odds[SuitedCard("W", 7)])
    assert set(odds) == set(unseen)


def test_a_predictions_suit_is_likeliest_where_most_can_still_be_out_of_sight() -> None:
    game = revealed_by_suit()
    odds = game.suit_odds(0)
    assert odds == {suit: game.room(suit) for suit in game.open_suits()} and odds["S"] < odds["W"]
    game.deal.watch.declined[0].append(("W", 0))
    assert game.suit_odds(0)["W"] == 0 and game.suit_odds(1)["W"] == game.room("W")
