"""Zenjidou throughput and presses: random full games per second, and entries per card by rule.

Run: python bench/zenjidou.py [--games N] [--seed S]. Prints figures; asserts nothing.
"Entries per card" counts the actions a table enters after the round's piles (rule, hands, sides,
moves, passes and guesses excluded; card-fact answers excluded): the goal for C and D is 0.
"""

from __future__ import annotations

import argparse
import random
import time

from companion.games.zenjidou import ROUND_RULES, Lead, NoPoint, Play, Point
from companion.sim import new_random_game
from companion.sim.zenjidou import ZenjidouTable

PLAY_ACTIONS = (Play, Point, NoPoint, Lead)


def play(players: int, seed: int, rules: str = ROUND_RULES) -> tuple[object, list[object]]:
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules=rules)
    while not game.is_over():
        game.push(table.choose(game, rng))
    return game, list(game.actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    recorded = [play(4, args.seed + i) for i in range(args.games)]
    start = time.perf_counter()
    for game, actions in recorded:
        replay = type(game)(game.setup)  # type: ignore[attr-defined]
        for action in actions:
            replay.push(action)
    elapsed = time.perf_counter() - start
    print(f"zenjidou     {args.games} 4-player games: {args.games / elapsed:.0f} games/s (replaying pushes)")
    start = time.perf_counter()
    for i in range(args.games):
        play(4, args.seed + 10_000 + i)
    print(f"zenjidou     {args.games / (time.perf_counter() - start):.0f} games/s (simulated table choosing)")
    for rule in ROUND_RULES:
        presses = cards = 0
        for i in range(20):
            game, actions = play(4, args.seed + i, rule)
            presses += sum(isinstance(a, PLAY_ACTIONS) for a in actions)
            cards += 3 * 5 * game.n  # type: ignore[attr-defined]
        print(f"rule {rule}: {presses / cards:.2f} entries per card played (after the piles)")


if __name__ == "__main__":
    main()
