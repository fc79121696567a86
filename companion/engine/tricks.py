"""What every trick-taking game shares, between :class:`~companion.engine.base.Game` and each game.

A trick-taking game here is a number of deals; each deal a number of tricks; each trick one turn per
seat in the direction of play, led by the last trick's winner (or whoever the game says). The layer
keeps that lifecycle, the cards each seat captured, per-deal and total scores, and the proofs of
revoke the table's public information gives.

The contract of :class:`TrickGame`, one method per question the layer asks a game. A game must
give (abstract methods) the three trick questions:

* ``tricks_in_deal(deal)``: how many tricks the deal has;
* ``resolve(trick)``: who won a complete trick and why, as a :class:`TrickResult` whose reason is
  made of :class:`Phrase` codes with parameters, never of English (one formatter turns codes into
  any language, English included: :mod:`companion.text`);
* ``score_deal(deal)``: the played deal's scores, or :class:`FactNeeded` when a card fact the print
  lost is unknown: the deal then waits, visibly, in ``Deal.missing_fact`` and the game's decision
  asks the table (``fact_decision``).

A game may change (hooks with the common rule as default): ``must_follow(trick)`` (the suits a seat
owes: the lead suit), ``follow_exempt(trick, turn)`` (a turn the rules let ignore them: none),
``captured_cards(trick)`` (what the winner takes: every card), ``deal_count()``, ``first_lead``,
``next_deal_lead``, ``seat_to_play``, ``trick_complete``, ``new_state``/``new_deal``/``new_trick``
(its own state, deals and tricks), ``opens_first_trick`` (False: the game opens a deal's first trick
itself, after a draft), ``per_player`` (each player's share of per-seat figures: Zenjidou's players
play hands), ``kept_in_snapshot`` (what undo snapshots may share), ``card_odds(seat, cards)`` (how
likely each unseen card is to come from a seat, from what the table has seen: the lead suit, the
declined suits and :data:`EXTREME_RATE`, the belief about players; the screens start by it) and the
replay schema's ``trick_summary``/``deal_summary``. The fold itself (``start_deal``, ``open_trick``,
``finish_trick``, ``close_deal``, ``totals``) is the layer's and final: a game varies it only
through those hooks.

Each action of a game is a :class:`~companion.engine.actions.GameAction`: it checks, applies, lists
and reads itself, so ``check``, ``apply``, ``parse`` and ``generate_legal_actions`` come from the
layer, as do ``decision`` (the waiting deal's question, else a play by the seat to play) and
``validate_cards`` (a fixed deck: no card data). A game with other decisions or with card data
overrides those. The table's :class:`~companion.engine.base.Answer` to a question is a GameAction
too, through three hooks a game whose question differs overrides: ``check_answer`` (the open
question's key and range), ``learn_fact`` (the fact a waiting deal asked for) and ``read_answer``
(a number). Tezuma (a draft before the tricks, card data) gives only its ``decision`` and
``validate_cards``, Irohanihohedo those and its answer hooks (the deck's numbers), Tourney (its
NPC's row and the word that the predictions are down, card data) its ``decision`` and
``validate_cards``, Zenjidou (a round rule and questions about each card's print) those and its
answer hooks (an index into the card's facts).

A game's actions call, from their ``apply``: :meth:`TrickGame.put_down` with each :class:`Turn`
that reaches the table (its own subclass when it keeps more per turn), :meth:`TrickGame.finish_trick`
once ``trick_complete`` says so (:meth:`TrickGame.play_turn` does both for a plain play); an Answer
applies itself by :meth:`TrickGame.learn_fact`, the table's answer to the question a waiting deal asked.
Everything else (captures, revoke proofs, scores, totals, the next deal) follows.
The replay text prints a game's own summary keys through the class methods of :class:`ReportRows`.

The reason a trick went one way is decided by small rule objects tried in an explicit order
(:func:`first_decision`), so a new ability or effect is a new object and a conflict between two of
them is settled in one visible place.

A revoke is certain once a seat that declined suit S (played another card while S was owed) shows an
S card later in the deal, or is known to hold one at the moment it declines (a card returned to its
hand in public). Both are flagged at once, naming the trick of the decline.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, NoReturn, Protocol, TypeVar, final

from typing_extensions import TypeVar as DefaultTypeVar  # a TypeVar with a default (PEP 696)

from companion.engine.actions import GameAction, RecordAction
from companion.engine.base import Answer, Decision, Game, Question, is_digits, is_int, snapshot
from companion.errors import CardDataError, IllegalAction, IllegalPlay, RecordError, quoted

# The one belief about players the device holds, stated once: the screens weigh cards by it (where
# a picker's cursor starts, :meth:`TrickGame.card_odds`) and a simulated table of people plays by
# it (companion.sim's PeopleRandom). People rarely pick a card at random: this often they play
# their highest (to win) or their lowest (to duck).
EXTREME_RATE = 0.5
# How much likelier than another unseen card of its suit a suit's highest or lowest one is, from that
# belief: twice as likely at a rate of one half.
EXTREME_WEIGHT = 1 / (1 - EXTREME_RATE)
# How much likelier than any other unseen card one of the lead suit is from a seat that may still hold it.
FOLLOW_WEIGHT = 8.0

# A card as the layer keeps it in tricks and deals: any hashable value (a deal's cards are compared
# and counted) written by str(); a suited game's are SuitedCards, Zenjidou's are numbers.
CardT = TypeVar("CardT", bound=Hashable)
SuitedT = TypeVar("SuitedT", bound="SuitedCard")
ContextT = TypeVar("ContextT")
OutcomeT = TypeVar("OutcomeT")
# A rule reads its context and gives an outcome, so Rule varies as a function does.
ContextT_contra = TypeVar("ContextT_contra", contravariant=True)
OutcomeT_co = TypeVar("OutcomeT_co", covariant=True)


# --- cards -------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class SuitedCard:
    """A card of a suit (or colour) and a number, written like ``B7`` or ``W12``.

    >>> SuitedCard.parse("w12"), str(SuitedCard("B", 3))
    (SuitedCard(suit='W', rank=12), 'B3')
    """

    suit: str
    rank: int

    def __str__(self) -> str:
        return f"{self.suit}{self.rank}"

    @classmethod
    def parse(cls, text: object) -> SuitedCard:
        if not isinstance(text, str) or len(text) < 2 or not text[0].isalpha() or not is_digits(text[1:]):
            raise IllegalPlay(f"{quoted(text)} is not a card: write a suit letter and a number, like B7",
                              code="not_a_card", text=str(text))
        return cls(text[0].upper(), int(text[1:]))

    @classmethod
    def from_record(cls, text: str) -> SuitedCard:
        """A card read from a record: a malformed one is a damaged record, not a typo to retype."""
        try:
            return cls.parse(text)
        except IllegalPlay as err:
            raise RecordError(str(err)) from None


@dataclass(frozen=True)
class SeatCard(RecordAction):
    """An action of one seat and one suited card (a play): a game subclass sets ``type``."""

    seat: int
    card: SuitedCard
    type: ClassVar[str]


# --- reasons as codes ----------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """A seat named in a reason; shown as the seat's label (P1.., or 1番..) by the formatter."""

    index: int


