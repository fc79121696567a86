"""Zenjidou throughput and presses: random full games per second, and key presses per card by rule.

Run: python bench/zenjidou.py [--games N] [--seed S]. Prints figures; asserts nothing.
"After the piles" counts what the table enters once a round's piles are in (plays, quiz points,
lead choices), as actions and as key presses on the device (the key planner, mock keys): the goal
for C and D is 0. "Setup" is the rest card, bottoms, rule, hands, sides, moves, passes and guesses;
card-fact answers are counted apart (a table answers each card once, then never again).
"""

from __future__ import annotations

import argparse
import random
import time

from companion.engine.base import Answer
from companion.games.zenjidou import ROUND_RULES, Lead, NoPoint, Play, Point
from companion.session import Session
from companion.sim import new_random_game
from companion.sim.zenjidou import ZenjidouTable
from companion.ui import App, presses_for

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
        counts = {"after the piles": [0, 0], "setup": [0, 0], "facts": [0, 0]}  # kind -> [actions, presses]
        cards = 0
        for i in range(5):
            game, actions = play(4, args.seed + i, rule)
            app = App(Session(type(game)(game.setup)), clock=lambda: 0.0, rng=random.Random(0))  # type: ignore[attr-defined]
            for action in actions:
                keys = presses_for(app, action)
                for event in keys:
                    app.handle(event)
                kind = "after the piles" if isinstance(action, PLAY_ACTIONS) else "facts" if isinstance(action, Answer) else "setup"
                counts[kind][0] += 1
                counts[kind][1] += len(keys)
            cards += 3 * 5 * game.n  # type: ignore[attr-defined]
        figures = "; ".join(f"{kind} {n / cards:.2f} actions, {k / cards:.2f} presses"
                            for kind, (n, k) in counts.items())
        print(f"rule {rule}, per card played (4 players): {figures}")


if __name__ == "__main__":
    main()
