"""Zenjidou throughput and presses: random full games per second, and key presses per card by rule.

Run: python bench/zenjidou.py [--games N] [--per-rule N] [--seed S]. Prints figures; asserts nothing.

Every press the key planner makes is counted, per card played (4 players, 20 cards a round), by what
it entered: ``cards`` (plays), ``setup`` (the rest card, bottoms, the rule, sides, guesses, and any
other set-up entry a version asks for, such as typed-in hands), ``table`` (quiz points, lead choices),
``notices`` (the OK that leaves a trick result, a revoke, a rule's notice or a round's scores before
the next entry) and ``facts`` (card-fact answers: a table answers each card once, then never again).
Actions are classified by their record ``type``, so the same script measures any version of the game.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any, cast

from companion.games.zenjidou.rules import ROUND_RULES, Zenjidou
from companion.games.zenjidou.table import ZenjidouTable
from companion.session import Session
from companion.sim import new_random_game
from companion.ui import App
from companion.ui.planner import presses_for

KINDS = ("cards", "setup", "table", "notices", "facts")
KIND_OF = {"play": "cards", "point": "table", "no_point": "table", "lead": "table", "answer": "facts"}


def play(players: int, seed: int, rules: str = ROUND_RULES) -> tuple[Zenjidou, list[Any]]:
    rng = random.Random(seed)
    game = cast(Zenjidou, new_random_game("zenjidou", players, rng))
    table = ZenjidouTable(game, rng, rules=rules)
    while not game.is_over():
        game.push(table.choose(game, rng))
    return game, list(game.actions)


def presses_by_kind(rule: str, games: int, seed: int) -> tuple[dict[str, int], int, int]:
    """Presses per kind over ``games`` 4-player games of ``rule`` only, the cards played and the entries."""
    counts = dict.fromkeys(KINDS, 0)
    cards = entries = 0
    for i in range(games):
        game, actions = play(4, seed + i, rule)
        app = App(Session(type(game)(game.setup)), clock=lambda: 0.0, rng=random.Random(0))
        for action in actions:
            keys = presses_for(app, action)
            leaving = len(app.screens) - 1  # one press leaves each notice above the game screen
            for event in keys:
                app.handle(event)
            counts["notices"] += leaving
            counts[KIND_OF.get(action.type, "setup")] += len(keys) - leaving
            entries += 1
        cards += 3 * 5 * game.n
    return counts, cards, entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--per-rule", type=int, default=5, help="games of each rule for the presses")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    recorded = [play(4, args.seed + i) for i in range(args.games)]
    pushes = sum(len(actions) for _, actions in recorded)
    start = time.perf_counter()
    for game, actions in recorded:
        replay = type(game)(game.setup)
        for action in actions:
            replay.push(action)
    elapsed = time.perf_counter() - start
    print(f"zenjidou     {args.games} 4-player games: {args.games / elapsed:.0f} games/s, "
          f"{pushes / elapsed:.0f} actions/s ({pushes / args.games:.0f} actions a game; replaying pushes)")
    start = time.perf_counter()
    for i in range(args.games):
        play(4, args.seed + 10_000 + i)
    print(f"zenjidou     {args.games / (time.perf_counter() - start):.0f} games/s (simulated table choosing)")
    print(f"presses per card played, 4 players, {args.per_rule} games a rule: " + ", ".join(KINDS)
          + ", total without facts")
    for rule in ROUND_RULES:
        counts, cards, entries = presses_by_kind(rule, args.per_rule, args.seed)
        parts = "  ".join(f"{kind} {counts[kind] / cards:.2f}" for kind in KINDS)
        total = sum(n for kind, n in counts.items() if kind != "facts")
        print(f"rule {rule}: {parts}  total {total / cards:.2f}  ({entries / cards:.2f} entries per card)")


if __name__ == "__main__":
    main()
