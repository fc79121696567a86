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

from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import product
from operator import attrgetter
from typing import Any, ClassVar, Literal, NamedTuple

from companion.carddata import CardCheck, named
from companion.engine.actions import GameAction, one_of
from companion.engine.base import ActionType, Answer, Decision, Question, is_digits, is_int
from companion.engine.tricks import (
    FOLLOW_WEIGHT,
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
from companion.errors import CardDataError, IllegalAction, IllegalPlay, NoSeat, RecordError, quoted
from companion.games.zenjidou import PLUGIN

# --- the printed facts of a card ---------------------------------------------------------------

NONE, LOW_STRONG, LOW_CANCEL, TRUMP_VOID, TRUMP = "none", "low_strong", "low_cancel", "trump_void", "trump"
EFFECT_KINDS = (NONE, LOW_STRONG, LOW_CANCEL, TRUMP_VOID, TRUMP)
RESOLUTION_RULES = ("smaller_first", "larger_first", "earlier_first", "later_first")
FACT_NAMES = ("colour", "score", "effect", "rule")
COLOURS = 5


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


# Entry, GroupOutcome, Effects, Strongest and Need are named tuples: values built on every trick
# (or every action), and a tuple is built in half the time of a frozen dataclass.


class Entry(NamedTuple):
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


class GroupOutcome(NamedTuple):
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
        kinds = self.kinds
        members = [e for e in entries if e.facts.effect.kind in kinds]
        if not members:
            return GroupOutcome(self.name, None)
        if len(members) > 1:
            members.sort(key=PRIORITY[resolution])
        return GroupOutcome(self.name, members[0], tuple(members[1:]))


ORDER_GROUP = EffectGroup("order", frozenset({LOW_STRONG, LOW_CANCEL}))
TRUMP_GROUP = EffectGroup("trump", frozenset({TRUMP, TRUMP_VOID}))
# The terms a trick's reason names an effect and the order by (built once, like the game's colours).
EFFECT_TERMS = {kind: Term("zenjidou.effect", kind) for kind in EFFECT_KINDS}
ORDER_TERMS = {True: Term("zenjidou.order", "low"), False: Term("zenjidou.order", "high")}
# The largest index each fact may take (asked on every open question, so built once).
FACT_LIMITS = {"colour": COLOURS - 1, "score": 5, "effect": EFFECT_KINDS.index(TRUMP) + COLOURS - 1,
               "rule": len(RESOLUTION_RULES) - 1}


class Effects(NamedTuple):
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


class Strongest(NamedTuple):
    """The strongest card, and whether a trump colour made it so."""

    entry: Entry
    by_trump: bool


class TrumpDecides:
    """With a trump colour in force, the strongest card of that colour wins."""

    name = "trump"

    def decide(self, effects: Effects) -> Strongest | None:
        trump = effects.trump
        if trump is None:
            return None
        trumps = [e for e in effects.entries if e.facts.colour == trump]
        return Strongest(_best(trumps, effects.low_strong), True) if trumps else None


class NumberDecides:
    """Otherwise colours are equal: the strongest number wins (numbers are unique, so no ties)."""

    name = "number"

    def decide(self, effects: Effects) -> Strongest | None:
        return Strongest(_best(list(effects.entries), effects.low_strong), False)


STRENGTH_RULES = (TrumpDecides(), NumberDecides())


_NUMBER = attrgetter("number")


def _best(entries: Sequence[Entry], low_strong: bool) -> Entry:
    return min(entries, key=_NUMBER) if low_strong else max(entries, key=_NUMBER)


def strongest_of(effects: Effects) -> Strongest:
    return first_decision(STRENGTH_RULES, effects)


def strongest(effects: Effects) -> Entry:
    """The strongest card under ``effects``."""
    return strongest_of(effects).entry


# --- cards -------------------------------------------------------------------------------------


class Card(int):
    """A Zenjidou card, known by its printed number (1-32): all the table types as it goes down.

    Its colour, score mark, effect and resolution rule are facts the table tells
    (:meth:`Zenjidou.facts`), not part of the card; records and summaries write the number.

    >>> Card(16) == 16, str(Card(16)), Play(0, Card(16)).to_json()
    (True, '16', {'type': 'play', 'hand': 0, 'card': 16})
    """

    __slots__ = ()

    @property
    def rank(self) -> int:
        """The printed number, as a suited card's rank: what a person plays high or low by."""
        return int(self)


def fact_key(number: int, name: str) -> str:
    """The key of one fact of a card, as the table's facts and the answers name it."""
    return f"card:{number}:{name}"


NUMBERS = tuple(range(1, 33))  # the printed numbers (validate_cards holds the card data to them)
# Each card's four question keys in FACT_NAMES order and its four questions, built once for every
# game (a card's facts are asked on most actions, so nothing of them is formatted again).
FACT_KEYS: Mapping[int, tuple[str, ...]] = {n: tuple(fact_key(n, name) for name in FACT_NAMES) for n in NUMBERS}
QUESTIONS: Mapping[int, tuple[Question, ...]] = {
    n: tuple(Question(key, f"card {n}: {name}?", 0, FACT_LIMITS[name]) for key, name in zip(keys, FACT_NAMES,
                                                                                          strict=True))
    for n, keys in FACT_KEYS.items()
}


@cache
def _suited_card(colour: str, number: int) -> SuitedCard:
    """A card's :class:`SuitedCard`, built once (a frozen dataclass is not free to build, and the revoke
    watch is shown every card put down)."""
    return SuitedCard(colour, number)


# The decision to answer each question, built once for every game: every answer asks it (most
# actions are answers), and a frozen dataclass is not free to build.
ASKING: dict[str, Decision] = {}  # by question key: one per question of QUESTIONS, once asked


def asking(question: Question) -> Decision:
    """The table's decision to answer ``question`` (one of :data:`QUESTIONS`)."""
    decision = ASKING.get(question.key)
    if decision is None:
        decision = ASKING[question.key] = Decision("answer", None, question.prompt, question)
    return decision


# --- round rules --------------------------------------------------------------------------------

ROUND_RULES = "ABCDEFGHIJKL"
HOUSE_EXAMPLES = ("draw", "lowest", "closest")
SideName = Literal["top", "bottom"]
SIDES: tuple[SideName, ...] = ("top", "bottom")

HOUSE_TIE_TOP = "zenjidou.house.tie_top"  # C: every player tied for top counts as the top scorer
HOUSE_G = "zenjidou.house.g_each_trick"  # G: each trick, choose the top or the bottom of the hand
HOUSE_FIRST_CLOSEST = "zenjidou.house.first_closest"  # L closest: nothing played yet -> the top card
HOUSE_QUIZ_HANDS = "zenjidou.house.quiz_two_hands"  # B with 2 players: the pointer's first hand wins
HOUSE_F_BOTTOM = "zenjidou.house.f_bottom"  # F from the bottom: D's topmost follower is the bottom-most
HOUSE_TWO_HANDS = "zenjidou.house.two_hands"  # 2 players: hands sit P1, P2, P1', P2' round the table
ORDER_WEIGHT = 8.0  # how much likelier L's lowest or closest unseen card is than one far from it (card_odds)
DIRECTION = "clockwise"  # the header option a record of this version carries (docs/record-format.md)


@dataclass(frozen=True)
class RoundRule:
    """A round rule A-L as the table chooses it; ``variant`` is L's example (draw, lowest, closest).
    What the rule makes of play is its :class:`PlayRule` (:data:`PLAY_RULES`)."""

    letter: str
    variant: str | None = None

    def __str__(self) -> str:
        return f"{self.letter} {self.variant}" if self.variant else self.letter

    def to_fields(self) -> dict[str, Any]:
        """A rule's line keeps the letter as ``rule`` and the variant beside it."""
        return {"rule": self.letter, "variant": self.variant}

    @classmethod
    def from_fields(cls, kind: str, data: Mapping[str, Any]) -> RoundRule:
        return cls(one_of(kind, "rule", data.get("rule"), tuple(ROUND_RULES)),
                   one_of(kind, "variant", data.get("variant"), (None, *HOUSE_EXAMPLES)))


# Why a play other than a hand's known top card broke a rule played from the top (PlayRule.top_broken).
TOP_LEAD, TOP_NEITHER, TOP_FOLLOWER = "top_lead", "top_neither", "top_follower"


@dataclass(frozen=True, slots=True)
class OutOfOrder:
    """A play the rule's order did not give, proved by a card known to be in the hand: ``hand`` put
    down ``card`` in ``trick`` while holding ``held`` (shown in trick ``shown_in``, or None: round 1's
    shown bottom card, seen at set-up), which the rule puts first (0-based indexes). ``variant`` is
    L's ``lowest`` or ``closest``, or under a rule played from the top why the top card ``held``
    should have gone down (:data:`TOP_LEAD`, :data:`TOP_NEITHER`, :data:`TOP_FOLLOWER`)."""

    deal: int
    trick: int
    hand: int
    card: int
    held: int
    shown_in: int | None
    variant: str

    def to_json(self) -> dict[str, Any]:
        return {"trick": self.trick, "hand": self.hand, "card": self.card, "held": self.held,
                "shown_in": self.shown_in, "variant": self.variant}


@dataclass(frozen=True)
class PlayRule:
    """How hands play under one round rule: each choice the rules leave to the round is a method
    here, so a rule is one object and the game asks it instead of testing letters.

    The base is a face-up hand held in order that may play any card (E's and K's freedom, L draw's
    random draw): subclasses say what their rule changes. Frozen, so a round and its snapshots
    share the one object of :data:`PLAY_RULES`.
    """

    rule: RoundRule
    must_follow: ClassVar[bool] = False  # a decline of the lead colour is a revoke once it shows
    quiz: ClassVar[bool] = False  # B: the players point at the strongest card
    from_top: ClassVar[bool] = False  # D, E, J: the top card unless a follower comes first (plays_from_top)

    def setup_need(self, deal: Round) -> Need | None:
        """What the round waits for before its first trick, if anything (F's sides, C's guesses)."""
        return None

    def lead_need(self, game: Zenjidou, deal: Round, trick: ZTrick) -> Need | None:
        """What comes before the open trick's first card, if anything (J's lead)."""
        return None

    def after_trick(self, trick: ZTrick) -> Need:
        """What a complete trick waits for: its resolution (B: the quiz first)."""
        return RESOLVE

    def plays_itself(self, game: Zenjidou, deal: Round, hand: int) -> bool:
        """Whether ``hand``'s shown bottom card (round 1) is the card it must put down now."""
        return not deal.revealed and self.first_lead_top(deal, hand)

    def first_lead_top(self, deal: Round, hand: int) -> bool:
        """Whether the round's first lead, by ``hand``, is its top card (round 1: the shown bottom)."""
        return self.plays_from_top(deal, hand)

    def plays_from_top(self, deal: Round, hand: int) -> bool:
        """Whether ``hand`` holds its cards in order and puts down the top one unless the rule lets a
        follower come first (D, E, J; F from the top): round 1's shown bottom card is then its top
        card until it goes down, so every other play is checked against it (:meth:`top_broken`)."""
        return self.from_top

    def bottom_holders(self, game: Zenjidou, owner: int) -> tuple[int, ...]:
        """The hands that may put down ``owner``'s shown bottom card by hand."""
        return (owner,)

    def bottoms_in_hand(self) -> bool:
        """Whether the shown bottoms are known in their hands, so a decline of their colour is a
        revoke at once (under a must-follow rule)."""
        return self.must_follow

    def house(self, deal: Round, trick: ZTrick, hand: int) -> str | None:
        """A house ruling that shapes ``hand``'s play into ``trick``, if any."""
        return None

    def broken(self, card: int, held: int, before: int | None) -> bool:
        """Whether holding ``held`` proves that putting down ``card`` broke the rule's order (L)."""
        return False

    def top_broken(self, deal: Round, hand: int, leading: bool, card_follows: bool, top_follows: bool) -> str | None:
        """Why ``hand``, holding its known top card, broke the rule by putting down another card, or
        None when the rule may have allowed it (a rule not played from the top; a follower while the
        top card does not follow, as the follower's place in the hidden hand is not known). A lead
        is the top card (「手札を1番上…から順にプレイします」); a follower comes first only when it
        is the topmost one (「フォローできるカードの中で重なり順が最も上のカード」), which the top
        card is whenever it follows. Under a must-follow rule a card off the lead colour while the
        top card follows is a revoke, which the revoke watch already flags at once: not twice."""
        if not self.plays_from_top(deal, hand):
            return None
        if leading:
            return TOP_LEAD
        if not card_follows:
            return None if top_follows and self.must_follow else TOP_NEITHER
        return TOP_FOLLOWER if top_follows else None


class FaceDown(PlayRule):
    """A: piles face down, played from the top; the shown bottom card is the hand's last."""

    def plays_itself(self, game: Zenjidou, deal: Round, hand: int) -> bool:
        return deal.revealed.get(hand, 0) == game.tricks - 1

    def bottom_holders(self, game: Zenjidou, owner: int) -> tuple[int, ...]:
        return ()


class Quiz(FaceDown):
    """B: as A, and after each trick the players point at the strongest card; the first right wins."""

    quiz = True

    def after_trick(self, trick: ZTrick) -> Need:
        return RESOLVE if trick.quiz_done else QUIZ


class Guessing(PlayRule):
    """C: the pile turned over and held in order (the shown bottom first); each player names the
    round's top scorer before the first card."""

    def setup_need(self, deal: Round) -> Need | None:
        return GUESSES if deal.guesses is None else None

    def plays_itself(self, game: Zenjidou, deal: Round, hand: int) -> bool:
        return deal.revealed.get(hand, 0) == 0

    def bottom_holders(self, game: Zenjidou, owner: int) -> tuple[int, ...]:
        return ()


class MustFollow(PlayRule):
    """D, H, K (and the rules that say "the rest as D"): follow the lead colour if able."""

    must_follow = True


class TopLeads(MustFollow):
    """D: the topmost card that follows, else the top card; the round's first lead is the top card."""

    from_top = True


class TopOrFollower(PlayRule):
    """E: the top card or the topmost follower; the round's first lead is the top card."""

    from_top = True


class Sides(MustFollow):
    """F: each hand plays as D from the side (top or bottom) it chooses before the round."""

    def setup_need(self, deal: Round) -> Need | None:
        missing = [h for h in seats_in_order(deal.start, deal.seats) if h not in deal.sides]
        return Need("side", missing[0]) if missing else None

    def plays_from_top(self, deal: Round, hand: int) -> bool:
        return deal.sides.get(hand) == "top"

    def house(self, deal: Round, trick: ZTrick, hand: int) -> str | None:
        return HOUSE_F_BOTTOM if trick.turns and deal.sides.get(hand) == "bottom" else None


class EachTrickSide(MustFollow):
    """G: each trick, the top or the bottom of the hand (house: following as D)."""

    def house(self, deal: Round, trick: ZTrick, hand: int) -> str | None:
        return HOUSE_G


class Passed(MustFollow):
    """I: each player passes a card to the right neighbour before the round, so a shown bottom card
    may be in that neighbour's hand."""

    def bottom_holders(self, game: Zenjidou, owner: int) -> tuple[int, ...]:
        return owner, game.right_of(owner)

    def bottoms_in_hand(self) -> bool:
        return False


class LeadChoice(TopLeads):
    """J: as D, and each trick's winner keeps the lead or names the left neighbour."""

    def lead_need(self, game: Zenjidou, deal: Round, trick: ZTrick) -> Need | None:
        done = len(deal.tricks) - 2
        if trick.turns or done < 0 or done in deal.leads:
            return None
        result = deal.tricks[done].result
        assert result is not None  # a trick before the open one is resolved
        return Need("lead", result.winner)


class Lowest(PlayRule):
    """L lowest: the lowest card of the hand."""

    def broken(self, card: int, held: int, before: int | None) -> bool:
        return held < card


class Closest(PlayRule):
    """L closest: the number nearest the card put down just before (the larger on a tie); the game's
    first play, with nothing before it, is the top card (house)."""

    def first_lead_top(self, deal: Round, hand: int) -> bool:
        return True

    def house(self, deal: Round, trick: ZTrick, hand: int) -> str | None:
        return HOUSE_FIRST_CLOSEST if deal.index == 0 and not deal.revealed else None

    def broken(self, card: int, held: int, before: int | None) -> bool:
        return before is not None and (abs(held - before), -held) < (abs(card - before), -card)


# Every rule the table may choose, in the order the device offers them, and what each makes of play.
PLAY_RULES: Mapping[RoundRule, PlayRule] = {
    rule: kind(rule)
    for rule, kind in (
        (RoundRule("A"), FaceDown), (RoundRule("B"), Quiz), (RoundRule("C"), Guessing), (RoundRule("D"), TopLeads),
        (RoundRule("E"), TopOrFollower), (RoundRule("F"), Sides), (RoundRule("G"), EachTrickSide),
        (RoundRule("H"), MustFollow), (RoundRule("I"), Passed), (RoundRule("J"), LeadChoice),
        (RoundRule("K"), MustFollow), (RoundRule("L", "draw"), PlayRule), (RoundRule("L", "lowest"), Lowest),
        (RoundRule("L", "closest"), Closest),
    )
}
# Cards entered as revealed, top to bottom (piles face down).
FACE_DOWN = frozenset(rule.letter for rule, how in PLAY_RULES.items() if isinstance(how, FaceDown))
# The rules under which a player must follow the lead colour if able (D and the rules that say "the
# rest as D"; G by the house reading): a decline there is a revoke once the colour shows in that hand.
MUST_FOLLOW = frozenset(rule.letter for rule, how in PLAY_RULES.items() if how.must_follow)


def order_broken(variant: str, card: int, held: int, before: int | None) -> bool:
    """Whether holding ``held`` proves that putting down ``card`` broke L's ``variant`` (``before``: the
    card put down just before it; none for the game's first play, which is the top card, house)."""
    return PLAY_RULES[RoundRule("L", variant)].broken(card, held, before)


# --- actions ----------------------------------------------------------------------------------


def _numbers(words: Sequence[str]) -> list[int]:
    """The words as whole numbers, or none if one is not."""
    try:
        return [int(word) for word in words]
    except ValueError:
        return []


class ZAction(GameAction):
    """A Zenjidou action: its record line comes from its fields, and each kind says here, in one
    place, which need it answers, how it is checked, folded into the round, listed and read from
    short notation. What every kind shares is this base's: an open question about a card comes
    first, then the round's need and whose turn it is; after the action the round plays what is
    automatic; and the short notation is a verb (:data:`VERBS`) and its words."""

    answers: ClassVar[str]  # the kind of :class:`Need` it answers
    verb: ClassVar[str]  # its first word in the short notation

    def check(self, game: Zenjidou) -> None:
        question, need = game.waiting()
        if question is not None:  # a question is only open in a round still being played
            raise IllegalAction(f"first tell the device {question.prompt}", code="zenjidou.refusal.question_open")
        if need is None:
            raise IllegalAction("the game is over", code="game_over")
        if self.answers != need.kind:
            raise IllegalAction(f"waiting for {need.kind}, not {quoted(self.type)}",
                                code="zenjidou.refusal.wrong_action", expected=need.kind)
        hand = getattr(self, "hand", need.hand)
        if hand != need.hand:
            raise IllegalAction(f"it is hand {need.acting_hand + 1}'s turn, not {quoted(hand)}'s", code="not_your_turn",
                                expected=game.seat_label(need.acting_hand), actual=str(hand))
        self.check_need(game, need)

    def check_need(self, game: Zenjidou, need: Need) -> None:
        """Raise IllegalAction unless the action may answer ``need`` (the turn is checked before)."""

    def apply(self, game: Zenjidou) -> None:
        self.fold(game, game.state.deals[-1])  # the open round (state.deal), read on every action
        game.advance()

    @abstractmethod
    def fold(self, game: Zenjidou, deal: Round) -> None:
        """Fold the checked action into the round."""

    @classmethod
    def legal(cls, game: Zenjidou) -> Iterable[ZAction]:
        question, need = game.waiting()
        return cls.offered(game, need) if question is None and need is not None and need.kind == cls.answers else ()

    @classmethod
    @abstractmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        """Every action of this kind that ``need`` allows, in the order the device offers them."""

    @classmethod
    def read(cls, game: Zenjidou, text: str) -> ZAction | None:
        """The kind's verb and its words, like ``rest 7``, ``rule L closest``, ``side bottom``, ``guess
        2 2 1`` (P-numbers, one per player), ``point 2 16`` (P2 points at 16), ``nopoint``, ``lead left``
        / ``lead self``; a card played is its number alone (:class:`Play`). A verb of no kind, or one
        whose words make no action, cannot be read."""
        words = text.split()
        if not words:
            raise IllegalAction("nothing entered", code="zenjidou.refusal.empty")
        verb = words[0].lower()
        if verb != cls.verb:
            if verb not in VERBS and not is_digits(verb):
                raise unreadable(text)
            return None
        action = cls.read_words(game.typing_hand(), words[1:])
        if action is None:
            raise unreadable(text)
        return action

    @classmethod
    @abstractmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        """The action the words after the verb make for ``hand``, or None if they make none."""


def unreadable(text: str) -> IllegalAction:
    return IllegalAction(f"cannot read {quoted(text)}", code="zenjidou.refusal.unreadable", text=text)


@dataclass(frozen=True)
class Rest(ZAction):
    """The top card of the rest: it names the round's resolution rule."""

    card: Card
    type: ClassVar[str] = "rest"
    answers: ClassVar[str] = "rest"
    verb: ClassVar[str] = "rest"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        game.check_new_card(self.card)

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.rest = self.card
        deal.seen.append(self.card)

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(card) for card in game.unseen_numbers())

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        numbers = _numbers(words)
        return cls(Card(numbers[0])) if len(numbers) == 1 else None


