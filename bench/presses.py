"""Key presses per entry and display bytes per press, for every game with a simulated table.

Run: python bench/presses.py [--games N] [--seed S] [--input joystick|keypad|numpad] [--table random|people]
[--game ID] [--bound] [--samples N] [--facts-known]. Prints one line per game, player count, input and table;
asserts nothing.

What is counted. Whole games of a simulated table are entered through the key planner, which
presses what a person at the table would, from wherever the screen stands. An *entry* is one
action in the game's record, whatever its kind: a card played or led, a prediction, a card-fact
answer, a draft pick, a hand or a row of cards where a rule asks for one, a round rule, a side,
a point. A *press* is every key event the planner sends to enter it: moving the cursor, typing,
choosing between entries (AUX), leaving a notice or a menu to get back to the game screen, the
confirming OK, and the press that wakes a dimmed display. Nothing the table does is left out.

A second count, printed after the first where it differs: an action whose screen takes its cards
one at a time (``confirms_each_card``: Tourney's NPC row of 7 face-up cards, one action in the
record) counted as that many entries. Why: each of those cards is typed, shown on the screen and
confirmed by its own OK (BACK takes it back), exactly as a played card is, so for the person at
the table it is 7 entries; the record merely stores the row whole because the NPC's rules need it
whole. The first figure, the row as one entry, stays the headline; the presses are the same.

Inputs: ``joystick`` is the 5-way joystick (the on-board buttons and the seven-key Pico keypad
press the same keys); ``keypad`` is the 4x4 card keypad (companion/ui/keypad.py); ``numpad`` a USB
numeric keypad (companion/hw/numpad.py): the card keypad's plan typed on its 17 keys, each key pressed
and released (held past the hold time where the plan holds it) as the input layer reports it and
decoded as the device decodes it, so a key the numeric keypad lacked, or a decoding that typed
something else, would fail the line. Tables:
``random`` plays any legal card of its real hand alike; ``people`` follows suit as every table
does and plays its highest or lowest card half the time (companion/sim: PeopleRandom). The screens
never see the simulated hands: the start of every picker comes from what the table has seen.

``--bound`` adds, per game and player count, for the random table, a floor no four-arrow picker can
beat for the card entries (cards picked from a grid; not Tourney's predictions, a suit each), and
what the game's own picker took for the same cards (the notices before them left first, not
counted), and the gap between them. The floor is one OK plus the fewest arrow presses expected of
an ideal picker (:func:`ideal_cost`: the likeliest card under the cursor, the next four one press
away, the next twelve two, 36 three: the most any picker whose arrows each have an opposite that
undoes them can reach, and no more than the device's grids reach, tests/ui/test_picker_floor.py)
for the chances of each card *as far as the floor is told*, which is more than the device knows:

- a follow: the card's suit, every unseen card of that suit alike (as to a table that plays any of
  its legal cards alike and follows by suit, not by number);
- a lead: how many cards of each suit the leader holds (read from the simulated table's hand,
  :class:`HandWatch`), not the suit it leads. The table leads any card of its hand alike and the
  unseen cards of a suit are alike to it, so a card of a suit is led with the chance held / unseen
  of that suit, over the hand's size (:func:`lead_chances`).

Why that is a floor: a picker's start and layout come from what the table has seen, which is less
than the floor is told, and given any knowledge the fewest presses expected are the ideal ones for
the chances it leaves; on every card, so on average. Why a lead is not "every card the leader may
hold alike" (printed beside as an estimate, not a floor: ``a lead's candidates all alike``, the
cards the game's ``card_odds`` does not rule out): after the first trick the hand is no uniform draw
from those cards (another seat's void puts that suit's cards in the leader's hand likelier, the
counts each seat followed with tilt the rest), and with unequal chances an ideal picker does better
than with equal ones, so that figure may lie above the true floor. The suit-told floor of earlier
figures is printed too (``every card's suit told``). Zenjidou's suit is a card's colour as far as
the table has told it (the cards whose colour is not told yet count as one suit), and its leads keep
the suit-told floor: a round's rule may force the card led (from the top, lowest, closest), so a
lead there is not any card of the hand alike.

Last, the picker's own layout from the start that is best for the floor's chances
(:func:`layout_cost`): how far the grid itself, started knowing what the floor is told, stays above
the ideal; the rest of the gap is the start's not knowing it.

Then the floor **given exactly what the device knows** (:func:`device_chances`, printed as ``told
what the device knows`` with its own gap): the floors above are told more than the device knows
(a follow's suit even where the follower could not follow; a lead's suit counts), and no picker
can use that. On the random table the chances of the next card, given what the table has seen,
are the posterior over the hidden hands: every deal consistent with the play seen, each weighed
by the product over the seats' past turns of 1 over the number of legal cards the seat had, the
next card any legal card of its hand alike (:func:`posterior_chances`, importance sampling,
``--samples`` deals per card). Every picker's start and layout come from what the device knows,
so the ideal picker for these chances is a floor no picker can beat. The floor is told the deck
(Irohanihohedo's numbers in play, which the device may not know): being told more only lowers a
floor. A Tourney prediction is a hidden card of its seat's hand until it went down, of the suit it
was revealed as once it was. Two limits, both said where the figures are: the estimate from samples is low on average
(the ideal cost is concave in the chances, and chances from a finite sample look surer than they
are), so more samples raise it toward the true floor; and a Tezuma turn that used an ability is
left unweighed (its chance depends on what else the ability allowed), as is a plain turn's
chance of not using Fire Breathing, the same on every deal but where no pair was there to play,
and the next card is weighed as a plain play (Tezuma's figure is near a floor, not strictly one).
Zenjidou is not sampled: its round rules force the card, so its table does not play any legal
card alike.

Last on the line, a **compass picker modelled** (:func:`compass_moves`): the card under the cursor
the likeliest by the device's own odds (the screen's ``likelihood``, the engine's ``card_odds``),
each arrow leading to a group of the next likeliest (four cards one press away, twelve two), as
an ideal picker's places but ranked by the device's odds instead of the true chances; one OK plus
the arrows to the card put down, beside the floor given what the device knows. Its groups mix suits
and ranks by odds alone, so a person cannot tell which arrow leads to a card without reading every
group (the line says how many cards the pickers offer); beside it a **compass of ranges**
(:func:`range_compass_moves`): the same, but each arrow's group a run of the picker's own order
(suit by suit, by rank) of about equal odds, shown as a range.

``--facts-known`` adds a line for the device's *second* game with the same deck: each measured game
is first entered by keys as above on an app whose ``on_fact`` keeps every card fact answered (as the
daemon's facts file does, through ``carddata.set_fact``); the next game of the same table (another
deal, the same prints) then starts with what that app's ``table_facts`` gives, and only that second
game is counted. Facts of cards the first game never showed are still asked, and the line says how
many. A game whose cards need no facts gives the same kind of figure as its first line.

Display bytes: every frame is compared page by page with the one before, as the page-diff display
writer sends it. bench/tourney.py and bench/zenjidou.py split their games' figures further.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from companion.carddata import facts_for, set_fact
from companion.engine.base import Answer, Game
from companion.engine.tricks import SuitedCard
from companion.hw.numpad import NUMPAD_KEYS, PRINTED_KEYS, NumpadDecoder
from companion.keys import KeyEvent
from companion.registry import game_class
from companion.session import Session
from companion.sim import (
    TABLE_KINDS,
    TableModel,
    new_random_game,
    play_out,
    simulated_game_ids,
    table_model,
    table_random,
)
from companion.ui import App
from companion.ui.picker import ARROWS, Grid
from companion.ui.planner import LAYOUTS, enter_by_keys

INPUTS = (*LAYOUTS, "numpad")

FULL_FRAME = 1024
PAGE = 128  # bytes in one 8-pixel page of a 128-pixel-wide panel


def changed_pages(before: bytes, after: bytes) -> int:
    return sum(before[p * PAGE:(p + 1) * PAGE] != after[p * PAGE:(p + 1) * PAGE] for p in range(len(before) // PAGE))


class PageCounter:
    """The display pages a page-diff writer would send, frame after frame of one app."""

    def __init__(self, app: App) -> None:
        self.app, self.pages = app, 0
        self.picture = app.render().tobytes()

    def __call__(self, _: KeyEvent) -> None:
        after = self.app.render().tobytes()
        self.pages += changed_pages(self.picture, after)
        self.picture = after


NUMPAD_CODES = {NUMPAD_KEYS[code]: code for code in PRINTED_KEYS.values()}
"""The numeric-keypad key that types each card-keypad key."""


class NumpadHand:
    """Types planned card-keypad keys on a numeric keypad: key-down, key-up (a second later for a
    held key), through the device's decoder, into the app."""

    def __init__(self, app: App) -> None:
        self.app, self.decoder, self.now = app, NumpadDecoder(), 0.0

    def __call__(self, event: KeyEvent) -> None:
        code = NUMPAD_CODES[event.key]
        self.now += 2.0
        released = self.now + (1.0 if event.long else 0.1)
        typed = self.decoder.feed(code, 1, self.now) + self.decoder.feed(code, 0, released)
        if typed != [event]:
            raise ValueError(f"the numeric keypad typed {typed!r} for {event!r}")
        self.app.handle(event)


