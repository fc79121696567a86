"""Tourney (トウルネイ, A.I.Lab. 遊): predict the place of your own card in every trick.

56 cards, four suits strongest first Wyvern (W), Fleur-de-lis (F), Shamrock (S), Cross (C), numbers
1-14. Strength is absolute: suit first, then number; the lead suit only says who must follow. Each
trick uses two cards of every hand: the lead puts down a playing card face up, everyone puts down a
prediction face down, then from the lead's left each plays a card, following the lead suit if able.
A prediction's suit names a place (W 1st, F 2nd, S 3rd, C 4th); it hits when the player's card ends
at that place. A deal scores 2/3/3/2 per hit by place, plus 1 per trick won or 3 for none.

**A prediction is its suit** (「予想にはカードのスートのみを使用します。数字は無視して下さい。」):
:class:`Predict` records a seat and a suit, so the device asks four ways, not 56. Its number is not
asked; records written before, which name the card, still replay unchanged. Without the card no card
can be refused for having been predicted, so the engine counts per suit instead (:meth:`Tourney.room`):
a suit whose cards are all played, predicted or in the NPC's row refuses one more.

With three players the device is the fourth hand, the NPC. Its 7 face-up cards are entered once per
deal (:class:`NpcRow`, front card first within each suit, never re-sorted); from then on *the
engine plays them itself*: when the NPC's turn comes, the fold puts its card down, with no action
in the log. Why no action: the NPC's card is a function of the log already (its row and the lead
suit), so recording it would store a fact that could only agree or contradict; replaying, undoing
and the key planner then never meet an action nobody pressed, and an undo of the card before the
NPC's takes the NPC's card back with it. The card's reason is a phrase like any trick's reason.

**(house) The NPC's seat** (rulings.md; named at set-up): the NPC sits after the last player
(P3), so it plays between P3 and P1; it never deals, and the first lead of a deal is the dealer's
left-hand *player* (the book has the NPC lead only after winning a trick).

**The book's sequence, and the secret.** The lead puts down a playing card face up and a
prediction face down; the others predict; only then, from the lead's left, does everyone else play
(「この時点ではまだプレイングカードは出しません！」); once every place is fixed the predictions are
turned face up (「順位を確定させたら予想カードを表にし」). A prediction is secret until then, so
:attr:`Tourney.decision` asks for none while it lies face down: the lead's card, the playing cards in
turn, and only after the trick's last card (the NPC's included) each prediction, at the reveal. The
physical predictions need no entry when they go down: a player's playing card after the lead says
they are down. The NPC's card goes down at its turn of the *play phase*: when it leads, at once
(its card is the lead); when its turn comes straight after a player's lead, only once the table
says the predictions are down (:class:`PredictionsDown`, one press), so nobody predicts having seen it.

**Records of either order agree.** Records written while the device asked the predictions before the
plays still replay unchanged: the engine accepts a prediction at any time after the trick's lead,
and a trick's predictions all in start its play phase as :class:`PredictionsDown` does (so the NPC
then plays after the last one); a player's playing card entered while the NPC waits starts it too,
and the NPC's card goes down before it. The state keeps predictions by seat, not by arrival, and
reveals them all when the trick is complete, so every entry order of the same cards folds to the
same state and the same summary (tested): the record keeps the order the table used, and every
such record is equivalent.

A prediction proves what a seat held: one of suit S revealed in trick *k* proves a revoke by a seat
that declined S in an earlier trick (not in trick *k* itself: it left the hand before the play). Its
suit is all the proof needs.

Scoring as the book prints it: a player who hit a 2nd place (3) and a 4th place (2) and won no
trick (3) makes 8 in the deal:

>>> from companion.carddata import printed_cards
>>> game = Tourney(Tourney.new_setup("ABCD", cards=printed_cards("tourney")))
>>> game.hit_points("F") + game.hit_points("C") + game.trick_points(0)
8

P1 deals, so P2 leads Cross 9; everyone predicts face down; P3 has no Cross and plays Wyvern 2, the
strongest card whatever the lead suit, so P3 is 1st; at the reveal P3's Wyvern (1st) hits and so
does P2's Shamrock (3rd):

>>> for text in ["C9", "W2", "C13", "C4", "P2?S", "P3?W", "P4?C", "P1?F"]:
...     _ = game.push_text(text)
>>> result = game.state.deals[0].tricks[0].result
>>> result.winner, result.places, result.hits
(2, (4, 3, 1, 2), (False, True, True, False))
>>> game.room("W"), game.room("C")  # 14 each, less W2 and P3's W; less C9, C13, C4 and P4's C
(12, 10)
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

from companion.carddata import CardCheck, named
from companion.engine.actions import GameAction
from companion.engine.base import ActionType, Decision
from companion.engine.tricks import (
    Deal,
    Phrase,
    Revoke,
    RevokeWatch,
    Seat,
    SeatCard,
    SuitedCard,
    Term,
    Trick,
    TrickGame,
    TrickResult,
    TrickState,
    Turn,
    first_decision,
    seats_in_order,
)
from companion.errors import IllegalAction, IllegalPlay, RecordError
from companion.games.tourney import PLUGIN

NPC_TERM = Term("tourney.seat", "npc")  # how reasons name the NPC (the catalogue's "tourney.seat.npc")


# --- actions ---------------------------------------------------------------------------------


def notation(game: Tourney, text: str) -> str:
    """Which kind of action ``text`` writes now, in the short notation: ``W7`` is the awaited card (a
    lead, play or prediction; a prediction also by its suit alone, ``W``), ``P3:W7`` P3's play, ``P3?W``
    P3's prediction (``P3?W7`` naming its card), ``down`` the predictions down, and ``W7 W2 F9 ...``
    the NPC's row. Each kind reads only the texts of its own kind (:meth:`GameAction.read`)."""
    decision = game.waiting_for()
    text = text.strip()
    if text.lower() == "down":
        return PredictionsDown.type
    if decision.kind == "npc":
        return NpcRow.type
    if ":" in text:
        return Play.type
    return Predict.type if "?" in text or decision.kind == "predict" else Play.type


