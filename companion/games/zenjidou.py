"""Zenjidou Torite (全自動トリテ, deztec 2023): tricks decided by the effects printed on the cards.

32 cards numbered 1-32; each prints a colour, a score mark, an effect and one of four resolution
rules. 3 rounds of 5 tricks; each hand is a pile of 5 (2 players: two hands each, alternating round
the table). Play goes clockwise (右回り), like every game here. Strength is the trump colour first
(none by default), then the number (high strong by default). The effects form two groups, order (low
numbers strong / its cancel) and trump (colour X is trump / trump void): in each group only the card
with the highest priority under the round's resolution rule applies. A round rule A-L, chosen at each
round start, says how each hand plays. Hands stay in their holders' hands: every card is entered as it
goes down, and what a rule makes certain is checked from the cards seen (a player who must follow and
did not, and later shows the lead colour, revoked: flagged and named, the table decides).

The per-card table is printed on the cards only, so the table tells it: the first time a number
appears whose facts are unknown, the game asks its colour, score mark, effect and resolution rule.

The book's first example (facts a test supplies): resolution "larger number first"; 21's "low numbers
strong" overrides 16's cancel, 7 makes blue trump, so blue 16 beats blue 21:

>>> from companion.carddata import printed_cards
>>> facts = {"card": {"5": card_facts(1, 1, 0, 1), "7": card_facts(1, 1, 4, 1),
...                   "16": card_facts(0, 5, 2, 1), "21": card_facts(0, 3, 1, 1)}}
>>> effects = resolve_effects([Entry(0, 0, 5, facts_of(facts, 5)), Entry(1, 3, 7, facts_of(facts, 7)),
...                            Entry(2, 2, 16, facts_of(facts, 16)), Entry(3, 1, 21, facts_of(facts, 21))],
...                           "larger_first")
>>> effects.low_strong, effects.trump, strongest(effects).number
(True, 0, 16)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any, ClassVar

from companion.carddata import CardCheck, named
from companion.engine.base import ActionType, Answer, Decision, Question, is_digits, is_int
from companion.engine.tricks import (
    Deal,
    Phrase,
    Revoke,
    Seat,
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
from companion.errors import CardDataError, IllegalAction, IllegalPlay, RecordError
from companion.registry import register

# --- the printed facts of a card ---------------------------------------------------------------

NONE, LOW_STRONG, LOW_CANCEL, TRUMP_VOID, TRUMP = "none", "low_strong", "low_cancel", "trump_void", "trump"
EFFECT_KINDS = (NONE, LOW_STRONG, LOW_CANCEL, TRUMP_VOID, TRUMP)
RESOLUTION_RULES = ("smaller_first", "larger_first", "earlier_first", "later_first")
FACT_NAMES = ("colour", "score", "effect", "rule")
COLOURS = 5


@dataclass(frozen=True)
class Effect:
    """What a card's effect does; ``colour`` is the colour a TRUMP effect makes trump (an index)."""

    kind: str
    colour: int | None = None

    @classmethod
    def from_index(cls, index: int) -> Effect:
        """Effect facts are indexes: 0-3 the kinds without a colour, 4 + c "colour c is trump"."""
        if index >= EFFECT_KINDS.index(TRUMP):
            return cls(TRUMP, index - EFFECT_KINDS.index(TRUMP))
        return cls(EFFECT_KINDS[index])


@dataclass(frozen=True)
class CardFacts:
    """One card's print: colour index, score (the mark's points), effect and resolution rule."""

    colour: int
    score: int
    effect: Effect
    rule: str


def card_facts(colour: int, score: int, effect: int, rule: int) -> dict[str, int]:
    """The facts of one card as the card-data file stores them (indexes), for tests and tables."""
    return {"colour": colour, "score": score, "effect": effect, "rule": rule}


def facts_of(table: Mapping[str, Any], number: int, marks: Sequence[int] = (0, 1, 2, 3, -1, -2)) -> CardFacts:
    """Decode a complete ``{"card": {number: indexes}}`` entry (see :func:`card_facts`)."""
    raw = table["card"][str(number)]
    return CardFacts(raw["colour"], marks[raw["score"]], Effect.from_index(raw["effect"]),
                     RESOLUTION_RULES[raw["rule"]])


# --- effects resolved by priority ------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A card in a trick: its place in play order, the hand that played it, its number and print."""

    position: int
    hand: int
    number: int
    facts: CardFacts


# The one place priority is decided: each resolution rule orders a trick's cards, highest first.
PRIORITY: Mapping[str, Callable[[Entry], int]] = {
    "smaller_first": lambda entry: entry.number,
    "larger_first": lambda entry: -entry.number,
    "earlier_first": lambda entry: entry.position,
    "later_first": lambda entry: -entry.position,
}


@dataclass(frozen=True)
class GroupOutcome:
    """One effect group in a trick: the card whose effect applies and the cards it overrode."""

    group: str
    applied: Entry | None
    overridden: tuple[Entry, ...] = ()


@dataclass(frozen=True)
class EffectGroup:
    """Effects that cancel one another: only the highest-priority card of the group applies.

    A card without an effect (or of the other group) is not a member, so it cancels nothing.
    """

    name: str
    kinds: frozenset[str]

    def resolve(self, entries: Sequence[Entry], resolution: str) -> GroupOutcome:
        members = sorted((e for e in entries if e.facts.effect.kind in self.kinds), key=PRIORITY[resolution])
        if not members:
            return GroupOutcome(self.name, None)
        return GroupOutcome(self.name, members[0], tuple(members[1:]))


ORDER_GROUP = EffectGroup("order", frozenset({LOW_STRONG, LOW_CANCEL}))
TRUMP_GROUP = EffectGroup("trump", frozenset({TRUMP, TRUMP_VOID}))
# The largest index each fact may take (asked on every open question, so built once).
FACT_LIMITS = {"colour": COLOURS - 1, "score": 5, "effect": EFFECT_KINDS.index(TRUMP) + COLOURS - 1,
               "rule": len(RESOLUTION_RULES) - 1}


@dataclass(frozen=True)
class Effects:
    """What the cards so far make of strength: low numbers strong or not, the trump colour or None."""

    entries: tuple[Entry, ...]
    low_strong: bool
    trump: int | None
    order: GroupOutcome
    trump_group: GroupOutcome