SUIT_TOLD_LEADS = {"zenjidou"}  # leads whose round rule may force the card: the suit-told floor
SAMPLES = 400  # hidden deals sampled per card for the floor given what the device knows
SECOND = 10_000  # the seed offset of a device's second game (--facts-known)


def new_app(game: Game[Any], index: int, memory: dict[str, Any] | None = None) -> App:
    """An app entering a fresh copy of ``game``; with ``memory`` it keeps the facts answered there
    and gives them to later games as the daemon does (``on_fact`` and ``table_facts``)."""
    kept: dict[str, Any] = {} if memory is None else memory
    return App(Session(type(game)(game.setup)), clock=lambda: 0.0, rng=table_random("random", index),
               on_fact=lambda game_id, key, value: set_fact(kept, game_id, key, value),
               table_facts=lambda game_id: facts_for(kept, game_id))


class HandWatch:
    """A simulated table that notes, for each action it chooses, the hand of the seat choosing it as
    the table holds it then (the table model's ``hands``; the device never sees them): what a
    leader holds, for the floor of a lead (:func:`bound`). For the floor given what the device knows
    (:func:`posterior_chances`) it notes more, per action: every seat's hand, the deal's index, the
    suits owed (``must_follow``) and the deal's cards no hand holds (undealt, or the NPC's pile)."""

    def __init__(self, table: TableModel) -> None:
        self.table, self.held = table, []
        self.hands: list[list[list[Any]] | None] = []
        self.deals: list[int] = []
        self.owed: list[frozenset[str]] = []
        self.undealt: list[Counter[Any]] = []

    def choose(self, game: Game[Any], rng: random.Random) -> Any:
        deal = getattr(game.state, "deal", None)
        tricks = getattr(deal, "tricks", None)
        suited = game.game_id not in SUIT_TOLD_LEADS  # Zenjidou's cards have a colour, told late: not sampled
        open_trick = tricks[-1] if tricks and tricks[-1].result is None else None  # a lead may open the next one
        owed = game.must_follow(open_trick) if suited and open_trick else frozenset()  # type: ignore[attr-defined]
        action = self.table.choose(game, rng)
        hands = getattr(self.table, "hands", None)
        seat = seat_of(action)
        dealt = hands is not None and isinstance(seat, int) and seat < len(hands)  # else none dealt yet
        self.held.append(list(hands[seat]) if dealt else None)
        self.hands.append([list(hand) for hand in hands] if hands else None)
        index = getattr(deal, "index", -1)
        if not suited:
            self.undealt.append(Counter())
        elif hands and (not self.deals or self.deals[-1] != index):
            self.undealt.append(undealt_cards(game, self.table))
        elif self.undealt:
            self.undealt.append(self.undealt[-1])
        else:
            self.undealt.append(Counter())
        self.deals.append(index)
        self.owed.append(owed)
        return action

    def after(self, game: Game[Any], action: Any) -> None:
        self.table.after(game, action)


