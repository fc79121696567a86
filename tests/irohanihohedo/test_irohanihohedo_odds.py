"""Irohanihohedo's card odds (the engine's, which the picker starts by): every colour already in the
trick is owed, each owed card as likely as the chance the seat holds one of them, a declined colour
out, a colour's highest and lowest unseen weighing more."""

from __future__ import annotations

import pytest

from companion.engine.tricks import EXTREME_WEIGHT, SuitedCard, extreme_cards
from companion.games.irohanihohedo.rules import Irohanihohedo
from tests.irohanihohedo.test_irohanihohedo_presses import dealt
from tests.ui.helpers import texts


def bird_then_fan() -> tuple[Irohanihohedo, int, list[SuitedCard]]:
    """P2 led bird (O2), P3 played fan (G3): the game, the seat to play (P1) and the unseen cards."""
    game = dealt()
    for action in texts(game, "O2", "G3"):
        game.push(action)
    assert isinstance(game, Irohanihohedo)
    return game, game.seat_to_play(game.state.deal.trick), game.unseen(game.deck())


def test_owed_colours_share_the_chance_the_seat_holds_one() -> None:
    """P2 led bird (O2), P3 played fan (G3): P1 owes both. Without the extremes' weight, the odds
    of the unseen cards are one chance split between them (they sum to 1), the owed ones likelier."""
    game, seat, unseen = bird_then_fan()
    odds = game.card_odds(seat, unseen)
    extremes = extreme_cards(unseen)
    assert sum(odds[card] / (EXTREME_WEIGHT if card in extremes else 1.0) for card in unseen) == pytest.approx(1.0)
    assert odds[SuitedCard("O", 4)] == odds[SuitedCard("G", 4)] > odds[SuitedCard("R", 4)] > 0
    assert odds[SuitedCard("O", 6)] == EXTREME_WEIGHT * odds[SuitedCard("O", 4)]


def test_a_declined_colour_is_out_and_the_rest_of_the_owed_take_its_share() -> None:
    game, seat, unseen = bird_then_fan()
    before = game.card_odds(seat, unseen)
    game.state.deal.watch.declined[seat].append(("O", 0))
    odds = game.card_odds(seat, unseen)
    assert odds[SuitedCard("O", 4)] == 0.0
    assert odds[SuitedCard("G", 4)] > before[SuitedCard("G", 4)] and odds[SuitedCard("G", 4)] > odds[SuitedCard("R", 4)]


def test_a_leader_owes_nothing_and_every_colour_is_alike() -> None:
    game = dealt()
    seat = game.seat_to_play(game.state.deal.trick)
    odds = game.card_odds(seat, game.unseen(game.deck()))
    assert len({odds[SuitedCard(colour, 4)] for colour in game.colours}) == 1