def resolve_effects(entries: Sequence[Entry], resolution: str) -> Effects:
    """Resolve both effect groups of ``entries`` under ``resolution`` (one of :data:`RESOLUTION_RULES`)."""
    order = ORDER_GROUP.resolve(entries, resolution)
    trump = TRUMP_GROUP.resolve(entries, resolution)
    low_strong = order.applied is not None and order.applied.facts.effect.kind == LOW_STRONG
    trump_colour = trump.applied.facts.effect.colour if trump.applied is not None else None
    return Effects(tuple(entries), low_strong, trump_colour, order, trump)


@dataclass(frozen=True)
class Strongest:
    entry: Entry
    by_trump: bool


class TrumpDecides:
    """With a trump colour in force, the strongest card of that colour wins."""

    name = "trump"

    def decide(self, effects: Effects) -> Strongest | None:
        trumps = [e for e in effects.entries if effects.trump is not None and e.facts.colour == effects.trump]
        return Strongest(_best(trumps, effects.low_strong), True) if trumps else None


class NumberDecides:
    """Otherwise colours are equal: the strongest number wins (numbers are unique, so no ties)."""

    name = "number"

    def decide(self, effects: Effects) -> Strongest | None:
        return Strongest(_best(list(effects.entries), effects.low_strong), False)


STRENGTH_RULES = (TrumpDecides(), NumberDecides())


def _best(entries: Sequence[Entry], low_strong: bool) -> Entry:
    return min(entries, key=lambda e: e.number) if low_strong else max(entries, key=lambda e: e.number)


def strongest_of(effects: Effects) -> Strongest:
    return first_decision(STRENGTH_RULES, effects)


def strongest(effects: Effects) -> Entry:
    """The strongest card under ``effects``."""
    return strongest_of(effects).entry


# --- round rules --------------------------------------------------------------------------------

ROUND_RULES = "ABCDEFGHIJKL"
FACE_DOWN = frozenset("AB")  # cards entered as revealed, top to bottom
HOUSE_EXAMPLES = ("draw", "lowest", "closest")
SIDES = ("top", "bottom")


# The rules under which a player must follow the lead colour if able (D and the rules that say "the
# rest as D"; G by the house reading): a decline there is a revoke once the colour shows in that hand.
MUST_FOLLOW = frozenset("DFGHIJK")

HOUSE_TIE_TOP = "zenjidou.house.tie_top"  # C: every player tied for top counts as the top scorer
HOUSE_G = "zenjidou.house.g_each_trick"  # G: each trick, choose the top or the bottom of the hand
HOUSE_FIRST_CLOSEST = "zenjidou.house.first_closest"  # L closest: nothing played yet -> the top card
HOUSE_QUIZ_HANDS = "zenjidou.house.quiz_two_hands"  # B with 2 players: the pointer's first hand wins
HOUSE_F_BOTTOM = "zenjidou.house.f_bottom"  # F from the bottom: D's topmost follower is the bottom-most
HOUSE_TWO_HANDS = "zenjidou.house.two_hands"  # 2 players: hands sit P1, P2, P1', P2' round the table
DIRECTION = "clockwise"  # the header option a record of this version carries (docs/record-format.md)


@dataclass(frozen=True)
class RoundRule:
    """A round rule A-L; ``variant`` is L's example (draw, lowest, closest)."""

    letter: str
    variant: str | None = None

    def __str__(self) -> str:
        return f"{self.letter} {self.variant}" if self.variant else self.letter


# The rules every play is compared with (built once: a frozen dataclass is not free to build).
CLOSEST, RULE_F, RULE_G = RoundRule("L", "closest"), RoundRule("F"), RoundRule("G")


@dataclass(frozen=True)
class OutOfOrder:
    """L lowest or closest, proved broken by a later card: ``hand`` put down ``card`` in ``trick``
    while holding ``held`` (shown in ``shown_in``), which the rule puts first (0-based indexes)."""

    deal: int
    trick: int
    hand: int
    card: int
    held: int
    shown_in: int
    variant: str

    def to_json(self) -> dict[str, Any]:
        return {"trick": self.trick, "hand": self.hand, "card": self.card, "held": self.held,
                "shown_in": self.shown_in, "variant": self.variant}


def order_broken(variant: str, card: int, held: int, before: int | None) -> bool:
    """Whether holding ``held`` proves that putting down ``card`` broke L's ``variant`` (``before``: the
    card put down just before it; none for the game's first play, which is the top card, house)."""
    if variant == "lowest":
        return held < card
    if variant == "closest" and before is not None:
        return (abs(held - before), -held) < (abs(card - before), -card)
    return False


# --- actions ----------------------------------------------------------------------------------


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not is_int(value):
        raise RecordError(f"a {data.get('type')} needs an integer {key!r}")
    return value


def _ints(data: Mapping[str, Any], key: str) -> tuple[int, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(is_int(v) for v in value):
        raise RecordError(f"a {data.get('type')} needs a list of integers {key!r}")
    return tuple(value)


def _one_of(data: Mapping[str, Any], key: str, allowed: Sequence[object]) -> Any:
    value = data.get(key)
    if value not in allowed:
        raise RecordError(f"a {data.get('type')}'s {key!r} must be one of {', '.join(map(str, allowed))}")
    return value


@dataclass(frozen=True)
class Rest:
    """The top card of the rest: it names the round's resolution rule."""

    card: int
    type: ClassVar[str] = "rest"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "card": self.card}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rest:
        return cls(_int(data, "card"))


@dataclass(frozen=True)
class Bottom:
    """Round 1: the bottom card of a hand's pile, shown to find the start player."""

    hand: int
    card: int
    type: ClassVar[str] = "bottom"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "hand": self.hand, "card": self.card}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Bottom:
        return cls(_int(data, "hand"), _int(data, "card"))


@dataclass(frozen=True)
class ChooseRule:
    """The round's rule, A-L (L with one of the book's examples)."""

    rule: RoundRule
    type: ClassVar[str] = "rule"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "rule": self.rule.letter, "variant": self.rule.variant}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChooseRule:
        return cls(
            RoundRule(_one_of(data, "rule", list(ROUND_RULES)), _one_of(data, "variant", [None, *HOUSE_EXAMPLES]))
        )