def undealt_cards(game: Game[Any], table: Any) -> Counter[Any]:
    """The cards of the deal just dealt that no hand holds and nobody has seen (a deck's remainder,
    the NPC's pile): the table's whole deck less its hands and the NPC's row."""
    deck = table.deck(game) if hasattr(table, "deck") else [
        SuitedCard(colour, number) for colour in game.colours for number in table.numbers]  # type: ignore[attr-defined]
    held = sum((Counter(hand) for hand in table.hands), Counter())
    return Counter(deck) - held - Counter(getattr(table, "npc_row", ()))


def table_game(game_id: str, players: int, rng: random.Random,
               table_facts: Mapping[str, Any] | None = None) -> tuple[Game[Any], HandWatch]:
    """The game ``random_game`` plays from ``rng``, and the table that chose its actions, which noted
    per action the hand it was chosen from (:class:`HandWatch`)."""
    game = new_random_game(game_id, players, rng, table_facts=table_facts)
    watch = HandWatch(table_model(game, rng))
    play_out(game, rng, table=watch)
    return game, watch


def measured(game_id: str, players: int, layout: str, table: str, games: int, seed: int,
             facts_known: bool) -> Iterator[tuple[Game[Any], App, HandWatch]]:
    """Each game a line measures, the app to enter it into and the table that chose its actions
    (the hands they were chosen from): the table's games in turn, or with ``facts_known`` the game
    each of them is followed by on the same device (module docstring)."""
    for index in range(games):
        played, held = table_game(game_id, players, table_random(table, seed + index))
        if facts_known:
            first = new_app(played, index, memory := {})
            for action in played.actions:
                enter_by_keys(first, action, "keypad" if layout == "numpad" else layout)  # the same plan, typed
            played, held = table_game(game_id, players, table_random(table, seed + SECOND + index),
                                      table_facts=first.table_facts(game_id))
            yield played, new_app(played, index, memory), held
        else:
            yield played, new_app(played, index), held


