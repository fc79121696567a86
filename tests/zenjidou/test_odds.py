"""Zenjidou's card odds (the engine's, which the card screen starts by): a hand that must follow
likelier in the lead colour unless it declined it, L lowest on the lowest unseen cards, L closest on
those nearest the last card put down, and every card alike before a rule is chosen."""

from __future__ import annotations

from companion.engine.tricks import FOLLOW_WEIGHT
from companion.games.zenjidou.rules import Card, Play, Zenjidou
from tests.zenjidou.helpers import new_game, plain_facts, start_round


def odds_now(game: Zenjidou) -> dict[Card, float]:
    """The odds of the seat to play over the cards it is offered."""
    seat = game.decision.seat  # type: ignore[union-attr]
    return game.card_odds(seat, [action.card for action in game.legal_actions])


def test_a_hand_that_must_follow_is_likelier_in_the_lead_colour() -> None:
    game = new_game(3, plain_facts())  # colour n % 5
    start_round(game, 30, "K", [31, 32, 29])
    game.push(Play(game.decision.seat, 10))  # type: ignore[union-attr]
    odds = odds_now(game)
    assert odds[Card(15)] == FOLLOW_WEIGHT * odds[Card(16)]
    game.state.deal.watch.declined[game.decision.seat].append((game.colours[0], 0))  # type: ignore[union-attr]
    declined = odds_now(game)
    assert declined[Card(15)] == declined[Card(16)]


def test_l_lowest_weighs_the_lowest_unseen_cards_most() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "L lowest", [31, 32, 29])
    odds = odds_now(game)
    cards = sorted(odds)
    assert [odds[card] for card in cards] == sorted(odds.values(), reverse=True) and odds[cards[0]] > odds[cards[1]]


def test_l_closest_weighs_the_cards_nearest_the_last_one_most() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "L closest", [31, 32, 29])
    game.push(Play(game.decision.seat, 10))  # type: ignore[union-attr]
    odds = odds_now(game)
    assert max(odds, key=odds.__getitem__) in (9, 11) and odds[Card(9)] == odds[Card(11)] > odds[Card(12)]


def test_before_the_rule_every_card_is_alike() -> None:
    game = new_game(3, plain_facts())
    assert set(game.card_odds(0, [Card(n) for n in range(1, 33)]).values()) == {1.0}
