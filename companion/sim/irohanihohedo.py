"""A simulated Irohanihohedo table: real hands of 9 from the deck in play, following any colour present."""

from __future__ import annotations

import random
from typing import Any

from companion.engine.tricks import SuitedCard
from companion.games.irohanihohedo import Irohanihohedo, Play
from companion.sim import TABLE_MODELS, DealingTable, cut


class IrohanihohedoTable(DealingTable):
    """Deals each deal's hands (the pass to the left changes nothing the device sees) and plays
    only what a holder may: a colour already in the trick if the hand has one."""

    def __init__(self, game: Irohanihohedo, rng: random.Random, ability_rate: float) -> None:
        self.hands: list[list[SuitedCard]] = []

    def deal(self, game: Irohanihohedo, rng: random.Random) -> None:
        self.hands = [sorted(hand) for hand in cut(self.deck(game, rng), game.hand_size, game.n)]

    @staticmethod
    def deck(game: Irohanihohedo, rng: random.Random) -> list[SuitedCard]:
        """The cards in play: 2 x players of each colour, from the numbers the game accepts."""
        per_colour = game.setup.cards["cards_per_colour_per_player"] * game.n
        deck = []
        for colour in game.colours:
            numbers = game.numbers if len(game.numbers) <= per_colour else rng.sample(game.numbers, per_colour)
            deck += [SuitedCard(colour, number) for number in numbers]
        rng.shuffle(deck)
        return deck

    def choose(self, game: Irohanihohedo, rng: random.Random) -> Any:  # type: ignore[override]
        decision = self.next_decision(game, rng)
        return rng.choice(self.plays_for(game, decision.seat or 0))  # every decision here is a seat's play

    def plays_for(self, game: Irohanihohedo, seat: int) -> list[Play]:
        owed = game.must_follow(game.state.deal.trick)
        hand = self.hands[seat]
        following = [card for card in hand if card.suit in owed]
        return [Play(seat, card) for card in (following or hand)]

    def after(self, game: Irohanihohedo, action: Any) -> None:  # type: ignore[override]
        if isinstance(action, Play) and action.card in self.hands[action.seat]:
            self.hands[action.seat].remove(action.card)


TABLE_MODELS[Irohanihohedo.game_id] = IrohanihohedoTable  # type: ignore[assignment]