def figures(game_id: str, players: int, layout: str, table: str, games: int, seed: int,
            facts_known: bool = False) -> str:
    presses = entries = card_entries = pages = asked = 0
    for played, app, _ in measured(game_id, players, layout, table, games, seed, facts_known):
        counter = PageCounter(app)
        hand = NumpadHand(app)
        for action in played.actions:
            one_by_one = getattr(app.screens[0], "confirms_each_card", False)
            if layout == "numpad":
                presses += enter_by_keys(app, action, "keypad", counter, press=hand)
            else:
                presses += enter_by_keys(app, action, layout, counter)
            entries += 1
            asked += isinstance(action, Answer)
            card_entries += len(action.cards) if one_by_one else 1
        pages += counter.pages
    known = f", facts known ({asked} still asked)" if facts_known else ""
    by_card = (f"; {presses / card_entries:.2f} counting each card of a row as an entry, {card_entries} entries"
               if card_entries != entries else "")
    return (f"{game_id} {players}p {layout} {table}{known}: {presses / entries:.2f} presses per entry over {games}"
            f" games ({entries} entries{by_card}); display bytes per press {pages * PAGE / presses / FULL_FRAME:.1%}"
            f" of a frame")


def ideal_cost(weights: Iterable[float]) -> float:
    """The fewest arrow presses any four-arrow picker expects to one card, each card as likely as its
    weight says (relative weights; a card of weight 0 never comes): at best the likeliest card is
    under the cursor, the next four one press away and the next twelve two, and so on (each place
    after the start has at most three new neighbours, its fourth arrow being the one back).

    >>> ideal_cost([1] * 5), ideal_cost([1] * 9), ideal_cost([0, 1, 1, 1, 1, 1])
    (0.8, 1.3333333333333333, 0.8)
    >>> ideal_cost([6, 1, 1, 1, 1]) < ideal_cost([2, 2, 2, 2, 2])  # a likelier card goes under the cursor
    True
    """
    ranked = sorted((weight for weight in weights if weight > 0), reverse=True)
    total, cost, depth, room, taken = sum(ranked), 0.0, 0, 1, 0
    for weight in ranked:
        if taken == room:
            depth, taken = depth + 1, 0
            room = 4 * 3 ** (depth - 1)
        cost += weight * depth
        taken += 1
    return cost / total


def ideal_moves(count: int) -> float:
    """The average arrow presses to one of ``count`` equally likely cards (:func:`ideal_cost`).

    >>> ideal_moves(1), ideal_moves(5), round(ideal_moves(17), 3)
    (0.0, 0.8, 1.647)
    """
    return ideal_cost([1.0] * count)


def lead_chances(offered: Mapping[Any, int], held: Mapping[Any, int]) -> dict[Any, float]:
    """How likely each card of each suit is to be led, told the leader's count of each suit (times
    the hand's size): ``offered`` says how many cards of each suit are unseen (alike to the table
    within their suit), ``held`` how many of them the leader holds. A table leading any card of its
    hand alike leads a given card of a suit with the chance held / offered of that suit, over the
    hand's size.

    >>> lead_chances({"B": 4, "W": 2, "U": 3}, {"B": 1, "W": 2})
    {'B': 0.25, 'W': 1.0, 'U': 0.0}
    """
    return {suit: held.get(suit, 0) / count for suit, count in offered.items()}


def is_lead(game: Game[Any]) -> bool:
    """Whether the card to come opens a trick: no card of the open trick is down yet."""
    deal = getattr(game.state, "deal", None)
    tricks = getattr(deal, "tricks", None)
    return bool(tricks) and not tricks[-1].turns


Place = tuple[int, int]


