"""A simulated Tourney table: real hands of 14, the NPC's row laid by suit, following the lead suit.

Tourney has no abilities; the table model's rate is instead the chance that the table enters a
trick's predictions when they are revealed, after the plays, rather than before them (both are
legal and must fold to the same state).
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine.tricks import SuitedCard
from companion.games.tourney import NpcRow, Play, Predict, Tourney
from companion.sim import TABLE_MODELS, DealingTable, cut


class TourneyTable(DealingTable):
    """Deals each deal's hands (and with three players the NPC's row and prediction pile).

    Predictions come from the players in random order, as the book allows; ``in_turn`` makes them
    come round from the lead instead, as a table that does not think about it would.
    """

    def __init__(self, game: Tourney, rng: random.Random, reveal_rate: float) -> None:
        self.reveal_rate = reveal_rate
        self.in_turn = False
        self.hands: list[list[SuitedCard]] = []
        self.npc_row: list[SuitedCard] = []
        self.npc_pile: list[SuitedCard] = []
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

    def choose(self, game: Tourney, rng: random.Random) -> Any:  # type: ignore[override]
        decision = self.next_decision(game, rng)
        if decision.kind == "npc":
            return NpcRow(tuple(self.npc_row))
        trick = game.trick
        missing = game.missing_predictions(trick)
        if decision.kind == "lead":
            return Play(decision.seat or 0, rng.choice(self.hands[decision.seat or 0]))
        next_play = game.next_player() if len(trick.turns) < game.places else None
        if missing and (next_play is None or decision.kind == "predict" and rng.random() >= self.reveal_rate):
            seat = missing[0] if self.in_turn else rng.choice(missing)
            return Predict(seat, rng.choice(self.hands[seat]))
        assert next_play is not None
        return Play(next_play, rng.choice(self.playable(next_play, trick.lead_suit)))

    def playable(self, seat: int, lead_suit: str | None) -> list[SuitedCard]:
        hand = self.hands[seat]
        following = [card for card in hand if card.suit == lead_suit]
        return following or hand

    def after(self, game: Tourney, action: Any) -> None:  # type: ignore[override]
        if isinstance(action, (Play, Predict)):
            self.hands[action.seat].remove(action.card)


TABLE_MODELS["tourney"] = TourneyTable  # type: ignore[assignment]
