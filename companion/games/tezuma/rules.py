"""Tezuma Trick, both editions: the 2015 first edition (``tezuma-2015``) and the later one (``tezuma``).

The editions share the cards, the tricks and the twelve abilities; they differ in how the scoring
cards read (a chart of points for every trick count, or a bid card that pays only an exact hit), the
draft order, how the cards on the table are laid out and how many uses an ability has. Those
differences are data (``cards.*.json`` beside this module) plus two class attributes here.

A quick deal start, beginner variant (no abilities), four players:

>>> from companion.carddata import printed_cards
>>> setup = Tezuma2015.new_setup("ABCD", options={"beginner": True}, cards=printed_cards("tezuma-2015"))
>>> game = Tezuma2015(setup)
>>> game.decision.prompt
'P1: draft a card (minus card or score chart)'
>>> for seat, kind, card in [(0, "penalty", "R"), (1, "penalty", "B"), (2, "penalty", "U"), (3, "penalty", "W"),
...                          (0, "scoring", "1"), (1, "scoring", "2"), (2, "scoring", "3"), (3, "scoring", "4")]:
...     game.push(Draft(seat, kind, card))
>>> for card in ["B7", "B2", "B6", "B3"]:
...     game.push(Play(game.decision.seat, (Card.parse(card),)))
>>> result = game.state.deal.tricks[0].result
>>> result.rule, [phrase.code for phrase in result.reason]
('follow', ['tezuma.follow'])

The reason is codes; :mod:`companion.text` says it in any language:

>>> from companion.text import Catalog, Formatter
>>> Formatter.for_game(Catalog.load(), "en", game).reason(result.reason)
'P1: highest butterfly (7)'
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any, ClassVar, NamedTuple, NoReturn, Protocol, TypeVar

from companion.carddata import CardCheck, MapOf, named
from companion.engine import tricks as layer
from companion.engine.actions import GameAction
from companion.engine.base import ActionType, Answer, Decision, Question, is_digits, is_int
from companion.engine.tricks import Phrase, Seat, SuitedCard, Term, TrickGame, TrickState, first_decision
from companion.errors import CardDataError, IllegalAction, IllegalPlay, RecordError, quoted
from companion.games.tezuma import PLUGIN
from companion.report import plural

PENALTY, SCORING, ABILITY = "penalty", "scoring", "ability"
DRAFT_KINDS = (PENALTY, SCORING, ABILITY)

SWORD = "sword-walking"
EGG = "paper-egg"
WATER = "water-trick"
CHICKS = "baby-chicks"
PAIL = "pail-dance"
HORSE = "horse-swallowing"
BUTTERFLY = "butterfly-dance"
RINGS = "linking-rings"
CUP = "cup-and-ball"
FIRE = "fire-breathing"
UMBRELLAS = "many-umbrellas"
SAND = "five-color-sand"
ABILITIES = (SWORD, EGG, WATER, CHICKS, PAIL, HORSE, BUTTERFLY, RINGS, CUP, FIRE, UMBRELLAS, SAND)
NOT_FOR_LEAD = (EGG, BUTTERFLY)
CARDLESS = (EGG, SAND)
FREE_SUIT = (RINGS, CUP)  # their users may play another suit while holding the lead suit


@dataclass(frozen=True, order=True)
class Card(SuitedCard):
    """A number card (rank 1-9) or a trump card (rank 0) of one suit; written ``B7`` or ``BT``.

    >>> Card.parse("bt"), str(Card("W", 9)), Card.parse("U5").rank
    (Card(suit='B', rank=0), 'W9', 5)
    """

    @property
    def is_trump(self) -> bool:
        return self.rank == 0

    def __str__(self) -> str:
        return f"{self.suit}{'T' if self.is_trump else self.rank}"

    @classmethod
    def parse(cls, text: object) -> Card:
        if not isinstance(text, str) or len(text) != 2:
            raise IllegalPlay(f"{quoted(text)} is not a card: write a suit letter and 1-9 or T, like B7 or BT")
        suit, rank = text[0].upper(), text[1].upper()
        if rank == "T":
            return cls(suit, 0)
        if not is_digits(rank) or rank == "0":
            raise IllegalPlay(f"{quoted(text)} is not a card: the rank is 1-9 or T (trump)")
        return cls(suit, int(rank))


def _ranges(numbers: list[int]) -> str:
    """Compact runs: [0, 1, 2, 5] -> '0-2, 5'."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


@dataclass
class Turn(layer.Turn[Card]):
    """One seat's entry in a trick, in the order the actions came (the order cards went down).

    ``deferred`` marks the Paper Egg card that follows its user's declaration once all have acted.
    """

    ability: str | None = None
    deferred: bool = False


@dataclass(frozen=True)
class TrickResult(layer.TrickResult):
    """Who won and why, as phrase codes, plus what the screens and the fold need.

    ``rule`` names the winning rule that decided: sand, trump, trump-sword, trump-butterfly,
    trump-butterfly-water, follow, follow-tie, follow-sword, lead-trump. ``value`` is the winning
    value under the follow rules; ``returned`` the card Fire Breathing takes back to its user's hand.
    """

    rule: str = ""
    value: int | None = None
    next_lead_by: str | None = None
    water_voided: bool = False
    returned: Card | None = None

    @classmethod
    def made(cls, winner: int, next_lead: int, reason: tuple[Phrase, ...], house: str | None, rule: str,
             value: int | None, next_lead_by: str | None, water_voided: bool, returned: Card | None) -> TrickResult:
        """The result ``TrickResult(...)`` makes from every field, without the generated ``__init__``'s
        ``object.__setattr__`` per frozen field (3 us of a trick's 25 us in a replay).

        >>> args = (1, 2, (Phrase("x"),), None, "follow", 7, None, False, None)
        >>> made = TrickResult.made(*args)
        >>> made == TrickResult(*args), vars(made) == vars(TrickResult(*args))
        (True, True)
        """
        result = object.__new__(cls)
        result.__dict__.update(winner=winner, next_lead=next_lead, reason=reason, house=house, rule=rule, value=value,
                               next_lead_by=next_lead_by, water_voided=water_voided, returned=returned)
        return result


@dataclass
class Trick(layer.Trick[Card]):
    """A trick that waits, once every seat has acted, for a Paper Egg card still to come."""

    result: TrickResult | None = None  # resolve_trick gives Tezuma's results, with ``returned``
    acted: int = 0
    egg: int | None = None

    def ability_of(self, seat: int) -> str | None:
        for turn in self.turns:
            # The ignore below: Tezuma's tricks hold Tezuma's Turns, which carry the ability
            if turn.seat == seat and turn.ability:  # type: ignore[attr-defined]
                return turn.ability  # type: ignore[attr-defined,no-any-return]  # as above
        return None

    def plays(self) -> list[tuple[int, tuple[Card, ...], str | None]]:
        """(seat, cards, ability) in play order: a Paper Egg user appears where the card went down."""
        # The ignore below: Tezuma's Turns carry the ability
        shown = [t for t in self.turns if t.cards or t.ability == SAND]  # type: ignore[attr-defined]
        return [(t.seat, t.cards, self.ability_of(t.seat)) for t in shown]


@dataclass
class DealState(layer.Deal[Card, Trick]):
    """A Tezuma deal: the draft before the tricks, ability uses, cards in hand and the scoring parts."""
    layout: Mapping[str, Sequence[str]] = field(default_factory=dict)
    draft_order: list[tuple[int, int]] = field(default_factory=list)
    picks: list[dict[str, str]] = field(default_factory=list)
    # (suit, rank) of each number card put down this deal: a tuple hashes in C, a Card by its
    # dataclass __hash__ in Python, and a play asks twice
    put_down: set[tuple[str, int]] = field(default_factory=set)
    trumps_down: Counter[str] = field(default_factory=Counter)
    hand: list[int] = field(default_factory=list)
    uses: list[int] = field(default_factory=list)
    points: list[int] | None = None
    penalties: list[int] | None = None
    drafted: int = 0

    @property
    def in_draft(self) -> bool:
        return self.drafted < len(self.draft_order)


