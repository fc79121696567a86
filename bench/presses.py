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
beat for the card entries (cards picked from a grid; not Tourney's predictions, a suit each): even
if the device were told the suit of each card for free and every unseen card of that suit were
equally likely (as for a table playing any legal card), one OK plus the fewest arrow presses an
ideal picker needs on average (one card under the cursor, four one press away, twelve two presses
away, ...). Beside it, what the game's own picker took for the same cards (the notices before them
left first, not counted). Zenjidou's suit is a card's colour as far as the table has told it: the
cards whose colour is not told yet count as one suit.

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
from collections.abc import Iterator
from typing import Any

from companion.carddata import facts_for, set_fact
from companion.engine.base import Answer, Game
from companion.hw.numpad import NUMPAD_KEYS, PRINTED_KEYS, NumpadDecoder
from companion.keys import KeyEvent
from companion.registry import game_class
from companion.session import Session
from companion.sim import TABLE_KINDS, random_game, simulated_game_ids, table_random
from companion.ui import App
from companion.ui.picker import Grid
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


SECOND = 10_000  # the seed offset of a device's second game (--facts-known)


def new_app(game: Game[Any], index: int, memory: dict[str, Any] | None = None) -> App:
    """An app entering a fresh copy of ``game``; with ``memory`` it keeps the facts answered there
    and gives them to later games as the daemon does (``on_fact`` and ``table_facts``)."""
    kept: dict[str, Any] = {} if memory is None else memory
    return App(Session(type(game)(game.setup)), clock=lambda: 0.0, rng=table_random("random", index),
               on_fact=lambda game_id, key, value: set_fact(kept, game_id, key, value),
               table_facts=lambda game_id: facts_for(kept, game_id))


def measured(game_id: str, players: int, layout: str, table: str, games: int, seed: int,
             facts_known: bool) -> Iterator[tuple[Game[Any], App]]:
    """Each game a line measures and the app to enter it into: the table's games in turn, or with
    ``facts_known`` the game each of them is followed by on the same device (module docstring)."""
    for index in range(games):
        played = random_game(game_id, players, table_random(table, seed + index))
        if facts_known:
            first = new_app(played, index, memory := {})
            for action in played.actions:
                enter_by_keys(first, action, layout)
            played = random_game(game_id, players, table_random(table, seed + SECOND + index),
                                 table_facts=first.table_facts(game_id))
            yield played, new_app(played, index, memory)
        else:
            yield played, new_app(played, index)


def figures(game_id: str, players: int, layout: str, table: str, games: int, seed: int,
            facts_known: bool = False) -> str:
    presses = entries = card_entries = pages = asked = 0
    for played, app in measured(game_id, players, layout, table, games, seed, facts_known):
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


def ideal_moves(count: int) -> float:
    """The average arrow presses to one of ``count`` equally likely cards, for a picker whose four
    arrows each reach a new card from every place: 1 card at 0 presses, 4 at 1, 12 at 2, 36 at 3...

    >>> ideal_moves(1), ideal_moves(5), ideal_moves(9)
    (0.0, 0.8, 1.3333333333333333)
    """
    total, depth, room, left = 0, 0, 1, count
    while left > 0:
        placed = min(room, left)
        total += placed * depth
        left -= placed
        depth += 1
        room = 4 * 3 ** (depth - 1)
    return total / count


def bound(game_id: str, players: int, table: str, games: int, seed: int, facts_known: bool = False) -> str:
    """The floor for card entries (see the module docstring), over the same games the figures use."""
    floors: list[float] = []
    picked = 0  # the presses the picker took for the same cards (notices left beforehand, not counted)
    for played, app in measured(game_id, players, "joystick", table, games, seed, facts_known):
        for action in played.actions:
            while len(app.screens) > 1:
                app.handle(KeyEvent(app.top.leave_key))
            grid = getattr(app.screens[0], "grid", None)
            cards = getattr(action, "cards", None) or [getattr(action, "card", None)]
            found = grid.at(cards[0]) if isinstance(grid, Grid) and len(cards) == 1 else None
            presses = enter_by_keys(app, action, "joystick")
            if found is not None:
                floors.append(1 + ideal_moves(len(found.places(found.groups[found.row]))))
                picked += presses
    known = ", facts known" if facts_known else ""
    if not floors:
        return f"{game_id} {players}p bound {table}{known}: no card is picked from a grid"
    floor, this_one = sum(floors) / len(floors), picked / len(floors)
    return (f"{game_id} {players}p bound {table}{known}: at least {floor:.2f} presses per card"
            f" on any four-arrow picker, the suit told for free; this one {this_one:.2f}, gap {this_one - floor:.2f}"
            f" ({len(floors)} cards)")


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
