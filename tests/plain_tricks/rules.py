"""Plain Tricks: a game written only against the trick-game contract (companion/engine/tricks.py).

Three suits of six cards; each seat is dealt four. Follow the lead suit if able; the highest card of
the lead suit wins the trick and leads the next. A deal scores one point per trick won and one more
per captured 6; there are as many deals as seats. It gives the layer's three abstract methods and
its one action, which checks, applies, lists and reads itself, and nothing else of the rules: turn
order, revokes, captures, scores, undo and replay come from the layer.
It is known only to the tests (its plugin record in tests/plain_tricks/__init__.py is registered by
tests/games.py), never to the product's registry.

P2 leads (the dealer's left), P1 wins with R6 and leads G1; P2 discards B3, then shows G4 later:

>>> game = PlainTricks(PlainTricks.new_setup(["A", "B"], cards={}))
>>> for text in ["R2", "R6", "G1", "B3", "R1", "G4"]:
...     _ = game.push_text(text)
>>> [trick.result.winner for trick in game.state.deal.tricks[:3]], game.state.revokes
([0, 0, 0], [Revoke(deal=0, trick=1, seat=1, suit='G', proved_in_trick=2)])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.engine.actions import GameAction
from companion.engine.base import ActionType
from companion.engine.tricks import (
    Deal,
    Phrase,
    Seat,
    SeatCard,
    SuitedCard,
    Trick,
    TrickGame,
    TrickResult,
    TrickState,
    Turn,
    check_unseen,
)
from companion.errors import IllegalPlay
from tests.plain_tricks import PLUGIN

DECK = tuple(SuitedCard(suit, rank) for suit in "RGB" for rank in range(1, 7))
TRICKS = 4


@dataclass(frozen=True)
class Play(SeatCard, GameAction):
    """A card put down by the seat to play: it checks, applies, lists and reads itself."""

    type: ClassVar[str] = "play"

    def check(self, game: PlainTricks) -> None:
        seat = game.seat_to_play(game.state.deal.trick)
        if self.seat != seat:
            game.refuse_turn(seat, self.seat)
        if self.card not in DECK:
            raise IllegalPlay(f"{self.card} is not a card: R, G or B and 1-6", code="not_a_card")
        check_unseen(self.card, game.state.deal)

    def apply(self, game: PlainTricks) -> None:
        game.play_turn(game.state, Turn(self.seat, (self.card,)))

    @classmethod
    def legal(cls, game: PlainTricks) -> Iterator[Play]:
        seat = game.seat_to_play(game.state.deal.trick)
        return (cls(seat, card) for card in game.unseen(DECK))

    @classmethod
    def read(cls, game: PlainTricks, text: str) -> Play:
        return cls(game.seat_to_play(game.state.deal.trick), SuitedCard.parse(text.strip()))


class PlainTricks(TrickGame[TrickState[Deal[SuitedCard]]]):
    game_id = "plain-tricks"
    title = PLUGIN.titles[game_id]
    min_players = 2
    max_players = 3
    action_types: ClassVar[Mapping[str, ActionType]] = {"play": Play}

    # --- the contract --------------------------------------------------------------------------

    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        return TRICKS

    def resolve(self, trick: Trick[Any]) -> TrickResult:
        lead = trick.lead_suit
        best = max((turn for turn in trick.turns if turn.cards[0].suit == lead), key=lambda t: t.cards[0].rank)
        return TrickResult(best.seat, best.seat, (Phrase("plain.win", {"winner": Seat(best.seat),
                                                                        "card": str(best.cards[0])}),))

    def score_deal(self, deal: Deal[Any]) -> list[int]:
        return [won + sum(card.rank == 6 for card in captured)
                for won, captured in zip(deal.tricks_won, deal.captured, strict=True)]