@dataclass(frozen=True)
class Term:
    """A named thing of a game (a suit, a colour, an ability): the formatter looks up ``kind.id``."""

    kind: str
    id: str


@dataclass(frozen=True)
class Phrase:
    """One sentence of a reason: a catalogue key and its parameters.

    Parameter values are plain numbers and strings, :class:`Seat`, :class:`Term`, or a
    :class:`Phrase` that the formatter renders in its place (a clause of the sentence).

    >>> Phrase("iroha.win", {"winner": Seat(1), "colour": Term("colour", "B"), "value": 9}).to_json()
    {'code': 'iroha.win', 'params': {'winner': {'seat': 1}, 'colour': {'colour': 'B'}, 'value': 9}}
    """

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "params": {key: _param_json(value) for key, value in self.params.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Phrase:
        """The phrase :meth:`to_json` wrote (a replay summary's reasons back into codes).

        >>> phrase = Phrase("x", {"who": Seat(2), "suit": Term("suit", "B"), "how": Phrase("y", {"n": 3})})
        >>> Phrase.from_json(phrase.to_json()) == phrase
        True
        """
        return cls(data["code"], {key: _param_from_json(value) for key, value in data["params"].items()})


def _param_json(value: Any) -> Any:
    if isinstance(value, Seat):
        return {"seat": value.index}
    if isinstance(value, Term):
        return {value.kind: value.id}
    if isinstance(value, Phrase):
        return value.to_json()
    return value


def _param_from_json(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    if set(value) == {"code", "params"}:
        return Phrase.from_json(value)
    ((kind, key),) = value.items()
    return Seat(key) if kind == "seat" else Term(kind, key)


@dataclass(frozen=True)
class TrickResult:
    """Who won a trick, who leads the next and why (phrases, first the deciding one).

    ``house`` is the code of a house ruling that decided the trick (rulings.md): screens name it.
    Games add their own fields in a subclass.
    """

    winner: int
    next_lead: int
    reason: tuple[Phrase, ...]
    house: str | None = None


# --- rules as objects ----------------------------------------------------------------------


class Rule(Protocol[ContextT_contra, OutcomeT_co]):
    """One way a trick can be decided; ``decide`` returns None when the rule does not apply."""

    name: str

    def decide(self, context: ContextT_contra) -> OutcomeT_co | None: ...


def first_decision(rules: Iterable[Rule[ContextT, OutcomeT]], context: ContextT) -> OutcomeT:
    """The outcome of the first rule, in the given priority order, that applies.

    The order of ``rules`` is the precedence between them: the one place a conflict is decided.

    >>> class Always:
    ...     name = "always"
    ...     def decide(self, context): return f"{context} by default"
    >>> class Never:
    ...     name = "never"
    ...     def decide(self, context): return None
    >>> first_decision([Never(), Always()], "trick 1")
    'trick 1 by default'
    """
    for rule in rules:
        outcome = rule.decide(context)
        if outcome is not None:
            return outcome
    raise LookupError("no rule decided the trick: the last rule in the order must always apply")


# --- the trick, the deal and the game state ------------------------------------------------


@dataclass
class Turn(Generic[CardT]):
    """One seat's entry in a trick, in the order entries came; ``cards`` may be empty (a declaration).

    Never changed once put down (undo snapshots share it): a game that learns more about a turn
    later keeps that beside it, in its trick or deal."""

    seat: int
    cards: tuple[CardT, ...]


@dataclass
class Trick(Generic[CardT]):
    """The cards of one trick in the order they went down, and its result once complete."""

    lead: int
    turns: list[Turn[CardT]] = field(default_factory=list)
    result: TrickResult | None = None

    @property
    def cards(self) -> list[CardT]:
        return [card for turn in self.turns for card in turn.cards]

    @property
    def lead_suit(self: Trick[SuitedT]) -> str | None:
        for turn in self.turns:
            if turn.cards:
                return turn.cards[0].suit
        return None

    def card_of(self, seat: int) -> CardT | None:
        return next((turn.cards[0] for turn in self.turns if turn.seat == seat and turn.cards), None)


@dataclass(frozen=True)
class Revoke:
    """A failure to follow that public information proved: ``seat`` declined ``suit`` in ``trick``
    and held it, as shown in ``proved_in_trick`` (0-based indexes)."""

    deal: int
    trick: int
    seat: int
    suit: str
    proved_in_trick: int

    def phrase(self) -> Phrase:
        return Phrase("revoke.text", {"seat": Seat(self.seat), "suit": Term("suit", self.suit), "trick": self.trick + 1,
                                 "deal": self.deal + 1, "shown": self.proved_in_trick + 1})

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "trick": self.trick, "seat": self.seat, "suit": self.suit,
                "proved_in_trick": self.proved_in_trick}


@dataclass
class RevokeWatch:
    """Per seat: the suits it declined (with the trick), and cards the table knows it holds."""

    declined: list[list[tuple[str, int]]]
    known: list[list[SuitedCard]]
    found: list[Revoke] = field(default_factory=list)

    @classmethod
    def for_seats(cls, seats: int) -> RevokeWatch:
        return cls([[] for _ in range(seats)], [[] for _ in range(seats)])

    def shown(self, deal: int, seat: int, card: SuitedCard, trick: int) -> None:
        """``seat`` showed ``card`` (played or revealed) in ``trick``: it proves any decline of its suit."""
        if not self.declined[seat] and not self.known[seat]:
            return  # nothing to prove or to forget: the common case, kept cheap
        if card in self.known[seat]:
            self.known[seat].remove(card)
        for suit, declined_in in self.declined[seat]:
            if suit == card.suit:
                self._flag(Revoke(deal, declined_in, seat, suit, trick))

    def declined_suits(self, deal: int, seat: int, suits: Iterable[str], trick: int) -> None:
        """``seat`` did not follow ``suits`` in ``trick``: a card of them known in its hand proves it now."""
        for suit in suits:
            self.declined[seat].append((suit, trick))
            if any(card.suit == suit for card in self.known[seat]):
                self._flag(Revoke(deal, trick, seat, suit, trick))

    def returned(self, seat: int, card: SuitedCard) -> None:
        """``card`` went back to ``seat``'s hand where everyone saw it."""
        self.known[seat].append(card)

    def _flag(self, revoke: Revoke) -> None:
        if not any(r.seat == revoke.seat and r.trick == revoke.trick and r.suit == revoke.suit for r in self.found):
            self.found.append(revoke)


@dataclass(frozen=True)
class FactNeeded:
    """Why a played deal has no score yet: a card fact the print lost, which the table is asked."""

    question: Question


# The trick type of a deal: a game whose tricks keep more (Tezuma, Tourney) names its own, so its
# deal's tricks are typed as what its new_trick makes; ``Deal[Card]`` alone means plain Tricks.
# Covariant, so the layer takes any game's deal: only the layer's open_trick appends a trick, and
# it appends what the game's new_trick made.
TrickT = DefaultTypeVar("TrickT", bound="Trick[Any]", default="Trick[CardT]", covariant=True)


@dataclass
class Deal(Generic[CardT, TrickT]):
    """One deal: its tricks, what each seat captured and won, revokes, and its scores once known.

    A played deal has ``scores``, or ``missing_fact``: the question its score waits for.
    """

    index: int
    start: int
    seats: int
    tricks: list[TrickT] = field(default_factory=list)
    captured: list[list[CardT]] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    watch: RevokeWatch = field(default_factory=lambda: RevokeWatch([], []))
    scores: list[int] | None = None
    missing_fact: Question | None = None
    # every card put down this deal up to the turn ``shown_upto`` (trick, turn): see shown_set
    shown: set[CardT] = field(default_factory=set, repr=False, compare=False)
    shown_upto: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.captured:
            self.captured = [[] for _ in range(self.seats)]
            self.tricks_won = [0] * self.seats
            self.watch = RevokeWatch.for_seats(self.seats)

    @property
    def revokes(self) -> list[Revoke]:
        return self.watch.found

    @property
    def trick(self) -> TrickT:
        return self.tricks[-1]

    def shown_cards(self) -> Iterator[CardT]:
        for trick in self.tricks:
            yield from trick.cards

    def shown_set(self) -> set[CardT]:
        """The cards put down this deal as a set, brought up to date with the turns since it was last
        asked for (turns are only ever appended): a check asks on every play, and building the set
        anew each time took most of Irohanihohedo's replay. A game that never asks pays nothing."""
        trick_index, turn_index = self.shown_upto
        tricks = self.tricks
        while trick_index < len(tricks):
            turns = tricks[trick_index].turns
            for turn in turns[turn_index:]:
                self.shown.update(turn.cards)
            if trick_index == len(tricks) - 1:
                turn_index = len(turns)
                break
            trick_index, turn_index = trick_index + 1, 0
        self.shown_upto = (trick_index, turn_index)
        return self.shown


DealT = TypeVar("DealT", bound=Deal[Any])


@dataclass
class TrickState(Generic[DealT]):
    """The fold of a trick-taking game's log: its deals so far and the running totals."""

    deals: list[DealT] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    learned: dict[str, int] = field(default_factory=dict)

    @property
    def deal(self) -> DealT:
        return self.deals[-1]

    @property
    def revokes(self) -> list[Revoke]:
        return [revoke for deal in self.deals for revoke in deal.revokes]


StateT = TypeVar("StateT", bound=TrickState[Any])


class TermNames(Protocol):
    """How the replay text names a game's terms (:class:`companion.report.Wording`)."""

    def term(self, kind: str, ident: str) -> str: ...


class ReportRows:
    """A game's own summary keys in the replay text (companion/report.py), from its class: every
    :class:`TrickGame` is one, printing none of them unless it says how."""

    # Deal keys of the game's summary that its report rows print (no per-seat figure repeats them).
    report_keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def report_deal_rows(cls, deal: Mapping[str, Any], names: TermNames) -> list[tuple[int, str]]:
        """(seat, text) lines under a deal's header, before its tricks: none by default."""
        return []

    @classmethod
    def report_play_mark(cls, play: Mapping[str, Any], names: TermNames) -> str:
        """What a trick's line shows after one play's card: nothing by default."""
        return ""

    @classmethod
    def report_score_parts(cls, deal: Mapping[str, Any], seat: int) -> list[str]:
        """How a seat came to its deal score, after its tricks: nothing more by default."""
        return []


class TrickGame(Game[StateT], ReportRows):
    """Deals of tricks: lifecycle, turn order, follow obligation, revokes, captures and scores.

    The contract (what a game gives, may change and calls) is the module's docstring.
    """

    direction: ClassVar[int] = 1  # +1: play passes to the left (clockwise); -1: to the right
    # A term kind (as in ``Term("suit", "B")``) -> the card-data list naming it (entries with a
    # "code" or "id" and a name per language): names are data, so a table can correct them.
    term_tables: ClassVar[Mapping[str, str]] = {}
    # The catalogue key that joins a reason's phrases into one text (a game may punctuate its own).
    reason_join: ClassVar[str] = "phrase.join"
    # The prefix under which the game's catalogue fragment words a shared text its own way, as
    # ``<wording>.<key>`` (Catalog.worded): Zenjidou's book says round where the others say deal.
    wording: ClassVar[str] = ""
    option_kinds: ClassVar[Mapping[str, str]] = {"dealer": "seat"}
    n: int

    def configure(self) -> None:
        self.n = len(self.setup.players)
        dealer = self.setup.options.get("dealer", 0)
        if not is_int(dealer) or not 0 <= dealer < self.n:
            raise RecordError(f"options.dealer must be a seat 0-{self.n - 1}, not {quoted(dealer)}")

    # --- setup -----------------------------------------------------------------------------------

    @classmethod
    def resolve_options(
        cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int
    ) -> dict[str, Any]:
        """By default the only option is the first ``dealer`` seat (wrapped to the table's size)."""
        return {"dealer": int(options.get("dealer", 0)) % players}

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        """A game whose card data is in files checks it here; by default a game has a fixed deck
        and no card data, so it refuses any."""
        if cards:
            raise CardDataError(f"{cls.title} has no card data: its deck is fixed")

    # --- the actions: each GameAction checks, applies, lists and reads itself ------------------

    @property
    def decision(self) -> Decision | None:
        """What the game waits for: the open deal's card question, else a play by the seat to play;
        None once the last deal is played (a game with other decisions says its own)."""
        deal = self.state.deal
        waiting = self.fact_decision(deal)
        if waiting is not None or self.deal_played(deal):
            return waiting
        seat = self.seat_to_play(deal.trick)
        return Decision("play", seat, f"{self.seat_label(seat)}: play (trick {len(deal.tricks)})")

    # The game's action types that check, apply, list and read themselves, in the order of
    # ``action_types`` (the order parse tries them and generate_legal_actions lists them): found
    # once per class, since check asks on every push.
    _game_actions: ClassVar[tuple[type[GameAction], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._game_actions = tuple(kind for kind in cls.action_types.values()
                                  if isinstance(kind, type) and issubclass(kind, GameAction))

    def game_actions(self) -> tuple[type[GameAction], ...]:
        """The game's action types that check, apply, list and read themselves."""
        return self._game_actions

    def is_over(self) -> bool:
        """Whether the last deal is scored: :meth:`close_deal` starts the next deal as soon as one
        is, so no decision is left then (the same as ``decision is None``, without its prompt)."""
        return self.state.deals[-1].scores is not None

    def check(self, action: Any) -> None:
        if self.state.deals[-1].scores is not None:  # is_over, without a call on every push
            raise IllegalAction("the game is over", code="game_over")
        if type(action) not in self._game_actions:
            raise IllegalAction(f"{quoted(action)} is not an action of {self.title}")
        action.check(self)

    def apply(self, action: Any) -> None:
        action.apply(self)

    def generate_legal_actions(self) -> Iterator[Any]:
        if not self.is_over():
            for kind in self._game_actions:
                yield from kind.legal(self)

    def parse(self, text: str) -> Any:
        if self.is_over():
            raise IllegalAction("the game is over", code="game_over")
        for kind in self._game_actions:
            action = kind.read(self, text)
            if action is not None:
                return action
        raise IllegalAction(f"{text[:40]!r} is not an action of {self.title}")

    def refuse_turn(self, seat: int | None, entered: object) -> NoReturn:
        """Refuse an entry by ``entered`` (the seat as the action gives it: from a record, maybe no
        seat of this table) where it is ``seat``'s turn: one wording and code for every game."""
        expected, actual = self.any_seat_label(seat), self.any_seat_label(entered)
        raise IllegalAction(f"it is {expected}'s turn, not {actual}'s", code="not_your_turn",
                            expected=expected, actual=actual)

    def any_seat_label(self, seat: object) -> str:
        """A seat of the open deal as reasons name it, anything else as it was given."""
        seats = self.state.deals[-1].seats
        return self.seat_label(seat) if isinstance(seat, int) and 0 <= seat < seats else repr(seat)

    # --- the table's answers: what an Answer asks of the game ------------------------------------

    def asked_question(self) -> Question | None:
        """The question the game waits for the table to answer, if any: its decision's (a game that
        knows it without building the decision, on every answer pushed, says so)."""
        decision = self.decision
        return decision.question if decision is not None else None

    def question_answered(self, answer: Answer) -> Question:
        """The open question ``answer`` answers; refused while no question about its key is open."""
        question = self.asked_question()
        if question is None or question.key != answer.key:
            raise IllegalAction(f"no question about {quoted(answer.key)} is open")
        return question

    def check_answer(self, answer: Answer) -> None:
        """Refuse an answer to no open question, or one outside the question's range (a card's points)."""
        question = self.question_answered(answer)
        if not question.minimum <= answer.value <= question.maximum:
            raise IllegalAction(
                f"points are {question.minimum}-{question.maximum}, not {answer.value}",
                code="answer_range", minimum=question.minimum, maximum=question.maximum, value=answer.value,
            )

    def read_answer(self, text: str) -> Answer | None:
        """The open question's answer from a number, like ``5``; None while no question is open."""
        question = self.asked_question()
        if question is None:
            return None
        words = text.split()
        if len(words) != 1 or not is_digits(words[0]):
            raise IllegalAction(f"answer with a number: {question.prompt}")
        return Answer(question.key, int(words[0]))

    # --- what a game gives -------------------------------------------------------------------

    def deal_count(self) -> int:
        """Deals in a game: as many as players unless the game says otherwise."""
        return self.n

    @abstractmethod
    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        """How many tricks ``deal`` has."""

    def first_lead(self, deal_index: int) -> int:
        """The first lead of a deal: by default the left neighbour of a dealer who moves left each deal."""
        dealer = (int(self.setup.options.get("dealer", 0)) + deal_index) % self.n
        return (dealer + self.direction) % self.n

    def new_deal(self, index: int, lead: int) -> Deal[Any]:
        return Deal(index, lead, self.n)

    def must_follow(self, trick: Trick[Any]) -> frozenset[str]:
        """The suits a seat about to play owes, if it holds any (the lead suit, by default)."""
        lead = trick.lead_suit
        return frozenset({lead}) if lead is not None else frozenset()

    def follow_exempt(self, trick: Trick[Any], turn: Turn[Any]) -> bool:
        """Whether the rules let ``turn`` ignore what ``trick`` owes (an ability): it then declines
        nothing. Asked before the turn joins the trick, and only of a turn that would decline
        something (its first card is not of a suit owed); by default no turn is exempt."""
        return False

    @abstractmethod
    def resolve(self, trick: Trick[Any]) -> TrickResult:
        """Who won the complete ``trick``, who leads next and why."""

    def captured_cards(self, trick: Trick[Any]) -> list[Any]:
        """The cards of the resolved ``trick`` its winner takes: by default all of them."""
        return trick.cards

    @abstractmethod
    def score_deal(self, deal: Deal[Any]) -> list[int] | FactNeeded:
        """The played ``deal``'s score per seat, or the card fact it needs first."""

    # --- the fold ------------------------------------------------------------------------------

    def initial_state(self) -> StateT:
        state = self.new_state()
        state.totals = [0] * self.n
        self.start_deal(state, self.first_lead(0))
        return state

    def new_state(self) -> StateT:
        return TrickState()  # type: ignore[return-value]  # a game with a richer state overrides new_state

    opens_first_trick: ClassVar[bool] = True  # False: the game opens its first trick itself (after a draft)

    @final
    def start_deal(self, state: StateT, lead: int) -> None:
        """Append :meth:`new_deal` and open its first trick, unless the game opens it itself
        (``opens_first_trick = False``: Tezuma's draft, Zenjidou's choice of the round rule)."""
        deal = self.new_deal(len(state.deals), lead)
        state.deals.append(deal)
        if self.opens_first_trick:
            self.open_trick(deal, lead)

    @final
    def open_trick(self, deal: Deal[Any], lead: int) -> None:
        """Append the game's :meth:`new_trick` led by ``lead``."""
        deal.tricks.append(self.new_trick(lead))

    def new_trick(self, lead: int) -> Trick[Any]:
        """An empty trick led by ``lead`` (a game whose tricks keep more returns its own subclass)."""
        return Trick(lead)

    def seat_to_play(self, trick: Trick[Any]) -> int:
        """Whose card comes next: the lead, then each seat in the direction of play."""
        return (trick.lead + self.direction * len(trick.turns)) % self.n

    def trick_complete(self, trick: Trick[Any]) -> bool:
        return len(trick.turns) == self.n

    def put_down(self, deal: Deal[Any], turn: Turn[Any]) -> None:
        """Record one seat's ``turn`` in the open trick and what its cards prove: each card shown,
        and a decline of what the trick owed (unless the turn is :meth:`follow_exempt`)."""
        trick = deal.tricks[-1]
        cards = turn.cards
        # What the seat declined, read before its cards join the trick; the exemption is asked only
        # of a turn that would decline something (every play asks, and most follow).
        declined: list[str] = []
        if cards:
            owed = self.must_follow(trick)
            if owed and cards[0].suit not in owed and not self.follow_exempt(trick, turn):
                declined = sorted(owed)
        trick.turns.append(turn)
        watch, seat = deal.watch, turn.seat
        if watch.declined[seat] or watch.known[seat]:  # else no card of the seat can prove anything
            for card in cards:
                watch.shown(deal.index, seat, card, len(deal.tricks) - 1)
        if declined:
            watch.declined_suits(deal.index, seat, declined, len(deal.tricks) - 1)

    def play_turn(self, state: StateT, turn: Turn[Any]) -> None:
        """:meth:`put_down` ``turn`` in the open trick, and :meth:`finish_trick` if it completes it:
        the whole fold of a play for a game whose turns need nothing more."""
        deal = state.deals[-1]  # the open deal and its open trick, read directly: every play asks
        self.put_down(deal, turn)
        if self.trick_complete(deal.tricks[-1]):
            self.finish_trick(state, deal)

    @final
    def finish_trick(self, state: StateT, deal: Deal[Any]) -> None:
        """Resolve the complete open trick, hand the winner its :meth:`captured_cards`, and go on:
        the next trick, or once the deal is played :meth:`close_deal`."""
        trick = deal.tricks[-1]
        result = self.resolve(trick)
        trick.result = result
        deal.captured[result.winner].extend(self.captured_cards(trick))
        deal.tricks_won[result.winner] += 1
        if len(deal.tricks) < self.tricks_in_deal(deal):
            self.open_trick(deal, result.next_lead)
        else:
            self.close_deal(state)

    @final
    def close_deal(self, state: StateT) -> None:
        """Score the played last deal and start the next one; or, while the score needs a card fact,
        leave the deal waiting for it in ``missing_fact`` (the question :meth:`fact_decision` asks)."""
        deal = state.deal
        if deal.scores is not None or not self.deal_played(deal):
            raise RuntimeError(f"deal {deal.index + 1} is closed once, after its last trick")
        scores = self.score_deal(deal)
        if isinstance(scores, FactNeeded):
            deal.missing_fact = scores.question
            return
        deal.missing_fact = None
        deal.scores = scores
        state.totals = [total + score for total, score in zip(state.totals, scores, strict=True)]
        if len(state.deals) < self.deal_count():
            self.start_deal(state, self.next_deal_lead(state))

    def learn_fact(self, state: StateT, answer: Answer) -> None:
        """The table's answer to the question of the deal waiting in ``missing_fact`` (an Answer
        applies itself by it): remember the fact and close the deal again (scored now, or waiting
        for its next missing fact). A game whose question is another overrides it."""
        state.learned[answer.key] = answer.value
        self.close_deal(state)

    def fact_decision(self, deal: Deal[Any]) -> Decision | None:
        """The table's decision while ``deal`` waits for a card fact: answer its question."""
        question = deal.missing_fact
        return None if question is None else Decision("answer", None, question.prompt, question)

    def next_deal_lead(self, state: StateT) -> int:
        return self.first_lead(len(state.deals))

    def deal_played(self, deal: Deal[Any]) -> bool:
        return len(deal.tricks) == self.tricks_in_deal(deal) and deal.tricks[-1].result is not None

    def snapshot_state(self, state: StateT) -> StateT:
        """Share what no action changes again: every scored deal before the open one, the open
        deal's resolved tricks but the last two (a lead named after a trick, like Zenjidou's J, still
        changes the trick before the open one) and the turns of those two (a :class:`Turn` is never
        changed once put down); copy the rest (the open deal, its last tricks, totals)."""
        memo: dict[int, Any] = {}
        for deal in state.deals[:-1]:
            if deal.scores is not None:
                memo[id(deal)] = deal
        if state.deals:
            tricks = state.deals[-1].tricks
            for trick in tricks[:-2]:
                if trick.result is not None:
                    memo[id(trick)] = trick
            for trick in tricks[-2:]:
                for turn in trick.turns:
                    memo[id(turn)] = turn
        for kept in self.kept_in_snapshot(state):
            memo[id(kept)] = kept
        return snapshot(state, memo)  # type: ignore[no-any-return]

    def kept_in_snapshot(self, state: StateT) -> Iterable[object]:
        """Mutable parts of the open deal that no action changes again, which a snapshot shares
        instead of copying (a game that knows some names them): none by default."""
        return ()

    # --- the common questions ------------------------------------------------------------------

    def term_name(self, term: Term, lang: str) -> str | None:
        """A term's name in ``lang`` from the card data, or None for the catalogue to name it."""
        table = self.term_tables.get(term.kind)
        entries = self.setup.cards.get(table, []) if table else []
        for entry in entries:
            if entry.get("code", entry.get("id")) == term.id:
                name = entry.get(lang)
                return name if isinstance(name, str) else None
        return None

    @final
    def totals(self) -> list[int]:
        """Each player's total: :meth:`per_player` of the seats' totals."""
        return self.per_player(self.state.totals)

    def per_player(self, per_seat: Sequence[int]) -> list[int]:
        """Per-seat figures as each player's (a seat is a player, by default; Zenjidou's players play hands)."""
        return list(per_seat)

    def summary(self) -> dict[str, Any]:
        """The common replay schema (docs/record-format.md), plus the game's own keys per deal and trick."""
        deals = []
        for deal in self.state.deals:
            tricks = []
            for index, trick in enumerate(deal.tricks):
                if trick.result is None:
                    continue
                entry = {
                    "lead": trick.lead,
                    "winner": trick.result.winner,
                    "next_lead": trick.result.next_lead,
                    "reason": [phrase.to_json() for phrase in trick.result.reason],
                    "house": trick.result.house,
                    "cards": self.trick_cards(trick),
                }
                entry.update(self.trick_summary(deal, index, trick))
                tricks.append(entry)
            entry = {"start": deal.start, "tricks": tricks, "tricks_won": list(deal.tricks_won), "scores": deal.scores}
            entry.update(self.deal_summary(deal))
            deals.append(entry)
        return {
            "game": self.game_id,
            "players": list(self.setup.players),
            "deals": deals,
            "totals": self.totals(),
            "winners": self.winners() if self.is_over() else [],
            "revokes": [
                revoke.to_json() | {"reason": [self.revoke_phrase(revoke).to_json()]} for revoke in self.state.revokes
            ],
            "pending": self.pending(),
        }

    def revoke_phrase(self, revoke: Revoke) -> Phrase:
        """How a revoke is said; a game whose seats are not its players (hands) names them its way."""
        return revoke.phrase()

    def trick_cards(self, trick: Trick[Any]) -> list[dict[str, Any]]:
        """The ``cards`` of a trick in the replay schema: one entry per turn, ``seat`` and ``card``."""
        return [{"seat": turn.seat, "card": "+".join(str(c) for c in turn.cards) or None} for turn in trick.turns]

    def trick_summary(self, deal: Deal[Any], index: int, trick: Trick[Any]) -> dict[str, Any]:
        """Game-specific keys of one trick in the replay schema (documented per game)."""
        return {}

    def deal_summary(self, deal: Deal[Any]) -> dict[str, Any]:
        """Game-specific keys of one deal in the replay schema (documented per game)."""
        return {}

    def card_odds(self, seat: int, cards: Iterable[Any]) -> dict[Any, float]:
        """How likely each of ``cards`` (cards the table has not seen) is to be the one ``seat`` puts
        down next, from what the table has seen only (the device never sees a hand): the lead suit
        from a seat that may still hold it (:data:`FOLLOW_WEIGHT`), a suit's highest and lowest of
        ``cards`` (:data:`EXTREME_WEIGHT`), none of a suit the seat declined (a revoke is still
        possible, only least likely). Relative weights, not probabilities; a game that knows more
        (a marker, an ability, an order) overrides it. The screens start their cursors by it."""
        deal = self.state.deal
        trick = deal.tricks[-1] if deal.tricks else None
        lead = trick.lead_suit if trick is not None and trick.turns else None
        void = {suit for suit, _ in deal.watch.declined[seat]}
        cards = list(cards)
        extremes = extreme_cards(cards)
        return {card: 0.0 if card.suit in void
                else (FOLLOW_WEIGHT if card.suit == lead else 1.0) * (EXTREME_WEIGHT if card in extremes else 1.0)
                for card in cards}

    def unseen(self, deck: Iterable[CardT]) -> list[CardT]:
        """The cards of ``deck`` the table has not seen this deal (each card exists once)."""
        shown = self.state.deal.shown_set()
        return [card for card in deck if card not in shown]


def extreme_cards(cards: Iterable[SuitedT]) -> set[SuitedT]:
    """The highest and the lowest of each suit among ``cards`` (what people play half the time).

    >>> sorted(map(str, extreme_cards(SuitedCard.parse(c) for c in ("B1", "B4", "B9", "W2"))))
    ['B1', 'B9', 'W2']
    """
    cards = list(cards)
    ranks: dict[str, list[int]] = {}
    for card in cards:
        ranks.setdefault(card.suit, []).append(card.rank)
    return {card for card in cards if card.rank in (min(ranks[card.suit]), max(ranks[card.suit]))}


def check_unseen(card: SuitedCard, deal: Deal[Any], describe: Callable[[SuitedCard], str] = str) -> None:
    """Refuse a card already put down this deal (every card of these decks exists once)."""
    if card in deal.shown_set():
        raise IllegalPlay(f"{describe(card)} was already played this deal", code="already_played", card=str(card))


def seats_in_order(lead: int, seats: int, direction: int = 1) -> list[int]:
    """Seats in playing order from ``lead``.

    >>> seats_in_order(2, 4), seats_in_order(2, 4, -1)
    ([2, 3, 0, 1], [2, 1, 0, 3])
    """
    return [(lead + direction * step) % seats for step in range(seats)]