def floor_odds(grid: Grid[Any], card: Any, hand: list[Any] | None) -> dict[Place, float]:
    """How likely each place of ``grid`` is to hold the card to come, as far as the floor is told
    (module docstring): with the leader's ``hand``, its count of each suit (:func:`lead_chances`);
    without, the suit of ``card``, each unseen card of it alike."""
    places = [(r, c) for r in range(len(grid.rows)) for c in range(len(grid.rows[r]))]
    group_of = {place: grid.groups[place[0]] for place in places}
    if hand is None:
        suit = group_of[(grid.row, grid.col)]
        return {place: 1.0 for place in places if group_of[place] == suit}
    sizes = Counter(group_of.values())
    found = (grid.at(held) for held in {*hand, card})
    counts = Counter(at.groups[at.row] for at in found if at is not None)
    by_group = lead_chances(sizes, counts)
    return {place: by_group[group_of[place]] for place in places if by_group[group_of[place]] > 0}


class Holder(NamedTuple):
    """Where hidden cards lie (:func:`posterior_chances`): a seat's hand of now, the undealt cards,
    or a card that left a hand unseen (a Tourney prediction), with the suits it cannot be."""

    size: int
    refuses: frozenset[str] = frozenset()  # suits it holds none of (declined while owed)
    only: frozenset[str] | None = None  # the only suits it can be (a prediction's revealed suit)


class PastTurn(NamedTuple):
    """A card a seat put down earlier in the deal, as :func:`posterior_chances` weighs it."""

    holders: tuple[int, ...]  # the holders whose cards its hand held then
    known: tuple[Any, ...]  # the other cards its hand held then (put down since, or handed back)
    owed: frozenset[str]  # the suits it owed then, if it held any
    suit: str  # the suit of the card it put down
    weighed: bool  # False: a turn with an ability, left unweighed (the module docstring says why)


def posterior_chances(pool: Sequence[Any], holders: Sequence[Holder], past: Sequence[PastTurn],
                      hand: PastTurn, samples: int, rng: random.Random) -> tuple[dict[Any, float], float]:
    """How likely each card is to be the one put down next (by the seat whose ``hand`` is given as a
    turn's, its suit unused) on a table that plays any legal card alike, given what was seen this
    deal; and the effective sample size of the estimate.

    The hidden cards (``pool``) lie with the ``holders``, every way alike before the deal's play (a
    shuffled deck) but for what the holders refuse. Seen play weighs each way by the chance that the
    table played as it did: over each past turn, 1 over the number of cards the seat could play. A
    way is dealt in two steps: each holder of only some suits takes one of the cards left that it
    can, alike; then the other cards go one by one (the cards of the suits refused most first) each
    to a holder with room that can take it, chosen by its room. That deals a way with a chance
    inversely proportional to the product of the numbers it chose among (rooms summed, in the second
    step), so that product weighs it back to alike (importance sampling). tests/ui/test_picker_floor.py
    checks it against exact enumeration.
    """
    def takes(holder: Holder, suit: str) -> bool:
        return suit not in holder.refuses and (holder.only is None or suit in holder.only)

    suits = {card.suit for card in pool}
    narrow = [k for k, holder in enumerate(holders) if holder.only is not None]
    open_to = {suit: [k for k, holder in enumerate(holders) if holder.only is None and takes(holder, suit)]
               for suit in suits}
    cards = list(pool)
    chances: Counter[Any] = Counter()
    weights: list[float] = []
    for _ in range(samples):
        rng.shuffle(cards)
        room = [holder.size for holder in holders]
        dealt: list[list[Any]] = [[] for _ in holders]
        left, weight = list(cards), 1.0
        for k in narrow:
            for _ in range(holders[k].size):
                fits = [n for n, card in enumerate(left) if takes(holders[k], card.suit)]
                if not fits:
                    weight = 0.0
                    break
                weight *= len(fits)
                dealt[k].append(left.pop(rng.choice(fits)))
        left.sort(key=lambda card: len(open_to[card.suit]))
        for card in left if weight else ():
            choices = [k for k in open_to[card.suit] if room[k]]
            total = sum(room[k] for k in choices)
            if not total:
                weight = 0.0
                break
            weight *= total
            pick = rng.random() * total
            for k in choices:
                pick -= room[k]
                if pick < 0 or k == choices[-1]:
                    break
            dealt[k].append(card)
            room[k] -= 1
        for turn in past if weight else ():
            if not turn.weighed:
                continue
            held = {*turn.known, *(card for k in turn.holders for card in dealt[k])}
            following = sum(card.suit in turn.owed for card in held)
            if following and turn.suit not in turn.owed:
                weight = 0.0
                break
            weight /= following or len(held)
        weights.append(weight)
        if weight:
            held = {*hand.known, *(card for k in hand.holders for card in dealt[k])}
            allowed = [card for card in held if card.suit in hand.owed] or list(held)
            for card in allowed:
                chances[card] += weight / len(allowed)
    total = sum(weights)
    if not total:
        return {}, 0.0
    return {card: chance / total for card, chance in chances.items()}, total ** 2 / sum(w * w for w in weights)