# --- trick resolution: rules as objects ----------------------------------------------------
#
# A complete trick is read once into a TrickView; then the winning rules are tried in the order of
# WINNING_RULES and the next-lead rules in the order of NEXT_LEAD_RULES (rulings.md): the first that
# applies decides. A following card's value comes the same way from VALUE_RULES.


ABILITY_TERMS = {ability: Term("ability", ability) for ability in ABILITIES}


def ability_term(ability: str) -> Term:
    return ABILITY_TERMS[ability]


# Reasons name seats and suits in every trick: the few there are, made once (a frozen dataclass's
# __init__ costs about half a microsecond, and these are values: equal whoever made them).
MAX_PLAYERS = 4
SEATS = tuple(Seat(index) for index in range(MAX_PLAYERS))
SUIT_TERMS: dict[str, Term] = {}


FOLLOW_SUIT: dict[str, frozenset[str]] = {}  # a suit -> the set of it alone (TezumaGame.must_follow)


def suit_term(suit: str) -> Term:
    term = SUIT_TERMS.get(suit)
    if term is None:
        term = SUIT_TERMS[suit] = Term("suit", suit)
    return term


class FollowingPlay(NamedTuple):
    """A card (two with Fire Breathing) that follows the lead suit, and the ability it came with."""

    cards: tuple[Card, ...]
    ability: str | None
    lead_suit: str

    @property
    def card(self) -> Card:
        return self.cards[0]


class Valued(NamedTuple):
    """A following play's value and the phrase saying how an ability changed it (None: face value)."""

    value: int
    how: Phrase | None = None


class HorseOnTrump:
    """A trump of the lead suit played with Horse-Swallowing counts 2 (0 + 2)."""

    name = HORSE
    ability: str | None = HORSE

    def decide(self, play: FollowingPlay) -> Valued | None:
        if play.ability == HORSE and play.card.is_trump:
            return Valued(2, Phrase("tezuma.how.horse-trump", {"ability": ability_term(HORSE)}))
        return None


class TrumpFollows:
    """A trump that follows (it is of the lead suit, or Water Trick made it) counts 0."""

    name = "trump-follows"
    ability: str | None = None

    def decide(self, play: FollowingPlay) -> Valued | None:
        return Valued(0) if play.card.is_trump else None


class FireBreathing:
    """Two number cards of one suit count their sum (the lower one goes back to the hand)."""

    name = FIRE
    ability: str | None = FIRE

    def decide(self, play: FollowingPlay) -> Valued | None:
        if play.ability != FIRE:
            return None
        ranks = "+".join(str(card.rank) for card in sorted(play.cards))
        return Valued(sum(card.rank for card in play.cards),
                      Phrase("tezuma.how.fire", {"ability": ability_term(FIRE), "ranks": ranks}))


class ManyUmbrellas:
    """A 4 or 5 counts double."""

    name = UMBRELLAS
    ability: str | None = UMBRELLAS

    def decide(self, play: FollowingPlay) -> Valued | None:
        if play.ability == UMBRELLAS and play.card.rank in (4, 5):
            return Valued(play.card.rank * 2, Phrase("tezuma.how.umbrellas", {"ability": ability_term(UMBRELLAS)}))
        return None


class HorseSwallowing:
    """A number card counts 2 more."""

    name = HORSE
    ability: str | None = HORSE

    def decide(self, play: FollowingPlay) -> Valued | None:
        if play.ability == HORSE:
            return Valued(play.card.rank + 2, Phrase("tezuma.how.horse", {"ability": ability_term(HORSE)}))
        return None


class CupAndBall:
    """A card of another suit counts as following, at face value."""

    name = CUP
    ability: str | None = CUP

    def decide(self, play: FollowingPlay) -> Valued | None:
        if play.ability == CUP and play.card.suit != play.lead_suit:
            return Valued(play.card.rank, Phrase("tezuma.how.cup", {"ability": ability_term(CUP)}))
        return None


class FaceValue:
    name = "face-value"
    ability: str | None = None

    def decide(self, play: FollowingPlay) -> Valued:
        return Valued(sum(card.rank for card in play.cards))


VALUE_RULES = (HorseOnTrump(), TrumpFollows(), FireBreathing(), ManyUmbrellas(), HorseSwallowing(), CupAndBall(),
               FaceValue())
# The same order, narrowed to the rules a play with that ability (or none) can meet: a plain card
# is valued by two rules, not seven.
VALUE_RULES_FOR: dict[str | None, tuple[layer.Rule[FollowingPlay, Valued], ...]] = {
    ability: tuple(rule for rule in VALUE_RULES if rule.ability in (None, ability)) for ability in (None, *ABILITIES)}


@cache
def follow_value(cards: tuple[Card, ...], ability: str | None, lead_suit: str) -> Valued:
    """A following play's value by the first value rule that applies; a pure function of a few
    hundred possible plays, so each is worked out once."""
    return first_decision(VALUE_RULES_FOR[ability], FollowingPlay(cards, ability, lead_suit))


@cache
def plain_follow_value(suit: str, rank: int, lead_suit: str) -> Valued:
    """:func:`follow_value` of one card played without an ability (most followers), looked up by
    values that hash in C instead of by the Card, whose dataclass hash runs in Python."""
    return follow_value((Card(suit, rank),), None, lead_suit)


class Follower(NamedTuple):
    seat: int
    valued: Valued


VALID_TRUMP, VOIDED_TRUMP, FOLLOWS, OFF_SUIT = "valid-trump", "voided-trump", "follows", "off-suit"


def card_standing(card: Card, ability: str | None, lead_suit: str, water: bool) -> str:
    """What a card put down can do in the trick (rulings.md): a trump of another suit is valid
    (unless Water Trick voids it), a trump of the lead suit only with Butterfly Dance; a card of the
    lead suit follows, and with Cup and Ball any card does."""
    follows = card.suit == lead_suit or ability == CUP
    if card.is_trump and (ability == BUTTERFLY or not (follows or water)):
        return VALID_TRUMP
    if card.is_trump and not follows:
        return VOIDED_TRUMP
    return FOLLOWS if follows else OFF_SUIT


def declarations(turns: list[Turn]) -> tuple[list[tuple[int, str]], dict[int, str], dict[str, int], str]:
    """A complete trick's (seat, ability) declarations in order, each seat's ability, each ability's
    first seat, and the lead suit (the first card's: a complete trick has one)."""
    lead_suit = ""
    declared: list[tuple[int, str]] = []
    abilities: dict[int, str] = {}
    first: dict[str, int] = {}
    for turn in turns:
        if turn.ability:
            declared.append((turn.seat, turn.ability))
            abilities[turn.seat] = turn.ability
            first.setdefault(turn.ability, turn.seat)
        if not lead_suit and turn.cards:
            lead_suit = turn.cards[0].suit
    return declared, abilities, first, lead_suit


