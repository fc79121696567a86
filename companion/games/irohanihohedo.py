"""Irohanihohedo (色映に生へど, nononon factory 2019): a trump that moves to whoever cannot follow.

Five colours; a player must play a colour already in the trick if able. One who cannot plays any
card, and the trump marker moves beside it: the trick goes to the highest card of the marker's
colour (the lead's colour while everyone followed). Per deal and colour, the lowest captured card
scores its number and every other captured card -1.

The book's scoring example, bird 2, 5, 8, 9 and flower 6:

>>> from companion.carddata import printed_cards
>>> setup = Irohanihohedo.new_setup("ABC", cards=printed_cards("irohanihohedo"))
>>> colour_scores([SuitedCard(c, r) for c, r in [("O", 2), ("O", 5), ("O", 8), ("O", 9), ("R", 6)]])
5

The dealer is P1, so P2 leads a bird 7. P3 has no bird and plays a fan 3; P1 has neither and plays a
butterfly 2, which takes the marker and wins the trick:

>>> game = Irohanihohedo(setup)
>>> for card in ["O7", "G3", "B2"]:
...     _ = game.push_text(card)
>>> trick = game.state.deal.tricks[0]
>>> trick.result.winner, marker_colour(trick)
(0, 'B')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.carddata import CardCheck, MapOf, named
from companion.engine.base import Decision, is_digits, register
from companion.engine.tricks import (
    Deal,
    Phrase,
    Seat,
    SeatCard,
    SuitedCard,
    Term,
    Trick,
    TrickGame,
    TrickResult,
    TrickState,
    Turn,
    check_unseen,
)
from companion.errors import CardDataError, IllegalAction, IllegalPlay


@dataclass(frozen=True)
class Play(SeatCard):
    """A seat puts down one card."""

    type: ClassVar[str] = "play"


def marker_turn(trick: Trick[SuitedCard]) -> Turn[SuitedCard] | None:
    """The turn whose card the trump marker lies beside: the last card whose colour was new to the trick.

    A card of a colour already present followed; a new colour is either the lead or a card of a
    player who could not follow, and the marker moves to it.
    """
    present: set[str] = set()
    beside = None
    for turn in trick.turns:
        for card in turn.cards:
            if card.suit not in present:
                beside = turn
                present.add(card.suit)
    return beside


def marker_colour(trick: Trick[SuitedCard]) -> str | None:
    """The colour the trump marker lies on (the lead's while everyone followed)."""
    turn = marker_turn(trick)
    return turn.cards[0].suit if turn is not None else None


def colour_scores(captured: Sequence[SuitedCard]) -> int:
    """Per colour: the lowest card scores its number, each other card -1 (no floor)."""
    total = 0
    for colour in {card.suit for card in captured}:
        ranks = [card.rank for card in captured if card.suit == colour]
        total += min(ranks) - (len(ranks) - 1)
    return total


CARD_SHAPE = {  # what validate_cards and the rules may index (carddata.check_shape)
    "game": str,
    "colours": [named()],
    "numbers": [int],
    "numbers_by_players": MapOf([int]),
    "hand_size": int,
    "cards_per_colour_per_player": int,
}


@register
class Irohanihohedo(TrickGame[TrickState[Deal[SuitedCard]]]):
    """3-6 players, as many deals as players, 9 tricks a deal; the dealer moves left each deal."""

    game_id = "irohanihohedo"
    title = "Irohanihohedo"
    min_players = 3
    max_players = 6
    action_types = {"play": Play}
    term_tables = {"suit": "colours", "colour": "colours"}

    def configure(self) -> None:
        super().configure()
        cards = self.setup.cards
        self.validate_cards(cards)
        self.colours = {entry["code"]: entry for entry in cards["colours"]}
        self.numbers = self.numbers_in_play(cards, self.setup.table_facts, self.n)
        # (house) rulings.md: without the lost icons every number is accepted, only repeats refused
        self.numbers_by_house = self.numbers == list(cards["numbers"]) and not cards["numbers_by_players"].get(str(self.n))
        self.hand_size: int = cards["hand_size"]

    # --- card data -----------------------------------------------------------------------------

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        check = CardCheck(cls.game_id, CARD_SHAPE, cards)
        check.named_codes("colours", 5, "colour")
        check.numbers()
        check.need(all(is_digits(k) and set(v) <= set(cards["numbers"]) for k, v in cards["numbers_by_players"].items()),
                   "'numbers_by_players' maps a player count to a list of the numbers it uses")
        check.need(cards["hand_size"] > 0, "'hand_size' must be a whole number > 0")

    @classmethod
    def numbers_in_play(cls, cards: Mapping[str, Any], facts: Mapping[str, Any], players: int) -> list[int]:
        """The numbers a player count uses: printed, else told by a table, else every number (house)."""
        printed = cards["numbers_by_players"].get(str(players))
        if printed:
            return sorted(printed)
        told = facts.get("numbers", {}).get(str(players), {}) if isinstance(facts.get("numbers"), dict) else {}
        chosen = sorted(int(n) for n, used in told.items() if used) if isinstance(told, dict) else []
        return chosen or list(cards["numbers"])

    @classmethod
    def card_gaps(cls, cards: Mapping[str, Any]) -> list[str]:
        wanted = cards["cards_per_colour_per_player"]
        return [
            f"numbers:{players}:<number> (which numbers {players} players use: {wanted * players} per colour)"
            for players in range(cls.min_players, cls.max_players + 1)
            if str(players) not in cards["numbers_by_players"]
        ]

    @classmethod
    def check_fact_key(cls, cards: Mapping[str, Any], key: str) -> None:
        parts = key.split(":")
        valid = (len(parts) == 3 and parts[0] == "numbers" and is_digits(parts[1]) and is_digits(parts[2])
                 and cls.min_players <= int(parts[1]) <= cls.max_players and int(parts[2]) in cards["numbers"])
        if not valid:
            raise CardDataError(
                f"{cls.game_id} facts are numbers:<players>:<number> = 1 (used) or 0, with players"
                f" {cls.min_players}-{cls.max_players} and a number of {cards['numbers'][0]}-{cards['numbers'][-1]},"
                f" not {key!r}"
            )

    @classmethod
    def fact_range(cls, cards: Mapping[str, Any], key: str) -> range:
        return range(0, 2)  # 1: the player count uses the number; 0: it does not

    @classmethod
    def resolve_options(cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int) -> dict[str, Any]:
        """The dealer, and ``strategic``: the variant that keeps each colour's lowest card face up."""
        return {**super().resolve_options(options, players, cards, seed), "strategic": bool(options.get("strategic", False))}

    # --- names ---------------------------------------------------------------------------------

    def colour_name(self, code: str, lang: str = "en") -> str:
        return self.colours[code][lang]

    def deck(self) -> list[SuitedCard]:
        return [SuitedCard(colour, number) for colour in self.colours for number in self.numbers]

    # --- the rules -----------------------------------------------------------------------------

    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        return self.hand_size

    def must_follow(self, trick: Trick[Any]) -> frozenset[str]:
        """Every colour already in the trick is owed, if the seat holds one."""
        return frozenset(card.suit for card in trick.cards)

    def resolve(self, trick: Trick[Any]) -> TrickResult:
        beside = marker_turn(trick)
        if beside is None:
            raise ValueError("a trick is resolved once it has cards")
        marker = beside.cards[0].suit
        value, winner = max((card.rank, turn.seat) for turn in trick.turns for card in turn.cards if card.suit == marker)
        reason = [Phrase("irohanihohedo.win", {"winner": Seat(winner), "colour": Term("colour", marker), "value": value})]
        lead_colour = trick.lead_suit
        if marker != lead_colour:
            reason.append(Phrase("irohanihohedo.marker", {"seat": Seat(beside.seat), "colour": Term("colour", marker)}))
        return TrickResult(winner, winner, tuple(reason))

    def score_deal(self, deal: Deal[Any]) -> list[int]:
        return [colour_scores(captured) for captured in deal.captured]

    # --- the log -------------------------------------------------------------------------------

    def apply(self, action: Any) -> None:
        deal = self.state.deal
        self.put_down(deal, action.seat, (action.card,))
        if self.trick_complete(deal.trick):
            self.finish_trick(self.state, deal)

    def check(self, action: object) -> None:
        decision = self.decision
        if decision is None:
            raise IllegalAction("the game is over", code="game_over")
        if not isinstance(action, Play):
            raise IllegalAction(f"{action!r} is not an action of {self.title}")
        seat = decision.seat or 0
        if action.seat != seat:
            raise IllegalAction(
                f"it is {self.seat_label(seat)}'s turn, not {self._label(action.seat)}'s",
                code="not_your_turn", expected=self.seat_label(seat), actual=self._label(action.seat),
            )
        card = action.card
        if card.suit not in self.colours:
            raise IllegalPlay(f"{card} is not a card: colours are {', '.join(self.colours)}", code="not_a_card",
                              text=str(card))
        if card.rank not in self.numbers:
            raise IllegalPlay(f"{card} is not in the {self.n}-player deck", code="not_in_deck", card=str(card),
                              players=self.n)
        check_unseen(card, self.state.deal)

    def _label(self, seat: object) -> str:
        return self.seat_label(seat) if isinstance(seat, int) and 0 <= seat < self.n else repr(seat)

    @property
    def decision(self) -> Decision | None:
        deal = self.state.deal
        if self.deal_played(deal):
            return None
        seat = self.seat_to_play(deal.trick)
        return Decision("play", seat, f"{self.seat_label(seat)}: play (trick {len(deal.tricks)})")

    def generate_legal_actions(self) -> Iterator[Any]:
        decision = self.decision
        if decision is None:
            return
        for card in self.unseen(self.deck()):
            yield Play(decision.seat or 0, card)

    def parse(self, text: str) -> Any:
        """A play from its card, like ``O7`` (bird 7) or ``R12`` (flower 12)."""
        decision = self.decision
        if decision is None:
            raise IllegalAction("the game is over", code="game_over")
        return Play(decision.seat or 0, SuitedCard.parse(text.strip()))

    # --- the replay schema ----------------------------------------------------------------------

    def trick_summary(self, deal: Deal[Any], index: int, trick: Trick[Any]) -> dict[str, Any]:
        """``marker``: the colour the trump marker ended on."""
        return {"marker": marker_colour(trick)}

    def deal_summary(self, deal: Deal[Any]) -> dict[str, Any]:
        """``lowest``: per seat, the lowest captured card of each colour (the strategic variant's display)."""
        return {"lowest": [lowest_per_colour(captured) for captured in deal.captured]}


def lowest_per_colour(captured: Sequence[SuitedCard]) -> dict[str, int]:
    lowest: dict[str, int] = {}
    for card in captured:
        lowest[card.suit] = min(card.rank, lowest.get(card.suit, card.rank))
    return dict(sorted(lowest.items()))
