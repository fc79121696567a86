"""The layer's card odds (``TrickGame.card_odds``), which the screens start their pickers by: the
lead suit from a seat that may hold it, a suit's highest and lowest unseen card by the one belief
about players, nothing of a suit the seat declined; and, for every game, odds for exactly the cards
asked about, none negative, somewhere above zero."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.engine.tricks import EXTREME_RATE, EXTREME_WEIGHT, FOLLOW_WEIGHT, SuitedCard, TrickGame
from companion.sim import PeopleRandom, new_random_game, table_model
from tests.games import every_simulated_game
from tests.plain_tricks.rules import DECK, PlainTricks

pytestmark = pytest.mark.usefixtures("with_the_test_game")


def test_the_lead_suit_the_extremes_and_a_declined_suit() -> None:
    """P2 declined G (played B3 on G1); P1 leads R1: P2's unseen R cards are likeliest, R3 and R5 (the
    lowest and highest unseen R) more than R4, every G card none, B1 and B6 more than the other Bs."""
    game = PlainTricks(PlainTricks.new_setup(["A", "B"], cards={}))
    for text in ("R2", "R6", "G1", "B3", "R1"):
        game.push_text(text)
    odds = game.card_odds(1, game.unseen(DECK))
    card = SuitedCard.parse
    assert odds[card("R4")] == FOLLOW_WEIGHT and odds[card("R3")] == odds[card("R5")] == FOLLOW_WEIGHT * EXTREME_WEIGHT
    assert all(odds[card(f"G{rank}")] == 0.0 for rank in range(2, 7))
    assert odds[card("B1")] == odds[card("B6")] == EXTREME_WEIGHT and odds[card("B4")] == 1.0
    assert set(odds) == set(game.unseen(DECK))


def test_a_leader_owes_nothing() -> None:
    game = PlainTricks(PlainTricks.new_setup(["A", "B"], cards={}))
    odds = game.card_odds(1, DECK)
    assert {odds[SuitedCard(suit, 3)] for suit in "RGB"} == {1.0}
    assert {odds[SuitedCard(suit, 6)] for suit in "RGB"} == {EXTREME_WEIGHT}


def test_the_belief_about_players_is_the_one_the_people_table_plays_by() -> None:
    """The screens' extreme weight comes from the rate the simulated people play their extremes at."""
    assert EXTREME_WEIGHT == 1 / (1 - EXTREME_RATE)
    cards = [SuitedCard("R", rank) for rank in (2, 4, 5, 6)]
    rng = PeopleRandom(5)
    extremes = sum(rng.choice(cards).rank in (2, 6) for _ in range(4000)) / 4000
    assert extremes == pytest.approx(EXTREME_RATE + (1 - EXTREME_RATE) / 2, abs=0.03)


@pytest.mark.parametrize("game_id", every_simulated_game())
def test_every_games_odds_cover_the_cards_asked_and_none_is_negative(game_id: str) -> None:
    """Through a simulated game, at every play: each unseen card the acting seat may put down has odds."""
    rng = random.Random(11)
    game = new_random_game(game_id, 3, rng)
    table = table_model(game, rng)
    checked = 0
    for _ in range(300):
        if game.is_over():
            break
        action = table.choose(game, rng)
        decision = game.decision
        if isinstance(game, TrickGame) and decision is not None and decision.kind == "play" and cards_of(action):
            assert decision.actor is not None
            odds = game.card_odds(decision.actor, offered(game))
            assert set(cards_of(action)) <= set(odds) and all(weight >= 0 for weight in odds.values())
            assert max(odds.values()) > 0
            checked += 1
        game.push(action)
        table.after(game, action)
    assert checked > 0


def cards_of(action: Any) -> tuple[Any, ...]:
    """The cards an action puts down: one (``.card``), several (``.cards``) or none."""
    card = getattr(action, "card", None)
    return (card,) if card is not None else tuple(getattr(action, "cards", ()))


def offered(game: TrickGame[Any]) -> list[Any]:
    """The cards of the legal plays, as a picker offers them (each once)."""
    return list(dict.fromkeys(card for action in game.legal_actions for card in cards_of(action)))
