"""Key presses per entry and display bytes per press, for every game with a simulated table.

Run: python bench/presses.py [--games N] [--seed S]. Prints figures; asserts nothing.

Whole random games (the simulated table's real hands) are entered through the key planner, which
presses what a person at the table would, from wherever the screen stands; each action counts as one
entry (a card, a prediction, an answer, a draft pick), and every frame is compared page by page with
the one before, as the page-diff display writer sends it. bench/tourney.py and bench/zenjidou.py
split their games' figures further (by kind of entry, by round rule).
"""

from __future__ import annotations

import argparse
import random

from companion.session import Session
from companion.sim import random_game, simulated_game_ids
from companion.ui import App, presses_for

FULL_FRAME = 1024
PAGE = 128  # bytes in one 8-pixel page of a 128-pixel-wide panel


def changed_pages(before: bytes, after: bytes) -> int:
    return sum(before[p * PAGE:(p + 1) * PAGE] != after[p * PAGE:(p + 1) * PAGE] for p in range(len(before) // PAGE))


def figures(game_id: str, players: int, games: int, seed: int) -> str:
    presses = entries = pages = 0
    for index in range(games):
        played = random_game(game_id, players, random.Random(seed + index))
        app = App(Session(type(played)(played.setup)), clock=lambda: 0.0, rng=random.Random(index))
        picture = app.render().tobytes()
        for action in played.actions:
            for event in presses_for(app, action):
                app.handle(event)
                after = app.render().tobytes()
                pages += changed_pages(picture, after)
                picture = after
                presses += 1
            entries += 1
    return (f"{game_id} {players}p: {presses / entries:.2f} presses per entry over {games} games"
            f" ({entries} entries); display bytes per press {pages * PAGE / presses / FULL_FRAME:.1%} of a frame")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    from companion.registry import game_class

    for game_id in simulated_game_ids():
        cls = game_class(game_id)
        for players in sorted({cls.min_players, cls.max_players}):
            print(figures(game_id, players, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