@dataclass(frozen=True)
class Play(SeatCard, GameAction):
    """A playing card put down face up (the lead's first, then in turn from the lead's left).

    >>> Play(1, SuitedCard("W", 7)).to_json()
    {'type': 'play', 'seat': 1, 'card': 'W7'}
    """

    type: ClassVar[str] = "play"

    def check(self, game: Tourney) -> None:
        game.check_player(self.seat)
        seat = game.next_player()
        if len(game.trick.turns) == game.places:
            raise IllegalAction("every playing card is down: enter the missing predictions",
                                code="tourney.predictions_missing")
        if self.seat != seat:
            game.refuse_turn(seat, self.seat)
        game.check_card(self.card)

    def apply(self, game: Tourney) -> None:
        deal = game.deal
        if game.npc_waits(deal):  # a player's card entered while the NPC waits: the predictions are down
            game.play_npc(deal)
        game.play_card(deal, self.seat, self.card)
        game.settle()

    @classmethod
    def legal(cls, game: Tourney) -> Iterator[Play]:
        """Late plays too, while predictions are missing: the engine accepts them (see check)."""
        if game.waiting_for().kind in ("npc", "predict"):  # the row first; every playing card down
            return
        seat = game.next_player()
        yield from (cls(seat, card) for card in game.unseen_open())

    @classmethod
    def read(cls, game: Tourney, text: str) -> Play | None:
        if notation(game, text) != cls.type:
            return None
        text = text.strip()
        if ":" in text:
            who, card = text.split(":", 1)
            return cls(game.seat_named(who), SuitedCard.parse(card.strip()))
        decision = game.waiting_for()
        seat = game.next_player() if decision.kind == "down" else decision.seat  # a play says they are down
        return cls(seat, SuitedCard.parse(text))