def seat_of(action: Any) -> Any:
    """The seat that entered ``action`` (``hand`` where a game names it so), None for the table's."""
    return getattr(action, "seat", getattr(action, "hand", None))


def device_chances(actions: Sequence[Any], watch: HandWatch, index: int, samples: int,
                   rng: random.Random) -> tuple[dict[Any, float], float]:
    """:func:`posterior_chances` for the card the ``index``-th action puts down, from what the table
    had seen by then this deal, read off ``watch``'s hands: what each seat holds hidden now (its
    hand less the cards handed back to it, which were seen), every card that left a hand unseen (a
    Tourney prediction, of the suit it was revealed as, if it was), each seat's past turns."""
    deal = watch.deals[index]
    start = watch.deals.index(deal)
    snaps = [[Counter(hand) for hand in watch.hands[j] or ()] for j in range(start, index + 1)]
    now, seats = snaps[-1], len(snaps[-1])
    gained = [Counter[Any]() for _ in now]
    gone: list[tuple[int, int, Any]] = []  # (seat, the first index it is gone at, the card): left unseen
    for j in range(start + 1, index + 1):
        before, after, played = snaps[j - 1 - start], snaps[j - start], actions[j - 1]
        for seat in range(seats):
            gained[seat] += after[seat] - before[seat]
            lost = before[seat] - after[seat]
            if seat_of(played) == seat:
                lost -= Counter(getattr(played, "cards", None) or [getattr(played, "card", None)])
            gone += [(seat, j, card) for card in lost.elements()]
    hidden = [hand - (gained[seat] & hand) for seat, hand in enumerate(now)]
    revealed = {seat: [a.suit for a in actions[start:index]  # a card's suit told without the card: a prediction
                       if seat_of(a) == seat and getattr(a, "suit", None) and getattr(a, "card", None) is None]
                for seat in range(seats)}
    past: list[tuple[int, int, PastTurn]] = []
    for j in range(start, index):
        action, hands, seat = actions[j], snaps[j - start], seat_of(actions[j])
        cards = getattr(action, "cards", None) or [getattr(action, "card", None)]
        if not isinstance(seat, int) or seat >= seats or not hasattr(cards[0], "suit"):
            continue
        left = Counter(card for who, at, card in gone if who == seat and at > j)
        slots = tuple(seats + 1 + n for n, (who, at, _) in enumerate(gone) if who == seat and at > j)
        past.append((seat, j, PastTurn((seat, *slots), tuple((hands[seat] - hidden[seat] - left).elements()),
                                       watch.owed[j], cards[0].suit, not getattr(action, "ability", None))))
    declined = [[(j, turn.owed) for who, j, turn in past if who == seat and turn.weighed and turn.suit not in turn.owed]
                for seat in range(seats)]

    def refused(seat: int, before: int) -> frozenset[str]:
        return frozenset(suit for j, owed in declined[seat] if j < before for suit in owed)

    told = {seat: iter(suits) for seat, suits in revealed.items()}
    holders = [Holder(hidden[seat].total(), refused(seat, index + 1)) for seat in range(seats)]
    holders.append(Holder(watch.undealt[index].total()))
    for seat, at, _ in gone:
        suit = next(told[seat], None)
        holders.append(Holder(1, refused(seat, at), None if suit is None else frozenset({suit})))
    pool = [*(card for hand in hidden for card in hand.elements()), *watch.undealt[index].elements(),
            *(card for _, _, card in gone)]
    seat = seat_of(actions[index])
    hand = PastTurn((seat,), tuple((now[seat] - hidden[seat]).elements()), watch.owed[index], "", True)
    return posterior_chances(pool, holders, [turn for _, _, turn in past], hand, samples, rng)


def compass_moves(weights: Sequence[float], card: int) -> int:
    """The arrows a compass picker takes to the ``card``-th of cards weighed ``weights`` (the
    device's odds): the likeliest under the cursor, each arrow to a group built likeliest first as
    an ideal picker's places are (the next four one press away, the next twelve two), ties in the
    order given.

    >>> compass_moves([1, 5, 3, 3, 2, 2], 1), compass_moves([1, 5, 3, 3, 2, 2], 0)
    (0, 2)
    """
    order = sorted(range(len(weights)), key=lambda i: (-weights[i], i))
    slot, depth, room, seen = order.index(card), 0, 1, 0
    while slot >= seen + room:
        seen += room
        depth += 1
        room = 4 * 3 ** (depth - 1)
    return depth