@dataclass(frozen=True)
class Bottom(ZAction):
    """Round 1: the bottom card of a hand's pile, shown to find the start player."""

    hand: int
    card: Card
    type: ClassVar[str] = "bottom"
    answers: ClassVar[str] = "bottom"
    verb: ClassVar[str] = "bottom"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        game.check_new_card(self.card)

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.bottoms[self.hand] = self.card
        deal.seen.append(self.card)
        if len(deal.bottoms) == game.n:
            deal.start = max(deal.bottoms, key=lambda h: deal.bottoms[h])

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(need.acting_hand, card) for card in game.unseen_numbers())

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        numbers = _numbers(words)
        return cls(hand, Card(numbers[0])) if len(numbers) == 1 else None


@dataclass(frozen=True)
class ChooseRule(ZAction):
    """The round's rule, A-L (L with one of the book's examples)."""

    rule: RoundRule
    type: ClassVar[str] = "rule"
    answers: ClassVar[str] = "rule"
    verb: ClassVar[str] = "rule"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        if self.rule not in PLAY_RULES:
            raise IllegalAction(f"{self.rule} is not a round rule: A-L, L with {', '.join(HOUSE_EXAMPLES)}",
                                code="zenjidou.refusal.not_a_rule", rule=str(self.rule))

    def fold(self, game: Zenjidou, deal: Round) -> None:
        game.choose_rule(deal, self.rule)

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(rule) for rule in PLAY_RULES)

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        if not words:
            return None
        return cls(RoundRule(words[0].upper(), words[1].lower() if len(words) > 1 else None))


