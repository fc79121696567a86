"""Engine throughput per game: random full games replayed per second, and push latency.

Run: python bench/engine.py [--games N] [--seed S]. Prints figures; asserts nothing.
Every registered game with a simulated table (companion/sim) is measured: its table plays N random
games (4 players, abilities at a 0.4 rate where a game has them), then the recorded actions are pushed
again into fresh games, each checked against the rules, which is what replaying a record costs.
Goal on the reference machine: >= 500 games/s replayed per game, push p99 <= 100 us.

Wall-clock rates suffer when other processes share the CPU, so the CPU time of this process is
given as well (``cpu``): on an otherwise idle machine the two agree.

With the ``chess`` package installed (the ``bench`` extra), python-chess replays random games with
``push_uci`` (each move checked for legality) in the same run, and each game's replay throughput per
action is given as a ratio to it (issue 18's yardstick: at least 1.5x). On a shared machine the load
changes within seconds, so the two replays alternate for ``ROUNDS`` rounds beside each game and the
ratio is of the best round of each (by the wall clock and by CPU time).

``--opcodes`` prints instead, per game, the bytecode instructions and Python function calls one
replayed action takes on average (counted with ``sys.settrace`` over the first 5 recorded games):
a figure the machine's load cannot move, to compare two revisions of the rules on a shared machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from typing import Any

try:
    import chess

    HAVE_CHESS = True
except ImportError:  # the bench extra is not installed: the figures go without the ratio
    HAVE_CHESS = False

from companion.registry import game_class
from companion.sim import new_random_game, simulated_game_ids, table_model

PLAYERS = 4
ROUNDS = 5  # alternating replays of a game and of python-chess for the ratio


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


def random_chess_game(rng: random.Random, max_plies: int = 200) -> list[str]:
    """One game of random legal moves from the start position, as UCI strings."""
    board = chess.Board()
    moves: list[str] = []
    while len(moves) < max_plies and not board.is_game_over(claim_draw=False):
        move = rng.choice(list(board.legal_moves))
        moves.append(move.uci())
        board.push(move)
    return moves


def chess_action_rate(games: list[list[str]]) -> tuple[float, float]:
    """Moves per second python-chess replays with ``push_uci``: by the wall clock and by CPU time."""
    moves = sum(len(game) for game in games)
    wall, cpu = time.perf_counter(), time.process_time()
    for game in games:
        board = chess.Board()
        for uci in game:
            board.push_uci(uci)
    return moves / (time.perf_counter() - wall), moves / (time.process_time() - cpu)


def side_by_side(
    game_id: str, recorded: list[tuple[Any, list[Any]]], chess_games: list[list[str]]
) -> tuple[float, float]:
    """The game's actions/s over python-chess's moves/s, best round of each, by wall clock and by CPU."""
    actions = sum(len(a) for _, a in recorded)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(ROUNDS):
        chess_wall, chess_cpu = chess_action_rate(chess_games)
        game_wall, game_cpu = replay_rate(game_id, recorded)
        wall += [chess_wall, game_wall * actions / len(recorded)]
        cpu += [chess_cpu, game_cpu * actions / len(recorded)]
    return max(wall[1::2]) / max(wall[::2]), max(cpu[1::2]) / max(cpu[::2])


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


def replay_opcodes(game_id: str, recorded: list[tuple[Any, list[Any]]]) -> tuple[float, float]:
    """Bytecode instructions and Python calls per action replaying ``recorded`` (deterministic)."""
    counts = {"opcode": 0, "call": 0}

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event in counts:
            counts[event] += 1
        return tracer

    sys.settrace(tracer)
    try:
        replay_rate(game_id, recorded)
    finally:
        sys.settrace(None)
    actions = sum(len(a) for _, a in recorded)
    return counts["opcode"] / actions, counts["call"] / actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opcodes", action="store_true", help="count instructions per action instead of timing")
    args = parser.parse_args()
    if args.opcodes:
        for game_id in simulated_game_ids():
            game_class(game_id)
            opcodes, calls = replay_opcodes(game_id, [record_actions(game_id, args.seed + i) for i in range(5)])
            print(f"{game_id:14} {opcodes:.1f} bytecode instructions and {calls:.2f} Python calls per replayed action")
        return
    chess_games: list[list[str]] = []
    if HAVE_CHESS:
        rng = random.Random(args.seed)
        chess_games = [random_chess_game(rng) for _ in range(args.games)]
        chess_rates = chess_action_rate(chess_games)
        moves_per_game = statistics.mean(len(game) for game in chess_games)
        print(
            f"{'python-chess':14} {args.games} games, {moves_per_game:.0f} moves/game: {chess_rates[0]:.0f} moves/s "
            f"replayed with push_uci ({chess_rates[1]:.0f} moves/s cpu), chess {chess.__version__}"
        )
    else:
        print("python-chess is not installed (pip install '.[bench]'): no ratio to it")
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
        if chess_games:
            ratio, cpu_ratio = side_by_side(game_id, recorded, chess_games)
            print(
                f"{'':14} per action: {rate * actions_per_game:.0f} actions/s replayed; best of {ROUNDS} rounds "
                f"beside python-chess: {ratio:.2f}x ({cpu_ratio:.2f}x by cpu time)"
            )
        simulated = 50
        start = time.perf_counter()
        for i in range(simulated):
            record_actions(game_id, 10_000 + i)
        sim_rate = simulated / (time.perf_counter() - start)
        print(f"{'':14} with the simulated table choosing every play: {sim_rate:.0f} games/s")


if __name__ == "__main__":
    main()
