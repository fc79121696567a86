"""Plain Tricks' simulated table: real hands of four, and every seat follows whenever it can."""

from __future__ import annotations

import random
from typing import Any

from companion.engine.base import Game
from companion.engine.tricks import SuitedCard
from companion.sim import DealingTable, cut
from tests.plain_tricks.rules import DECK, TRICKS, Play


class PlainTable(DealingTable):
    """Real hands, and every seat follows whenever it can."""

    def __init__(self, game: Game[Any], rng: random.Random, rate: float) -> None:
        self.hands: list[list[SuitedCard]] = []

    def deal(self, game: Any, rng: random.Random) -> None:
        deck = list(DECK)
        rng.shuffle(deck)
        self.hands = cut(deck, TRICKS, game.n)

    def choose(self, game: Any, rng: random.Random) -> Play:
        decision = self.next_decision(game, rng)
        hand = self.hands[decision.seat]
        owed = game.must_follow(game.state.deal.trick)
        return Play(decision.seat, rng.choice([card for card in hand if card.suit in owed] or hand))

    def after(self, game: Game[Any], action: Any) -> None:
        self.hands[action.seat].remove(action.card)
