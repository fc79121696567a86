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

**The deck per player count.** Each colour uses 2 x players cards; which numbers a count uses is
printed only as icons the text lost (3-6, 4-6, 5-6, 6). Six players use all twelve numbers, so that
deck is known. For 3-5 players the numbers come from the printed data if it has them, else from the
table's card facts when those name exactly 2 x players numbers; otherwise the game's first decision
is a question (:class:`~companion.engine.base.Question` ``numbers:<players>``) whose answer names
the numbers ticked as bits (bit *i* for the *i*-th of the printed numbers) or 0 to skip it. A skip
applies the house ruling (rulings.md: every number accepted, only a card seen twice refused), and
so does a first play entered with the question open (records from before the question existed).
A partial set of facts is never taken as the deck: the question says how many numbers are missing.

>>> four = Irohanihohedo(Irohanihohedo.new_setup("ABCD", cards=printed_cards("irohanihohedo")))
>>> four.decision.question.key, four.deck_facts.missing
('numbers:4', 8)
>>> four.push(Answer("numbers:4", deck_mask(four.setup.cards, [1, 2, 3, 4, 6, 7, 9, 10])))
>>> four.numbers, four.numbers_by_house
([1, 2, 3, 4, 6, 7, 9, 10], False)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.carddata import CardCheck, MapOf, named
from companion.engine.actions import GameAction
from companion.engine.base import ActionType, Answer, Decision, Question, is_digits
from companion.engine.tricks import (
    EXTREME_WEIGHT,
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
    extreme_cards,
)
from companion.errors import CardDataError, IllegalAction, IllegalPlay, quoted
from companion.games.irohanihohedo import PLUGIN


@dataclass(frozen=True)
class Play(SeatCard, GameAction):
    """A seat puts down one card: it checks, applies, lists and reads itself."""

    type: ClassVar[str] = "play"

    def check(self, game: Irohanihohedo) -> None:
        state = game.state
        deal = state.deal
        seat = game.seat_to_play(deal.trick) if state.numbers is not None else deal.trick.lead
        if self.seat != seat:
            game.refuse_turn(seat, self.seat)
        card = self.card
        if card.suit not in game.colours:
            raise IllegalPlay(f"{card} is not a card: colours are {', '.join(game.colours)}", code="not_a_card",
                              text=str(card))
        known = state.numbers  # not game.numbers, which copies the deck's numbers for its callers
        if card.rank not in (known if known is not None else game.setup.cards["numbers"]):
            raise IllegalPlay(f"{card} is not in the {game.n}-player deck", code="not_in_deck", card=str(card),
                              players=game.n)
        check_unseen(card, deal)

    def apply(self, game: Irohanihohedo) -> None:
        state = game.state
        if state.numbers is None:  # a play with the deck question open skips it
            game.settle_deck(state, [])
        game.play_turn(state, Turn(self.seat, (self.card,)))

    @classmethod
    def legal(cls, game: Irohanihohedo) -> Iterator[Play]:
        """Every card of the deck not seen this deal (with the deck question open too: a skip)."""
        seat = game.seat_to_play(game.state.deal.trick)
        return (cls(seat, card) for card in game.unseen(game.deck()))

    @classmethod
    def read(cls, game: Irohanihohedo, text: str) -> Play:
        """A card, like ``O7`` (bird 7) or ``R12`` (flower 12)."""
        return cls(game.seat_to_play(game.state.deal.trick), SuitedCard.parse(text.strip()))


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


@dataclass(frozen=True)
class DeckFacts:
    """What is known of the numbers one player count uses, before its first game's question.

    ``numbers`` is the deck when known (printed, every number, or told in full); ``told`` the
    numbers a table marked as used (possibly fewer than ``wanted``: a partial set is never used).
    """

    wanted: int
    numbers: tuple[int, ...] | None
    told: tuple[int, ...] = ()

    @property
    def missing(self) -> int:
        """How many more numbers a table must tell before the deck is known (0 when it is)."""
        return 0 if self.numbers is not None else max(0, self.wanted - len(self.told))


def deck_mask(cards: Mapping[str, Any], numbers: Sequence[int]) -> int:
    """An answer's value for ``numbers``: bit *i* set for the *i*-th of the printed numbers.

    >>> deck_mask({"numbers": [1, 2, 3, 4]}, [1, 3])
    5
    """
    return sum(1 << index for index, number in enumerate(cards["numbers"]) if number in numbers)


def mask_numbers(cards: Mapping[str, Any], mask: int) -> list[int]:
    """The numbers an answer's value ticks (the inverse of :func:`deck_mask`)."""
    return [number for index, number in enumerate(cards["numbers"]) if mask >> index & 1]