def range_compass_moves(weights: Sequence[float], card: int, arrows: int = 4) -> int:
    """The arrows a compass picker of *ranges* takes to the ``card``-th of cards in the picker's
    order (suit by suit, by rank), weighed ``weights`` (the device's odds): the likeliest card under
    the cursor, the others split in order into ``arrows`` runs of about equal odds, each arrow
    landing on its run's likeliest card and showing the run as a range (first and last card);
    within a run the same again with three arrows (the fourth goes back). Readable where a compass
    of groups by odds alone is not: a person finds a card's range by its suit and rank.

    >>> range_compass_moves([1, 1, 9, 1, 1], 2), range_compass_moves([1, 1, 9, 1, 1], 4)
    (0, 1)
    >>> range_compass_moves([1] * 17, 16)
    2
    """
    indexes, depth = list(range(len(weights))), 0
    while True:
        top = max(indexes, key=lambda i: (weights[i], -i))
        if top == card:
            return depth
        rest = [i for i in indexes if i != top]
        indexes = next(run for run in even_runs(rest, [weights[i] for i in rest], arrows) if card in run)
        depth, arrows = depth + 1, 3


def even_runs(items: Sequence[int], weights: Sequence[float], count: int) -> list[Sequence[int]]:
    """``items`` cut in order into ``count`` runs (fewer if there are fewer items), none empty, each
    cut where the running weight first reaches its share.

    >>> even_runs([1, 2, 3, 4, 5], [4, 1, 1, 1, 1], 3)
    [[1], [2, 3], [4, 5]]
    """
    count = min(count, len(items))
    total, running = sum(weights) or 1.0, list(itertools.accumulate(weights))
    cuts = [0]
    for share in range(1, count):
        lowest, highest = cuts[-1] + 1, len(items) - (count - share)
        reached = (at for at in range(lowest, highest + 1) if running[at - 1] >= total * share / count)
        cuts.append(next(reached, highest))
    cuts.append(len(items))
    return [items[start:end] for start, end in itertools.pairwise(cuts)]


def layout_cost(grid: Grid[Any], odds: Mapping[Place, float]) -> float:
    """The fewest arrow presses ``grid``'s own layout expects to a card drawn by ``odds``, from the
    start that is best for them: what the layout costs against the ideal (:func:`ideal_cost`) when
    its start knows what the floor is told.

    >>> row = Grid.of([[(n, n) for n in range(5)]])
    >>> layout_cost(row, {(0, n): 1.0 for n in range(5)})  # from the middle: 0, 1, 1, 2, 2
    1.2
    """
    places = [(r, c) for r in range(len(grid.rows)) for c in range(len(grid.rows[r]))]
    following = {place: [(g.row, g.col) for g in map(grid.at_place(place).moved, ARROWS)] for place in places}
    best = math.inf
    for start in places:
        distance, queue = {start: 0}, deque([start])
        while queue:
            place = queue.popleft()
            for near in following[place]:
                if near not in distance:
                    distance[near] = distance[place] + 1
                    queue.append(near)
        best = min(best, sum(weight * distance[place] for place, weight in odds.items()))
    return best / sum(odds.values())


