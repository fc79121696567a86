"""The shape every game shares: an append-only log of actions whose fold is the state.

The design follows python-chess: a :class:`Game` has a public ``actions`` stack, ``push`` checks an
action against the rules and appends it, ``pop`` drops the last one, ``peek`` shows it, and
``legal_actions`` is a lazy view of what may come next. A game is a subclass named by id in its
package's plugin record, so a new game is a new package, not a new branch here.

The device never sees hands, so "legal" means "not provably illegal from what the table has shown".
Every refusal is an :class:`~companion.errors.IllegalAction` whose message a player can read.

The engine is pure: no I/O, no clock, no hardware. Randomness enters only as the seed in
:class:`Setup`, which the record keeps.
"""

from __future__ import annotations

import copy
import dataclasses
import marshal
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeGuard, TypeVar

from companion.errors import CardDataError, IllegalAction, NoSeat, RecordError, quoted

StateT = TypeVar("StateT")

# (game id, card data as marshal bytes) that validate_cards accepted; a few editions' and tables' data at most
VALID_CARD_DATA: set[tuple[str, bytes]] = set()
VALID_CARD_DATA_KEPT = 16
MARSHAL_NO_REFS = 2  # later versions write an object seen twice as a reference, so the bytes of a
# value would depend on what else refers to its parts: version 2 writes the same value the same way


@dataclass(frozen=True)
class Setup:
    """Everything a game needs before its first action; the record's header holds exactly this.

    ``cards`` is the printed card data the game relies on and ``table_facts`` what a table told the
    device about cards whose print was lost; both are embedded so a record replays on its own.
    """

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    cards: Mapping[str, Any] = field(default_factory=dict)
    table_facts: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Question:
    """A card fact the print lost, asked of the table the first time the game needs it.

    ``key`` identifies the fact in the table's card-data file; ``prompt`` is what the screen says.
    """

    key: str
    prompt: str
    minimum: int = 0
    maximum: int = 99
    suggestion: int = 0


class ActionType(Protocol):
    """An action class as the record sees it: it decodes its own record line."""

    def from_json(self, data: Mapping[str, Any], /) -> Any: ...


@dataclass(frozen=True)
class Decision:
    """What the game waits for next: who must act and what kind of action is expected.

    ``actor`` is the seat that acts, or None when the whole table does (a card fact's question,
    Tourney's NPC row). Code that needs a seat reads :attr:`seat`, which refuses a table's decision
    instead of letting "no seat" pass for seat 0.

    >>> Decision("play", 2, "P3: play").seat
    2
    >>> Decision("answer", None, "points?").seat
    Traceback (most recent call last):
    ...
    companion.errors.NoSeat: 'answer' is the whole table's decision, not a seat's
    """

    kind: str
    actor: int | None
    prompt: str
    question: Question | None = None

    @property
    def seat(self) -> int:
        """The seat that must act; asking a table's decision for one is a mistake in the caller."""
        if self.actor is None:
            raise NoSeat(f"{self.kind!r} is the whole table's decision, not a seat's")
        return self.actor


