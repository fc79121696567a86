"""A simulated Tourney table: real hands of 14, the NPC's row laid by suit, following the lead suit.

Each trick, once the lead's card is down, every player puts a prediction card face down from the
hand (the book's order): the table keeps which card it was, and the hand plays on without it. The
table follows the device's prompts: the lead's card, the word that the predictions are down where
the NPC's turn comes next, the playing cards in turn, and at the reveal each prediction by its suit
(all the device asks), round from the lead. ``early_rate`` (0 unless a test sets it) is the chance
that it enters a prediction before the plays instead, as records from before the device asked at
the reveal do: the engine still accepts them, and every order must fold to the same state. Tourney
has no abilities; the table model's rate is the chance that such early predictions come from the
seats in random order rather than round from the lead.
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine.tricks import SuitedCard
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney
from companion.sim import DealingTable, cut


class TourneyTable(DealingTable):
    """Deals each deal's hands (and with three players the NPC's row and prediction pile)."""

    def __init__(self, game: Tourney, rng: random.Random, shuffle_rate: float) -> None:
        self.shuffle_rate = shuffle_rate
        self.early_rate = 0.0
        self.hands: list[list[SuitedCard]] = []
        self.npc_row: list[SuitedCard] = []
        self.npc_pile: list[SuitedCard] = []
        self.face_down: dict[int, SuitedCard] = {}  # this trick's prediction cards, by seat, until entered
        self.predicted_in: tuple[int, int] | None = None  # (deal, trick) whose predictions went down
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
        # within a suit's row the cards lie in the random order dealt; the table enters the rows as the
        # device's screen lists them, strongest suit first
        self.npc_row = [card for suit in game.suits for card in laid if card.suit == suit]
        self.npc_pile = rest[game.npc_cards:] if game.npc is not None else []

    def choose(self, game: Tourney, rng: random.Random) -> Any:
        decision = self.next_decision(game, rng)
        if decision.kind == "npc":
            return NpcRow(tuple(self.npc_row))
        if decision.kind == "lead":
            return Play(decision.seat, rng.choice(self.hands[decision.seat]))
        trick = game.trick
        self.predict(game, rng)
        missing = game.missing_predictions(trick)
        if decision.kind == "predict" or (missing and rng.random() < self.early_rate):
            early = decision.kind != "predict" and rng.random() < self.shuffle_rate
            seat = rng.choice(missing) if early else missing[0]
            return Predict(seat, self.face_down[seat].suit)
        if decision.kind == "down":
            return PredictionsDown()
        seat = game.next_player()
        return Play(seat, rng.choice(self.playable(seat, trick.lead_suit)))

    def predict(self, game: Tourney, rng: random.Random) -> None:
        """Once the lead's card is down, every player puts a prediction card face down (the lead too)."""
        trick = (game.state.deal.index, len(game.state.deal.tricks))
        if self.predicted_in == trick:
            return
        self.predicted_in = trick
        self.face_down = {}
        for seat in game.missing_predictions(game.trick):
            self.face_down[seat] = card = rng.choice(self.hands[seat])
            self.hands[seat].remove(card)

    def playable(self, seat: int, lead_suit: str | None) -> list[SuitedCard]:
        hand = self.hands[seat]
        following = [card for card in hand if card.suit == lead_suit]
        return following or hand

    def after(self, game: Tourney, action: Any) -> None:
        if isinstance(action, Predict):
            self.face_down.pop(action.seat)
        elif isinstance(action, Play):
            self.hands[action.seat].remove(action.card)
