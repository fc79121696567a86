"""Engine throughput per game: random full games replayed per second, and push latency.

Run: python bench/engine.py [--games N] [--seed S]. Prints figures; asserts nothing.
Every registered game with a simulated table (companion/sim) is measured: its table plays N random
games (4 players, abilities at a 0.4 rate where a game has them), then the recorded actions are pushed
again into fresh games, each checked against the rules, which is what replaying a record costs.
Goal on the reference machine: >= 500 games/s replayed per game, push p99 <= 100 us.

Wall-clock rates suffer when other processes share the CPU, so the CPU time of this process is
given as well (``cpu``): on an otherwise idle machine the two agree.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from companion.registry import game_class
from companion.sim import new_random_game, simulated_game_ids, table_model

PLAYERS = 4


def record_actions(game_id: str, seed: int) -> tuple[Any, list[Any]]:
    """Play one random game with the simulated table and keep its setup and actions."""
    rng = random.Random(seed)
    game = new_random_game(game_id, PLAYERS, rng)
    table = table_model(game, rng, 0.4)
    while not game.is_over():
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
    return game.setup, list(game.actions)


def replay_rate(game_id: str, recorded: list[tuple[Any, list[Any]]]) -> tuple[float, float]:
    """Games per second replaying ``recorded``: by the wall clock and by this process's CPU time."""
    cls = game_class(game_id)
    wall, cpu = time.perf_counter(), time.process_time()
    for setup, actions in recorded:
        game = cls(setup)
        for action in actions:
            game.push(action)
    return len(recorded) / (time.perf_counter() - wall), len(recorded) / (time.process_time() - cpu)


def push_latencies(game_id: str, recorded: list[tuple[Any, list[Any]]]) -> list[int]:
    """Every push's latency in ns, sorted (a separate pass: timing each push slows the rate above)."""
    cls = game_class(game_id)
    pushes: list[int] = []
    for setup, actions in recorded:
        game = cls(setup)
        for action in actions:
            t0 = time.perf_counter_ns()
            game.push(action)
            pushes.append(time.perf_counter_ns() - t0)
    return sorted(pushes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for game_id in simulated_game_ids():
        game_class(game_id)  # registry and card data warm outside the timings
        recorded = [record_actions(game_id, args.seed + i) for i in range(args.games)]
        rate, cpu_rate = replay_rate(game_id, recorded)
        pushes = push_latencies(game_id, recorded)
        p50 = pushes[len(pushes) // 2] / 1000
        p99 = pushes[int(len(pushes) * 0.99)] / 1000
        actions_per_game = statistics.mean(len(a) for _, a in recorded)
        print(
            f"{game_id:14} {args.games} games, {actions_per_game:.0f} actions/game: "
            f"{rate:.0f} games/s replayed ({cpu_rate:.0f} games/s cpu), push p50 {p50:.1f} us, p99 {p99:.1f} us, "
            f"max {pushes[-1] / 1000:.0f} us"
        )
        simulated = 50
        start = time.perf_counter()
        for i in range(simulated):
            record_actions(game_id, 10_000 + i)
        sim_rate = simulated / (time.perf_counter() - start)
        print(f"{'':14} with the simulated table choosing every play: {sim_rate:.0f} games/s")


if __name__ == "__main__":
    main()