def is_int(value: object) -> TypeGuard[int]:
    """A whole number as JSON decodes one: ``True`` is an ``int`` to Python, never to a record or card data.

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)


MAX_DIGITS = 18
"""The longest number a record, a facts key or a typed command may spell: every count, card and
seat is far shorter, and ``int`` refuses (ValueError) more than 4,300 digits."""


def is_digits(text: str) -> bool:
    """A whole number >= 0 as the product writes one, which ``int`` reads back: ``str.isdigit`` also
    accepts superscripts like ``"¹"``, which it cannot; a key of thousands of digits (from a damaged
    file) is no number; and a leading zero would be a second spelling of a number ("01" and "1",
    two facts for one card, or a card counted twice in a deck).

    >>> is_digits("12"), is_digits("0"), is_digits("¹"), is_digits(""), is_digits("9" * 5000), is_digits("01")
    (True, True, False, False, False, False)
    """
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS and (text == "0" or text[0] != "0")


@dataclass(frozen=True)
class Answer:
    """The table's answer to a :class:`Question`; it becomes part of the log like any action.

    >>> Answer("points:chart-3:5", 8).to_json()
    {'type': 'answer', 'key': 'points:chart-3:5', 'value': 8}
    """

    key: str
    value: int
    type: ClassVar[str] = "answer"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "key": self.key, "value": self.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Answer:
        key, value = data.get("key"), data.get("value")
        if not isinstance(key, str) or not is_int(value):
            raise RecordError("an answer needs a string 'key' and an integer 'value'")
        return cls(key, value)

    # An answer is a GameAction too (companion.engine.actions registers it): it checks, applies,
    # lists and reads itself through the trick layer's answer hooks, which a game whose question
    # differs overrides (``check_answer``, ``learn_fact``, ``read_answer``).

    def check(self, game: Any) -> None:
        game.check_answer(self)

    def apply(self, game: Any) -> None:
        game.learn_fact(game.state, self)

    @classmethod
    def legal(cls, game: Any) -> Iterator[Answer]:
        """Every value of the open question the game accepts, lowest first (none while no question is open)."""
        question = game.asked_question()
        if question is None:
            return
        for value in range(question.minimum, question.maximum + 1):
            answer = cls(question.key, value)
            try:
                game.check_answer(answer)
            except IllegalAction:
                continue
            yield answer

    @classmethod
    def read(cls, game: Any, text: str) -> Answer | None:
        answer: Answer | None = game.read_answer(text)
        return answer


class LegalActions:
    """A lazy view of the actions legal now: iterate to generate, ``in`` to check one.

    Generating every legal play can be large (cards times abilities), so nothing is built until asked.

    >>> from companion.carddata import printed_cards
    >>> from companion.games.tezuma.rules import Draft, Tezuma2015
    >>> game = Tezuma2015(Tezuma2015.new_setup("ABCD", cards=printed_cards("tezuma-2015")))
    >>> legal = game.legal_actions
    >>> legal.count(), bool(legal)  # 4 minus cards + 5 charts + 6 abilities for the first pick
    (15, True)
    >>> Draft(0, "penalty", "R") in legal, Draft(1, "penalty", "R") in legal
    (True, False)
    """

    def __init__(self, game: Game[Any]) -> None:
        self._game = game

    def __iter__(self) -> Iterator[Any]:
        return self._game.generate_legal_actions()

    def __contains__(self, action: object) -> bool:
        return self._game.is_legal(action)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def count(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"<LegalActions for {self._game.decision!r}>"


# --- state snapshots ------------------------------------------------------------------------
#
# A snapshot copies what a later action may change and shares what none can: values of immutable
# types (numbers, strings, tuples, frozensets, frozen dataclasses such as cards and results) and
# whatever the caller names in ``memo`` (a trick game's closed deals and tricks). A state therefore
# keeps only immutable values in its tuples and frozen dataclasses, and holds no cycles (a tree whose
# nodes may share immutable leaves).

_SHARE, _LIST, _DICT, _SET, _OBJECT, _OTHER = range(6)
_KINDS: dict[type, int] = {kind: _SHARE for kind in (int, str, float, bool, type(None), bytes, tuple, frozenset)}
_KINDS.update({list: _LIST, dict: _DICT, set: _SET})
_IMMUTABLE = (int, str, float, bytes, tuple, frozenset)  # subclasses without a __dict__ stay immutable
_SHARED = {cls for cls, kind in _KINDS.items() if kind == _SHARE}  # as _KINDS learns more, so does this


def _kind(cls: type) -> int:
    """How :func:`snapshot` copies a value of ``cls`` (decided once per class)."""
    kind = _KINDS.get(cls)
    if kind is None:
        # The ignore below: every dataclass has its parameters, but typeshed does not declare them
        if dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
            kind = _SHARE  # slots or not
        elif dataclasses.is_dataclass(cls) and cls.__dictoffset__:  # its fields are in its __dict__
            kind = _OBJECT
        elif issubclass(cls, _IMMUTABLE) and not cls.__dictoffset__:  # a typed card (an int), a named tuple
            kind = _SHARE
        else:
            kind = _DICT if issubclass(cls, dict) else _OTHER  # a Counter, a defaultdict
        _KINDS[cls] = kind
        if kind == _SHARE:
            _SHARED.add(cls)
    return kind


def _all_shared(values: Iterable[Any]) -> bool:
    """Whether :func:`snapshot` shares every one of ``values``, asked of their few classes at once
    instead of value by value (a list of 30 numbers has one class)."""
    return set(map(type, values)) <= _SHARED


def snapshot(value: Any, memo: dict[int, Any]) -> Any:
    """A copy of ``value`` that no later change to ``value`` reaches, sharing what cannot change.

    Like :func:`copy.deepcopy` (``memo`` maps ``id`` to the copy, so shared objects stay shared), but
    it stops at immutable values, so a snapshot costs the mutable objects only.

    >>> from companion.engine.tricks import SuitedCard
    >>> card = SuitedCard("B", 3)
    >>> state = {"hand": [card], "told": {"x": 1}}
    >>> copied = snapshot(state, {})
    >>> copied == state, copied["hand"] is state["hand"], copied["hand"][0] is card
    (True, False, True)
    """
    kind = _KINDS.get(value.__class__)
    if kind is None:
        kind = _kind(value.__class__)
    if kind == _SHARE:
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    kinds = _KINDS
    if kind == _LIST:
        if _all_shared(value):  # a list of numbers, cards or tuples: most of a state's lists
            copied: Any = value.copy()
        else:
            copied = [v if kinds.get(v.__class__) == _SHARE else snapshot(v, memo) for v in value]
    elif kind == _DICT:
        copied = value.copy() if value.__class__ is dict else copy.copy(value)
        if not _all_shared(value.values()):
            for key, item in value.items():
                if kinds.get(item.__class__) != _SHARE:
                    copied[key] = snapshot(item, memo)
    elif kind == _SET:
        copied = set(value)  # the elements are hashable, so immutable
    elif kind == _OBJECT:
        copied = object.__new__(value.__class__)
        copied.__dict__.update(
            {key: item if kinds.get(item.__class__) == _SHARE else snapshot(item, memo)
             for key, item in value.__dict__.items()}
        )
    else:
        copied = copy.deepcopy(value, memo)
    memo[id(value)] = copied
    return copied


class Game(ABC, Generic[StateT]):
    """A game in progress: the setup, the action log and the state folded from them.

    Subclasses give ``initial_state``, ``check`` (raise :class:`IllegalAction` with a reason) and
    ``apply`` (mutate the state; only called after ``check`` passed), plus the decision and result.
    Everything a game keeps that actions change lives in ``self.state``; what ``configure`` derives
    from the setup never changes afterwards (:meth:`copy` shares it).

    Undo is bounded, not a fold of the whole log: every ``CHECKPOINT_EVERY`` actions the game keeps a
    snapshot of its state (:meth:`snapshot_state`, which shares what no later action can change), so
    :meth:`pop` restores the latest snapshot before the action it drops and applies at most
    ``CHECKPOINT_EVERY - 1`` actions again (docs/architecture.md says why and what it costs).
    """

    # Actions between two snapshots: a push pays 1/CHECKPOINT_EVERY of a snapshot (about 40 us), a
    # pop at most CHECKPOINT_EVERY - 1 applies (about 5 us each) and one snapshot (docs/figures.md).
    CHECKPOINT_EVERY: ClassVar[int] = 128

    game_id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    action_types: ClassVar[Mapping[str, ActionType]] = {}
    # The header options the game reads and their kinds ("seat": a whole number naming a seat,
    # "bool", "list", "text"): a record is untrusted, so the reader checks them before the game sees them
    # (:func:`companion.record.check_options`). ``required_options`` must be present.
    option_kinds: ClassVar[Mapping[str, str]] = {}
    required_options: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, setup: Setup) -> None:
        if setup.game != self.game_id:
            raise RecordError(f"a {self.game_id} game cannot load a setup for {setup.game!r}")
        if not self.min_players <= len(setup.players) <= self.max_players:
            raise IllegalAction(
                f"{self.title} is for {self.min_players}-{self.max_players} players, not {len(setup.players)}"
            )
        self.setup = setup
        self.configure()
        self.actions: list[Any] = []
        self.state: StateT = self.initial_state()
        # (log length, state after that many actions), oldest first; never changed once taken. The
        # state before any action is not kept: initial_state builds it again without an action.
        self._checkpoints: list[tuple[int, StateT]] = []

    def configure(self) -> None:
        """Derive what the rules need from ``self.setup`` once, before the first state is built."""

    # --- the log ---------------------------------------------------------------------------

    def push(self, action: Any) -> None:
        """Check ``action`` against the rules and append it; an illegal one changes nothing, and
        neither does an ``apply`` that fails halfway (the state goes back to the log's fold)."""
        self.check(action)
        try:
            self.apply(action)
        except BaseException:
            self._restore(len(self.actions))
            raise
        self.actions.append(action)
        if len(self.actions) % self.CHECKPOINT_EVERY == 0:
            self._checkpoints.append((len(self.actions), self.snapshot_state(self.state)))

    def pop(self) -> Any:
        """Undo the last action: back to the latest snapshot before it, then at most
        ``CHECKPOINT_EVERY - 1`` actions again; returns the dropped action."""
        if not self.actions:
            raise IllegalAction("nothing to undo")
        dropped = self.actions.pop()
        self._restore(len(self.actions))
        return dropped

    def _restore(self, length: int) -> None:
        """Make ``self.state`` the fold of ``self.actions[:length]`` from the latest snapshot at or before it."""
        checkpoints = self._checkpoints
        while checkpoints and checkpoints[-1][0] > length:
            checkpoints.pop()
        if checkpoints:
            start, kept = checkpoints[-1]
            self.state = self.snapshot_state(kept)  # the kept snapshot stays as it is for a later undo
        else:
            start, self.state = 0, self.initial_state()
        for action in self.actions[start:length]:
            self.apply(action)

    def snapshot_state(self, state: StateT) -> StateT:
        """A copy of ``state`` that later actions leave alone; a game that knows which parts of its
        state never change again shares them (:meth:`TrickGame.snapshot_state`)."""
        return snapshot(state, {})  # type: ignore[no-any-return]

    def peek(self) -> Any:
        """The last action, or an error when the log is empty."""
        if not self.actions:
            raise IllegalAction("no action yet")
        return self.actions[-1]

    def is_legal(self, action: object) -> bool:
        try:
            self.check(action)
        except IllegalAction:
            return False
        return True

    @property
    def legal_actions(self) -> LegalActions:
        return LegalActions(self)

    def copy(self) -> Game[StateT]:
        """An independent game with the same setup and log: a snapshot of the state, no action applied."""
        clone = copy.copy(self)  # the setup and what configure derived from it never change
        clone.state = self.snapshot_state(self.state)
        clone.actions = list(self.actions)
        clone._checkpoints = list(self._checkpoints)  # snapshots are never changed, so both may share them
        return clone

    # --- actions as JSON -------------------------------------------------------------------

    @classmethod
    def action_from_json(cls, data: Mapping[str, Any]) -> Any:
        """Decode one record line into an action of this game; unknown types are a RecordError."""
        kind = data.get("type")
        action_type = cls.action_types.get(kind) if isinstance(kind, str) else None
        if action_type is None:
            raise RecordError(f"unknown action type {quoted(kind)} for {cls.game_id}")
        return action_type.from_json(data)

    # --- what subclasses provide -----------------------------------------------------------

    @classmethod
    def new_setup(
        cls,
        players: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        seed: int = 0,
        cards: Mapping[str, Any],
        table_facts: Mapping[str, Any] | None = None,
    ) -> Setup:
        """Resolve defaults and random draws into a complete, self-contained :class:`Setup`.

        The card data and the player count are checked here for every game; the game fills in its
        own options in :meth:`resolve_options`.
        """
        cls.validate_cards(cards)
        n = len(players)
        if not cls.min_players <= n <= cls.max_players:
            raise IllegalAction(f"{cls.title} is for {cls.min_players}-{cls.max_players} players, not {n}")
        resolved = cls.resolve_options(dict(options or {}), n, cards, seed)
        return Setup(cls.game_id, tuple(players), resolved, seed, cards, dict(table_facts or {}))

    @classmethod
    @abstractmethod
    def resolve_options(
        cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int
    ) -> dict[str, Any]:
        """Every option the game reads, defaults and random draws filled in, so a record is self-contained."""

    @classmethod
    @abstractmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        """Raise :class:`~companion.errors.CardDataError` unless ``cards`` is usable by this game."""

    @classmethod
    def validate_cards_once(cls, cards: Mapping[str, Any]) -> None:
        """:meth:`validate_cards`, skipped for card data found valid before: every record of a game
        carries the same printed data, and checking its shape took most of building a game (a
        replay builds one per record). Card data is JSON (a file's or a record's): ``marshal`` writes
        such a value as bytes that load back to it alone (telling ``1`` from ``True`` and ``1.0``,
        which ``==`` does not) and refuses any other type, whose data is then checked every time."""
        try:
            key = (cls.game_id, marshal.dumps(cards, MARSHAL_NO_REFS)) if isinstance(cards, dict) else None
        except ValueError:  # not plain JSON types: no key stands for the value
            key = None
        if key is not None and key in VALID_CARD_DATA:
            return
        cls.validate_cards(cards)
        if key is not None and len(VALID_CARD_DATA) < VALID_CARD_DATA_KEPT:
            VALID_CARD_DATA.add(key)

    @classmethod
    def card_gaps(cls, cards: Mapping[str, Any]) -> list[str]:
        """Printed facts this game's card data lacks, one readable line each (``companion cards list``)."""
        return []

    @classmethod
    def check_fact_key(cls, cards: Mapping[str, Any], key: str) -> None:
        """Raise :class:`~companion.errors.CardDataError` unless a table may tell the fact ``key``."""
        raise CardDataError(f"{cls.game_id} has no card facts a table can supply (not {key!r})")

    @classmethod
    def answer_facts(cls, cards: Mapping[str, Any], answer: Answer) -> list[tuple[str, int]]:
        """The card facts (key, value) to remember for an answer: by default the answer itself; a
        game whose one answer stands for several facts says which."""
        return [(answer.key, answer.value)]

    @classmethod
    def fact_notes(cls, cards: Mapping[str, Any], facts: Mapping[str, Any]) -> list[str]:
        """What the table's facts for this game leave unusable, one line each (``companion cards list``)."""
        return []

    @classmethod
    def fact_range(cls, cards: Mapping[str, Any], key: str) -> range:
        """The values a table may tell for ``key`` (a key :meth:`check_fact_key` accepts): the
        answers the device's question for it offers, checked when a fact is set or imported."""
        return range(Question.minimum, Question.maximum + 1)

    @abstractmethod
    def initial_state(self) -> StateT: ...

    @abstractmethod
    def check(self, action: object) -> None:
        """Raise :class:`IllegalAction` saying why ``action`` is not allowed now."""

    @abstractmethod
    def apply(self, action: Any) -> None:
        """Fold one checked action into ``self.state``."""

    @abstractmethod
    def generate_legal_actions(self) -> Iterator[Any]: ...

    @abstractmethod
    def parse(self, text: str) -> Any:
        """An action for the current decision from the game's short notation (tests, scripts, CLI)."""

    def push_text(self, text: str) -> Any:
        """Parse and push; returns the action."""
        action = self.parse(text)
        self.push(action)
        return action

    @property
    @abstractmethod
    def decision(self) -> Decision | None:
        """What the game waits for, or None once it is over."""

    @abstractmethod
    def totals(self) -> list[int]:
        """Each seat's total so far."""

    @abstractmethod
    def summary(self) -> dict[str, Any]:
        """The game so far as plain data: the ``companion replay --json`` schema (docs/record-format.md)."""

    def pending(self) -> dict[str, Any] | None:
        """The decision awaited, as plain data, or None once the game is over."""
        decision = self.decision
        if decision is None:
            return None
        data: dict[str, Any] = {"kind": decision.kind, "seat": decision.actor, "prompt": decision.prompt}
        if decision.question is not None:
            data["question"] = decision.question.key
        return data

    def is_over(self) -> bool:
        return self.decision is None

    def winners(self) -> list[int]:
        """Seats sharing the top total (ties share the win)."""
        totals = self.totals()
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    def seat_label(self, seat: int) -> str:
        """How reasons name a seat: P1..PN, so they read the same on every screen."""
        return f"P{seat + 1}"


def setup_to_json(setup: Setup) -> dict[str, Any]:
    return {key: (list(value) if key == "players" else value) for key, value in dataclasses.asdict(setup).items()}