class TrickView(NamedTuple):
    """A complete trick as the winning rules see it: declarations, valid trumps and followers.

    ``top`` is the highest value among the followers and ``tied`` the followers with it, in the
    order their cards went down (read by the follow rules, which apply only when someone followed).
    """

    declared: tuple[tuple[int, str], ...]  # (seat, ability) in declaration order
    abilities: Mapping[int, str]  # seat -> the ability it declared this trick
    first: Mapping[str, int]  # ability -> the first seat that declared it
    lead_suit: str
    valid_trumps: tuple[int, ...]
    water_voided: bool  # a trump of another suit lost its power to Water Trick
    returned: Card | None
    top: int
    tied: tuple[Follower, ...]

    @classmethod
    def of(cls, trick: Trick) -> TrickView:
        """Read the trick once, in the order its entries came (a seat declares before its card)."""
        turns: list[Turn] = trick.turns  # type: ignore[assignment]  # Tezuma's tricks hold Tezuma's Turns
        declared, abilities, first, lead_suit = declarations(turns)
        if not declared:
            return cls.undeclared(turns, lead_suit)
        water = WATER in first
        valid: list[int] = []
        tied: list[Follower] = []  # the followers at the top value so far, in the order cards went down
        voided, returned, top = False, None, 0
        for turn in turns:
            cards = turn.cards
            if not cards:
                continue
            seat = turn.seat
            ability = abilities.get(seat) if abilities else None
            card = cards[0]
            if ability is None and card.rank:  # a plain number card, the common case: no rule but the suit
                standing = FOLLOWS if card.suit == lead_suit else OFF_SUIT
            else:
                standing = card_standing(card, ability, lead_suit, water)
            if standing == VALID_TRUMP:
                valid.append(seat)
            elif standing == VOIDED_TRUMP:
                voided = True
            elif standing == FOLLOWS:
                if ability is None and len(cards) == 1:
                    valued = plain_follow_value(card.suit, card.rank, lead_suit)
                else:
                    valued = follow_value(cards, ability, lead_suit)
                if valued.value > top:
                    top, tied = valued.value, [Follower(seat, valued)]
                elif valued.value == top:
                    tied.append(Follower(seat, valued))
            if ability == FIRE:
                returned = min(cards)
        return cls(tuple(declared), abilities, first, lead_suit, tuple(valid), voided, returned, top, tuple(tied))

    @classmethod
    def undeclared(cls, turns: list[Turn], lead_suit: str) -> TrickView:
        """:meth:`of` a trick without declarations (every trick of the beginner variant, about half
        at a table using abilities): with no ability and no Water Trick in play, :func:`card_standing`
        is the suit's alone (a trump of another suit is valid, a card of the lead suit follows) and a
        follower has its printed value, so one short pass reads it."""
        valid: list[int] = []
        tied: list[Follower] = []
        top = 0
        for turn in turns:
            cards = turn.cards
            if not cards:
                continue
            card = cards[0]
            if card.suit != lead_suit:
                if not card.rank:
                    valid.append(turn.seat)
                continue
            if len(cards) == 1:
                valued = plain_follow_value(card.suit, card.rank, lead_suit)
            else:
                valued = follow_value(cards, None, lead_suit)
            if valued.value > top:
                top, tied = valued.value, [Follower(turn.seat, valued)]
            elif valued.value == top:
                tied.append(Follower(turn.seat, valued))
        return cls((), {}, {}, lead_suit, tuple(valid), False, None, top, tuple(tied))

    def first_declared(self, ability: str) -> int | None:
        return self.first.get(ability)

    def ability_of(self, seat: int) -> str | None:
        return self.abilities.get(seat)


RuleContextT = TypeVar("RuleContextT", contravariant=True)
RuleOutcomeT = TypeVar("RuleOutcomeT", covariant=True)


class TrickRule(Protocol[RuleContextT, RuleOutcomeT]):
    """A winning or next-lead rule; ``needs`` names abilities one of which must have been declared
    in the trick for the rule to apply at all (empty: any trick)."""

    name: str
    needs: frozenset[str]

    def decide(self, context: RuleContextT) -> RuleOutcomeT | None: ...


TrickRuleT = TypeVar("TrickRuleT", bound="TrickRule[Any, Any]")


def by_declared(rules: tuple[TrickRuleT, ...]) -> dict[frozenset[str], tuple[TrickRuleT, ...]]:
    """``rules`` in their order, narrowed to those that can apply, for every set of the abilities
    they need that a trick may have declared: a trick without declarations tries four winning
    rules, not nine. Key: ``needed(rules).intersection(declared abilities)``."""
    needed = sorted(frozenset().union(*(rule.needs for rule in rules)))
    return {frozenset(chosen): tuple(rule for rule in rules if not rule.needs or rule.needs.intersection(chosen))
            for count in range(len(needed) + 1) for chosen in combinations(needed, count)}


class Win(NamedTuple):
    """A winning rule's decision; ``value`` is set by the follow rules only."""

    winner: int
    rule: str
    phrase: Phrase
    value: int | None = None


class FiveColorSand:
    """Five-Color Sand wins the trick outright (its first user, if two declared it)."""

    name = "sand"
    needs = frozenset({SAND})

    def decide(self, view: TrickView) -> Win | None:
        seat = view.first_declared(SAND)
        if seat is None:
            return None
        return Win(seat, self.name, Phrase("tezuma.sand", {"winner": SEATS[seat], "ability": ability_term(SAND)}))


class SwordWalkingTrumpTie:
    """Among several valid trumps, Sword Walking's wins."""

    name = "trump-sword"
    needs = frozenset({SWORD})

    def decide(self, view: TrickView) -> Win | None:
        sword = view.first_declared(SWORD)
        if sword is None or sword not in view.valid_trumps or len(view.valid_trumps) < 2:
            return None
        return Win(
            sword, self.name, Phrase("tezuma.trump-sword", {"winner": SEATS[sword], "ability": ability_term(SWORD)})
        )


class ButterflyOverWater:
    """The first valid trump is valid by Butterfly Dance although Water Trick was used."""

    name = "trump-butterfly-water"
    needs = frozenset({BUTTERFLY})

    def decide(self, view: TrickView) -> Win | None:
        if (
            not view.valid_trumps
            or view.ability_of(view.valid_trumps[0]) != BUTTERFLY
            or view.first_declared(WATER) is None
        ):
            return None
        winner = view.valid_trumps[0]
        return Win(winner, self.name, Phrase("tezuma.trump-butterfly-water", {
            "winner": SEATS[winner], "ability": ability_term(BUTTERFLY), "water": ability_term(WATER)}))


class ButterflyTrump:
    """The first valid trump is a trump of the lead suit made valid by Butterfly Dance."""

    name = "trump-butterfly"
    needs = frozenset({BUTTERFLY})

    def decide(self, view: TrickView) -> Win | None:
        if not view.valid_trumps or view.ability_of(view.valid_trumps[0]) != BUTTERFLY:
            return None
        winner = view.valid_trumps[0]
        return Win(winner, self.name,
                   Phrase("tezuma.trump-butterfly", {"winner": SEATS[winner], "ability": ability_term(BUTTERFLY)}))


class FirstValidTrump:
    name = "trump"
    needs: frozenset[str] = frozenset()

    def decide(self, view: TrickView) -> Win | None:
        if not view.valid_trumps:
            return None
        winner = view.valid_trumps[0]
        return Win(winner, self.name, winner_phrase("tezuma.trump", winner))


class SwordWalkingFollowTie:
    """Among followers tied at the top value, Sword Walking's wins."""

    name = "follow-sword"
    needs = frozenset({SWORD})

    def decide(self, view: TrickView) -> Win | None:
        sword = view.first_declared(SWORD)
        tied = view.tied
        if sword is None or len(tied) < 2 or sword not in [follower.seat for follower in tied]:
            return None
        return Win(sword, self.name, Phrase("tezuma.follow-sword", {
            "winner": SEATS[sword], "ability": ability_term(SWORD), "value": view.top}), view.top)


class LeadTrump:
    """Nobody followed with a number card: the first trump of the lead suit (the lead's) wins."""

    name = "lead-trump"
    needs: frozenset[str] = frozenset()

    def decide(self, view: TrickView) -> Win | None:
        if view.top != 0:
            return None
        winner = view.tied[0].seat
        return Win(winner, self.name, winner_phrase("tezuma.lead-trump", winner), 0)


@cache
def winner_phrase(code: str, winner: int) -> Phrase:
    """A reason that names only the winner: one phrase per code and seat, made once (a phrase is a
    value, and a frozen dataclass's ``__init__`` costs about a microsecond a trick)."""
    return Phrase(code, {"winner": SEATS[winner]})


@cache
def plain_follow_phrase(code: str, winner: int, suit: str, value: int) -> Phrase:
    """:func:`follow_phrase` of a card valued at face value, made once per code, seat, suit and value."""
    return Phrase(code, {"winner": SEATS[winner], "suit": suit_term(suit), "value": value})


