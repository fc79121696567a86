"""A simulated Tezuma table: real hands, following suit unless an ability frees the player."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from companion.engine.base import Answer
from companion.games.tezuma.rules import CARDLESS, FIRE, FREE_SUIT, Card, Play, TezumaGame
from companion.sim import DealingTable, cut


class TezumaTable(DealingTable):
    """Deals each deal's hands and chooses plays a holder of those hands may make."""

    def __init__(self, game: TezumaGame, rng: random.Random, ability_rate: float) -> None:
        self.ability_rate = ability_rate
        self.hands: list[list[Card]] = []
        self.deal_if_new(game, rng)
        self._trick = game.state.deal.tricks[-1] if game.state.deal.tricks else None

    def deck(self, game: TezumaGame) -> list[Card]:
        cards = [Card(s, r) for s in game.suits for r in game.ranks]
        return cards + [Card(s, 0) for s in game.suits for _ in range(game.trumps_per_suit)]

    def deal(self, game: TezumaGame, rng: random.Random) -> None:
        deck = self.deck(game)
        rng.shuffle(deck)
        self.hands = [sorted(hand) for hand in cut(deck, len(deck) // game.n, game.n)]

    def choose(self, game: TezumaGame, rng: random.Random) -> Any:
        decision = self.next_decision(game, rng)
        if decision.question is not None:
            return Answer(decision.question.key, rng.randint(0, 10))
        if decision.kind == "draft":
            return rng.choice(list(game.legal_actions))
        seat = decision.seat
        self._trick = game.state.deal.tricks[-1]
        plays = self.plays_for(game, seat)
        with_ability = [p for p in plays if p.ability]
        if with_ability and rng.random() < self.ability_rate:
            return rng.choice(with_ability)
        return rng.choice([p for p in plays if not p.ability])

    def plays_for(self, game: TezumaGame, seat: int) -> list[Play]:
        """Every play the hand allows that the engine also accepts."""
        deal = game.state.deal
        trick = deal.tricks[-1]
        hand = self.hands[seat]
        lead = trick.lead_suit
        must_follow = lead is not None and any(c.suit == lead for c in hand)
        held = deal.picks[seat].get("ability")
        abilities: list[str | None] = [None] + ([held] if held else [])
        plays = []
        for ability in abilities:
            free = ability in FREE_SUIT
            allowed = [c for c in hand if free or not must_follow or c.suit == lead]
            if ability in CARDLESS:
                options: list[tuple[Card, ...]] = [()]
            elif ability == FIRE:
                numbers = [c for c in allowed if not c.is_trump]
                options = [pair for pair in combinations(numbers, 2) if pair[0].suit == pair[1].suit]
            else:
                options = [(c,) for c in dict.fromkeys(allowed)]
            plays += [Play(seat, cards, ability) for cards in options]
        return [p for p in plays if game.is_legal(p)]

    def after(self, game: TezumaGame, action: Any) -> None:
        if not isinstance(action, Play):
            return
        for card in action.cards:
            self.hands[action.seat].remove(card)
        trick = self._trick
        if trick is not None and trick.result is not None and trick.result.returned is not None:
            owner = next(t.seat for t in trick.turns if trick.result.returned in t.cards)
            self.hands[owner].append(trick.result.returned)
            self.hands[owner].sort()