@dataclass(frozen=True)
class Side(ZAction):
    """Rule F: the hand plays from its top or from its bottom this round (any side is allowed)."""

    hand: int
    side: SideName
    type: ClassVar[str] = "side"
    answers: ClassVar[str] = "side"
    verb: ClassVar[str] = "side"

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.sides[self.hand] = self.side

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(need.acting_hand, side) for side in SIDES)

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        side = next((side for side in SIDES if words and words[0] == side), None)
        return cls(hand, side) if side is not None else None


@dataclass(frozen=True)
class Guesses(ZAction):
    """Rule C: per player, the player they named as the round's top scorer."""

    guesses: tuple[int, ...]
    type: ClassVar[str] = "guesses"
    answers: ClassVar[str] = "guesses"
    verb: ClassVar[str] = "guess"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        if len(self.guesses) != game.players or not all(0 <= g < game.players for g in self.guesses):
            raise IllegalAction(
                f"one guess per player, each naming a player 1-{game.players}",
                code="zenjidou.refusal.guesses",
                players=game.players,
            )

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.guesses = self.guesses

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(guesses) for guesses in product(range(game.players), repeat=game.players))

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        numbers = _numbers(words)
        return cls(tuple(n - 1 for n in numbers)) if numbers else None


@dataclass(frozen=True)
class Play(ZAction):
    """A hand's card goes down, entered as it is put down (under every rule)."""

    hand: int
    card: Card
    type: ClassVar[str] = "play"
    answers: ClassVar[str] = "play"
    verb: ClassVar[str] = "play"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        """Any card the table has not seen yet; a shown bottom card only by a hand that may hold it."""
        deal = game.state.deals[-1]
        if self.card not in deal.bottoms.values() or self.card in deal.shown_cards():
            game.check_new_card(self.card)
            return
        owner = next(hand for hand, card in deal.bottoms.items() if card == self.card)
        if self.hand not in game.may_hold_bottom(deal, owner):
            raise IllegalPlay(f"{self.card} is the shown bottom card of hand {owner + 1}",
                              code="zenjidou.refusal.bottom_of", card=str(self.card), seat=game.seat_label(owner))

    def fold(self, game: Zenjidou, deal: Round) -> None:
        game.play(deal, self.hand, self.card)

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        deal, hand = game.state.deal, need.acting_hand
        played = set(deal.shown_cards())
        held = {c for h, c in deal.bottoms.items() if c not in played and hand in game.may_hold_bottom(deal, h)}
        return (cls(hand, c) for c in game.numbers if c in held or c not in deal.seen)

    @classmethod
    def read(cls, game: Zenjidou, text: str) -> ZAction | None:
        """A card is entered by its number alone (while a question is open, a number answers it)."""
        words = text.split()
        if words and is_digits(words[0]):
            return cls(game.typing_hand(), Card(int(words[0]))) if game.open_question() is None else None
        return super().read(game, text)

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        return None  # a card is entered by its number alone