def follow_phrase(code: str, view: TrickView, follower: Follower) -> Phrase:
    how = follower.valued.how
    if how is None:
        return plain_follow_phrase(code, follower.seat, view.lead_suit, view.top)
    return Phrase(f"{code}.how", {"winner": SEATS[follower.seat], "suit": suit_term(view.lead_suit), "value": view.top,
                                  "how": how})


class FirstOfTied:
    """Followers tied at the top value: the first card down wins."""

    name = "follow-tie"
    needs: frozenset[str] = frozenset()

    def decide(self, view: TrickView) -> Win | None:
        tied = view.tied
        if len(tied) < 2:
            return None
        return Win(tied[0].seat, self.name, follow_phrase("tezuma.follow-tie", view, tied[0]), view.top)


class HighestFollower:
    name = "follow"
    needs: frozenset[str] = frozenset()

    def decide(self, view: TrickView) -> Win:
        winner = view.tied[0]
        return Win(winner.seat, self.name, follow_phrase("tezuma.follow", view, winner), view.top)


WINNING_RULES: tuple[TrickRule[TrickView, Win], ...] = (
    FiveColorSand(), SwordWalkingTrumpTie(), ButterflyOverWater(), ButterflyTrump(), FirstValidTrump(),
    SwordWalkingFollowTie(), LeadTrump(), FirstOfTied(), HighestFollower())
WINNING_NEEDS = frozenset().union(*(rule.needs for rule in WINNING_RULES))
WINNING_RULES_FOR = by_declared(WINNING_RULES)


class LeadView(NamedTuple):
    """Who won, and the Baby Chicks and Pail Dance declarations in declaration order."""

    leaders: tuple[tuple[int, str], ...]
    winner: int
    seats: int

    @classmethod
    def of(cls, declared: Sequence[tuple[int, str]], winner: int, seats: int) -> LeadView:
        if not declared:  # most tricks: no declaration, so no next-lead ability
            return plain_lead_view(winner, seats)
        leaders = tuple([(seat, ability) for seat, ability in declared if ability in (CHICKS, PAIL)])
        return cls(leaders, winner, seats)


@cache
def plain_lead_view(winner: int, seats: int) -> LeadView:
    """The view of a trick without declarations, made once per winner and table size."""
    return LeadView((), winner, seats)


class NextLead(NamedTuple):
    seat: int
    phrases: tuple[Phrase, ...] = ()
    by: str | None = None
    house: str | None = None


WINNER_LEADS = tuple(NextLead(seat) for seat in range(MAX_PLAYERS))  # the usual next lead, made once


def next_lead_by(view: LeadView) -> NextLead:
    """The last next-lead ability declared sets the lead: Baby Chicks its user, Pail Dance the user's left."""
    seat, ability = view.leaders[-1]
    lead = seat if ability == CHICKS else (seat + 1) % view.seats
    return NextLead(lead, (Phrase("tezuma.next-lead", {"leader": SEATS[lead], "ability": ability_term(ability)}),),
                    ability)


class LaterNextLeadAbility:
    """House ruling (rulings.md): of two next-lead abilities, the later declared decides."""

    name = "house.next-lead"
    needs = frozenset({CHICKS, PAIL})

    def decide(self, view: LeadView) -> NextLead | None:
        if len(view.leaders) < 2:
            return None
        lead = next_lead_by(view)
        house = Phrase("tezuma.house.next-lead", {"ability": ability_term(view.leaders[-1][1])})
        return NextLead(lead.seat, (*lead.phrases, house), lead.by, house.code)


class NextLeadAbility:
    name = "next-lead"
    needs = frozenset({CHICKS, PAIL})

    def decide(self, view: LeadView) -> NextLead | None:
        return next_lead_by(view) if view.leaders else None


class WinnerLeads:
    name = "winner-leads"
    needs: frozenset[str] = frozenset()

    def decide(self, view: LeadView) -> NextLead:
        return WINNER_LEADS[view.winner]


NEXT_LEAD_RULES: tuple[TrickRule[LeadView, NextLead], ...] = (LaterNextLeadAbility(), NextLeadAbility(), WinnerLeads())
NEXT_LEAD_NEEDS = frozenset().union(*(rule.needs for rule in NEXT_LEAD_RULES))
NEXT_LEAD_RULES_FOR = by_declared(NEXT_LEAD_RULES)
PLAIN_WINNING_RULES, PLAIN_NEXT_LEAD_RULES = WINNING_RULES_FOR[frozenset()], NEXT_LEAD_RULES_FOR[frozenset()]


def resolve_trick(trick: Trick, seats: int) -> TrickResult:
    """Decide a complete trick by the winning rules in rulings.md: the one place their order is set."""
    view = TrickView.of(trick)
    declared = view.first  # the abilities declared this trick
    if declared:
        win_rules = WINNING_RULES_FOR[WINNING_NEEDS.intersection(declared)]
        lead_rules = NEXT_LEAD_RULES_FOR[NEXT_LEAD_NEEDS.intersection(declared)]
    else:  # no declaration: the rules any trick may meet, looked up without a set made per trick
        win_rules, lead_rules = PLAIN_WINNING_RULES, PLAIN_NEXT_LEAD_RULES
    win = first_decision(win_rules, view)
    reason: tuple[Phrase, ...] = (win.phrase,)
    water_voided = view.water_voided and win.value is not None  # only a following card can win over a voided trump
    if water_voided:
        reason += (Phrase("tezuma.water-voided", {"ability": ability_term(WATER)}),)
    lead = first_decision(lead_rules, LeadView.of(view.declared, win.winner, seats))
    return TrickResult.made(win.winner, lead.seat, reason + lead.phrases, lead.house, win.rule, win.value,
                            lead.by, water_voided, view.returned)


_NAMES = {"en": str, "ja": str}
_PER_PLAYER_COUNT = {"3": int, "4": int}
CARD_SHAPE = {  # what validate_cards and the rules may index without a TypeError (carddata.check_shape)
    "game": str,
    "suits": [named(re.compile(r"[A-SU-Z]"))],  # upper-case letters other than T, which types a trump
    "ranks": [int],
    "trumps_per_suit": int,
    "three_players": {"remove_ranks": [int], "remove_trumps_per_suit": int},
    "tricks_per_deal": int,
    "penalty": _NAMES,
    "scoring": {
        **_NAMES,
        "label": re.compile(r"[^{}]*\{id\}[^{}]*"),
        "exact_hit_only?": bool,
        "cards": [{"id": str, "players": [int], "points": MapOf(int), "complete": bool}],
    },
    "ability_budget?": {"per_deal": int},
    "abilities": [{"id": str, "uses": int, "cost?": int, **_NAMES}],
    "laid_out": {"scoring": _PER_PLAYER_COUNT, "abilities": _PER_PLAYER_COUNT, "required_scoring?": MapOf(str)},
    "recommended?": {"scoring": {"3": [str], "4": [str]}, "abilities": [str]},
}


# --- the actions: each checks, applies, lists and reads itself ------------------------------------