@dataclass(frozen=True)
class Predict(GameAction):
    """A prediction card, entered by its suit: the suit alone names the place the seat's playing card
    will take (「予想にはカードのスートのみを使用します。数字は無視して下さい。」), so the device asks
    four ways, not 56. ``card`` is the whole card where it is known (records written before, which
    named it, read and write back unchanged); it only tells which card left the hand.

    >>> Predict(1, "S").to_json()
    {'type': 'predict', 'seat': 1, 'suit': 'S'}
    >>> old = Predict.from_json({"type": "predict", "seat": 1, "card": "S1"})
    >>> old.suit, old.face, old.to_json()
    ('S', 'S1', {'type': 'predict', 'seat': 1, 'card': 'S1'})
    """

    seat: int
    suit: str
    card: SuitedCard | None = None
    type: ClassVar[str] = "predict"

    @classmethod
    def of_card(cls, seat: int, card: SuitedCard) -> Predict:
        """A prediction naming its whole card (as records written before suit-only predictions do)."""
        return cls(seat, card.suit, card)

    @property
    def face(self) -> str:
        """What the prediction says in a summary: its suit, or its card where the card is known."""
        return self.suit if self.card is None else str(self.card)

    def to_json(self) -> dict[str, Any]:
        """A suit-only prediction writes ``suit``; one with its card writes ``card`` alone, as such
        records always did (so they export byte for byte as they were read)."""
        if self.card is None:
            return {"type": self.type, "seat": self.seat, "suit": self.suit}
        return {"type": self.type, "seat": self.seat, "card": str(self.card)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Predict:
        if data.get("card") is None:
            return super().from_json(data)
        seat_and_card = super().from_json({"suit": "", **data})  # the checks of the seat and the card
        card = cast(SuitedCard, seat_and_card.card)  # "card" is in the line and not null: read as a card
        if data.get("suit", card.suit) != card.suit:
            raise RecordError(f"a predict's 'suit' must be its card's suit, {card.suit}")
        return cls.of_card(seat_and_card.seat, card)

    def check(self, game: Tourney) -> None:
        game.check_player(self.seat)
        trick = game.trick
        if not trick.turns:
            raise IllegalAction(f"{game.seat_label(trick.lead)} leads a playing card before any prediction",
                                code="tourney.lead_first", seat=game.seat_label(trick.lead))
        if not 0 <= self.seat < game.n or trick.predictions[self.seat] is not None:
            raise IllegalAction(f"{game.any_seat_label(self.seat)} has no prediction to make in this trick",
                                code="tourney.predicted", seat=game.any_seat_label(self.seat))
        if self.card is None:
            game.check_suit(game.deal, self.suit)
            return
        if self.card.suit != self.suit:
            raise IllegalPlay(f"a prediction's card is of its suit: {self.card} is no {self.suit}",
                              code="tourney.suit_mismatch", card=str(self.card), suit=self.suit)
        game.check_card(self.card)

    def apply(self, game: Tourney) -> None:
        deal = game.deal
        game.trick.predictions[self.seat] = self
        if self.card is not None:
            deal.seen[self.card] = "prediction"
        deal.told[self.suit] += 1
        game.settle()

    @classmethod
    def legal(cls, game: Tourney) -> Iterator[Predict]:
        """Before the reveal too, once the lead is down: records from before (see check)."""
        trick = game.trick
        if trick.turns:
            suits = game.open_suits()
            for seat in game.missing_predictions(trick):
                yield from (cls(seat, suit) for suit in suits)

    @classmethod
    def read(cls, game: Tourney, text: str) -> Predict | None:
        """``S`` (the suit: all a prediction needs) or ``S1`` (its card too), after ``P3?`` or alone
        at the reveal."""
        if notation(game, text) != cls.type:
            return None
        text = text.strip()
        if "?" in text:
            who, text = text.split("?", 1)
            seat = game.seat_named(who)
        else:
            seat = game.waiting_for().seat
        text = text.strip()
        if len(text) == 1 and text.isalpha():
            return cls(seat, text.upper())
        return cls.of_card(seat, SuitedCard.parse(text))


@dataclass(frozen=True)
class PredictionsDown(GameAction):
    """The table's word that every prediction of the trick lies face down, entered only where the NPC's
    turn comes straight after a player's lead: its card is then shown, and nobody may predict having
    seen it. Elsewhere a player's playing card after the lead says as much.

    >>> PredictionsDown().to_json()
    {'type': 'down'}
    """

    type: ClassVar[str] = "down"

    def check(self, game: Tourney) -> None:
        game.check_row_laid()
        if not game.npc_waits(game.deal):
            raise IllegalAction("nothing waits for the predictions: the NPC's turn has not come",
                                code="tourney.not_waiting")

    def apply(self, game: Tourney) -> None:
        game.trick.down = True
        game.settle()

    @classmethod
    def legal(cls, game: Tourney) -> Iterator[PredictionsDown]:
        if game.waiting_for().kind == "down":
            yield cls()

    @classmethod
    def read(cls, game: Tourney, text: str) -> PredictionsDown | None:
        return cls() if notation(game, text) == cls.type else None


@dataclass(frozen=True)
class NpcRow(GameAction):
    """The NPC's face-up cards as they lie: suit by suit, each suit's cards front to back.

    >>> NpcRow.from_json({"type": "npc", "cards": ["W3", "W9", "C1"]}).cards[1]
    SuitedCard(suit='W', rank=9)
    """

    cards: tuple[SuitedCard, ...]
    type: ClassVar[str] = "npc"

    def check(self, game: Tourney) -> None:
        if not game.row_due():
            raise IllegalAction("the NPC's cards are entered once, at the start of a deal", code="tourney.row_entered")
        if len(self.cards) != game.npc_cards or len(set(self.cards)) != len(self.cards):
            raise IllegalAction(f"the NPC has {game.npc_cards} different face-up cards, not {len(self.cards)}",
                                code="tourney.row_size", count=game.npc_cards, given=len(self.cards))
        for card in self.cards:  # the row opens its deal: with 7 cards it never fills a suit's count
            game.check_card(card)

    def apply(self, game: Tourney) -> None:
        deal = game.deal
        deal.npc_laid, deal.npc_left = self.cards, list(self.cards)
        deal.seen.update(dict.fromkeys(self.cards, "npc"))
        for card in self.cards:
            deal.told[card.suit] += 1
        game.settle()

    @classmethod
    def legal(cls, game: Tourney) -> Iterator[NpcRow]:
        """Every ordered row: lazily, there are billions."""
        if game.waiting_for().kind == "npc":
            yield from (cls(cards) for cards in itertools.permutations(game.unseen_open(), game.npc_cards))

    @classmethod
    def read(cls, game: Tourney, text: str) -> NpcRow | None:
        if notation(game, text) != cls.type:
            return None
        return cls(tuple(SuitedCard.parse(part) for part in text.replace(",", " ").split()))


# --- the state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TourneyResult(TrickResult):
    """A trick's result plus every seat's place (1 strongest) and whether its prediction hit
    (None for the NPC, whose predictions change nothing)."""

    places: tuple[int, ...] = ()
    hits: tuple[bool | None, ...] = ()


@dataclass
class TourneyTrick(Trick[SuitedCard]):
    """A trick's playing cards (``turns``), its predictions by seat, and why the NPC played its card."""

    predictions: list[Predict | None] = field(default_factory=list)
    npc_reason: Phrase | None = None
    # the table said the predictions are down (PredictionsDown): how the log reached the play phase,
    # not what the trick is, so it stays out of the state's repr and comparisons
    down: bool = field(default=False, repr=False, compare=False)


class PredictionWatch(RevokeWatch):
    """Revoke proofs that also hear of predictions, revealed at the end of their trick."""

    def revealed(self, deal: int, seat: int, suit: str, trick: int) -> None:
        """A prediction of ``suit`` in ``trick`` proves declines of that suit in earlier tricks only:
        it was put down before that trick's plays. Its suit is proof enough, its number is not needed."""
        for declined, declined_in in self.declined[seat]:
            if declined == suit and declined_in < trick:
                self._flag(Revoke(deal, declined_in, seat, suit, trick))


@dataclass
class TourneyDeal(Deal[SuitedCard, TourneyTrick]):
    """A deal; with three players also the NPC's row as laid out and the cards it has left."""

    npc_laid: tuple[SuitedCard, ...] | None = None
    npc_left: list[SuitedCard] = field(default_factory=list)
    # every card the device was told of this deal -> "played", "prediction" or "npc" (in the NPC's row):
    # an index over the tricks for the uniqueness check, so it stays out of the state's repr
    seen: dict[SuitedCard, str] = field(default_factory=dict, repr=False, compare=False)
    # per suit, the cards that left the hands this deal or lie in the NPC's row, known by number or
    # (a suit-only prediction) by suit alone: the count check's index, out of the repr like ``seen``
    # (a plain dict holding every suit from the start: the check reads it on every push)
    told: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.watch = PredictionWatch.for_seats(self.seats)

    def predictions(self) -> Iterator[Predict]:
        for trick in self.tricks:
            yield from (prediction for prediction in trick.predictions if prediction is not None)


# --- the NPC's three rules -------------------------------------------------------------------


@dataclass(frozen=True)
class NpcSituation:
    """What the NPC's choice depends on: its cards left in row order, the lead suit, the suit order."""

    row: tuple[SuitedCard, ...]
    lead_suit: str | None
    suits: tuple[str, ...]

    def front(self, suit: str) -> SuitedCard | None:
        """The front card of ``suit`` in the row (the first one entered)."""
        return next((card for card in self.row if card.suit == suit), None)

    def strongest_suit(self) -> str:
        return next(suit for suit in self.suits if self.front(suit) is not None)


@dataclass(frozen=True)
class NpcChoice:
    card: SuitedCard
    reason: Phrase


class NpcLeads:
    """Leading (it won the last trick): the front card of its strongest suit."""

    name = "npc-leads"

    def decide(self, situation: NpcSituation) -> NpcChoice | None:
        if situation.lead_suit is not None:
            return None
        card = situation.front(situation.strongest_suit())
        assert card is not None  # strongest_suit names a suit the row holds
        return NpcChoice(card, _card_phrase("tourney.npc.lead", card))


class NpcFollows:
    """Holding the lead suit: the front card of the lead suit."""

    name = "npc-follows"

    def decide(self, situation: NpcSituation) -> NpcChoice | None:
        card = situation.front(situation.lead_suit) if situation.lead_suit is not None else None
        return NpcChoice(card, _card_phrase("tourney.npc.follow", card)) if card is not None else None


class NpcStrongestLeft:
    """Without the lead suit: the front card of its strongest suit left."""

    name = "npc-strongest-left"

    def decide(self, situation: NpcSituation) -> NpcChoice | None:
        card = situation.front(situation.strongest_suit())
        assert card is not None
        return NpcChoice(card, _card_phrase("tourney.npc.void", card))


NPC_RULES = (NpcLeads(), NpcFollows(), NpcStrongestLeft())


def npc_choice(row: Sequence[SuitedCard], lead_suit: str | None, suits: Sequence[str] = "WFSC") -> NpcChoice:
    """The NPC's card: the book's three rules, in the order they are tried.

    >>> row = [SuitedCard.parse(c) for c in ["F2", "F11", "C7", "C1"]]
    >>> [str(npc_choice(row, lead).card) for lead in (None, "C", "S")]
    ['F2', 'C7', 'F2']
    """
    return first_decision(NPC_RULES, NpcSituation(tuple(row), lead_suit, tuple(suits)))


def _card_phrase(code: str, card: SuitedCard, **more: Any) -> Phrase:
    return Phrase(code, {"suit": Term("suit", card.suit), "value": card.rank, **more})


# --- the game --------------------------------------------------------------------------------


COUNTS = ("hand_size", "tricks_per_deal", "points_per_trick", "points_without_tricks", "npc_cards")
CARD_SHAPE = {  # what validate_cards and the rules may index (carddata.check_shape)
    "game": str,
    "suits": [{**named(), "place": int, "hit_points": int}],
    "numbers": [int],
    **{key: int for key in COUNTS},
}


class Tourney(TrickGame[TrickState[TourneyDeal]]):
    """3-4 players (three play with the NPC), as many deals as players, 7 tricks of 4 cards a deal."""

    game_id = "tourney"
    title = PLUGIN.titles[game_id]
    min_players = 3
    max_players = 4
    # In the order the device offers them (generate_legal_actions): the row, the word, predictions, plays.
    action_types: ClassVar[Mapping[str, ActionType]] = {"npc": NpcRow, "down": PredictionsDown, "predict": Predict,
                                                        "play": Play}
    term_tables: ClassVar[Mapping[str, str]] = {"suit": "suits"}

    def configure(self) -> None:
        super().configure()
        cards = self.setup.cards
        self.validate_cards_once(cards)
        self.suit_data = {entry["code"]: entry for entry in cards["suits"]}
        self.suits: tuple[str, ...] = tuple(self.suit_data)  # strongest first
        self.numbers = tuple(cards["numbers"])
        self.per_suit = len(self.numbers)  # cards of each suit
        self.places = len(self.suits)  # every trick has a card for each place: a seat per suit
        self.npc: int | None = self.n if self.n < self.places else None
        self.npc_cards: int = cards["npc_cards"]
        self.tricks_per_deal = int(cards["tricks_per_deal"])

    # --- card data -------------------------------------------------------------------------

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        check = CardCheck(cls.game_id, CARD_SHAPE, cards)
        need = check.need
        check.named_codes("suits", 4, "suit", ", strongest first")
        suits, numbers = cards["suits"], cards["numbers"]
        need([s["place"] for s in suits] == [1, 2, 3, 4], "the suits name places 1-4 in their order")
        need(all(s["hit_points"] >= 0 for s in suits), "every suit needs 'hit_points' (a whole number >= 0)")
        check.numbers()
        for key in COUNTS:
            need(cards[key] >= 0, f"{key!r} must be a whole number >= 0")
        need(cards["hand_size"] == 2 * cards["tricks_per_deal"], "a trick takes two cards of a hand")
        need(len(numbers) == cards["hand_size"], "four hands use the whole deck: as many numbers as cards in a hand")
        need(cards["npc_cards"] == cards["tricks_per_deal"], "the NPC plays one face-up card a trick")

    # --- cards and names ---------------------------------------------------------------------

    def deck(self) -> list[SuitedCard]:
        return [SuitedCard(suit, number) for suit in self.suits for number in self.numbers]

    def strength(self, card: SuitedCard) -> tuple[int, int]:
        """Higher is stronger: the suit's rank in the suit order, then the number."""
        return (len(self.suits) - self.suits.index(card.suit), card.rank)

    def place_of(self, suit: str) -> int:
        """The place a prediction of ``suit`` names."""
        return int(self.suit_data[suit]["place"])

    def hit_points(self, suit: str) -> int:
        return int(self.suit_data[suit]["hit_points"])

    def trick_points(self, won: int) -> int:
        cards = self.setup.cards
        points: int = won * cards["points_per_trick"] if won else cards["points_without_tricks"]
        return points

    def seat_label(self, seat: int) -> str:
        return "NPC" if seat == self.npc else super().seat_label(seat)

    def who(self, seat: int) -> Seat | Term:
        """A seat as a reason names it: the NPC is no player seat."""
        return NPC_TERM if seat == self.npc else Seat(seat)


    # --- the layer's hooks -------------------------------------------------------------------

    def new_state(self) -> TrickState[TourneyDeal]:
        return TrickState()

    def new_deal(self, index: int, lead: int) -> TourneyDeal:
        return TourneyDeal(index, lead, self.places, told=dict.fromkeys(self.suits, 0))

    def new_trick(self, lead: int) -> TourneyTrick:
        return TourneyTrick(lead, predictions=[None] * self.places)

    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        return self.tricks_per_deal

    def seat_to_play(self, trick: Trick[Any]) -> int:
        """Play passes round all four hands, the NPC's included."""
        return (trick.lead + len(trick.turns)) % self.places

    def missing_predictions(self, trick: TourneyTrick) -> list[int]:
        """Players still to predict, from the lead round."""
        return [seat for seat in seats_in_order(trick.lead, self.places)
                if seat != self.npc and trick.predictions[seat] is None]

    def all_predicted(self, trick: TourneyTrick) -> bool:
        """No player is still to predict (:meth:`missing_predictions` is empty), asked without listing them."""
        npc = self.npc
        return all(prediction is not None or seat == npc for seat, prediction in enumerate(trick.predictions))

    def trick_complete(self, trick: Trick[Any]) -> bool:
        assert isinstance(trick, TourneyTrick)
        return len(trick.turns) == self.places and self.all_predicted(trick)

    def resolve(self, trick: Trick[Any]) -> TourneyResult:
        """The strongest card wins; every card's place is its rank by strength among the four. The
        reason names the winner's card, then why the NPC played its card."""
        assert isinstance(trick, TourneyTrick)
        ranking = sorted(trick.turns, key=lambda turn: self.strength(turn.cards[0]), reverse=True)
        places = [0] * self.places
        for place, turn in enumerate(ranking, start=1):
            places[turn.seat] = place
        hits = tuple(None if prediction is None else self.place_of(prediction.suit) == places[seat]
                     for seat, prediction in enumerate(trick.predictions))
        winner, best = ranking[0].seat, ranking[0].cards[0]
        reason = (_card_phrase("tourney.win", best, winner=self.who(winner)),
                  *((trick.npc_reason,) if trick.npc_reason is not None else ()))
        return TourneyResult(winner, winner, reason, places=tuple(places), hits=hits)

    def deal_points(self, deal: TourneyDeal) -> tuple[list[int], list[int]]:
        """Per player: points for hits, and points for tricks (1 each, or 3 for none)."""
        hits = [0] * self.n
        for trick in deal.tricks:
            if not isinstance(trick.result, TourneyResult):
                continue
            for seat in range(self.n):
                prediction = trick.predictions[seat]
                if prediction is not None and trick.result.hits[seat]:
                    hits[seat] += self.hit_points(prediction.suit)
        return hits, [self.trick_points(deal.tricks_won[seat]) for seat in range(self.n)]

    def score_deal(self, deal: Deal[Any]) -> list[int]:
        assert isinstance(deal, TourneyDeal)
        hits, tricks = self.deal_points(deal)
        return [h + t for h, t in zip(hits, tricks, strict=True)]

    # --- the log -------------------------------------------------------------------------------

    @property
    def deal(self) -> TourneyDeal:
        return self.state.deals[-1]  # the layer's state.deal, without its property's call: asked on every action

    @property
    def trick(self) -> TourneyTrick:
        return self.state.deals[-1].tricks[-1]

    def settle(self) -> None:
        """Play the NPC's cards whose turn came, and finish every trick that is complete."""
        while not self.deal_played(deal := self.deal):
            trick = self.trick
            if self.trick_complete(trick):
                index = len(deal.tricks) - 1
                for seat, prediction in enumerate(trick.predictions):
                    if prediction is not None:
                        # The ignore below: a Tourney deal has its prediction watch
                        deal.watch.revealed(deal.index, seat, prediction.suit, index)  # type: ignore[attr-defined]
                self.finish_trick(self.state, deal)
            elif self.npc_to_play(deal):
                self.play_npc(deal)
            else:
                break

    def play_npc(self, deal: TourneyDeal) -> None:
        trick = self.trick
        choice = npc_choice(deal.npc_left, trick.lead_suit, self.suits)
        self.play_card(deal, self.seat_to_play(trick), choice.card)
        deal.npc_left.remove(choice.card)
        trick.npc_reason = choice.reason

    def play_card(self, deal: TourneyDeal, seat: int, card: SuitedCard) -> None:
        """A playing card goes down: the layer records the turn, the deal marks the card played."""
        self.put_down(deal, Turn(seat, (card,)))
        if deal.seen.get(card) != "npc":  # the NPC's row was counted when it was laid
            deal.told[card.suit] += 1
        deal.seen[card] = "played"

    def npc_turn(self, deal: TourneyDeal) -> bool:
        """The NPC's card is the next one in play order (whether or not the play phase has begun)."""
        trick = deal.tricks[-1]
        return (self.npc is not None and deal.npc_laid is not None and len(trick.turns) < self.places
                and self.seat_to_play(trick) == self.npc)

    def play_phase(self, trick: TourneyTrick) -> bool:
        """The predictions are down: the table said so, a follower's playing card was entered, or (a
        record from before) every prediction is in."""
        return (trick.down or self.all_predicted(trick)
                or any(turn.seat != self.npc for turn in trick.turns[1:]))

    def npc_to_play(self, deal: TourneyDeal) -> bool:
        """The NPC puts its card down now: it leads, or its turn came in the play phase."""
        trick = deal.tricks[-1]
        return self.npc_turn(deal) and (not trick.turns or self.play_phase(trick))

    def next_player(self) -> int:
        """The seat whose playing card comes next: after the NPC's while the NPC waits (a player's card
        then says the predictions are down, and the NPC's goes down first)."""
        seat = self.seat_to_play(self.trick)
        return (seat + 1) % self.places if self.npc_waits(self.deal) else seat

    def npc_waits(self, deal: TourneyDeal) -> bool:
        """It is the NPC's turn, but the play phase has not begun (the predictions are not said to be
        down): its card waits (a lead's never does: :meth:`npc_to_play`)."""
        if self.npc is None:  # four players: no NPC (asked on every play, so answered at once)
            return False
        trick = deal.tricks[-1]
        return bool(trick.turns) and self.npc_turn(deal) and not self.play_phase(trick)

    def row_due(self) -> bool:
        """A 3-player deal waits for the NPC's row (its decision): nothing else is entered before it."""
        return self.npc is not None and self.deal.npc_laid is None

    def check_row_laid(self) -> None:
        """Refuse any action but the row while the row is due."""
        if self.row_due():
            raise IllegalAction(f"first enter the NPC's {self.npc_cards} face-up cards", code="tourney.npc_first",
                                count=self.npc_cards)

    def check_player(self, seat: int) -> None:
        """:meth:`check_row_laid`, then refuse a play or prediction of the NPC's: the device plays its
        cards itself."""
        self.check_row_laid()
        if seat == self.npc:
            raise IllegalAction("the device plays the NPC's cards itself", code="tourney.npc_plays")

    def room(self, suit: str) -> int:
        """How many cards of ``suit`` can still be in a hand this deal: its numbers, less every card
        of it played, predicted (by its card or by the suit alone) or lying in the NPC's row."""
        return self.per_suit - self.deal.told[suit]

    def open_suits(self) -> tuple[str, ...]:
        """The suits a card of which can still be in a hand this deal (:meth:`room` above 0), strongest
        first: a picker offers no other."""
        return tuple(suit for suit in self.suits if self.room(suit) > 0)

    def card_odds(self, seat: int, cards: Iterable[Any]) -> dict[Any, float]:
        """The common odds, each card scaled by the share of its suit's unseen cards that can still
        be in a hand: a suit whose cards were revealed by suit alone (:meth:`room`) has fewer left
        than its unseen numbers, and which of them is not known."""
        cards = list(cards)
        unseen = Counter(card.suit for card in cards)
        return {card: odds * min(1.0, self.room(card.suit) / unseen[card.suit])
                for card, odds in super().card_odds(seat, cards).items()}

    def suit_odds(self, seat: int) -> dict[str, float]:
        """How likely a prediction of ``seat`` is of each open suit, from what the table has seen: by
        the cards of it that can still be out of sight (:meth:`room`); none of a suit the seat
        proved it lacks."""
        void = {suit for suit, _ in self.deal.watch.declined[seat]}
        return {suit: 0 if suit in void else self.room(suit) for suit in self.open_suits()}

    def check_suit(self, deal: TourneyDeal, suit: str) -> None:
        """A suit-only prediction: the suit exists, and a card of it can still be in a hand. A
        suit-only prediction loses the card, so no card can be checked for uniqueness; the count per
        suit still can be."""
        if suit not in self.suits:
            raise IllegalPlay(f"{suit} is not a suit: write {', '.join(self.suits)}", code="tourney.not_a_suit",
                              text=suit, suits=", ".join(self.suits))
        self._check_room(deal, suit)

    def _check_room(self, deal: TourneyDeal, suit: str) -> None:
        """A card of ``suit`` (a suit of the game) can still be in a hand this deal."""
        if deal.told[suit] >= self.per_suit:
            raise IllegalPlay(f"no {suit} card is left in a hand: all {len(self.numbers)} were played, predicted"
                              f" or lie in the NPC's row this deal", code="tourney.suit_out", suit=suit,
                              count=len(self.numbers))

    def check_card(self, card: SuitedCard) -> None:
        if card.suit not in self.suits or card.rank not in self.numbers:
            raise IllegalPlay(f"{card} is not a card: suits are {', '.join(self.suits)}, numbers"
                              f" {self.numbers[0]}-{self.numbers[-1]}", code="not_a_card", text=str(card))
        deal = self.deal
        seen = deal.seen.get(card)
        if seen == "played":
            raise IllegalPlay(f"{card} was already played this deal", code="already_played", card=str(card))
        if seen == "prediction":
            raise IllegalPlay(f"{card} was already put down as a prediction this deal", code="tourney.prediction_card",
                              card=str(card))
        if seen == "npc":
            raise IllegalPlay(f"{card} lies in the NPC's row", code="tourney.npc_card", card=str(card))
        self._check_room(deal, card.suit)

    @property
    def decision(self) -> Decision | None:
        """The NPC's row at a 3-player deal's start; then per trick the lead's card, the word that the
        predictions are down where the NPC's turn comes straight after it (``down``, the whole table's),
        the playing cards in turn, and at the reveal every prediction still open, from the lead round.
        Never a prediction while any playing card is to come: until the reveal it lies face down."""
        deal = self.deal
        if self.deal_played(deal):
            return None
        if self.npc is not None and deal.npc_laid is None:
            return Decision("npc", None, f"enter the NPC's {self.npc_cards} face-up cards, front first (deal"
                                         f" {deal.index + 1})")
        trick = self.trick
        number = len(deal.tricks)
        if not trick.turns:
            return Decision("lead", trick.lead, f"{self.seat_label(trick.lead)}: lead (trick {number})")
        if self.npc_waits(deal):
            return Decision("down", None, f"predictions down? the NPC's card comes next (trick {number})")
        if len(trick.turns) < self.places:
            seat = self.seat_to_play(trick)
            return Decision("play", seat, f"{self.seat_label(seat)}: play (trick {number})")
        missing = self.missing_predictions(trick)[0]  # every card is down and the trick is not complete
        return Decision("predict", missing, f"{self.seat_label(missing)}: reveal the prediction (trick {number})")

    def waiting_for(self) -> Decision:
        """The decision an action is read against (the layer refuses a finished game's first)."""
        decision = self.decision
        if decision is None:
            raise IllegalAction("the game is over", code="game_over")
        return decision

    def unseen_open(self) -> list[SuitedCard]:
        """The cards not seen this deal of the suits still open (:meth:`open_suits`), strongest first:
        those a player's card or the NPC's row can be."""
        suits = self.open_suits()
        return [card for card in self.deck() if card not in self.deal.seen and card.suit in suits]

    def seat_named(self, text: str) -> int:
        """The seat of a label typed before ``:`` or ``?``, like ``P3``."""
        label = text.strip().upper()
        for seat in range(self.places):
            if self.seat_label(seat).upper() == label:
                return seat
        raise IllegalAction(f"{text.strip()} is no seat: write P1-P{self.n}", code="tourney.not_a_seat",
                            text=text.strip(), n=self.n)

    # --- the replay schema ----------------------------------------------------------------------

    def trick_summary(self, deal: Deal[Any], index: int, trick: Trick[Any]) -> dict[str, Any]:
        """``places`` (per seat, 1 strongest), ``hits`` and ``predictions`` (per seat; null for the
        NPC). Why the NPC played its card is the reason's second phrase."""
        assert isinstance(trick, TourneyTrick) and isinstance(trick.result, TourneyResult)
        return {
            "places": list(trick.result.places),
            "hits": list(trick.result.hits),
            "predictions": [None if prediction is None else prediction.face for prediction in trick.predictions],
        }

    def deal_summary(self, deal: Deal[Any]) -> dict[str, Any]:
        """``hit_points`` and ``trick_points`` per player (with three players 3 entries, while the
        common ``tricks_won`` has a 4th, the NPC's: it never scores), and ``npc_row`` (the NPC's cards
        as laid, or null)."""
        assert isinstance(deal, TourneyDeal)
        hits, tricks = self.deal_points(deal)
        return {"hit_points": hits, "trick_points": tricks,
                "npc_row": None if deal.npc_laid is None else [str(card) for card in deal.npc_laid]}