@dataclass(frozen=True)
class Point(ZAction):
    """Rule B: the first player to point (the earliest buzzer) points at ``card``."""

    player: int
    card: Card
    type: ClassVar[str] = "point"
    answers: ClassVar[str] = "quiz"
    verb: ClassVar[str] = "point"

    def check_need(self, game: Zenjidou, need: Need) -> None:
        trick = game.state.deal.open_trick
        if not 0 <= self.player < game.players or self.player in trick.out:
            raise IllegalAction(f"P{self.player + 1} cannot point again this trick", code="zenjidou.refusal.quiz_out",
                                seat=f"P{self.player + 1}")
        if self.card not in [t.cards[0] for t in trick.turns]:
            raise IllegalPlay(
                f"{self.card} is not in this trick", code="zenjidou.refusal.not_in_trick", card=str(self.card)
            )

    def fold(self, game: Zenjidou, deal: Round) -> None:
        trick = deal.open_trick
        if self.card == strongest(game.effects_of(trick)).number:
            trick.pointer = self.player
            trick.quiz_done = True
        else:
            trick.out.append(self.player)
            trick.wrong.append((self.player, self.card))
            trick.quiz_done = len(trick.out) == game.players

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        trick = game.state.deal.open_trick
        return (cls(player, turn.cards[0]) for player in range(game.players) if player not in trick.out
                for turn in trick.turns)

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        numbers = _numbers(words)
        return cls(numbers[0] - 1, Card(numbers[1])) if len(numbers) == 2 else None


