"""Plain Tricks: a game written only against the trick-game contract (companion/engine/tricks.py).

Three suits of six cards; each seat is dealt four. Follow the lead suit if able; the highest card of
the lead suit wins the trick and leads the next. A deal scores one point per trick won and one more
per captured 6; there are as many deals as seats. It gives the layer's three abstract methods and
nothing else of the rules: turn order, revokes, captures, scores, undo and replay come from the layer.
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

from companion.engine.base import ActionType, Decision
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
from companion.errors import CardDataError, IllegalAction, IllegalPlay

DECK = tuple(SuitedCard(suit, rank) for suit in "RGB" for rank in range(1, 7))
TRICKS = 4


@dataclass(frozen=True)
class Play(SeatCard):
    type: ClassVar[str] = "play"


class PlainTricks(TrickGame[TrickState[Deal[SuitedCard]]]):
    game_id = "plain-tricks"
    title = "Plain Tricks"
    min_players = 2
    max_players = 3
    action_types: ClassVar[Mapping[str, ActionType]] = {"play": Play}

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        if cards:
            raise CardDataError("Plain Tricks has no card data: its deck is fixed")

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

    # --- the log -------------------------------------------------------------------------------

    def apply(self, action: Any) -> None:
        self.play_turn(self.state, Turn(action.seat, (action.card,)))

    def check(self, action: object) -> None:
        decision = self.decision
        if decision is None:
            raise IllegalAction("the game is over", code="game_over")
        if not isinstance(action, Play):
            raise IllegalAction(f"{action!r} is not a play of {self.title}")
        if action.seat != decision.seat:
            raise IllegalAction(f"it is {self.seat_label(decision.seat)}'s turn", code="not_your_turn")
        if action.card not in DECK:
            raise IllegalPlay(f"{action.card} is not a card: R, G or B and 1-6", code="not_a_card")
        check_unseen(action.card, self.state.deal)

    @property
    def decision(self) -> Decision | None:
        deal = self.state.deal
        if self.deal_played(deal):
            return None
        seat = self.seat_to_play(deal.trick)
        return Decision("play", seat, f"{self.seat_label(seat)}: play (trick {len(deal.tricks)})")

    def generate_legal_actions(self) -> Iterator[Any]:
        decision = self.decision
        if decision is not None:
            yield from (Play(decision.seat, card) for card in self.unseen(DECK))

    def parse(self, text: str) -> Any:
        decision = self.decision
        if decision is None:
            raise IllegalAction("the game is over", code="game_over")
        return Play(decision.seat, SuitedCard.parse(text.strip()))