@dataclass(frozen=True)
class Draft(GameAction):
    """A seat takes one laid-out card: a penalty suit, a scoring card or an ability."""

    seat: int
    kind: str
    card: str
    type: ClassVar[str] = "draft"

    def check(self, game: TezumaGame) -> None:
        kind, seat = game._awaited()
        if kind != "draft" or self.seat != seat:
            game._refuse_turn(self, kind, seat)
        deal = game.state.deals[-1]
        taken = deal.picks[self.seat]
        if self.kind not in game.kinds:
            raise IllegalAction(f"{quoted(self.kind)} cannot be drafted here (kinds: {', '.join(game.kinds)})")
        if self.kind in taken:
            raise IllegalAction(f"{game.seat_label(self.seat)} already has a {game.kind_name(self.kind)}")
        if self.card not in game._laid_out(deal, self.kind):
            raise IllegalAction(f"{quoted(self.card)} is not a laid-out {game.kind_name(self.kind)}")
        for seat, picks in enumerate(deal.picks):
            if picks.get(self.kind) == self.card:
                raise IllegalAction(f"{game.seat_label(seat)} already took {self.card}")

    def apply(self, game: TezumaGame) -> None:
        deal = game.state.deals[-1]
        deal.picks[self.seat][self.kind] = self.card
        deal.drafted += 1
        if self.kind == ABILITY:
            deal.uses[self.seat] = game.abilities[self.card]["uses"]
        if not deal.in_draft:
            game.open_trick(deal, deal.start)

    @classmethod
    def legal(cls, game: TezumaGame) -> Iterator[Draft]:
        """Each kind the seat still lacks, each laid-out card of it not taken, in the layout's order."""
        decision = game.decision
        if decision is None or decision.kind != "draft":
            return
        deal = game.state.deal
        for kind in game.kinds:
            for card in game._laid_out(deal, kind):
                draft = cls(decision.seat, kind, card)
                if game.is_legal(draft):
                    yield draft

    @classmethod
    def read(cls, game: TezumaGame, text: str) -> Draft | None:
        """``penalty R``, ``scoring 3``, ``ability paper-egg``, while a draft is awaited."""
        decision = game.decision
        if decision is None or decision.kind != "draft":
            return None
        words = text.split()
        if len(words) != 2:
            raise IllegalAction("write a draft as KIND CARD, e.g. 'penalty R' or 'ability paper-egg'")
        return cls(decision.seat, words[0], words[1])


@dataclass(frozen=True)
class Play(GameAction):
    """A seat's turn in a trick: usually one card, two with Fire Breathing, none with Paper Egg's
    declaration or Five-Color Sand; ``ability`` is declared with the play."""

    seat: int
    cards: tuple[Card, ...] = ()
    ability: str | None = None  # left out of the record line without one
    type: ClassVar[str] = "play"

    def check(self, game: TezumaGame) -> None:
        deal = game.state.deals[-1]
        seat, ability, cards = self.seat, self.ability, self.cards
        # The awaited play (most actions), read straight off the deal without _awaited's call: the
        # draft is over, the last trick has no result yet (a played deal's last one has) and it is
        # this seat's turn in it.
        if (deal.drafted < len(deal.draft_order) or (trick := deal.tricks[-1]).result is not None
                or game.seat_to_play(trick) != seat):
            game._refuse_turn(self, *game._awaited())
        if ability is not None:
            self._check_ability(game, deal, trick, trick.acted == game.n)  # deferred: the Paper Egg card
        expected = 1 if ability is None else 0 if ability in CARDLESS else 2 if ability == FIRE else 1
        if len(cards) != expected:
            raise IllegalPlay(game._card_count_reason(ability, len(cards)))
        if len(cards) > deal.hand[seat]:
            raise IllegalPlay(
                f"{game.seat_label(seat)} has {deal.hand[seat]} card(s) in hand",
                code="hand_count", seat=game.seat_label(seat), count=deal.hand[seat],
            )
        for card in cards:
            key = (card.suit, card.rank)
            if key not in game.number_cards or key in deal.put_down:  # else a number card still in hand
                game._check_card(deal, card)
        if ability == FIRE:
            first, second = cards
            if first.is_trump or second.is_trump or first.suit != second.suit or first == second:
                raise IllegalPlay(
                    "Fire Breathing puts down two different number cards of one suit, no trump", code="fire_breathing"
                )

    def _check_ability(self, game: TezumaGame, deal: DealState, trick: Trick, deferred: bool) -> None:
        seat, ability = self.seat, self.ability
        label = game.seat_label(seat)
        if game.beginner:
            raise IllegalPlay("abilities are not used in the beginner variant", code="beginner")
        if ability is None or ability not in game.abilities:
            raise IllegalPlay(f"unknown ability {quoted(ability)}")
        name = game.ability_name(ability)
        if deal.picks[seat].get(ABILITY) != ability:
            raise IllegalPlay(f"{label} does not hold {name}", code="ability_not_held", seat=label, ability=ability)
        if deferred or trick.ability_of(seat):
            raise IllegalPlay(f"{label} already used an ability this trick", code="one_ability_per_trick", seat=label)
        if deal.uses[seat] <= 0:
            raise IllegalPlay(
                f"{label} has no {name} uses left this deal", code="ability_used_up", seat=label, ability=ability
            )
        if ability in NOT_FOR_LEAD and seat == trick.lead:
            raise IllegalPlay(f"{name} cannot be used by the lead player", code="ability_not_for_lead", ability=ability)

    def apply(self, game: TezumaGame) -> None:
        deal = game.state.deals[-1]
        trick = deal.tricks[-1]
        seat, cards, ability = self.seat, self.cards, self.ability
        deferred = trick.egg == seat and trick.acted == game.n
        if not deferred:
            trick.acted += 1
        if ability:
            deal.uses[seat] -= 1
            if ability == EGG:
                trick.egg = seat
        game.put_down(deal, Turn(seat, cards, ability, deferred))
        for card in cards:
            if card.rank:  # a number card; a trump (rank 0) is counted per suit, its copies alike
                deal.put_down.add((card.suit, card.rank))
            else:
                deal.trumps_down[card.suit] += 1
        deal.hand[seat] -= len(cards)
        if game.trick_complete(trick):
            game.finish_trick(game.state, deal)
            game._return_to_hand(deal, trick)

    @classmethod
    def legal(cls, game: TezumaGame) -> Iterator[Play]:
        """Each unseen card alone, then with the seat's ability (none, two of a suit or one, as it puts down)."""
        decision = game.decision
        if decision is None or decision.kind != "play":
            return
        seat = decision.seat
        deal = game.state.deal
        singles: list[tuple[Card, ...]] = [(c,) for c in game.unplayed_cards()]
        options: list[str | None] = [None]
        held = deal.picks[seat].get(ABILITY)
        if held:
            options.append(held)
        for ability in options:
            if ability in CARDLESS:
                candidates: Iterator[tuple[Card, ...]] | list[tuple[Card, ...]] = [()]
            elif ability == FIRE:
                candidates = combinations([c for (c,) in singles if not c.is_trump], 2)
            else:
                candidates = singles
            for cards in candidates:
                play = cls(seat, cards, ability)
                if game.is_legal(play):
                    yield play

    @classmethod
    def read(cls, game: TezumaGame, text: str) -> Play | None:
        """``B7``, ``BT butterfly-dance``, ``B3+B5 fire-breathing``, ``paper-egg``, ``five-color-sand``,
        while a play is awaited."""
        decision = game.decision
        if decision is None or decision.kind != "play":
            return None
        seat = decision.seat
        words = text.split()
        if len(words) == 1 and words[0] in CARDLESS:
            return cls(seat, (), words[0])
        if len(words) not in (1, 2):
            raise IllegalPlay("write a play as CARD[+CARD] [ABILITY], e.g. 'B7' or 'B3+B5 fire-breathing'")
        cards = tuple(Card.parse(c) for c in words[0].split("+"))
        return cls(seat, cards, words[1] if len(words) == 2 else None)