@dataclass(frozen=True)
class NoPoint(ZAction):
    """Rule B: nobody (else) points; the strongest card wins. Anyone may say so."""

    type: ClassVar[str] = "no_point"
    answers: ClassVar[str] = "quiz"
    verb: ClassVar[str] = "nopoint"

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.open_trick.quiz_done = True

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(),)

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        return cls()


@dataclass(frozen=True)
class Lead(ZAction):
    """Rule J: the trick's winner leads the next trick, or names the left neighbour (``left``)."""

    hand: int
    left: bool
    type: ClassVar[str] = "lead"
    answers: ClassVar[str] = "lead"
    verb: ClassVar[str] = "lead"

    def fold(self, game: Zenjidou, deal: Round) -> None:
        deal.leads[len(deal.tricks) - 2] = self.left
        if not self.left:
            return
        left = game.left_of(self.hand)
        done = deal.tricks[-2]
        assert done.result is not None  # the trick before the open one is resolved
        done.result = replace(done.result, next_lead=left)
        deal.tricks[-1].lead = left

    @classmethod
    def offered(cls, game: Zenjidou, need: Need) -> Iterable[ZAction]:
        return (cls(need.acting_hand, left) for left in (False, True))

    @classmethod
    def read_words(cls, hand: int, words: Sequence[str]) -> ZAction | None:
        return cls(hand, words[0] == "left") if words and words[0] in ("left", "self") else None


# Every kind, in the order the device offers them (Zenjidou.action_types, after the table's answers).
ACTIONS: tuple[type[ZAction], ...] = (Rest, Bottom, ChooseRule, Side, Guesses, Play, Point, NoPoint, Lead)
VERBS: Mapping[str, type[ZAction]] = {kind.verb: kind for kind in ACTIONS}  # each verb's kind


# --- state --------------------------------------------------------------------------------


@dataclass
class ZTrick(Trick[Card]):
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
class Round(Deal[Card, ZTrick]):
    """One round: the rest's top card, round 1's bottoms, the rule, the sides (F) and what was played."""

    rest: Card | None = None
    bottoms: dict[int, Card] = field(default_factory=dict)
    rule: RoundRule | None = None
    how: PlayRule | None = field(default=None, repr=False, compare=False)  # the rule's object (PLAY_RULES)
    sides: dict[int, str] = field(default_factory=dict)
    guesses: tuple[int, ...] | None = None
    revealed: dict[int, int] = field(default_factory=dict)  # cards put down per hand
    played: list[tuple[int, int, Turn[Card]]] = field(default_factory=list)  # (trick, position, turn) in order
    watched: int = 0  # turns of this round the revoke watch has seen (once their facts were known)
    seen: list[Card] = field(default_factory=list)
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

    @property
    def open_trick(self) -> ZTrick:
        return self.tricks[-1]


@dataclass
class ZState(TrickState[Round]):
    """The game's fold plus each card's print once all its facts are known."""

    known: dict[int, CardFacts] = field(default_factory=dict)
    # What the fold waits for, as the last action left it: the open question, else the round's need.
    # Every action ends by playing what is automatic (advance), which reads exactly this, so the
    # next check reuses it; a fresh fold has none yet. A cache, so not part of the state's repr.
    waiting: tuple[Question | None, Need | None] | None = field(default=None, repr=False, compare=False)


class Need(NamedTuple):
    """What a round waits for next: an action kind and the hand (or None); ``auto`` the forced card."""

    kind: str
    hand: int | None = None
    auto: Card | None = None

    @property
    def acting_hand(self) -> int:
        """The hand that must act; asking a need no hand answers is the caller's mistake, as with
        :attr:`Decision.seat <companion.engine.base.Decision.seat>`, so "no hand" never passes for hand 0."""
        if self.hand is None:
            raise NoSeat(f"{self.kind!r} waits for no hand")
        return self.hand


# The needs without a hand, and each hand's card to play, built once (a frozen dataclass is not free
# to build, and the round needs a card after most actions).
REST, RULE, GUESSES, BEGIN, QUIZ, RESOLVE = (Need(kind) for kind in ("rest", "rule", "guesses", "begin", "quiz",
                                                                      "resolve"))
MAX_PLAYERS = 6  # and as many hands (two players play four)
PLAYS = tuple(Need("play", hand) for hand in range(MAX_PLAYERS))


COUNTS = ("rounds", "tricks_per_round", "piles", "pile_size", "top_scorer_bonus", "guess_seconds")
CARD_SHAPE = {  # what validate_cards and the rules may index (carddata.check_shape)
    "game": str,
    "numbers": [int],
    "colours": [named(str)],  # codes are words here: a card is typed by its number alone
    "score_marks": [int],
    **{key: int for key in COUNTS},
}


