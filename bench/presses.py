"""Key presses per entry and display bytes per press, for every game with a simulated table.

Run: python bench/presses.py [--games N] [--seed S] [--input joystick|keypad] [--table random|people]
[--game ID] [--bound]. Prints one line per game, player count, input and table; asserts nothing.

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
press the same keys); ``keypad`` is the 4x4 card keypad (companion/ui/keypad.py). Tables:
``random`` plays any legal card of its real hand alike; ``people`` follows suit as every table
does and plays its highest or lowest card half the time (companion/sim: PeopleRandom). The screens
never see the simulated hands: the start of every picker comes from what the table has seen.

``--bound`` adds, per game and player count, for the random table, a floor no four-arrow picker can
beat for the card entries (cards picked from a grid; not Tourney's predictions, a suit each): even
if the device were told the suit of each card for free and every unseen card of that suit were
equally likely (as for a table playing any legal card), one OK plus the fewest arrow presses an
ideal picker needs on average (one card under the cursor, four one press away, twelve two presses
away, ...).

Display bytes: every frame is compared page by page with the one before, as the page-diff display
writer sends it. bench/tourney.py and bench/zenjidou.py split their games' figures further.
"""

from __future__ import annotations

import argparse

from companion.keys import KeyEvent
from companion.registry import game_class
from companion.session import Session
from companion.sim import TABLE_KINDS, random_game, simulated_game_ids, table_random
from companion.ui import App
from companion.ui.picker import Grid
from companion.ui.planner import LAYOUTS, enter_by_keys

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


def figures(game_id: str, players: int, layout: str, table: str, games: int, seed: int) -> str:
    presses = entries = card_entries = pages = 0
    for index in range(games):
        played = random_game(game_id, players, table_random(table, seed + index))
        app = App(Session(type(played)(played.setup)), clock=lambda: 0.0, rng=table_random("random", index))
        counter = PageCounter(app)
        for action in played.actions:
            one_by_one = getattr(app.screens[0], "confirms_each_card", False)
            presses += enter_by_keys(app, action, layout, counter)
            entries += 1
            card_entries += len(action.cards) if one_by_one else 1
        pages += counter.pages
    by_card = (f"; {presses / card_entries:.2f} counting each card of a row as an entry, {card_entries} entries"
               if card_entries != entries else "")
    return (f"{game_id} {players}p {layout} {table}: {presses / entries:.2f} presses per entry over {games} games"
            f" ({entries} entries{by_card}); display bytes per press {pages * PAGE / presses / FULL_FRAME:.1%} of a"
            f" frame")


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


def bound(game_id: str, players: int, table: str, games: int, seed: int) -> str:
    """The floor for card entries (see the module docstring), over the same games the figures use."""
    floors: list[float] = []
    for index in range(games):
        played = random_game(game_id, players, table_random(table, seed + index))
        app = App(Session(type(played)(played.setup)), clock=lambda: 0.0, rng=table_random("random", index))
        for action in played.actions:
            while len(app.screens) > 1:
                app.handle(KeyEvent(app.top.leave_key))
            grid = getattr(app.screens[0], "grid", None)
            cards = getattr(action, "cards", None) or [getattr(action, "card", None)]
            found = grid.at(cards[0]) if isinstance(grid, Grid) and len(cards) == 1 else None
            if found is not None:
                floors.append(1 + ideal_moves(len(found.places(found.groups[found.row]))))
            enter_by_keys(app, action, "joystick")
    if not floors:
        return f"{game_id} {players}p bound {table}: no card is picked from a grid"
    return (f"{game_id} {players}p bound {table}: at least {sum(floors) / len(floors):.2f} presses per card on any"
            f" four-arrow picker, the suit told for free ({len(floors)} cards)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--input", choices=LAYOUTS, action="append", help="default: both")
    parser.add_argument("--table", choices=TABLE_KINDS, action="append", help="default: both")
    parser.add_argument("--game", choices=simulated_game_ids(), action="append", help="default: every game")
    parser.add_argument("--bound", action="store_true", help="also print the floor for a four-arrow picker")
    args = parser.parse_args()
    for game_id in args.game or simulated_game_ids():
        cls = game_class(game_id)
        for players in sorted({cls.min_players, cls.max_players}):
            for layout in args.input or LAYOUTS:
                for table in args.table or TABLE_KINDS:
                    print(figures(game_id, players, layout, table, args.games, args.seed), flush=True)
            if args.bound:  # the floor holds for a table that plays any legal card alike
                print(bound(game_id, players, "random", args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