def bound(game_id: str, players: int, table: str, games: int, seed: int, facts_known: bool = False,
          samples: int = SAMPLES) -> str:
    """The floor for card entries (see the module docstring), over the same games the figures use."""
    told_suit: list[float] = []  # per card: one OK and the ideal arrows, told the card's suit
    floors: list[float] = []  # the same, but a lead told only the leader's count of each suit
    knows: list[float] = []  # the same, for the chances given what the device knows (posterior_chances)
    sampled: list[float] = []  # the effective sample size of each of those
    layouts: list[float] = []  # one OK and the arrows of the picker's own layout, from its best start for those odds
    compass: list[float] = []  # one OK and the arrows of a compass picker on the device's odds (compass_moves)
    ranges: list[float] = []  # the same for a compass of ranges (range_compass_moves)
    offers: list[int] = []  # the cards a picker offered, per card (what a compass would have to show)
    alike: list[float] = []  # a lead's candidates all alike (an estimate, not a floor)
    picked = leads = 0  # the presses the picker took for the same cards (notices left beforehand, not counted)
    rng = random.Random(seed)
    for played, app, watch in measured(game_id, players, "joystick", table, games, seed, facts_known):
        for index, (action, hand) in enumerate(zip(played.actions, watch.held, strict=True)):
            while len(app.screens) > 1:
                app.handle(KeyEvent(app.top.leave_key))
            screen, cards = app.screens[0], getattr(action, "cards", None) or [getattr(action, "card", None)]
            grid = getattr(screen, "grid", None)
            found = grid.at(cards[0]) if isinstance(grid, Grid) and len(cards) == 1 else None
            lead = found is not None and hand is not None and game_id not in SUIT_TOLD_LEADS and is_lead(screen.game)
            seat = seat_of(action)
            if found is not None and game_id not in SUIT_TOLD_LEADS:
                offered = [card for row in found.rows for _, card in row]
                weigh = screen.likelihood(seat, found)
                odds = [weigh(card) for card in offered]
                compass.append(1 + compass_moves(odds, offered.index(cards[0])))
                ranges.append(1 + range_compass_moves(odds, offered.index(cards[0])))
                offers.append(len(offered))
                chances, size = device_chances(played.actions, watch, index, samples, rng)
                knows.append(1 + ideal_cost(chances.values()))
                sampled.append(size)
            if found is not None and lead:
                odds_of = screen.game.card_odds(seat, [card for row in found.rows for _, card in row])
                alike.append(1 + ideal_moves(sum(weight > 0 for weight in odds_of.values())))
            presses = enter_by_keys(app, action, "joystick")
            if found is None:
                continue
            picked, leads = picked + presses, leads + lead
            told = floor_odds(found, cards[0], None)
            told_suit.append(1 + ideal_cost(told.values()))
            chances_told = floor_odds(found, cards[0], hand) if lead else told
            floors.append(1 + ideal_cost(chances_told.values()))
            layouts.append(1 + layout_cost(found, chances_told))
            if not lead:
                alike.append(told_suit[-1])
    known = ", facts known" if facts_known else ""
    if not floors:
        return f"{game_id} {players}p bound {table}{known}: no card is picked from a grid"
    count = len(floors)
    floor, this_one = sum(floors) / count, picked / count
    device = (f"; told what the device knows {sum(knows) / count:.2f} ({samples} samples a card, effective"
              f" {min(sampled):.0f} at the least, {sum(sampled) / count:.0f} on average), gap"
              f" {this_one - sum(knows) / count:.2f}" if knows else "; told what the device knows: not sampled")
    steered = sum(compass) / count if compass else 0.0
    compass_line = (f"; a compass on the device's odds {steered:.2f}, gap {steered - sum(knows) / count:.2f}"
                    f" (cards offered {sum(offers) / len(offers):.0f} on average, at most {max(offers)}); a compass of"
                    f" ranges {sum(ranges) / count:.2f}, gap {sum(ranges) / count - sum(knows) / count:.2f}"
                    if compass else "")
    return (f"{game_id} {players}p bound {table}{known}: at least {floor:.2f} presses per card on any four-arrow"
            f" picker, a lead told the leader's count of each suit and a follow its suit"
            f" (every card's suit told: {sum(told_suit) / count:.2f}; a lead's candidates all alike:"
            f" {sum(alike) / count:.2f}){device}; this one {this_one:.2f}, gap {this_one - floor:.2f}; its layout from"
            f" the best start for the same odds {sum(layouts) / count:.2f}{compass_line}"
            f" ({count} cards, {leads} leads)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input", choices=INPUTS, action="append", help="default: all three")
    parser.add_argument("--table", choices=TABLE_KINDS, action="append", help="default: both")
    parser.add_argument("--game", choices=simulated_game_ids(), action="append", help="default: every game")
    parser.add_argument("--bound", action="store_true", help="also print the floor for a four-arrow picker")
    parser.add_argument("--samples", type=int, default=SAMPLES,
                        help="hidden deals sampled per card for the floor given what the device knows")
    parser.add_argument("--facts-known", action="store_true",
                        help="also print each figure for the device's second game, the first's facts remembered")
    args = parser.parse_args()
    second = [False, True] if args.facts_known else [False]
    for game_id in args.game or simulated_game_ids():
        cls = game_class(game_id)
        for players in sorted({cls.min_players, cls.max_players}):
            for layout in args.input or INPUTS:
                for table in args.table or TABLE_KINDS:
                    for known in second:
                        print(figures(game_id, players, layout, table, args.games, args.seed, known), flush=True)
            for known in second if args.bound else []:  # the floor holds for a table playing any legal card alike
                print(bound(game_id, players, "random", args.games, args.seed, known, args.samples), flush=True)


if __name__ == "__main__":
    main()