@dataclass(frozen=True)
class Side:
    """Rule F: the hand plays from its top or from its bottom this round."""

    hand: int
    side: str
    type: ClassVar[str] = "side"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "hand": self.hand, "side": self.side}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Side:
        return cls(_int(data, "hand"), _one_of(data, "side", SIDES))


@dataclass(frozen=True)
class Guesses:
    """Rule C: per player, the player they named as the round's top scorer."""

    guesses: tuple[int, ...]
    type: ClassVar[str] = "guesses"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "guesses": list(self.guesses)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Guesses:
        return cls(_ints(data, "guesses"))


@dataclass(frozen=True)
class Play:
    """A hand's card goes down, entered as it is put down (under every rule)."""

    hand: int
    card: int
    type: ClassVar[str] = "play"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "hand": self.hand, "card": self.card}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Play:
        return cls(_int(data, "hand"), _int(data, "card"))


@dataclass(frozen=True)
class Point:
    """Rule B: the first player to point (the earliest buzzer) points at ``card``."""

    player: int
    card: int
    type: ClassVar[str] = "point"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "player": self.player, "card": self.card}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Point:
        return cls(_int(data, "player"), _int(data, "card"))


@dataclass(frozen=True)
class NoPoint:
    """Rule B: nobody (else) points; the strongest card wins."""

    type: ClassVar[str] = "no_point"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> NoPoint:
        return cls()


@dataclass(frozen=True)
class Lead:
    """Rule J: the trick's winner leads the next trick, or names the left neighbour (``left``)."""

    hand: int
    left: bool
    type: ClassVar[str] = "lead"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "hand": self.hand, "left": self.left}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Lead:
        return cls(_int(data, "hand"), _one_of(data, "left", [True, False]))


# --- state --------------------------------------------------------------------------------


@dataclass
class ZTrick(Trick[int]):  # type: ignore[type-var]  # Zenjidou's cards are still bare numbers, not SuitedCards
    """A trick plus rule B's quiz: players out for this trick (a wrong point) and the right pointer."""

    out: list[int] = field(default_factory=list)
    wrong: list[tuple[int, int]] = field(default_factory=list)
    pointer: int | None = None
    quiz_done: bool = False
    house: str | None = None  # a house ruling that shaped a play of this trick


@dataclass(frozen=True)
class ZResult(TrickResult):
    """A trick's result with what decided strength: the effects and the strongest card."""

    effects: Effects | None = None
    strongest_hand: int = 0


@dataclass
class Round(Deal[int]):  # type: ignore[type-var]  # Zenjidou's cards are still bare numbers, not SuitedCards
    """One round: the rest's top card, round 1's bottoms, the rule, the sides (F) and what was played."""

    rest: int | None = None
    bottoms: dict[int, int] = field(default_factory=dict)
    rule: RoundRule | None = None
    sides: dict[int, str] = field(default_factory=dict)
    guesses: tuple[int, ...] | None = None
    revealed: dict[int, int] = field(default_factory=dict)  # cards put down per hand
    watched: int = 0  # turns of this round the revoke watch has seen (once their facts were known)
    seen: list[int] = field(default_factory=list)
    # seen[:asked] are cards whose facts are all known: open_question looks on from there (facts are
    # never unlearned but by undo, which folds a fresh round); a cache, so not part of the state's repr
    asked: int = field(default=0, repr=False, compare=False)
    leads: dict[int, bool] = field(default_factory=dict)  # J: trick index -> the left neighbour was named
    out_of_order: list[OutOfOrder] = field(default_factory=list)  # L lowest / closest, proved by later cards
    marks: list[int] | None = None
    bonus: list[int] | None = None
    house: list[str] = field(default_factory=list)

    @property
    def playing(self) -> bool:
        return bool(self.tricks)


@dataclass
class ZState(TrickState[Round]):
    """The game's fold plus each card's print once all its facts are known."""

    known: dict[int, CardFacts] = field(default_factory=dict)
    # What the fold waits for, as the last action left it: the open question, else the round's need.
    # Every action ends by playing what is automatic (_advance), which reads exactly this, so the
    # next check reuses it; a fresh fold has none yet. A cache, so not part of the state's repr.
    waiting: tuple[Question | None, Need | None] | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Need:
    """What a round waits for next: an action kind and the hand (or None); ``auto`` the forced card."""

    kind: str
    hand: int | None = None
    auto: int | None = None


COUNTS = ("rounds", "tricks_per_round", "piles", "pile_size", "top_scorer_bonus", "guess_seconds")
CARD_SHAPE = {  # what validate_cards and the rules may index (carddata.check_shape)
    "game": str,
    "numbers": [int],
    "colours": [named(str)],  # codes are words here: a card is typed by its number alone
    "score_marks": [int],
    **{key: int for key in COUNTS},
}


