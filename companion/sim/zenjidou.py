"""A simulated Zenjidou table: random card facts, shuffled piles, and a player's every choice.

The card table is not printed in the rules text, so the simulated table invents one per game (as a
real table would answer the device's questions) from its random generator: these facts exist only
in the simulation and in the records it produces, never in the shipped card data.
"""

from __future__ import annotations

import random
from typing import Any

from companion.engine.base import Answer
from companion.games.zenjidou import (
    FACT_NAMES,
    ROUND_RULES,
    Bottom,
    ChooseRule,
    Guesses,
    HandEntry,
    Play,
    Rest,
    Zenjidou,
)
from companion.sim import TABLE_MODELS, DealingTable, cut


class ZenjidouTable(DealingTable):
    """Knows every pile; answers facts, enters cards as revealed or as held, and picks the rest at random.

    ``rules`` limits the round rules the table picks (all of them by default).
    """

    def __init__(self, game: Zenjidou, rng: random.Random, ability_rate: float = 0.0,
                 rules: str = ROUND_RULES) -> None:
        self.rules = rules
        self.facts = {number: {name: rng.randint(0, game.fact_limit(name)) for name in FACT_NAMES}
                      for number in game.numbers}
        self.piles: list[list[int]] = []
        self.rest: list[int] = []

    def deal(self, game: Zenjidou, rng: random.Random) -> None:
        deck = list(game.numbers)
        rng.shuffle(deck)
        self.piles = cut(deck, game.tricks, game.setup.cards["piles"])
        self.rest = deck[len(self.piles) * game.tricks:]

    def held(self, hand: int) -> tuple[int, ...]:
        """A face-up hand as held: the pile turned over, its bottom card first."""
        return tuple(reversed(self.piles[hand]))

    def choose(self, game: Zenjidou, rng: random.Random) -> Any:  # type: ignore[override]
        decision = self.next_decision(game, rng)
        if decision.question is not None:
            _, number, name = decision.question.key.split(":")
            return Answer(decision.question.key, self.facts[int(number)][name])
        hand = decision.seat or 0
        kind = decision.kind
        if kind == "rest":
            return Rest(self.rest[0])
        if kind == "bottom":
            return Bottom(hand, self.piles[hand][-1])
        if kind == "rule":
            return rng.choice([a for a in game.legal_actions if isinstance(a, ChooseRule) and a.rule.letter in self.rules])
        if kind == "hand":
            return HandEntry(hand, self.held(hand))
        if kind == "guesses":
            return Guesses(tuple(rng.randrange(game.players) for _ in range(game.players)))
        if kind == "play" and not game.need().options:  # type: ignore[union-attr]
            return Play(hand, self.piles[hand][game.state.deal.revealed.get(hand, 0)])
        return rng.choice(list(game.legal_actions))

    def after(self, game: Zenjidou, action: Any) -> None:  # type: ignore[override]
        """The table's piles change only by being played, which the engine tracks."""


TABLE_MODELS["zenjidou"] = ZenjidouTable  # type: ignore[assignment]
