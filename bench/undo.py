"""Undo and copy per game: how long ``pop`` and ``copy`` take at every point of whole random games.

Run: python bench/undo.py [--games N] [--seed S]. Prints figures; asserts nothing.
Each game's simulated table plays N whole games (4 players, abilities at a 0.4 rate); then at every
length of each game's log one ``pop`` is timed (and the action pushed back), and one ``copy``. The
figures are CPU time of this process, which another process's load disturbs less than the wall clock.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from companion.sim import new_random_game, play_out, simulated_game_ids

PLAYERS = 4


def whole_game(game_id: str, seed: int) -> Any:
    rng = random.Random(seed)
    game = new_random_game(game_id, PLAYERS, rng)
    play_out(game, rng, ability_rate=0.4)
    return game


def timings(game: Any) -> tuple[list[float], list[float]]:
    """Seconds of one pop at every log length (longest first), and of one copy at the end."""
    pops: list[float] = []
    kept = list(game.actions)
    for length in range(len(kept), 0, -1):
        start = time.process_time_ns()
        game.pop()
        pops.append((time.process_time_ns() - start) / 1e9)
        game.push(kept[length - 1])
        game.pop()  # on to the next shorter length
    for action in kept:
        game.push(action)
    start = time.process_time_ns()
    game.copy()
    return pops, [(time.process_time_ns() - start) / 1e9]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game_id in simulated_game_ids():
        pops: list[float] = []
        last: list[float] = []
        copies: list[float] = []
        for i in range(args.games):
            game = whole_game(game_id, args.seed + i)
            game_pops, game_copies = timings(game)
            pops += game_pops
            last.append(game_pops[0])
            copies += game_copies
        print(
            f"{game_id:14} pop: mean {statistics.mean(pops) * 1e6:.0f} us, max {max(pops) * 1e6:.0f} us, "
            f"after the last action {statistics.mean(last) * 1e6:.0f} us; "
            f"copy of a whole game {statistics.mean(copies) * 1e6:.0f} us"
        )


if __name__ == "__main__":
    main()