class Zenjidou(TrickGame[ZState]):
    """2-6 players (2 players hold two hands each), 3 rounds of 5 tricks, play clockwise."""

    game_id = "zenjidou"
    title = PLUGIN.titles[game_id]
    min_players = 2
    max_players = MAX_PLAYERS
    action_types: ClassVar[Mapping[str, ActionType]] = {Answer.type: Answer, **{kind.type: kind for kind in ACTIONS}}
    # A revoke names the lead colour as its suit.
    term_tables: ClassVar[Mapping[str, str]] = {"colour": "colours", "suit": "colours"}
    # configure refuses any direction but DIRECTION, naming why.
    option_kinds: ClassVar[Mapping[str, str]] = {"direction": "text"}
    # The book's ラウンド: shared texts that say deal say round (zenjidou.<key> in the catalogue).
    wording = "zenjidou"
    opens_first_trick = False  # a round's first trick opens once its rule and start are known

    def configure(self) -> None:
        if self.setup.options.get("direction") != DIRECTION:
            raise RecordError("this Zenjidou record was written before play went clockwise (it played counter-clockwise"
                              " from typed-in hands); it cannot be replayed as it was played, so it is refused")
        cards = self.setup.cards
        self.validate_cards_once(cards)
        self.players = len(self.setup.players)
        self.n = 4 if self.players == 2 else self.players
        self.numbers: list[Card] = [Card(number) for number in cards["numbers"]]
        self.colours: list[str] = [c["code"] for c in cards["colours"]]
        # What every trick's reason names, built once.
        self.colour_terms = [Term("colour", code) for code in self.colours]
        self.seat_terms = [Seat(player) for player in range(self.players)]
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
        need(cards["numbers"] == list(NUMBERS), "'numbers' must be 1..32")
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
            raise CardDataError(f"{cls.game_id} facts are card:<1-32>:{'|'.join(FACT_NAMES)}, not {quoted(key)}")

    @classmethod
    def fact_range(cls, cards: Mapping[str, Any], key: str) -> range:
        return range(0, cls.fact_limit(key.split(":")[2]) + 1)

    @staticmethod
    def question_key(number: int, name: str) -> str:
        return fact_key(number, name)

    def _decode_told(self, table_facts: Mapping[str, Any]) -> dict[str, int]:
        """The table's facts by question key; a fact the game could never ask is refused, naming it."""
        told = {}
        cards = table_facts.get("card", {})
        for number, entry in cards.items() if isinstance(cards, Mapping) else ():
            for name, value in entry.items() if isinstance(entry, Mapping) else ():
                key = fact_key(number, name)
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
        """A card's print, once all four facts are known."""
        known = self.state.known.get(number)
        if known is None:
            known = self._learn(number)
            if known is None:
                raise LookupError(f"card {number}'s facts are not known yet")
        return known

    def _learn(self, number: int) -> CardFacts | None:
        """A card's print once all four facts are known, kept in the state (facts are never unlearned
        but by undo, which folds a fresh state); None while one is unknown."""
        told, learned = self.told, self.state.learned
        values = []
        for key in self._keys_of(number):
            value = told.get(key)
            if value is None:
                value = learned.get(key)
                if value is None:
                    return None
            values.append(value)
        colour, score, effect, rule = values
        known = CardFacts(colour, self.marks[score], Effect.from_index(effect), RESOLUTION_RULES[rule])
        self.state.known[number] = known
        return known

    def open_question(self) -> Question | None:
        """The first unknown fact of a card seen this round, in the order cards appeared."""
        known = self.state.known
        deal = self.state.deals[-1]  # the layer's state.deal without its call: asked after every action
        seen = deal.seen
        while deal.asked < len(seen):
            number = seen[deal.asked]
            if number not in known:
                missing = self._missing(number)
                if missing is not None:
                    return QUESTIONS[number][missing]
                self._learn(number)
            deal.asked += 1
        return None

    @classmethod
    def _keys_of(cls, number: int) -> Sequence[str]:
        """A card's four question keys, in FACT_NAMES order."""
        return FACT_KEYS.get(number) or [cls.question_key(number, name) for name in FACT_NAMES]

    def _missing(self, number: int) -> int | None:
        """Where in FACT_NAMES the first fact of card ``number`` (a card seen, so a printed number:
        :meth:`check_new_card`) neither told nor answered is, if any."""
        told, learned = self.told, self.state.learned
        for index, key in enumerate(FACT_KEYS[number]):
            if key not in learned and key not in told:  # most are answered: one look-up each
                return index
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
        """A round; the first one's start is chosen by the table, a later one starts at ``lead``."""
        return Round(index, lead if index > 0 else -1, self.n)

    def new_state(self) -> ZState:
        return ZState()

    def new_trick(self, lead: int) -> ZTrick:
        return ZTrick(lead)

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
        deal = self.state.deals[-1]
        if self.deal_played(deal):
            return None
        if deal.rest is None:
            return REST
        if deal.index == 0 and len(deal.bottoms) < self.n:
            return Need("bottom", len(deal.bottoms))
        how = deal.how
        if how is None:
            return RULE
        if not deal.playing:
            return how.setup_need(deal) or BEGIN
        trick = deal.tricks[-1]  # the open trick
        if self.trick_complete(trick):
            return how.after_trick(trick)
        return how.lead_need(self, deal, trick) or self._play_need(deal, trick, how)

    def _play_need(self, deal: Round, trick: ZTrick, how: PlayRule) -> Need:
        """The next hand's card; round 1's shown bottom card plays itself where the rule fixes its turn
        (:meth:`PlayRule.plays_itself`)."""
        hand = self.seat_to_play(trick)
        bottom = deal.bottoms.get(hand)
        if bottom is not None and how.plays_itself(self, deal, hand):
            return Need("play", hand, bottom)
        return PLAYS[hand]

    def may_hold_bottom(self, deal: Round, owner: int) -> tuple[int, ...]:
        """The hands that may put down ``owner``'s shown bottom card by hand: none where it plays itself
        (A, B, C, and before the rule is chosen), else as the rule says."""
        return deal.how.bottom_holders(self, owner) if deal.how is not None else ()

    def unseen_numbers(self) -> list[Card]:
        """The cards not seen this round, by number."""
        seen = self.state.deal.seen
        return [card for card in self.numbers if card not in seen]

    def last_played(self) -> Card | None:
        return next((t.cards[-1] for d in reversed(self.state.deals) for tr in reversed(d.tricks)
                     for t in reversed(tr.turns)), None)

    def card_odds(self, seat: int, cards: Iterable[Any]) -> dict[Any, float]:
        """How likely each of ``cards`` (the unseen cards offered) is to be the one ``seat``'s hand
        puts down, from what the table has seen only (the device never sees a hand): a card known to
        be of the lead colour from a hand that must follow and has not declined it; under L lowest
        the lowest unseen cards, under L closest those nearest the last card put down
        (:data:`ORDER_WEIGHT`); the hand's own shown bottom card, which it surely holds, as likely as
        one of the hand's cards left (elsewhere the order says which card comes). Every card alike
        before the round's rule is chosen."""
        deal = self.state.deal
        numbers = sorted(cards)
        rule = deal.rule
        if rule is None:
            return dict.fromkeys(numbers, 1.0)
        trick = deal.tricks[-1]
        lead = self.fact(trick.turns[0].cards[0], "colour") if trick.turns else None
        declined = {suit for suit, _ in deal.watch.declined[seat]}
        follows = (deal.how is not None and deal.how.must_follow and lead is not None
                   and self.colours[lead] not in declined)
        last = self.last_played()

        def seen_weight(card: Card) -> float:
            likely = FOLLOW_WEIGHT if follows and self.fact(card, "colour") == lead else 1.0
            if rule.variant == "lowest":
                likely *= ORDER_WEIGHT / (1 + numbers.index(card))
            elif rule.variant == "closest" and last is not None:
                likely *= ORDER_WEIGHT / (1 + abs(card - last))
            return likely

        odds = {card: seen_weight(card) for card in numbers}
        held = deal.bottoms.get(seat)
        ordered = rule.variant in ("lowest", "closest")  # the order, not chance, says which card comes
        if held not in odds or ordered or self.may_hold_bottom(deal, seat) != (seat,):
            return odds
        # the hand's own shown bottom card is surely in it; any other unseen card only as likely as
        # the hand's other cards are among the unseen ones
        left = self.tricks - sum(turn.seat == seat for done in deal.tricks for turn in done.turns)
        odds[held] *= (len(numbers) - 1) / (left - 1) if left > 1 else float(len(numbers))
        return odds

    # --- the fold ------------------------------------------------------------------------------

    def learn_fact(self, state: ZState, answer: Answer) -> None:
        """The answer to the open question about a card: remember it and play on."""
        state.learned[answer.key] = answer.value
        self.advance()

    def choose_rule(self, deal: Round, rule: RoundRule) -> None:
        """Round 1's shown bottom cards are in their hands where they are held face up: a hand that
        declines a colour while one of them shows it has revoked at once (where the rule says they
        stay there; the facts of the bottoms are known, as questions come before the rule)."""
        deal.rule = rule
        how = deal.how = PLAY_RULES[rule]
        if how.bottoms_in_hand():
            for hand, card in deal.bottoms.items():
                deal.watch.returned(hand, self.suited(card))

    def suited(self, number: int) -> SuitedCard:
        """A card as the shared revoke watch sees it: its colour code and number."""
        return _suited_card(self.colours[self.facts(number).colour], number)

    def play(self, deal: Round, hand: int, card: Card) -> None:
        trick = deal.tricks[-1]  # the open trick
        how = deal.how
        assert how is not None  # cards go down only once the rule is chosen
        house = how.house(deal, trick, hand)
        if house is not None:
            trick.house = house
        turn = Turn(hand, (card,))
        deal.played.append((len(deal.tricks) - 1, len(trick.turns), turn))
        trick.turns.append(turn)
        deal.revealed[hand] = deal.revealed.get(hand, 0) + 1
        if card not in deal.seen:
            deal.seen.append(card)

    def _watch(self, deal: Round) -> None:
        """Show the revoke watch the cards put down since it last looked (their facts are known now):
        under a must-follow rule a card off the lead colour declines it. Under L lowest and closest a
        card proves wrong any earlier play of its hand that the rule would have made with it."""
        turns = deal.played
        if len(turns) == deal.watched:
            return  # the common case: nothing new since the last look
        how = deal.how
        assert how is not None  # cards go down only once the rule is chosen
        variant = deal.rule.variant if deal.rule is not None else None
        for at in range(deal.watched, len(turns)):
            index, position, turn = turns[at]
            card = self.suited(turn.cards[0])
            deal.watch.shown(deal.index, turn.seat, card, index)
            lead = self.colours[self.facts(deal.tricks[index].turns[0].cards[0]).colour]
            if how.must_follow and position and card.suit != lead:
                deal.watch.declined_suits(deal.index, turn.seat, [lead], index)
            if deal.bottoms:
                self._check_top(deal, how, turns, at)
            if variant is not None:
                self._check_order(deal, how, variant, turns, at)
        deal.watched = len(turns)

    def _check_top(self, deal: Round, how: PlayRule, turns: Sequence[tuple[int, int, Turn[Card]]], at: int) -> None:
        """Round 1 under a rule played from the top (D, E, J, F from the top): the pile is held turned
        over, so the hand's shown bottom card is its top card until it goes down, and the play at
        ``turns[at]`` is checked against it at once (:meth:`PlayRule.top_broken`)."""
        index, position, turn = turns[at]
        top = self._bottom_held(deal, turns, at)
        if top is None:
            return
        card = turn.cards[0]
        lead = self.facts(deal.tricks[index].turns[0].cards[0]).colour
        why = how.top_broken(deal, turn.seat, not position, self.facts(card).colour == lead,
                             self.facts(top).colour == lead)
        if why is not None:
            deal.out_of_order.append(OutOfOrder(deal.index, index, turn.seat, card, top, None, why))

    @staticmethod
    def _bottom_held(deal: Round, turns: Sequence[tuple[int, int, Turn[Card]]], at: int) -> Card | None:
        """Round 1's shown bottom card of the hand that put down ``turns[at]``, if that hand still held
        it then (under D, E, F, J and L it stays in its owner's hand until it goes down)."""
        turn = turns[at][2]
        bottom = deal.bottoms.get(turn.seat)
        if bottom is None or bottom == turn.cards[0] or any(t.cards[0] == bottom for _, _, t in turns[:at]):
            return None
        return bottom

    def _check_order(self, deal: Round, how: PlayRule, variant: str, turns: Sequence[tuple[int, int, Turn[Card]]],
                     at: int) -> None:
        """L: the card at ``turns[at]`` was in its hand at each of the hand's earlier plays this round,
        and round 1's shown bottom card, still held, was in it at this play."""
        index, _, shown = turns[at]
        held = shown.cards[0]
        for earlier in range(at):
            if turns[earlier][2].seat == shown.seat:
                self._flag_order(deal, how, variant, turns, earlier, held, index)
        bottom = self._bottom_held(deal, turns, at)
        if bottom is not None:
            self._flag_order(deal, how, variant, turns, at, bottom, None)

    def _flag_order(self, deal: Round, how: PlayRule, variant: str, turns: Sequence[tuple[int, int, Turn[Card]]],
                    at: int, held: Card, shown_in: int | None) -> None:
        """L: flag the play at ``turns[at]`` if holding ``held`` proves it out of order (once per play)."""
        trick, _, turn = turns[at]
        before = turns[at - 1][2].cards[0] if at else self._last_of_previous_round(deal)
        known = any(o.trick == trick and o.hand == turn.seat for o in deal.out_of_order)
        if not known and how.broken(turn.cards[0], held, before):
            deal.out_of_order.append(OutOfOrder(deal.index, trick, turn.seat, turn.cards[0], held, shown_in, variant))

    def _last_of_previous_round(self, deal: Round) -> Card | None:
        if deal.index == 0:
            return None
        last = self.state.deals[deal.index - 1].tricks[-1]
        return last.turns[-1].cards[0]

    def advance(self) -> None:
        """Play whatever the rules make automatic, until a person must act or a fact is missing;
        what the game then waits for is kept for the next check (:meth:`waiting`)."""
        state = self.state
        while True:
            question = self.open_question()
            if question is not None:
                state.waiting = (question, None)
                return
            deal = state.deals[-1]
            self._watch(deal)
            need = self.need()
            state.waiting = (None, need)
            if need is None:
                return
            if need.kind == "begin":
                self.open_trick(deal, deal.start)
            elif need.kind == "play" and need.auto is not None:
                self.play(deal, need.acting_hand, need.auto)
            elif need.kind == "resolve":
                self.finish_trick(state, deal)
            else:
                return

    def waiting(self) -> tuple[Question | None, Need | None]:
        """The open question about a card, else (None, what the round needs; None once it is over)."""
        if self.state.waiting is None:  # a fresh fold, before its first action
            question = self.open_question()
            self.state.waiting = (question, self.need() if question is None else None)
        return self.state.waiting

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
        quiz = deal.how is not None and deal.how.quiz
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
        order = ORDER_TERMS[effects.low_strong]
        params: dict[str, Any] = {"card": best.entry.number, "order": order}
        if not quiz:
            params["winner"] = self.seat_terms[self.player_of(best.entry.hand)]
        if best.by_trump:
            params["colour"] = self.colour_terms[best.entry.facts.colour]
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
                params["colour"] = self.colour_terms[effect.colour or 0]
            else:
                params["effect"] = EFFECT_TERMS[effect.kind]
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
        """A play out of the rule's order, naming the player, the cards, the trick, the round's rule,
        where the held card was shown (a later trick, or set-up) and, for a rule played from the top,
        the lead colour."""
        deal = self.state.deals[broken.deal]
        shown = self.shown_phrase(broken.shown_in)
        lead = self.facts(deal.tricks[broken.trick].turns[0].cards[0]).colour
        assert deal.rule is not None  # cards go down only once the rule is chosen
        return Phrase(f"zenjidou.out_of_order.{broken.variant}",
                      {"seat": Seat(self.player_of(broken.hand)), "card": broken.card, "trick": broken.trick + 1,
                       "held": broken.held, "shown": shown, "rule": deal.rule.letter,
                       "colour": self.colour_terms[lead]})

    @staticmethod
    def shown_phrase(trick: int | None) -> Phrase:
        """Where a card that proved a play wrong was seen: in a trick (0-based), or None at set-up."""
        return Phrase("zenjidou.shown.setup") if trick is None else Phrase("zenjidou.shown.trick", {"trick": trick + 1})

    def revoke_phrase(self, revoke: Revoke) -> Phrase:
        """A revoke names the player, not the hand (with 2 players each plays two), and where the card
        that proved it was seen: a revoke proved in the trick of the decline was proved by a shown
        bottom card still held (the only cards the device knows in a hand), seen at set-up."""
        phrase = revoke.phrase()
        shown = self.shown_phrase(None if revoke.proved_in_trick == revoke.trick else revoke.proved_in_trick)
        return Phrase(phrase.code, {**phrase.params, "seat": Seat(self.player_of(revoke.seat)), "shown": shown})

    def per_player(self, per_hand: Sequence[int]) -> list[int]:
        totals = [0] * self.players
        for hand, value in enumerate(per_hand):
            totals[self.player_of(hand)] += value
        return totals

    # --- checks ------------------------------------------------------------------------------------

    @property
    def decision(self) -> Decision | None:
        question, need = self.waiting()
        if question is not None:
            return asking(question)
        if need is None:
            return None
        seat = need.hand
        who = f"{self.seat_label(seat)} (hand {seat + 1})" if seat is not None else "the table"
        return Decision(need.kind, seat, f"{who}: {need.kind}")

    def asked_question(self) -> Question | None:
        """The open question about a card, as the fold left it (:meth:`waiting`), without the decision."""
        return self.waiting()[0]

    def check_answer(self, answer: Answer) -> None:
        """A fact is an index into its list (colours, score marks, effects, resolution rules)."""
        question = self.question_answered(answer)
        if not question.minimum <= answer.value <= question.maximum:
            raise IllegalAction(
                f"the answer is an index {question.minimum}-{question.maximum}, not {answer.value}",
                code="zenjidou.refusal.answer_range",
                minimum=question.minimum,
                maximum=question.maximum,
                value=answer.value,
            )

    def read_answer(self, text: str) -> Answer | None:
        """While a question is open, a number answers it (what follows it is not read); any other
        text is read by the other kinds, and refused as waiting for the answer."""
        question = self.waiting()[0]
        words = text.split()
        if question is None or not words or not is_digits(words[0]):
            return None
        return Answer(question.key, int(words[0]))

    def check_new_card(self, card: int) -> None:
        if card not in FACT_KEYS:  # one entry per printed number
            raise IllegalPlay(
                f"{card} is not a card: numbers are 1-32", code="zenjidou.refusal.not_a_card", text=str(card)
            )
        if card in self.state.deals[-1].seen:
            raise IllegalPlay(f"{card} was already seen this round", code="already_played", card=str(card))

    def typing_hand(self) -> int:
        """The hand a typed action is for when it names none: the hand the round waits for (the
        first when it waits for none)."""
        need = self.need()
        return need.hand or 0 if need is not None else 0

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
