"""Key presses per entry and display bytes per press, for every game with a simulated table.

Run: python bench/presses.py [--games N] [--seed S] [--input joystick|keypad|numpad] [--table random|people]
[--game ID] [--bound] [--facts-known]. Prints one line per game, player count, input and table;
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
import math
import random
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from companion.carddata import facts_for, set_fact
from companion.engine.base import Answer, Game
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
    leader holds, for the floor of a lead (:func:`bound`)."""

    def __init__(self, table: TableModel) -> None:
        self.table, self.held = table, []

    def choose(self, game: Game[Any], rng: random.Random) -> Any:
        action = self.table.choose(game, rng)
        hands = getattr(self.table, "hands", None)
        seat = getattr(action, "seat", getattr(action, "hand", None))
        dealt = hands is not None and isinstance(seat, int) and seat < len(hands)  # else none dealt yet
        self.held.append(list(hands[seat]) if dealt else None)
        return action

    def after(self, game: Game[Any], action: Any) -> None:
        self.table.after(game, action)


def table_game(game_id: str, players: int, rng: random.Random,
               table_facts: Mapping[str, Any] | None = None) -> tuple[Game[Any], list[list[Any] | None]]:
    """The game ``random_game`` plays from ``rng``, and per action the hand it was chosen from (:class:`HandWatch`)."""
    game = new_random_game(game_id, players, rng, table_facts=table_facts)
    watch = HandWatch(table_model(game, rng))
    play_out(game, rng, table=watch)
    return game, watch.held


def measured(game_id: str, players: int, layout: str, table: str, games: int, seed: int,
             facts_known: bool) -> Iterator[tuple[Game[Any], App, list[list[Any] | None]]]:
    """Each game a line measures, the app to enter it into and the hands its actions were chosen
    from: the table's games in turn, or with ``facts_known`` the game each of them is followed by on
    the same device (module docstring)."""
    for index in range(games):
        played, held = table_game(game_id, players, table_random(table, seed + index))
        if facts_known:
            first = new_app(played, index, memory := {})
            for action in played.actions:
                enter_by_keys(first, action, layout)
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


def bound(game_id: str, players: int, table: str, games: int, seed: int, facts_known: bool = False) -> str:
    """The floor for card entries (see the module docstring), over the same games the figures use."""
    told_suit: list[float] = []  # per card: one OK and the ideal arrows, told the card's suit
    floors: list[float] = []  # the same, but a lead told only the leader's count of each suit
    layouts: list[float] = []  # one OK and the arrows of the picker's own layout, from its best start for those odds
    alike: list[float] = []  # a lead's candidates all alike (an estimate, not a floor)
    picked = leads = 0  # the presses the picker took for the same cards (notices left beforehand, not counted)
    for played, app, held in measured(game_id, players, "joystick", table, games, seed, facts_known):
        for action, hand in zip(played.actions, held, strict=True):
            while len(app.screens) > 1:
                app.handle(KeyEvent(app.top.leave_key))
            screen, cards = app.screens[0], getattr(action, "cards", None) or [getattr(action, "card", None)]
            grid = getattr(screen, "grid", None)
            found = grid.at(cards[0]) if isinstance(grid, Grid) and len(cards) == 1 else None
            lead = found is not None and hand is not None and game_id not in SUIT_TOLD_LEADS and is_lead(screen.game)
            if found is not None and lead:
                seat = getattr(action, "seat", getattr(action, "hand", None))
                odds = screen.game.card_odds(seat, [card for row in found.rows for _, card in row])
                alike.append(1 + ideal_moves(sum(weight > 0 for weight in odds.values())))
            presses = enter_by_keys(app, action, "joystick")
            if found is None:
                continue
            picked, leads = picked + presses, leads + lead
            told = floor_odds(found, cards[0], None)
            told_suit.append(1 + ideal_cost(told.values()))
            chances = floor_odds(found, cards[0], hand) if lead else told
            floors.append(1 + ideal_cost(chances.values()))
            layouts.append(1 + layout_cost(found, chances))
            if not lead:
                alike.append(told_suit[-1])
    known = ", facts known" if facts_known else ""
    if not floors:
        return f"{game_id} {players}p bound {table}{known}: no card is picked from a grid"
    count = len(floors)
    floor, this_one = sum(floors) / count, picked / count
    return (f"{game_id} {players}p bound {table}{known}: at least {floor:.2f} presses per card on any four-arrow"
            f" picker, a lead told the leader's count of each suit and a follow its suit"
            f" (every card's suit told: {sum(told_suit) / count:.2f}; a lead's candidates all alike:"
            f" {sum(alike) / count:.2f}); this one {this_one:.2f}, gap {this_one - floor:.2f}; its layout from"
            f" the best start for the same odds {sum(layouts) / count:.2f} ({count} cards, {leads} leads)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input", choices=INPUTS, action="append", help="default: all three")
    parser.add_argument("--table", choices=TABLE_KINDS, action="append", help="default: both")
    parser.add_argument("--game", choices=simulated_game_ids(), action="append", help="default: every game")
    parser.add_argument("--bound", action="store_true", help="also print the floor for a four-arrow picker")
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
                print(bound(game_id, players, "random", args.games, args.seed, known), flush=True)


if __name__ == "__main__":
    main()
