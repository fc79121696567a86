"""A simulated Tourney table: real hands of 14, the NPC's row laid by suit, following the lead suit.

Tourney has no abilities; the table model's rate is instead the chance that a trick's predictions
come from the seats in random order (as the book allows) rather than round from the lead. The
table follows the device's prompts: every prediction before the plays. ``reveal_rate`` (0 unless a
test sets it) is the chance that it enters a trick's plays first and the predictions when they are
revealed, as records from before the device kept the book's order do: the engine still accepts
them, and both orders must fold to the same state.

A prediction is a real card of the seat's hand put down face down, but what the table enters is
its suit (all the device asks): the table keeps which card it was and takes it out of the hand.
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine.tricks import SuitedCard
from companion.games.tourney.rules import NpcRow, Play, Predict, Tourney
from companion.sim import DealingTable, cut


class TourneyTable(DealingTable):
    """Deals each deal's hands (and with three players the NPC's row and prediction pile)."""

    def __init__(self, game: Tourney, rng: random.Random, shuffle_rate: float) -> None:
        self.shuffle_rate = shuffle_rate
        self.reveal_rate = 0.0
        self.hands: list[list[SuitedCard]] = []
        self.npc_row: list[SuitedCard] = []
        self.npc_pile: list[SuitedCard] = []
        self.predicted: dict[Predict, SuitedCard] = {}  # the card behind each prediction chosen, by its entry
        self.deal_if_new(game, rng)

    def deck(self, game: Tourney) -> list[SuitedCard]:
        return game.deck()

    def deal(self, game: Tourney, rng: random.Random) -> None:
        deck = self.deck(game)
        rng.shuffle(deck)
        size = game.setup.cards["hand_size"]
        self.hands = [sorted(hand) for hand in cut(deck, size, game.n)]
        rest = deck[game.n * size:]
        laid = rest[: game.npc_cards] if game.npc is not None else []
        suit_rows = list(game.suits)
        rng.shuffle(suit_rows)  # the rows lie in any order; within a row, in the random order dealt
        self.npc_row = [card for suit in suit_rows for card in laid if card.suit == suit]
        self.npc_pile = rest[game.npc_cards:] if game.npc is not None else []

    def choose(self, game: Tourney, rng: random.Random) -> Any:
        decision = self.next_decision(game, rng)
        if decision.kind == "npc":
            return NpcRow(tuple(self.npc_row))
        trick = game.trick
        missing = game.missing_predictions(trick)
        if decision.kind == "lead":
            return Play(decision.seat, rng.choice(self.hands[decision.seat]))
        next_play = game.next_player() if len(trick.turns) < game.places else None
        if missing and (next_play is None or rng.random() >= self.reveal_rate):
            seat = rng.choice(missing) if rng.random() < self.shuffle_rate else missing[0]
            card = rng.choice(self.hands[seat])
            prediction = Predict(seat, card.suit)
            self.predicted[prediction] = card
            return prediction
        assert next_play is not None
        return Play(next_play, rng.choice(self.playable(next_play, trick.lead_suit)))

    def playable(self, seat: int, lead_suit: str | None) -> list[SuitedCard]:
        hand = self.hands[seat]
        following = [card for card in hand if card.suit == lead_suit]
        return following or hand

    def after(self, game: Tourney, action: Any) -> None:
        if isinstance(action, Predict):
            self.hands[action.seat].remove(action.card or self.predicted.pop(action))
        elif isinstance(action, Play):
            self.hands[action.seat].remove(action.card)
