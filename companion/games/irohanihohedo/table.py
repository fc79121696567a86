"""A simulated Irohanihohedo table: real hands of 9 from the deck in play, following any colour present.

The table holds a real deck: for 3-5 players, the numbers on the cards whose icons admit the player
count (unknown to the text, so the table model picks them at random, the same numbers in every
colour). Asked which numbers are in play, it answers with them, or skips the question (the house
ruling) at the table model's rate.
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine.base import Answer
from companion.engine.tricks import SuitedCard
from companion.games.irohanihohedo.rules import Irohanihohedo, Play, deck_mask
from companion.sim import DealingTable, cut


class IrohanihohedoTable(DealingTable):
    """Deals each deal's hands (the pass to the left changes nothing the device sees) and plays
    only what a holder may: a colour already in the trick if the hand has one."""

    def __init__(self, game: Irohanihohedo, rng: random.Random, skip_rate: float) -> None:
        self.hands: list[list[SuitedCard]] = []
        self.skip_rate = skip_rate
        known = game.deck_facts.numbers if game.state.numbers is None else game.state.numbers
        everything = list(game.setup.cards["numbers"])
        self.numbers = sorted(known if known is not None and len(known) == game.deck_facts.wanted
                              else rng.sample(everything, game.deck_facts.wanted))

    def deal(self, game: Irohanihohedo, rng: random.Random) -> None:
        deck = [SuitedCard(colour, number) for colour in game.colours for number in self.numbers]
        rng.shuffle(deck)
        self.hands = [sorted(hand) for hand in cut(deck, game.hand_size, game.n)]

    def choose(self, game: Irohanihohedo, rng: random.Random) -> Any:
        decision = self.next_decision(game, rng)
        if decision.question is not None:  # the deck question: the table's numbers, or a skip
            told = 0 if rng.random() < self.skip_rate else deck_mask(game.setup.cards, self.numbers)
            return Answer(decision.question.key, told)
        return rng.choice(self.plays_for(game, decision.seat))

    def plays_for(self, game: Irohanihohedo, seat: int) -> list[Play]:
        owed = game.must_follow(game.state.deal.trick)
        hand = self.hands[seat]
        following = [card for card in hand if card.suit in owed]
        return [Play(seat, card) for card in (following or hand)]

    def after(self, game: Irohanihohedo, action: Any) -> None:
        if isinstance(action, Play) and action.card in self.hands[action.seat]:
            self.hands[action.seat].remove(action.card)