class TezumaGame(TrickGame[TrickState[DealState]]):
    """Rules common to both editions; an edition sets the draft laps and how the table is laid out."""

    min_players = 3
    max_players = MAX_PLAYERS
    action_types: ClassVar[Mapping[str, ActionType]] = {"draft": Draft, "play": Play, "answer": Answer}
    draft_laps: ClassVar[tuple[int, ...]]  # +1 clockwise from the start player, -1 back from the last picker
    beginner_variant: ClassVar[bool]  # the 2015 book's variant without abilities
    redraw_variant: ClassVar[bool]  # the later edition's variant: new bid and ability cards each round

    term_tables: ClassVar[Mapping[str, str]] = {"suit": "suits", "ability": "abilities"}
    reason_join = "tezuma.join"
    opens_first_trick = False  # a deal's first trick opens after the draft
    option_kinds: ClassVar[Mapping[str, str]] = {
        **TrickGame.option_kinds,
        "start_seat": "seat", "beginner": "bool", "redraw_each_deal": "bool", "layouts": "list",
    }
    required_options = frozenset({"start_seat", "layouts"})

    def configure(self) -> None:
        super().configure()
        setup = self.setup
        self.validate_cards_once(setup.cards)
        self.cards = cards = setup.cards
        self.suits = {s["code"]: s for s in cards["suits"]}
        self.abilities = {a["id"]: a for a in cards["abilities"]}
        self.scoring_cards = {c["id"]: c for c in cards["scoring"]["cards"]}
        # the points a table told for scoring cards whose print lost them, by card and trick count
        self.told_points: Mapping[str, Mapping[str, int]] = setup.table_facts.get("points", {})
        none_removed = {"remove_ranks": [], "remove_trumps_per_suit": 0}
        removed: Mapping[str, Any] = cards["three_players"] if self.n == 3 else none_removed
        self.ranks = [r for r in cards["ranks"] if r not in removed["remove_ranks"]]
        # (suit, rank) of every number card in this table's deck: a play of one not put down yet
        # passes _check_card's checks, so it is found with two set lookups
        self.number_cards = frozenset((suit, rank) for suit in self.suits for rank in self.ranks if rank)
        self.trumps_per_suit = cards["trumps_per_suit"] - removed["remove_trumps_per_suit"]
        self.tricks_per_deal: int = cards["tricks_per_deal"]
        self.options = dict(setup.options)
        self.check_variants(self.options)
        self.beginner = bool(self.options.get("beginner", False))
        self.kinds = (PENALTY, SCORING) if self.beginner else DRAFT_KINDS
        self._check_layouts(self.options.get("layouts"))

    # --- setup -----------------------------------------------------------------------------

    @classmethod
    def validate_cards(cls, cards: Mapping[str, Any]) -> None:
        check = CardCheck(cls.game_id, CARD_SHAPE, cards)
        need = check.need
        check.named_codes("suits", 4, "suit")
        need(cards.get("ranks") == list(range(1, 10)), "'ranks' must be 1..9")
        need(is_int(cards.get("trumps_per_suit")) and cards["trumps_per_suit"] > 0, "'trumps_per_suit' must be > 0")
        need(is_int(cards.get("tricks_per_deal")), "'tricks_per_deal' must be an integer")
        # 0 closed every deal before its first trick (a RuntimeError); more than a hand holds, no deal ends
        hand = (len(cards["ranks"]) + cards["trumps_per_suit"]) * len(cards["suits"]) // cls.max_players
        need(0 < cards["tricks_per_deal"] <= hand, f"'tricks_per_deal' must be 1 to a hand at {cls.max_players}"
             f" players ({hand})")
        three = cards.get("three_players", {})
        need(isinstance(three.get("remove_ranks"), list), "'three_players.remove_ranks' must be a list")
        abilities: Any = cards.get("abilities")  # JSON not yet checked: need() checks it here
        need(isinstance(abilities, list) and {a.get("id") for a in abilities} == set(ABILITIES),
             f"'abilities' must list exactly these ids: {', '.join(ABILITIES)}")
        need(all(is_int(a.get("uses")) and a["uses"] > 0 for a in abilities), "every ability needs 'uses' > 0")
        budget = cards.get("ability_budget")
        if budget:
            need(all(a.get("cost") and budget["per_deal"] // a["cost"] == a["uses"] for a in abilities),
                 "an ability's 'uses' must be the per-deal budget divided by its 'cost'")
        scoring = cards.get("scoring", {})
        need(isinstance(scoring.get("cards"), list) and scoring["cards"], "'scoring.cards' must list cards")
        need(len({c.get("id") for c in scoring["cards"]}) == len(scoring["cards"]), "scoring card ids must differ")
        for card in scoring["cards"]:
            points = card.get("points")
            need(isinstance(points, dict) and all(is_digits(k) and is_int(v) and v >= 0 for k, v in points.items()),
                 f"scoring card {card.get('id')}: 'points' maps trick counts to points >= 0")
            need(
                isinstance(card.get("complete"), bool), f"scoring card {card.get('id')}: 'complete' must be true/false"
            )
            need(isinstance(card.get("players"), list), f"scoring card {card.get('id')}: 'players' must be a list")

    @classmethod
    def card_gaps(cls, cards: Mapping[str, Any]) -> list[str]:
        gaps = []
        label = cards["scoring"]["label"]
        for card in cards["scoring"]["cards"]:
            if card["complete"]:
                continue
            unknown = [t for t in range(cards["tricks_per_deal"] + 1) if str(t) not in card["points"]]
            if unknown:
                gaps.append(
                    f"points:{card['id']} ({label.format(id=card['id'])}): points for {_ranges(unknown)} tricks"
                )
        return gaps

    @classmethod
    def check_fact_key(cls, cards: Mapping[str, Any], key: str) -> None:
        parts = key.split(":")
        ids = [c["id"] for c in cards["scoring"]["cards"]]
        tricks = cards["tricks_per_deal"]
        if (
            len(parts) != 3
            or parts[0] != "points"
            or parts[1] not in ids
            or not is_digits(parts[2])
            or int(parts[2]) > tricks
        ):
            raise CardDataError(
                f"{cls.game_id} facts are points:<card>:<tricks> with card one of {', '.join(ids)}"
                f" and tricks 0-{tricks}, not {quoted(key)}"
            )

    @classmethod
    def resolve_options(
        cls, options: dict[str, Any], players: int, cards: Mapping[str, Any], seed: int
    ) -> dict[str, Any]:
        """The variants, the start seat and each deal's layout (drawn from ``seed`` unless named)."""
        cls.check_variants(options)
        n = players
        beginner = bool(options.get("beginner", False))
        rng = random.Random(seed)
        first = cls.default_layout(cards, n, options, rng, beginner)
        layouts = [first]
        for _ in range(1, n):
            layouts.append(
                cls.default_layout(cards, n, {}, rng, beginner) if options.get("redraw_each_deal") else first
            )
        resolved = {"beginner": beginner, "start_seat": int(options.get("start_seat", 0)) % n, "layouts": layouts}
        if options.get("redraw_each_deal"):
            resolved["redraw_each_deal"] = True
        return resolved

    @classmethod
    def check_variants(cls, options: Mapping[str, Any]) -> None:
        """Refuse a variant the edition's book does not have."""
        if options.get("beginner") and not cls.beginner_variant:
            raise IllegalAction(f"{cls.title} has no beginner variant (it is the 2015 book's)", code="no_beginner",
                                game=cls.title)
        if options.get("redraw_each_deal") and not cls.redraw_variant:
            raise IllegalAction(f"{cls.title} lays out the same cards every deal (new cards each deal is the later"
                                " edition's variant)", code="no_redraw", game=cls.title)

    @classmethod
    def default_layout(
        cls, cards: Mapping[str, Any], n: int, options: Mapping[str, Any], rng: random.Random, beginner: bool
    ) -> dict[str, list[str]]:
        """The scoring and ability cards laid out: as the options name them, else drawn at random."""
        wanted = cards["laid_out"]
        eligible = [c["id"] for c in cards["scoring"]["cards"] if n in c["players"]]
        scoring = list(options.get("scoring") or rng.sample(eligible, wanted["scoring"][str(n)]))
        abilities = [] if beginner else list(
            options.get("abilities") or rng.sample(list(ABILITIES), wanted["abilities"][str(n)])
        )
        return {"scoring": scoring, "abilities": abilities}

    def _check_layouts(self, layouts: object) -> None:
        n = self.n
        if not isinstance(layouts, list) or len(layouts) != n or not all(isinstance(x, dict) for x in layouts):
            raise RecordError(f"options.layouts must list the laid-out cards of each of the {n} deals")
        laid_out = self.cards["laid_out"]
        wanted = {
            "scoring": laid_out["scoring"][str(n)],
            "abilities": laid_out["abilities"][str(n)],
            "required": laid_out.get("required_scoring", {}).get(str(n)),
        }
        if not self.options.get("redraw_each_deal") and any(layout != layouts[0] for layout in layouts):
            raise RecordError("options.layouts: without redraw_each_deal every deal lays out the first deal's cards")
        for layout in layouts:
            self._check_scoring_layout(layout.get("scoring", []), wanted["scoring"], wanted.get("required"))
            self._check_ability_layout(layout.get("abilities", []), 0 if self.beginner else wanted["abilities"])

    def _check_scoring_layout(self, scoring: Sequence[str], count: int, required: str | None) -> None:
        """One deal's scoring cards: ``count`` different ones for this table size, ``required`` among them."""
        n = self.n
        if len(scoring) != count or len(set(scoring)) != len(scoring):
            raise IllegalAction(f"lay out {count} different scoring cards for {n} players")
        for card_id in scoring:
            card = self.scoring_cards.get(card_id)
            if card is None:
                raise IllegalAction(f"there is no scoring card {quoted(card_id)}")
            if n not in card["players"]:
                raise IllegalAction(f"{self.scoring_label(card_id)} is not used with {n} players")
        if required and required not in scoring:
            raise IllegalAction(f"with {n} players {self.scoring_label(required)} must be laid out")

    def _check_ability_layout(self, abilities: Sequence[str], count: int) -> None:
        """One deal's abilities: ``count`` different known ones (none in the beginner variant)."""
        if len(abilities) != count or len(set(abilities)) != len(abilities):
            raise IllegalAction(f"lay out {count} different abilities for {self.n} players")
        unknown = [a for a in abilities if a not in self.abilities]
        if unknown:
            raise IllegalAction(f"unknown ability {quoted(unknown[0])}")

    # --- names -----------------------------------------------------------------------------

    def suit_name(self, suit: str) -> str:
        name: str = self.suits[suit]["en"]
        return name

    def ability_name(self, ability: str) -> str:
        name: str = self.abilities[ability]["en"]
        return name

    def scoring_label(self, card_id: str) -> str:
        label: str = self.cards["scoring"]["label"].format(id=card_id)
        return label

    def kind_name(self, kind: str) -> str:
        names: dict[str, str] = {PENALTY: self.cards["penalty"]["en"], SCORING: self.cards["scoring"]["en"],
                                 ABILITY: "ability"}
        return names[kind]

    # --- the fold --------------------------------------------------------------------------

    def first_lead(self, deal_index: int) -> int:
        """The start player of a deal leads its first trick; it moves one seat left each deal."""
        start: int = self.options["start_seat"]
        return (start + deal_index) % self.n

    def tricks_in_deal(self, deal: layer.Deal[Any]) -> int:
        return self.tricks_per_deal

    def new_deal(self, index: int, lead: int) -> DealState:
        order: list[tuple[int, int]] = []
        seat = lead
        for lap, direction in enumerate(self.draft_laps[: len(self.kinds)]):
            if lap:
                seat = order[-1][0] if direction != self.draft_laps[lap - 1] else lead
            for _ in range(self.n):
                order.append((seat, lap))
                seat = (seat + direction) % self.n
        n = self.n
        hand_size = (len(self.ranks) + self.trumps_per_suit) * len(self.suits) // n
        return DealState(index, lead, n, layout=self.options["layouts"][index], draft_order=order,
                         picks=[{} for _ in range(n)], hand=[hand_size] * n, uses=[0] * n)

    def new_trick(self, lead: int) -> Trick:
        return Trick(lead)

    def seat_to_play(self, trick: Trick) -> int:  # type: ignore[override]  # this game's tricks only
        """Each seat in turn from the lead; once all have acted, the Paper Egg user puts its card down."""
        if trick.acted < self.n:
            return (trick.lead + trick.acted) % self.n
        return trick.egg if trick.egg is not None else trick.lead

    def trick_complete(self, trick: Trick) -> bool:  # type: ignore[override]  # this game's tricks only
        # The ignore below: Tezuma's Turns carry deferred
        waits_for_egg = trick.egg is not None and not trick.turns[-1].deferred  # type: ignore[attr-defined]
        return trick.acted == self.n and not waits_for_egg

    def kept_in_snapshot(self, state: TrickState[DealState]) -> Iterator[object]:
        """The open deal's layout and draft order, set when the deal opens."""
        deal = state.deals[-1]
        yield deal.layout
        yield deal.draft_order

    def must_follow(self, trick: layer.Trick[Any]) -> frozenset[str]:
        """The lead suit, as for every trick game, from sets made once (every play asks)."""
        for turn in trick.turns:  # the lead suit (Trick.lead_suit, without a property call)
            if turn.cards:
                lead = turn.cards[0].suit
                break
        else:
            return frozenset()
        owed = FOLLOW_SUIT.get(lead)
        if owed is None:
            owed = FOLLOW_SUIT[lead] = frozenset({lead})
        return owed

    def follow_exempt(self, trick: layer.Trick[Any], turn: layer.Turn[Any]) -> bool:
        """Linking Rings and Cup and Ball let their user play another suit, on the turn it is declared
        and on the Paper Egg card's deferred turn alike (the ability declared earlier in the trick)."""
        # Only a deferred turn's seat has acted before in the trick. The ignores: this game puts
        # down only its own Turns in its own Tricks (Play.apply).
        declared = turn.ability or (turn.deferred and trick.ability_of(turn.seat))  # type: ignore[attr-defined]
        return declared in FREE_SUIT

    def captured_cards(self, trick: layer.Trick[Any]) -> list[Any]:
        """Every card but the one Fire Breathing takes back (:meth:`_return_to_hand`); it is one of
        the trick's card objects, so identity finds it even beside an equal card."""
        returned = trick.result.returned if isinstance(trick.result, TrickResult) else None
        return [card for turn in trick.turns for card in turn.cards if card is not returned]

    def _return_to_hand(self, deal: DealState, trick: Trick) -> None:
        """Fire Breathing's lower card goes back to its user's hand, in public: should the user
        later decline its suit while still holding it, the revoke is certain at once."""
        returned = trick.result.returned if isinstance(trick.result, TrickResult) else None
        if returned is None:
            return
        owner = next(t.seat for t in trick.turns if returned in t.cards)
        deal.hand[owner] += 1
        deal.put_down.discard((returned.suit, returned.rank))
        deal.watch.returned(owner, returned)

    def resolve(self, trick: Trick) -> TrickResult:  # type: ignore[override]  # this game's tricks only
        """Decide a complete trick by the winning rules in rulings.md (see :func:`resolve_trick`)."""
        return resolve_trick(trick, self.n)

    # --- scoring ---------------------------------------------------------------------------

    def points_for(self, card_id: str, tricks: int) -> int | None:
        """Points a scoring card pays for ``tricks``: printed, else told by a table, else unknown."""
        card = self.scoring_cards[card_id]
        key = str(tricks)
        printed: dict[str, int] = card["points"]
        if key in printed:
            return printed[key]
        told = self.told_points.get(card_id, {})
        if key in told:
            return told[key]
        learned = self.state.learned.get(self.question_key(card_id, tricks))
        if learned is not None:
            return learned
        return 0 if card["complete"] else None

    @staticmethod
    def question_key(card_id: str, tricks: int) -> str:
        return f"points:{card_id}:{tricks}"

    def score_deal(self, deal: layer.Deal[Any]) -> list[int] | layer.FactNeeded:
        """Points of the scoring card minus one per captured card of the penalty suit, at least 0;
        while a scoring card's points for the tricks taken are unknown, the question for them (the
        first seat's whose are)."""
        assert isinstance(deal, DealState)
        points = [self.points_for(deal.picks[s][SCORING], deal.tricks_won[s]) for s in range(self.n)]
        if None in points:
            missing = points.index(None)
            card_id, count = deal.picks[missing][SCORING], deal.tricks_won[missing]
            seats = [self.seat_label(s) for s in range(self.n) if deal.picks[s][SCORING] == card_id]
            return layer.FactNeeded(Question(
                self.question_key(card_id, count),
                f"points on {self.scoring_label(card_id)} ({', '.join(seats)}) for {count} tricks?",
            ))
        deal.points = [p or 0 for p in points]
        deal.penalties = [[c.suit for c in deal.captured[s]].count(deal.picks[s][PENALTY]) for s in range(self.n)]
        return [max(0, p - q) for p, q in zip(deal.points, deal.penalties, strict=True)]

    # --- the replay schema -----------------------------------------------------------------

    def trick_cards(self, trick: layer.Trick[Any]) -> list[dict[str, Any]]:
        """Plays in the order the cards went down, each with ``ability`` (docs/record-format.md)."""
        assert isinstance(trick, Trick)
        return [{"seat": seat, "card": "+".join(str(c) for c in cards) or None, "ability": ability}
                for seat, cards, ability in trick.plays()]

    def deal_summary(self, deal: layer.Deal[Any]) -> dict[str, Any]:
        """``picks`` per seat (kind -> card), and the scoring parts ``points`` and ``penalties``."""
        assert isinstance(deal, DealState)
        # copies: a summary kept by a caller must not change as the game goes on
        return {"picks": [dict(picks) for picks in deal.picks],
                "points": None if deal.points is None else list(deal.points),
                "penalties": None if deal.penalties is None else list(deal.penalties)}

    # --- the replay as text ------------------------------------------------------------------

    report_keys = frozenset({"picks", "points", "penalties"})

    @classmethod
    def report_deal_rows(cls, deal: Mapping[str, Any], names: layer.TermNames) -> list[tuple[int, str]]:
        """Each seat's drafted cards, named: ``scoring E, ability Baby Chicks, penalty F``."""
        return [(seat, ", ".join(f"{kind} {names.term(kind, card)}" for kind, card in picks.items()))
                for seat, picks in enumerate(deal["picks"]) if picks]

    @classmethod
    def report_play_mark(cls, play: Mapping[str, Any], names: layer.TermNames) -> str:
        """The ability declared with a play, named in brackets: ``F2[Baby Chicks]``."""
        return f"[{names.term('ability', play['ability'])}]" if play.get("ability") else ""

    @classmethod
    def report_score_parts(cls, deal: Mapping[str, Any], seat: int) -> list[str]:
        """The scoring card's points, then the penalty (captured cards of the penalty suit) if any."""
        penalty = deal["penalties"][seat]
        return [plural(deal["points"][seat], "point"), *([f"penalty {penalty}"] if penalty else [])]

    # --- what comes next -------------------------------------------------------------------

    def _awaited(self) -> tuple[str, int | None]:
        """The decision's kind and seat in a game not over, cheaply: an action's check needs only
        these on every push (read straight off the deal: the draft, else a trick still open, else
        the question of a deal waiting for a card fact)."""
        deal = self.state.deals[-1]
        drafted = deal.drafted
        if drafted < len(deal.draft_order):
            return "draft", deal.draft_order[drafted][0]
        trick = deal.tricks[-1]
        if trick.result is None or len(deal.tricks) != self.tricks_per_deal:  # not deal_played(deal)
            return "play", self.seat_to_play(trick)
        return "answer", None

    def _refuse_turn(self, action: Draft | Play, kind: str, seat: int | None) -> NoReturn:
        """The refusal of ``action`` while the game awaits a ``kind`` from ``seat``: another kind,
        or another seat's turn."""
        decision = self.decision
        if kind != action.type and decision is not None:
            raise IllegalAction(f"waiting for: {decision.prompt}")
        self.refuse_turn(seat, action.seat)

    def asked_question(self) -> Question | None:
        """The question a played deal's score waits for (a draft or a play never comes with one),
        read without building the decision: every answer asks."""
        return self.state.deals[-1].missing_fact

    @property
    def decision(self) -> Decision | None:
        deal = self.state.deal
        if deal.in_draft:
            seat = deal.draft_order[deal.drafted][0]
            left = " or ".join(self.kind_name(k) for k in self.kinds if k not in deal.picks[seat])
            return Decision("draft", seat, f"{self.seat_label(seat)}: draft a card ({left})")
        if not self.deal_played(deal):
            seat = self.seat_to_play(deal.trick)
            trick = deal.tricks[-1]
            what = "put down the Paper Egg card" if trick.acted == self.n else "play"
            return Decision("play", seat, f"{self.seat_label(seat)}: {what} (trick {len(deal.tricks)})")
        return self.fact_decision(deal)

    # --- legality --------------------------------------------------------------------------

    def _laid_out(self, deal: DealState, kind: str) -> Sequence[str]:
        return list(self.suits) if kind == PENALTY else deal.layout["scoring" if kind == SCORING else "abilities"]

    def _card_count_reason(self, ability: str | None, count: int) -> str:
        if ability in CARDLESS:
            return f"{self.ability_name(ability)} is declared without a card"
        if ability == FIRE:
            return "Fire Breathing puts down two number cards of one suit"
        return f"play one card, not {count}" if count else "choose a card"

    def _check_card(self, deal: DealState, card: Card) -> None:
        if card.suit not in self.suits:
            raise IllegalPlay(f"{card} is not a card: suits are {', '.join(self.suits)}")
        if card.is_trump:
            if deal.trumps_down[card.suit] >= self.trumps_per_suit:
                raise IllegalPlay(
                    f"all {self.trumps_per_suit} {self.suit_name(card.suit)} trumps are already on the table or taken",
                    code="trumps_gone", count=self.trumps_per_suit, suit=card.suit,
                )
            return
        if card.rank not in self.ranks:
            raise IllegalPlay(
                f"{card} is not in the {self.n}-player deck", code="not_in_deck", card=str(card), players=self.n
            )
        if (card.suit, card.rank) in deal.put_down:
            raise IllegalPlay(f"{card} was already played this deal", code="already_played", card=str(card))

    # --- what the table has not seen ------------------------------------------------------------

    def unplayed_cards(self) -> list[Card]:
        """Cards the table has not seen this deal: number cards once each, one entry per suit's trumps left."""
        deal = self.state.deal
        cards = [Card(s, r) for s in self.suits for r in self.ranks if (s, r) not in deal.put_down]
        cards += [Card(s, 0) for s in self.suits if deal.trumps_down[s] < self.trumps_per_suit]
        return cards

    def fire_partners(self, first: Card) -> list[Card]:
        """The unseen cards Fire Breathing may pair with ``first``: the other number cards of its suit
        (a pair with a trump is refused by :meth:`check`, which names why)."""
        return [card for card in self.unplayed_cards()
                if card.suit == first.suit and not card.is_trump and card != first]


class Tezuma2015(TezumaGame):
    """First edition: score charts, minus cards, marbles; the draft goes round clockwise three times."""

    game_id = "tezuma-2015"
    title = PLUGIN.titles[game_id]
    draft_laps = (1, 1, 1)
    beginner_variant = True
    redraw_variant = False  # box-returned charts are not used next deal, abilities are not turned

    @classmethod
    def default_layout(
        cls, cards: Mapping[str, Any], n: int, options: Mapping[str, Any], rng: random.Random, beginner: bool
    ) -> dict[str, list[str]]:
        """Without a choice the table gets the book's recommended sets (sections 10 and 11)."""
        recommended = cards["recommended"]
        chosen = {
            "scoring": options.get("scoring") or recommended["scoring"][str(n)],
            "abilities": options.get("abilities") or recommended["abilities"],
        }
        return super().default_layout(cards, n, chosen, rng, beginner)


class TezumaTrick(TezumaGame):
    """Later edition: bid cards, pain suits, gems; a snake draft; the table is drawn at random."""

    game_id = "tezuma"
    title = PLUGIN.titles[game_id]
    draft_laps = (1, -1, 1)
    beginner_variant = False
    redraw_variant = True
