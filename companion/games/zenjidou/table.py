"""A simulated Zenjidou table: random card facts, shuffled piles, and a player's every choice.

The card table is not printed in the rules text, so the simulated table invents one per game (as a
real table would answer the device's questions) from its random generator: these facts exist only
in the simulation and in the records it produces, never in the shipped card data. A card the device
was told about before the game (the setup's table facts, remembered from an earlier game on the same
deck) is printed as told.

The device never sees a hand; the simulated players do. Each holds their pile as the round's rule
says (face down and played from the top under A and B, turned over and held in order otherwise),
does what the rule asks of them off the device (H's move, I's pass to the right neighbour) and puts
down the card the rule gives them, which the table then enters like any card.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from companion.engine.base import Answer
from companion.games.zenjidou.rules import (
    FACE_DOWN,
    FACT_NAMES,
    MUST_FOLLOW,
    ROUND_RULES,
    Bottom,
    Card,
    ChooseRule,
    Guesses,
    Play,
    Rest,
    Zenjidou,
)
from companion.sim import DealingTable, cut


def _must_follow(cards: Sequence[Card], follow: Sequence[Card], side: str) -> list[Card]:
    """D (and F, H, I, J): the topmost card that follows, else the top card; F from its chosen side."""
    pool = follow or cards
    return [pool[-1] if side == "bottom" else pool[0]]


def _closest(cards: Sequence[Card], last: Card | None) -> list[Card]:
    """L closest: the number nearest the last card played, the larger on a tie (none yet: the top card)."""
    return [cards[0] if last is None else min(cards, key=lambda c: (abs(c - last), -c))]


# What each face-up rule lets a player put down: (held cards, followers among them, side, last card).
PLAYABLE: dict[str, Callable[[Sequence[Card], Sequence[Card], str, Card | None], list[Card]]] = {
    "C": lambda cards, follow, side, last: [cards[0]],
    **dict.fromkeys("DFHIJ", lambda cards, follow, side, last: _must_follow(cards, follow, side)),
    "E": lambda cards, follow, side, last: list(dict.fromkeys([cards[0], *follow[:1]])),
    "G": lambda cards, follow, side, last: list(dict.fromkeys([follow[0], follow[-1]] if follow
                                                              else [cards[0], cards[-1]])),
    "K": lambda cards, follow, side, last: list(follow) or list(cards),
    "L draw": lambda cards, follow, side, last: list(cards),  # the left neighbour draws at random
    "L lowest": lambda cards, follow, side, last: [min(cards)],
    "L closest": lambda cards, follow, side, last: _closest(cards, last),
}


class ZenjidouTable(DealingTable):
    """Knows every pile and hand; answers facts and puts down what each player's rule gives them.

    ``rules`` limits the round rules the table picks (all of them by default). With ``misplay_rate``
    a player breaks the rule that often: one who must follow puts down another colour (remembered in
    ``revokes`` as (round, trick, hand, the colour declined)); one under L lowest or closest, or under
    a rule played from the top (D, E, J, F from the top), another card than the rule's, a follower if
    a must-follow rule owes one (so no revoke but the remembered ones is made). Every card put down
    against the rule, revokes too, is remembered in ``misplays`` as (round, trick, hand, card), for
    tests to compare.
    """

    def __init__(self, game: Zenjidou, rng: random.Random, ability_rate: float = 0.0,
                 rules: str = ROUND_RULES, misplay_rate: float = 0.0) -> None:
        self.rules = rules
        self.misplay_rate = misplay_rate
        self.revokes: list[tuple[int, int, int, int]] = []
        self.misplays: list[tuple[int, int, int, int]] = []
        invented = {number: {name: rng.randint(0, game.fact_limit(name)) for name in FACT_NAMES}
                    for number in game.numbers}
        # A card the device was told about (setup.table_facts: an earlier game on the same deck) is printed so.
        self.facts: dict[int, dict[str, int]] = {
            number: {name: told if (told := game.fact(number, name)) is not None else value
                     for name, value in card.items()} for number, card in invented.items()
        }
        self.piles: list[list[Card]] = []
        self.rest: list[Card] = []
        self.hands: list[list[Card]] = []  # as held, the next card to play first
        self.ready = False  # the hands are taken up for this round's rule

    def deal(self, game: Zenjidou, rng: random.Random) -> None:
        deck = list(game.numbers)
        rng.shuffle(deck)
        self.piles = cut(deck, game.tricks, game.setup.cards["piles"])
        self.rest = deck[len(self.piles) * game.tricks:]
        self.ready = False

    def take_up(self, game: Zenjidou, rng: random.Random) -> None:
        """Hold the piles as the round's rule says, and do what it asks before the first card (H, I)."""
        # The ignore below: before the first card the round's rule is chosen
        letter = game.state.deal.rule.letter  # type: ignore[union-attr]
        self.hands = [list(pile) if letter in FACE_DOWN else list(reversed(pile)) for pile in self.piles[:game.n]]
        if letter == "H":
            for held in self.hands:
                top = held.pop(0)
                held.insert(rng.randrange(len(held) + 1), top)
        if letter == "I":
            passed = [held.pop(rng.randrange(len(held))) for held in self.hands]
            for hand, card in enumerate(passed):
                self.hands[game.right_of(hand)].append(card)
        self.ready = True

    def card_for(self, game: Zenjidou, hand: int, rng: random.Random) -> Card:
        """The card ``hand``'s player puts down under the round's rule (or against it, at the misplay rate)."""
        deal = game.state.deal
        held = self.hands[hand]
        rule = str(deal.rule)
        if deal.rule is None or deal.rule.letter in FACE_DOWN:
            return held[0]
        trick = deal.tricks[-1]
        colour = game.facts(trick.turns[0].cards[0]).colour if trick.turns else None
        follow = [c for c in held if colour is not None and self.facts[c]["colour"] == colour]
        others = [c for c in held if c not in follow]
        if colour is not None and deal.rule.letter in MUST_FOLLOW and follow and others \
                and rng.random() < self.misplay_rate:
            self.revokes.append((deal.index, len(deal.tricks) - 1, hand, colour))
            return self._misplayed(game, hand, rng.choice(others))
        last = game.last_played()
        options = PLAYABLE[rule](held, follow, deal.sides.get(hand, "top"), last)
        misplay = self._out_of_order(game, hand, rng, last, follow, options)
        if misplay is not None:
            return misplay
        if rule == "L draw":  # the left neighbour draws blind: no person's choice of high or low
            return options[rng.randrange(len(options))]
        return rng.choice(options)

    def _out_of_order(self, game: Zenjidou, hand: int, rng: random.Random, last: Card | None,
                      follow: Sequence[Card], options: Sequence[Card]) -> Card | None:
        """Another card than the rule's order gives, at the misplay rate, or None (never a revoke: a
        follower if one is owed). L's order can be broken once a card went down before it, the order
        from the top only when a rate is set (a rate of 0 draws nothing: the games played without
        misplays stay the ones they always were)."""
        rule = str(game.state.deal.rule)
        ordered = rule in ("L lowest", "L closest") and last is not None
        from_top = bool(self.misplay_rate) and self.from_top(game, hand)
        owed = follow if follow and rule in MUST_FOLLOW else self.hands[hand]
        wrong = [card for card in owed if card not in options]
        if wrong and (ordered or from_top) and rng.random() < self.misplay_rate:
            return self._misplayed(game, hand, rng.choice(wrong))
        return None

    def _misplayed(self, game: Zenjidou, hand: int, card: Card) -> Card:
        """Remember ``card`` put down against the rule, for tests to compare."""
        deal = game.state.deal
        self.misplays.append((deal.index, len(deal.tricks) - 1, hand, card))
        return card

    @staticmethod
    def from_top(game: Zenjidou, hand: int) -> bool:
        """Whether ``hand`` plays from the top this round (D, E, J, F from the top), as the rule says."""
        deal = game.state.deal
        return deal.how is not None and deal.how.plays_from_top(deal, hand)

    def choose(self, game: Zenjidou, rng: random.Random) -> Any:
        decision = self.next_decision(game, rng)
        if decision.question is not None:
            _, number, name = decision.question.key.split(":")
            return Answer(decision.question.key, self.facts[int(number)][name])
        kind = decision.kind
        if kind == "rest":
            return Rest(self.rest[0])
        if kind == "bottom":
            return Bottom(decision.seat, self.piles[decision.seat][-1])
        if kind == "rule":
            return rng.choice(
                [a for a in game.legal_actions if isinstance(a, ChooseRule) and a.rule.letter in self.rules]
            )
        if kind == "guesses":
            return Guesses(tuple(rng.randrange(game.players) for _ in range(game.players)))
        if kind == "play":
            if not self.ready:
                self.take_up(game, rng)
            self.sync(game)
            return Play(decision.seat, self.card_for(game, decision.seat, rng))
        return rng.choice(list(game.legal_actions))

    def after(self, game: Zenjidou, action: Any) -> None:
        """The hands are brought up to date before each card is chosen (:meth:`sync`)."""

    def sync(self, game: Zenjidou) -> None:
        """Drop from the hands every card this round has put down (the device plays some itself)."""
        put_down = set(game.state.deal.shown_cards())
        for held in self.hands:
            held[:] = [card for card in held if card not in put_down]