@dataclass
class IroState(TrickState[Deal[SuitedCard]]):
    """The fold, plus the deck's numbers once known (None while the deck question is open) and
    whether they are the house ruling's (every number)."""

    numbers: tuple[int, ...] | None = None
    by_house: bool = False


CARD_SHAPE = {  # what validate_cards and the rules may index (carddata.check_shape)
    "game": str,
    "colours": [named()],
    "numbers": [int],
    "numbers_by_players": MapOf([int]),
    "hand_size": int,
    "cards_per_colour_per_player": int,
}


class Irohanihohedo(TrickGame[IroState]):
    """3-6 players, as many deals as players, 9 tricks a deal; the dealer moves left each deal."""

    game_id = "irohanihohedo"
    title = PLUGIN.titles[game_id]
    min_players = 3
    max_players = 6
    # the answer first: while the deck question is open, numbers answer it and a card is a play
    action_types: ClassVar[Mapping[str, ActionType]] = {"answer": Answer, "play": Play}
    term_tables: ClassVar[Mapping[str, str]] = {"suit": "colours", "colour": "colours"}
    option_kinds: ClassVar[Mapping[str, str]] = {**TrickGame.option_kinds, "strategic": "bool"}

    def configure(self) -> None:
        super().configure()
        cards = self.setup.cards
        self.validate_cards_once(cards)
        self.colours = {entry["code"]: entry for entry in cards["colours"]}
        self.deck_facts = self.known_deck(cards, self.setup.table_facts, self.n)
        self.hand_size: int = cards["hand_size"]
        # the book's strategic variant (all agree at set-up): each colour's lowest won card lies face up
        self.strategic = bool(self.setup.options.get("strategic", False))

    # --- card data -----------------------------------------------------------------------------

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        check = CardCheck(cls.game_id, CARD_SHAPE, cards)
        check.named_codes("colours", 5, "colour")
        check.numbers()
        check.need(
            all(is_digits(k) and set(v) <= set(cards["numbers"]) for k, v in cards["numbers_by_players"].items()),
            "'numbers_by_players' maps a player count to a list of the numbers it uses",
        )
        check.need(all(len(set(v)) == cards["cards_per_colour_per_player"] * int(k)
                       for k, v in cards["numbers_by_players"].items()),
                   "'numbers_by_players' lists 'cards_per_colour_per_player' x players numbers for each count")
        check.need(cards["hand_size"] > 0, "'hand_size' must be a whole number > 0")
        # 0 would make every deck empty; more than the numbers allow, no deck a table names could be whole
        check.need(0 < cards["cards_per_colour_per_player"] * cls.max_players <= len(cards["numbers"]),
                   "'cards_per_colour_per_player' must be > 0 and, times 6 players, at most the numbers listed")

    @classmethod
    def known_deck(cls, cards: Mapping[str, Any], facts: Mapping[str, Any], players: int) -> DeckFacts:
        """The numbers ``players`` use: printed; or every number when 2 x players of each colour is
        all of them (6 players); or told by a table, when it named exactly that many."""
        wanted = cards["cards_per_colour_per_player"] * players
        printed = cards["numbers_by_players"].get(str(players))
        if printed:
            return DeckFacts(wanted, tuple(sorted(printed)))
        if len(cards["numbers"]) == wanted:
            return DeckFacts(wanted, tuple(cards["numbers"]))
        by_count = facts.get("numbers") if isinstance(facts.get("numbers"), dict) else {}
        told_facts = by_count.get(str(players), {}) if isinstance(by_count, dict) else {}
        # each number of the deck looked up by its own key: a hand-edited file's "01" or "99" names
        # no card, and must not count one twice or add one the deck lacks
        told = tuple(sorted(n for n in cards["numbers"] if isinstance(told_facts, dict) and told_facts.get(str(n))))
        return DeckFacts(wanted, told if len(told) == wanted else None, told)

    @classmethod
    def answer_facts(cls, cards: Mapping[str, Any], answer: Answer) -> list[tuple[str, int]]:
        """The card facts a deck answer stands for, to remember: each number used (1) or not (0);
        none for a skip, so the next game at that count asks again."""
        players = answer.key.split(":")[1]
        if not answer.value:
            return []
        return [
            (f"numbers:{players}:{number}", answer.value >> index & 1) for index, number in enumerate(cards["numbers"])
        ]

    @property
    def numbers(self) -> list[int]:
        """The numbers accepted now: the deck's, or every number (the house ruling) until known."""
        known = self.state.numbers
        return list(known) if known is not None else list(self.setup.cards["numbers"])

    @property
    def numbers_by_house(self) -> bool:
        """(house) rulings.md: the deck is not known, so every number is accepted, only repeats refused."""
        return self.state.numbers is None or self.state.by_house

    @classmethod
    def card_gaps(cls, cards: Mapping[str, Any]) -> list[str]:
        wanted = cards["cards_per_colour_per_player"]
        return [
            f"numbers:{players}:<number> (which numbers {players} players use: {wanted * players} per colour)"
            for players in range(cls.min_players, cls.max_players + 1)
            if cls.known_deck(cards, {}, players).numbers is None
        ]

    @classmethod
    def fact_notes(cls, cards: Mapping[str, Any], facts: Mapping[str, Any]) -> list[str]:
        """Told sets of numbers that are not a whole deck, and so are not used: how many are missing."""
        notes = []
        for players in range(cls.min_players, cls.max_players + 1):
            deck = cls.known_deck(cards, facts, players)
            if deck.told and deck.numbers is None:
                extra = len(deck.told) - deck.wanted
                counted = f"{-extra} missing" if extra < 0 else f"{extra} too many"
                notes.append(f"numbers:{players}: {len(deck.told)} of {deck.wanted} numbers told ({counted}):"
                             f" not used; the device asks at the next {players}-player game")
        return notes

    @classmethod
    def check_fact_key(cls, cards: Mapping[str, Any], key: str) -> None:
        parts = key.split(":")
        valid = (len(parts) == 3 and parts[0] == "numbers" and is_digits(parts[1]) and is_digits(parts[2])
                 and cls.min_players <= int(parts[1]) <= cls.max_players and int(parts[2]) in cards["numbers"])
        if not valid:
            raise CardDataError(
                f"{cls.game_id} facts are numbers:<players>:<number> = 1 (used) or 0, with players"
                f" {cls.min_players}-{cls.max_players} and a number of {cards['numbers'][0]}-{cards['numbers'][-1]},"
                f" not {quoted(key)}"
            )

    @classmethod
    def fact_range(cls, cards: Mapping[str, Any], key: str) -> range:
        return range(0, 2)  # 1: the player count uses the number; 0: it does not

    @classmethod
    def resolve_options(
        cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int
    ) -> dict[str, Any]:
        """The dealer, and ``strategic``: the variant that keeps each colour's lowest card face up."""
        return {
            **super().resolve_options(options, players, cards, seed),
            "strategic": bool(options.get("strategic", False)),
        }

    # --- names ---------------------------------------------------------------------------------

    def colour_name(self, code: str, lang: str = "en") -> str:
        name: str = self.colours[code][lang]
        return name

    def deck(self) -> list[SuitedCard]:
        return [SuitedCard(colour, number) for colour in self.colours for number in self.numbers]

    # --- the rules -----------------------------------------------------------------------------

    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        return self.hand_size

    def new_state(self) -> IroState:
        return IroState(numbers=self.deck_facts.numbers)

    def deck_question(self) -> Question:
        """Which numbers this player count uses: one answer, the numbers ticked (or 0: skip)."""
        deck, numbers = self.deck_facts, self.setup.cards["numbers"]
        return Question(f"numbers:{self.n}", f"which numbers do {self.n} players use ({deck.wanted} of"
                        f" {len(numbers)}; 0 skips: house ruling)?", 0, (1 << len(numbers)) - 1,
                        deck_mask(self.setup.cards, deck.told))

    def must_follow(self, trick: Trick[Any]) -> frozenset[str]:
        """Every colour already in the trick is owed, if the seat holds one."""
        return frozenset(card.suit for turn in trick.turns for card in turn.cards)

    def card_odds(self, seat: int, cards: Iterable[Any]) -> dict[Any, float]:
        """How likely each unseen card is to come from ``seat``, from public information only: every
        colour already in the trick is owed, so a card of an owed colour the seat is not proved out of
        is as likely as the chance the seat holds one (a seat dealt ``h`` of the unseen cards holds
        none of ``k`` owed ones with the chance ``C(u - k, h) / C(u, h)``); a colour the seat declined
        is out; the highest and lowest unseen of a colour weigh more (people win high or duck low)."""
        deal = self.state.deal
        void = {suit for suit, _ in deal.watch.declined[seat]}
        owed = self.must_follow(deal.trick) - void
        cards = list(cards)
        possible = [card for card in cards if card.suit not in void]
        played = sum(1 for trick in deal.tricks for turn in trick.turns if turn.seat == seat)
        held = max(1, min(self.hand_size - played, len(possible)))  # bounded: a revoke may have misled
        owed_count = sum(card.suit in owed for card in possible)
        # no unseen card outside the declined colours (revokes entered): the seat is owed nothing it can hold
        out_of_owed = (math.comb(len(possible) - owed_count, held) / math.comb(len(possible), held)
                       if owed and possible else 1.0)
        extremes = extreme_cards(possible)

        def weight(card: SuitedCard) -> float:
            if card.suit in void:
                return 0.0  # the seat showed it holds none (a revoke is still entered, further away)
            share = (1 - out_of_owed) / owed_count if card.suit in owed else out_of_owed / (len(possible) - owed_count)
            return share * (EXTREME_WEIGHT if card in extremes else 1.0)

        return {card: weight(card) for card in cards}

    def resolve(self, trick: Trick[Any]) -> TrickResult:
        beside = marker_turn(trick)
        if beside is None:
            raise ValueError("a trick is resolved once it has cards")
        marker = beside.cards[0].suit
        value, winner = max(
            (card.rank, turn.seat) for turn in trick.turns for card in turn.cards if card.suit == marker
        )
        reason = [
            Phrase("irohanihohedo.win", {"winner": Seat(winner), "colour": Term("colour", marker), "value": value})
        ]
        lead_colour = trick.lead_suit
        if marker != lead_colour:
            reason.append(Phrase("irohanihohedo.marker", {"seat": Seat(beside.seat), "colour": Term("colour", marker)}))
        return TrickResult(winner, winner, tuple(reason))

    def score_deal(self, deal: Deal[Any]) -> list[int]:
        return [colour_scores(captured) for captured in deal.captured]

    def face_up(self, deal: Deal[Any]) -> list[dict[str, int]] | None:
        """What the table sees of the cards each seat won, while a deal is played: won cards are
        kept face down (「ウラ向きの束」), so nothing in the base game (None); in the strategic
        variant, each seat's lowest card per colour."""
        return [lowest_per_colour(captured) for captured in deal.captured] if self.strategic else None

    # --- the deck question (the actions check, apply, list and read themselves) -----------------

    def learn_fact(self, state: IroState, answer: Answer) -> None:
        """The deck question's answer: the numbers ticked, or none (a skip)."""
        self.settle_deck(state, mask_numbers(self.setup.cards, answer.value))

    def settle_deck(self, state: IroState, chosen: Sequence[int]) -> None:
        """The deck is the ``chosen`` numbers; none chosen (a skip, or a first play with the question
        open) is the house ruling: every number accepted."""
        state.numbers, state.by_house = (tuple(chosen), False) if chosen else (tuple(self.numbers), True)

    def check_answer(self, answer: Answer) -> None:
        """A whole deck (as many numbers as the player count uses) or none ticked (a skip)."""
        question = self.question_answered(answer)
        ticked = len(mask_numbers(self.setup.cards, answer.value))
        if not question.minimum <= answer.value <= question.maximum or ticked not in (0, self.deck_facts.wanted):
            raise self._deck_count_refusal(ticked)

    def read_answer(self, text: str) -> Answer | None:
        """The deck question's answer as the numbers ticked, like ``1 2 3 4 6 7 9 10``, or ``skip``;
        None for other text (a card: a first play skips the question)."""
        decision = self.decision
        words = text.replace(",", " ").split()
        if decision is None or decision.question is None or not (
                words == ["skip"] or (words and all(map(is_digits, words)))):
            return None
        numbers = [] if words == ["skip"] else [int(word) for word in words]
        return Answer(decision.question.key, deck_mask(self.setup.cards, numbers))

    def check_deck(self, numbers: Sequence[int]) -> None:
        """Refuse ``numbers`` told as the deck (Done on the deck question) unless they are as many as
        this player count uses: none ticked is no deck, and only Skip skips (docs/screens.md)."""
        if len(numbers) != self.deck_facts.wanted:
            raise self._deck_count_refusal(len(numbers))

    def _deck_count_refusal(self, ticked: int) -> IllegalAction:
        wanted = self.deck_facts.wanted
        return IllegalAction(f"{self.n} players use {wanted} numbers: tick {wanted}, not {ticked} (or skip)",
                             code="irohanihohedo.deck_count", wanted=wanted, ticked=ticked, players=self.n)

    @property
    def decision(self) -> Decision | None:
        """The deck question before the first play while the deck is not known, then the layer's plays."""
        if self.state.numbers is None:
            question = self.deck_question()
            return Decision("answer", None, question.prompt, question)
        return super().decision

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
