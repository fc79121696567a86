"""Engine throughput: random full 4-player games with abilities per second, and push latency.

Run: python bench/engine.py [--games N] [--seed S]. Prints figures; asserts nothing.
Goals on the reference machine: >= 200 games/s and push p99 <= 100 us.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from companion.carddata import printed_cards
from companion.registry import game_class
from companion.sim import new_random_game, table_model


def record_actions(game_id: str, seed: int) -> tuple[object, list[object]]:
    """Play one random game with the simulated table and keep its setup and actions."""
    rng = random.Random(seed)
    game = new_random_game(game_id, 4, rng)
    table = table_model(game, rng, 0.4)
    while not game.is_over():
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
    return game.setup, list(game.actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    printed_cards("tezuma")  # warm the registry and card data outside the timings
    for game_id in ("tezuma-2015", "tezuma"):
        recorded = [record_actions(game_id, args.seed + i) for i in range(args.games)]
        cls = game_class(game_id)
        pushes: list[float] = []
        start = time.perf_counter()
        for setup, actions in recorded:
            game = cls(setup)
            for action in actions:
                t0 = time.perf_counter_ns()
                game.push(action)
                pushes.append(time.perf_counter_ns() - t0)
        elapsed = time.perf_counter() - start
        pushes.sort()
        p50 = pushes[len(pushes) // 2] / 1000
        p99 = pushes[int(len(pushes) * 0.99)] / 1000
        actions_per_game = statistics.mean(len(a) for _, a in recorded)
        print(
            f"{game_id:12} {args.games} games, {actions_per_game:.0f} actions/game: "
            f"{args.games / elapsed:.0f} games/s (replaying pushes), push p50 {p50:.1f} us, p99 {p99:.1f} us, "
            f"max {pushes[-1] / 1000:.0f} us"
        )
        start = time.perf_counter()
        simulated = 50
        for i in range(simulated):
            record_actions(game_id, 10_000 + i)
        sim_rate = simulated / (time.perf_counter() - start)
        print(f"{'':12} with the simulated table choosing every play: {sim_rate:.0f} games/s")


if __name__ == "__main__":
    main()