@register
class Zenjidou(TrickGame[ZState]):
    """2-6 players (2 players hold two hands each), 3 rounds of 5 tricks, play clockwise."""

    game_id = "zenjidou"
    title = "Zenjidou Torite"
    min_players = 2
    max_players = 6
    action_types: ClassVar[Mapping[str, ActionType]] = {
        cls.type: cls for cls in (Answer, Rest, Bottom, ChooseRule, Side, Guesses, Play, Point, NoPoint, Lead)
    }
    # A revoke names the lead colour as its suit.
    term_tables: ClassVar[Mapping[str, str]] = {"colour": "colours", "suit": "colours"}
    # configure refuses any direction but DIRECTION, naming why.
    option_kinds: ClassVar[Mapping[str, str]] = {"direction": "text"}

    def configure(self) -> None:
        if self.setup.options.get("direction") != DIRECTION:
            raise RecordError("this Zenjidou record was written before play went clockwise (it played counter-clockwise"
                              " from typed-in hands); it cannot be replayed as it was played, so it is refused")
        cards = self.setup.cards
        self.validate_cards(cards)
        self.players = len(self.setup.players)
        self.n = 4 if self.players == 2 else self.players
        self.numbers: list[int] = list(cards["numbers"])
        self.colours: list[str] = [c["code"] for c in cards["colours"]]
        self.marks: list[int] = list(cards["score_marks"])
        self.tricks: int = cards["tricks_per_round"]
        self.rounds: int = cards["rounds"]
        self.bonus: int = cards["top_scorer_bonus"]
        self.told = self._decode_told(self.setup.table_facts)

    # --- card data -------------------------------------------------------------------------

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        check = CardCheck(cls.game_id, CARD_SHAPE, cards)
        need = check.need
        need(cards["numbers"] == list(range(1, 33)), "'numbers' must be 1..32")
        check.named_codes("colours", COLOURS, "colour")
        need(sorted(cards["score_marks"]) == [-2, -1, 0, 1, 2, 3], "'score_marks' must be 0, +1..+3, -1, -2")
        need(cards.get("effects") == list(EFFECT_KINDS), f"'effects' must be {list(EFFECT_KINDS)}")
        need(
            cards.get("resolution_rules") == list(RESOLUTION_RULES),
            f"'resolution_rules' must be {list(RESOLUTION_RULES)}",
        )
        need(cards.get("round_rules") == list(ROUND_RULES), "'round_rules' must be A..L")
        for key in COUNTS:
            need(cards[key] > 0, f"{key!r} must be a whole number > 0")
        need(cards["tricks_per_round"] == cards["pile_size"], "a round has as many tricks as a pile has cards")

    @classmethod
    def fact_limit(cls, name: str) -> int:
        """The largest index a fact may take."""
        return FACT_LIMITS[name]

    @classmethod
    def card_gaps(cls, cards: Mapping[str, Any]) -> list[str]:
        return [f"card:<1-32>:{name} (each card's {name}, an index 0-{cls.fact_limit(name)})" for name in FACT_NAMES]

    @classmethod
    def check_fact_key(cls, cards: Mapping[str, Any], key: str) -> None:
        parts = key.split(":")
        if not (len(parts) == 3 and parts[0] == "card" and is_digits(parts[1]) and int(parts[1]) in cards["numbers"]
                and parts[2] in FACT_NAMES):
            raise CardDataError(f"{cls.game_id} facts are card:<1-32>:{'|'.join(FACT_NAMES)}, not {key!r}")

    @classmethod
    def fact_range(cls, cards: Mapping[str, Any], key: str) -> range:
        return range(0, cls.fact_limit(key.split(":")[2]) + 1)

    @staticmethod
    def question_key(number: int, name: str) -> str:
        return f"card:{number}:{name}"

    def _decode_told(self, table_facts: Mapping[str, Any]) -> dict[str, int]:
        """The table's facts by question key; a fact the game could never ask is refused, naming it."""
        told = {}
        cards = table_facts.get("card", {})
        for number, entry in cards.items() if isinstance(cards, Mapping) else ():
            for name, value in entry.items() if isinstance(entry, Mapping) else ():
                key = f"card:{number}:{name}"
                self.check_fact_key(self.setup.cards, key)
                if not is_int(value) or not 0 <= value <= self.fact_limit(name):
                    raise CardDataError(f"{self.game_id} fact {key} is {value!r}, but it is an index"
                                        f" 0-{self.fact_limit(name)}: correct it with companion cards set")
                told[key] = value
        return told

    @classmethod
    def resolve_options(
        cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int
    ) -> dict[str, Any]:
        """Only the direction (who leads comes from the round's rules, not from a dealer): a record
        without it was played counter-clockwise by an earlier version and is refused."""
        return {"direction": DIRECTION}

    # --- facts ---------------------------------------------------------------------------------

    def fact(self, number: int, name: str) -> int | None:
        """A fact index: told by a table before the game, else answered in this game, else unknown."""
        key = self.question_key(number, name)
        value = self.told.get(key)
        return value if value is not None else self.state.learned.get(key)

    def facts(self, number: int) -> CardFacts:
        """A card's print, once all four facts are known (kept in the state: facts are never unlearned
        but by undo, which folds a fresh state)."""
        known = self.state.known.get(number)
        if known is not None:
            return known
        values = [self.fact(number, name) for name in FACT_NAMES]
        if any(v is None for v in values):
            raise LookupError(f"card {number}'s facts are not known yet")
        colour, score, effect, rule = values
        # The ignore below: no value is None (checked above)
        known = CardFacts(colour, self.marks[score], Effect.from_index(effect), RESOLUTION_RULES[rule])  # type: ignore[index,arg-type]
        self.state.known[number] = known
        return known

    def open_question(self) -> Question | None:
        """The first unknown fact of a card seen this round, in the order cards appeared."""
        known = self.state.known
        deal = self.state.deal
        seen = deal.seen
        while deal.asked < len(seen):
            number = seen[deal.asked]
            if number not in known:
                for name in FACT_NAMES:
                    if self.fact(number, name) is None:
                        return Question(self.question_key(number, name), f"card {number}: {name}?", 0,
                                        self.fact_limit(name))
                self.facts(number)
            deal.asked += 1
        return None

    def player_of(self, hand: int) -> int:
        return hand % self.players

    def seat_label(self, seat: int) -> str:
        """Hands are named by their player (with 2 players, P1 holds hands 1 and 3)."""
        return f"P{self.player_of(seat) + 1}"

    # --- the round's flow -------------------------------------------------------------------

    def deal_count(self) -> int:
        return self.rounds

    def tricks_in_deal(self, deal: Deal[Any]) -> int:
        return self.tricks

    def new_deal(self, index: int, lead: int) -> Round:
        return Round(index, -1, self.n)

    def new_state(self) -> ZState:
        return ZState()

    def start_deal(self, state: ZState, lead: int) -> None:
        deal = self.new_deal(len(state.deals), lead)
        if deal.index > 0:
            deal.start = lead
        state.deals.append(deal)

    def open_trick(self, deal: Deal[Any], lead: int) -> None:
        deal.tricks.append(ZTrick(lead))

    def next_deal_lead(self, state: ZState) -> int:
        last = state.deal.tricks[-1].result
        assert last is not None  # a deal closes only after its last trick
        return last.winner

    def play_order(self, deal: Round) -> list[int]:
        return seats_in_order(deal.start, self.n, self.direction)

    def left_of(self, hand: int) -> int:
        """The left neighbour: the next hand in play order (J's nominee, I's giver)."""
        return (hand + 1) % self.n

    def right_of(self, hand: int) -> int:
        """The right neighbour: the previous hand in play order (I passes to it)."""
        return (hand - 1) % self.n

    def need(self) -> Need | None:
        """What the round waits for, after any open question about a card's facts."""
        deal = self.state.deal
        if self.deal_played(deal):
            return None
        if deal.rest is None:
            return Need("rest")
        if deal.index == 0 and len(deal.bottoms) < self.n:
            return Need("bottom", len(deal.bottoms))
        if deal.rule is None:
            return Need("rule")
        letter = deal.rule.letter
        if not deal.playing:
            return self._setup_need(deal, letter)
        trick: ZTrick = deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        if self.trick_complete(trick):
            return Need("quiz") if letter == "B" and not trick.quiz_done else Need("resolve")
        done = len(deal.tricks) - 2
        if letter == "J" and not trick.turns and done >= 0 and done not in deal.leads:
            # The ignore below: a trick before the open one is resolved
            return Need("lead", deal.tricks[done].result.winner)  # type: ignore[union-attr]
        return self._play_need(deal, trick, letter)

    def _setup_need(self, deal: Round, letter: str) -> Need | None:
        if letter == "F":
            missing = [h for h in self.play_order(deal) if h not in deal.sides]
            if missing:
                return Need("side", missing[0])
        if letter == "C" and deal.guesses is None:
            return Need("guesses")
        return Need("begin")

    def _play_need(self, deal: Round, trick: ZTrick, letter: str) -> Need:
        """The next hand's card; round 1's shown bottom card plays itself where the rule fixes its turn:
        last from a face-down pile (A, B); first from the turned-over pile held in order (C); and as
        the round's first lead wherever the lead plays its top card (D, E, J, F from the top, and L
        closest, whose first play of the game is the top card by the house ruling)."""
        hand = self.seat_to_play(trick)
        bottom = deal.bottoms.get(hand)
        put_down = deal.revealed.get(hand, 0)
        first_lead = not deal.revealed and (letter in "DEJ" or deal.rule == CLOSEST
                                            or (letter == "F" and deal.sides.get(hand) == "top"))
        forced = (
            (letter in FACE_DOWN and put_down == self.tricks - 1) or (letter == "C" and put_down == 0) or first_lead
        )
        return Need("play", hand, bottom if forced else None)

    def may_hold_bottom(self, deal: Round, owner: int) -> tuple[int, ...]:
        """The hands that may put down ``owner``'s shown bottom card by hand: none where it plays itself
        (A, B, C), the owner or (I) the right neighbour it may have been passed to."""
        letter = deal.rule.letter if deal.rule is not None else "A"
        if letter in FACE_DOWN or letter == "C":
            return ()
        return (owner, self.right_of(owner)) if letter == "I" else (owner,)

    def last_played(self) -> int | None:
        return next((t.cards[-1] for d in reversed(self.state.deals) for tr in reversed(d.tricks)
                     for t in reversed(tr.turns)), None)

    # --- the fold ------------------------------------------------------------------------------

    def apply(self, action: Any) -> None:
        deal = self.state.deal
        if isinstance(action, Answer):
            self.state.learned[action.key] = action.value
        elif isinstance(action, Rest):
            deal.rest = action.card
            deal.seen.append(action.card)
        elif isinstance(action, Bottom):
            deal.bottoms[action.hand] = action.card
            deal.seen.append(action.card)
            if len(deal.bottoms) == self.n:
                deal.start = max(deal.bottoms, key=lambda h: deal.bottoms[h])
        elif isinstance(action, ChooseRule):
            self._choose_rule(deal, action.rule)
        elif isinstance(action, Side):
            deal.sides[action.hand] = action.side
        elif isinstance(action, Guesses):
            deal.guesses = action.guesses
        elif isinstance(action, Play):
            self._play(deal, action.hand, action.card)
        elif isinstance(action, Point):
            self._point(deal, action)
        elif isinstance(action, NoPoint):
            self._end_quiz(deal)
        elif isinstance(action, Lead):
            self._lead(deal, action)
        self._advance()

    def _choose_rule(self, deal: Round, rule: RoundRule) -> None:
        """Round 1's shown bottom cards are in their hands where they are held face up: a hand that
        declines a colour while one of them shows it has revoked at once (not under I, whose pass may
        give it away; the facts of the bottoms are known, as questions come before the rule)."""
        deal.rule = rule
        if rule.letter in MUST_FOLLOW and rule.letter != "I":
            for hand, card in deal.bottoms.items():
                deal.watch.returned(hand, self.suited(card))

    def suited(self, number: int) -> SuitedCard:
        """A card as the shared revoke watch sees it: its colour code and number."""
        return SuitedCard(self.colours[self.facts(number).colour], number)

    def _play(self, deal: Round, hand: int, card: int) -> None:
        trick: ZTrick = deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        if deal.rule == CLOSEST and self.last_played() is None:
            trick.house = HOUSE_FIRST_CLOSEST
        elif deal.rule == RULE_G:
            trick.house = HOUSE_G
        elif deal.rule == RULE_F and trick.turns and deal.sides.get(hand) == "bottom":
            trick.house = HOUSE_F_BOTTOM
        trick.turns.append(Turn(hand, (card,)))  # type: ignore[type-var]  # Zenjidou's cards are still bare numbers, not SuitedCards
        deal.revealed[hand] = deal.revealed.get(hand, 0) + 1
        if card not in deal.seen:
            deal.seen.append(card)

    def _watch(self, deal: Round) -> None:
        """Show the revoke watch the cards put down since it last looked (their facts are known now):
        under a must-follow rule a card off the lead colour declines it. Under L lowest and closest a
        card proves wrong any earlier play of its hand that the rule would have made with it."""
        if sum(len(trick.turns) for trick in deal.tricks) == deal.watched:
            return  # the common case: nothing new since the last look
        turns = [(index, position, turn) for index, trick in enumerate(deal.tricks)
                 for position, turn in enumerate(trick.turns)]
        follow = deal.rule is not None and deal.rule.letter in MUST_FOLLOW
        variant = deal.rule.variant if deal.rule is not None else None
        for at, (index, position, turn) in enumerate(turns[deal.watched:], start=deal.watched):
            card = self.suited(turn.cards[0])
            deal.watch.shown(deal.index, turn.seat, card, index)
            lead = self.suited(deal.tricks[index].turns[0].cards[0]).suit
            if follow and position and card.suit != lead:
                deal.watch.declined_suits(deal.index, turn.seat, [lead], index)
            if variant is not None:
                self._check_order(deal, variant, turns, at)
        deal.watched = len(turns)

    def _check_order(self, deal: Round, variant: str, turns: Sequence[tuple[int, int, Turn[Any]]], at: int) -> None:
        """L: the card at ``turns[at]`` was in its hand at each of the hand's earlier plays this round."""
        index, _, shown = turns[at]
        held = shown.cards[0]
        for earlier in range(at):
            trick, _, turn = turns[earlier]
            if turn.seat != shown.seat:
                continue
            before = turns[earlier - 1][2].cards[0] if earlier else self._last_of_previous_round(deal)
            known = any(o.trick == trick and o.hand == turn.seat for o in deal.out_of_order)
            if not known and order_broken(variant, turn.cards[0], held, before):
                deal.out_of_order.append(OutOfOrder(deal.index, trick, turn.seat, turn.cards[0], held, index, variant))

    def _last_of_previous_round(self, deal: Round) -> int | None:
        if deal.index == 0:
            return None
        last = self.state.deals[deal.index - 1].tricks[-1]
        return last.turns[-1].cards[0]

    def _point(self, deal: Round, point: Point) -> None:
        trick: ZTrick = deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        best = strongest(self.effects_of(trick))
        if point.card == best.number:
            trick.pointer = point.player
            self._end_quiz(deal)
        else:
            trick.out.append(point.player)
            trick.wrong.append((point.player, point.card))
            if len(trick.out) == self.players:
                self._end_quiz(deal)

    def _end_quiz(self, deal: Round) -> None:
        trick: ZTrick = deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        trick.quiz_done = True

    def _lead(self, deal: Round, lead: Lead) -> None:
        deal.leads[len(deal.tricks) - 2] = lead.left
        if not lead.left:
            return
        left = self.left_of(lead.hand)
        done = deal.tricks[-2]
        assert done.result is not None
        done.result = replace(done.result, next_lead=left)
        deal.tricks[-1].lead = left

    def _advance(self) -> None:
        """Play whatever the rules make automatic, until a person must act or a fact is missing;
        what the game then waits for is kept for the next check (:meth:`waiting`)."""
        while True:
            question = self.open_question()
            if question is None:
                self._watch(self.state.deal)
            need = self.need() if question is None else None
            self.state.waiting = (question, need)
            deal = self.state.deal
            if need is None:
                return
            if need.kind == "begin":
                self.open_trick(deal, deal.start)
            elif need.kind == "play" and need.auto is not None:
                self._play(deal, need.hand or 0, need.auto)
            elif need.kind == "resolve":
                self.finish_trick(self.state, deal)
            else:
                return

    def waiting(self) -> tuple[Question | None, Need | None]:
        """The open question about a card, else (None, what the round needs; None once it is over)."""
        if self.state.waiting is None:  # a fresh fold, before its first action
            question = self.open_question()
            self.state.waiting = (question, self.need() if question is None else None)
        return self.state.waiting

    def _quiz_players(self, deal: Round) -> list[int]:
        trick: ZTrick = deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        return [p for p in range(self.players) if p not in trick.out]

    def effects_of(self, trick: Trick[Any]) -> Effects:
        """The effects of the cards in ``trick`` so far, under the round's resolution rule."""
        deal = self.state.deal
        resolution = self.round_resolution(deal)
        entries = [Entry(i, t.seat, t.cards[0], self.facts(t.cards[0])) for i, t in enumerate(trick.turns)]
        return resolve_effects(entries, resolution)

    def round_resolution(self, deal: Round) -> str:
        assert deal.rest is not None
        return self.facts(deal.rest).rule

    # --- resolution -----------------------------------------------------------------------------

    def resolve(self, trick: Trick[Any]) -> TrickResult:
        deal = self.state.deal
        effects = self.effects_of(trick)
        best = strongest_of(effects)
        assert isinstance(trick, ZTrick)
        winner, reason, house = best.entry.hand, [], trick.house
        quiz = deal.rule is not None and deal.rule.letter == "B"
        if quiz:
            for player, card in trick.wrong:
                reason.append(Phrase("zenjidou.quiz.wrong", {"seat": Seat(player), "card": card}))
            if trick.pointer is not None:
                winner = self._pointer_hand(trick.pointer)
                reason.insert(
                    0, Phrase("zenjidou.quiz.right", {"winner": Seat(trick.pointer), "card": best.entry.number})
                )
                if self.players == 2:
                    house = HOUSE_QUIZ_HANDS
            else:
                reason.insert(0, Phrase("zenjidou.quiz.nobody", {"card": best.entry.number}))
        reason.append(self.win_phrase(best, effects, quiz))
        reason.extend(self.effect_phrases(effects))
        if house is not None:
            reason.append(Phrase(house))
        return ZResult(winner, winner, tuple(reason), house, effects, best.entry.hand)

    def _pointer_hand(self, player: int) -> int:
        """The hand that takes a quiz trick: the player's own (with 2 players, their first hand)."""
        return player

    def win_phrase(self, best: Strongest, effects: Effects, quiz: bool = False) -> Phrase:
        """The strongest card and why; in a quiz it only names the card (the pointer won)."""
        order = Term("zenjidou.order", "low" if effects.low_strong else "high")
        params: dict[str, Any] = {"card": best.entry.number, "order": order}
        if not quiz:
            params["winner"] = Seat(self.player_of(best.entry.hand))
        if best.by_trump:
            params["colour"] = Term("colour", self.colours[best.entry.facts.colour])
        return Phrase(("zenjidou.best" if quiz else "zenjidou.win") + (".trump" if best.by_trump else ""), params)

    def effect_phrases(self, effects: Effects) -> list[Phrase]:
        """One phrase per effect group in force: the deciding card, and the cards it overrode."""
        phrases = []
        for outcome in (effects.order, effects.trump_group):
            applied = outcome.applied
            if applied is None:
                continue
            effect = applied.facts.effect
            params: dict[str, Any] = {"card": applied.number}
            if effect.kind == TRUMP:
                params["colour"] = Term("colour", self.colours[effect.colour or 0])
            else:
                params["effect"] = Term("zenjidou.effect", effect.kind)
            suffix = ".trump" if effect.kind == TRUMP else ""
            if outcome.overridden:
                params["others"] = ", ".join(str(e.number) for e in outcome.overridden)
                phrases.append(Phrase("zenjidou.cancels" + suffix, params))
            else:
                phrases.append(Phrase("zenjidou.from" + suffix, params))
        return phrases

    # --- scoring ----------------------------------------------------------------------------------

    def score_deal(self, deal: Deal[Any]) -> list[int]:
        """Per hand: the score marks of its captured cards; rule C adds the bonus for a right guess."""
        assert isinstance(deal, Round)
        marks = [sum(self.facts(card).score for card in captured) for captured in deal.captured]
        deal.marks = marks
        bonus = [0] * self.n
        if deal.guesses is not None:
            per_player = self.per_player(marks)
            top = max(per_player)
            leaders = {p for p, total in enumerate(per_player) if total == top}
            if len(leaders) > 1:
                deal.house.append(HOUSE_TIE_TOP)
            for player, named in enumerate(deal.guesses):
                if named in leaders:
                    bonus[player] += self.bonus
        deal.bonus = bonus
        return [m + b for m, b in zip(marks, bonus, strict=True)]

    def order_phrase(self, broken: OutOfOrder) -> Phrase:
        """An L play that a later card proved wrong, naming the player, the cards and the tricks."""
        return Phrase(f"zenjidou.out_of_order.{broken.variant}",
                      {"seat": Seat(self.player_of(broken.hand)), "card": broken.card, "trick": broken.trick + 1,
                       "held": broken.held, "shown": broken.shown_in + 1})

    def revoke_phrase(self, revoke: Revoke) -> Phrase:
        """A revoke names the player, not the hand (with 2 players each plays two)."""
        phrase = revoke.phrase()
        return Phrase(phrase.code, {**phrase.params, "seat": Seat(self.player_of(revoke.seat))})

    def per_player(self, per_hand: Sequence[int]) -> list[int]:
        totals = [0] * self.players
        for hand, value in enumerate(per_hand):
            totals[self.player_of(hand)] += value
        return totals

    def totals(self) -> list[int]:
        return self.per_player(self.state.totals)

    # --- checks ------------------------------------------------------------------------------------

    @property
    def decision(self) -> Decision | None:
        question, need = self.waiting()
        if question is not None:
            return Decision("answer", None, question.prompt, question)
        if need is None:
            return None
        seat = need.hand
        who = f"{self.seat_label(seat)} (hand {seat + 1})" if seat is not None else "the table"
        return Decision(need.kind, seat, f"{who}: {need.kind}")

    def check(self, action: object) -> None:
        question, need = self.waiting()
        if isinstance(action, Answer):
            if question is None or question.key != action.key:
                raise IllegalAction(f"no question about {action.key!r} is open")
            if not question.minimum <= action.value <= question.maximum:
                raise IllegalAction(
                    f"the answer is an index {question.minimum}-{question.maximum}, not {action.value}",
                    code="zenjidou.refusal.answer_range",
                    minimum=question.minimum,
                    maximum=question.maximum,
                    value=action.value,
                )
            return
        if question is not None:  # a question is only open in a round still being played
            raise IllegalAction(f"first tell the device {question.prompt}", code="zenjidou.refusal.question_open")
        if need is None:
            raise IllegalAction("the game is over", code="game_over")
        kind = getattr(action, "type", None)
        expected = {"quiz": ("point", "no_point")}.get(need.kind, (need.kind,))
        if kind not in expected:
            raise IllegalAction(
                f"waiting for {need.kind}, not {kind or action!r}",
                code="zenjidou.refusal.wrong_action",
                expected=need.kind,
            )
        hand = getattr(action, "hand", need.hand)
        if hand != need.hand:
            raise IllegalAction(f"it is hand {(need.hand or 0) + 1}'s turn, not {hand!r}'s", code="not_your_turn",
                                expected=self.seat_label(need.hand or 0), actual=str(hand))
        getattr(self, f"_check_{kind}")(action, need)

    def _check_new_card(self, card: int) -> None:
        if card not in self.numbers:
            raise IllegalPlay(
                f"{card} is not a card: numbers are 1-32", code="zenjidou.refusal.not_a_card", text=str(card)
            )
        if card in self.state.deal.seen:
            raise IllegalPlay(f"{card} was already seen this round", code="already_played", card=str(card))

    def _check_rest(self, action: Rest, need: Need) -> None:
        self._check_new_card(action.card)

    def _check_bottom(self, action: Bottom, need: Need) -> None:
        self._check_new_card(action.card)

    def _check_rule(self, action: ChooseRule, need: Need) -> None:
        rule = action.rule
        if rule.letter not in ROUND_RULES or (rule.letter == "L") != (rule.variant in HOUSE_EXAMPLES):
            raise IllegalAction(f"{rule} is not a round rule: A-L, L with {', '.join(HOUSE_EXAMPLES)}",
                                code="zenjidou.refusal.not_a_rule", rule=str(rule))

    def _check_side(self, action: Side, need: Need) -> None:
        """Side values are checked when decoding; any of them is allowed."""

    def _check_guesses(self, action: Guesses, need: Need) -> None:
        if len(action.guesses) != self.players or not all(0 <= g < self.players for g in action.guesses):
            raise IllegalAction(
                f"one guess per player, each naming a player 1-{self.players}",
                code="zenjidou.refusal.guesses",
                players=self.players,
            )

    def _check_play(self, action: Play, need: Need) -> None:
        """Any card the table has not seen yet; a shown bottom card only by a hand that may hold it."""
        deal = self.state.deal
        owner = next((hand for hand, card in deal.bottoms.items() if card == action.card), None)
        played = action.card in deal.shown_cards()
        if owner is None or played:
            self._check_new_card(action.card)
        elif action.hand not in self.may_hold_bottom(deal, owner):
            raise IllegalPlay(f"{action.card} is the shown bottom card of hand {owner + 1}",
                              code="zenjidou.refusal.bottom_of", card=str(action.card), seat=self.seat_label(owner))

    def _check_point(self, action: Point, need: Need) -> None:
        trick: ZTrick = self.state.deal.tricks[-1]  # type: ignore[assignment]  # new_trick opens only ZTricks
        if not 0 <= action.player < self.players or action.player in trick.out:
            raise IllegalAction(f"P{action.player + 1} cannot point again this trick", code="zenjidou.refusal.quiz_out",
                                seat=f"P{action.player + 1}")
        if action.card not in [t.cards[0] for t in trick.turns]:
            raise IllegalPlay(
                f"{action.card} is not in this trick", code="zenjidou.refusal.not_in_trick", card=str(action.card)
            )

    def _check_no_point(self, action: NoPoint, need: Need) -> None:
        """Anyone may say nobody else points."""

    def _check_lead(self, action: Lead, need: Need) -> None:
        """The winner may keep the lead or name the left neighbour."""

    # --- generating and parsing -------------------------------------------------------------------

    def generate_legal_actions(self) -> Iterator[Any]:
        question = self.open_question()
        if question is not None:
            yield from (Answer(question.key, v) for v in range(question.minimum, question.maximum + 1))
            return
        need = self.need()
        if need is None:
            return
        deal = self.state.deal
        unseen = [c for c in self.numbers if c not in deal.seen]
        hand = need.hand or 0
        if need.kind == "rest":
            yield from (Rest(c) for c in unseen)
        elif need.kind == "bottom":
            yield from (Bottom(hand, c) for c in unseen)
        elif need.kind == "rule":
            for letter in ROUND_RULES:
                yield from ([ChooseRule(RoundRule(letter, v)) for v in HOUSE_EXAMPLES] if letter == "L"
                            else [ChooseRule(RoundRule(letter))])
        elif need.kind == "side":
            yield from (Side(hand, side) for side in SIDES)
        elif need.kind == "guesses":
            yield from (Guesses(g) for g in _product(self.players))
        elif need.kind == "play":
            played = set(deal.shown_cards())
            held = {c for h, c in deal.bottoms.items() if c not in played and hand in self.may_hold_bottom(deal, h)}
            yield from (Play(hand, c) for c in self.numbers if c in held or c not in deal.seen)
        elif need.kind == "quiz":
            trick = deal.tricks[-1]
            for player in self._quiz_players(deal):
                yield from (Point(player, t.cards[0]) for t in trick.turns)
            yield NoPoint()
        elif need.kind == "lead":
            yield from (Lead(hand, left) for left in (False, True))

    def parse(self, text: str) -> Any:
        """An action for the current decision in short notation.

        A number answers a question or plays a card; ``rest 7``, ``bottom 12``, ``rule A``,
        ``rule L closest``, ``side bottom``, ``guess 2 2 1`` (P-numbers, one per player),
        ``point 2 16`` (P2 points at 16), ``nopoint``, ``lead left`` / ``lead self``.
        """
        words = text.split()
        if not words:
            raise IllegalAction("nothing entered", code="zenjidou.refusal.empty")
        question = self.open_question()
        need = self.need()
        hand = need.hand or 0 if need is not None else 0
        verb, args = words[0].lower(), words[1:]
        try:
            numbers = [int(w) for w in (args if not is_digits(verb) else words)]
        except ValueError:
            numbers = []
        if is_digits(verb):
            if question is not None:
                return Answer(question.key, int(verb))
            return Play(hand, int(verb))
        if verb == "rest" and len(numbers) == 1:
            return Rest(numbers[0])
        if verb == "bottom" and len(numbers) == 1:
            return Bottom(hand, numbers[0])
        if verb == "rule" and args:
            return ChooseRule(RoundRule(args[0].upper(), args[1].lower() if len(args) > 1 else None))
        if verb == "side" and args and args[0] in SIDES:
            return Side(hand, args[0])
        if verb == "guess" and numbers:
            return Guesses(tuple(n - 1 for n in numbers))
        if verb == "point" and len(numbers) == 2:
            return Point(numbers[0] - 1, numbers[1])
        if verb == "nopoint":
            return NoPoint()
        if verb == "lead" and args and args[0] in ("left", "self"):
            return Lead(hand, args[0] == "left")
        raise IllegalAction(f"cannot read {text!r}", code="zenjidou.refusal.unreadable", text=text)

    # --- the replay schema ------------------------------------------------------------------------

    def trick_summary(self, deal: Deal[Any], index: int, trick: Trick[Any]) -> dict[str, Any]:
        """``low_strong``, ``trump`` (colour code or null), ``strongest`` (hand) and the quiz's ``pointer``."""
        result = trick.result
        assert isinstance(result, ZResult) and result.effects is not None and isinstance(trick, ZTrick)
        effects = result.effects
        return {"low_strong": effects.low_strong,
                "trump": self.colours[effects.trump] if effects.trump is not None else None,
                "strongest": result.strongest_hand, "pointer": trick.pointer,
                "wrong": [list(w) for w in trick.wrong]}

    def deal_summary(self, deal: Deal[Any]) -> dict[str, Any]:
        """``start`` (null until round 1's bottoms are all in), ``rest``, ``resolution``, ``rule``,
        ``sides`` (F), ``marks``, ``bonus``, ``guesses``, ``player_scores``, the ``house`` rulings
        that decided something and L's plays proved ``out_of_order``."""
        assert isinstance(deal, Round)
        resolution = self.fact(deal.rest, "rule") if deal.rest is not None else None
        return {"start": deal.start if deal.start >= 0 else None, "rest": deal.rest,
                "resolution": RESOLUTION_RULES[resolution] if resolution is not None else None,
                "rule": str(deal.rule) if deal.rule else None,
                "sides": {str(h): side for h, side in sorted(deal.sides.items())},
                "marks": deal.marks, "bonus": deal.bonus,
                "guesses": list(deal.guesses) if deal.guesses is not None else None,
                "player_scores": self.per_player(deal.scores) if deal.scores is not None else None,
                "house": list(deal.house),
                "out_of_order": [broken.to_json() for broken in deal.out_of_order]}


def _product(players: int) -> Iterator[tuple[int, ...]]:
    return product(range(players), repeat=players)
