"""Event figures: N simulated tables through a private mosquitto, one broker kill -9 in the middle.

Run: python bench/event.py --tables 200 [--interval 0.1] [--seed 1]. Prints figures; asserts nothing.

The tables run in a child process (each a real Store journal with fsync and a real Publisher, as on
a device, one game each, entering an action every --interval seconds); this process is the
scoreboard (the same Board and Scoreboard as ``companion scoreboard``), so its peak RSS is the
scoreboard's. Mosquitto runs with persistence on. When half the event's lines have reached the
scoreboard, the broker is killed with SIGKILL, left down for --down seconds and started again.

- published: every journal line of every table (each sent at least once);
- applied: lines the scoreboard's engine applied; lost = published - applied;
- duplicates: lines that arrived again and were dropped by line number;
- latency: from the device's publish call to the scoreboard's engine having applied the line,
  p50/p99 outside the restart (lines first sent before the kill, or after the backlogs drained)
  and over all lines.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from companion.event.board import Board
from companion.event.config import Topics, parse_broker
from companion.event.mosquitto import Mosquitto
from companion.event.scoreboard import Scoreboard

TABLES = textwrap.dedent(
    """
    import logging, random, sys, time
    logging.basicConfig(level=logging.ERROR)  # 200 tables each saying "offline" is no figure
    from pathlib import Path
    from companion.daemon.store import Store
    from companion.event.config import EventConfig, parse_broker
    from companion.event.publisher import Publisher
    from companion.sim import random_game

    root, url, count, interval, seed = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    tables = []
    for n in range(1, count + 1):
        game = random_game("tezuma" if n % 2 else "tezuma-2015", 3 + n % 2, random.Random(seed * 100_000 + n))
        store = Store(root / f"table-{n}")
        publisher = Publisher(EventConfig(parse_broker(url), "bench", str(n)), store.root, client_id=f"table-{n}").start()
        store.on_journalled.append(publisher.wake)
        tables.append((store, publisher, game))
    print("lines", sum(1 + len(g.actions) for _, _, g in tables), flush=True)
    sessions = [(store.start(game.setup), list(game.actions)) for store, _, game in tables]
    step = 0
    start = time.monotonic()
    while any(len(actions) > step for _, actions in sessions):
        for session, actions in sessions:
            if step < len(actions):
                session.push(actions[step])
        step += 1
        time.sleep(max(0.0, start + step * interval - time.monotonic()))
    print("done", flush=True)
    sys.stdin.read()
    for store, publisher, _ in tables:
        publisher.close()
        store.close()
    """
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between two actions at one table")
    parser.add_argument("--down", type=float, default=2.0, help="seconds the broker stays dead")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after the restart counted as the restart")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)

    with tempfile.TemporaryDirectory(prefix="bench-event-") as tmp:
        root = Path(tmp)
        broker = Mosquitto(root / "broker", persistence=True).start()
        board = Board(gap_grace=1.0)
        scoreboard = Scoreboard(parse_broker(broker.url), Topics("companion", "bench"), board).start()
        scoreboard.connected.wait(10)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        child = subprocess.Popen(
            [sys.executable, "-c", TABLES, str(root / "tables"), broker.url, str(args.tables), str(args.interval), str(args.seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )
        try:
            total = int(child.stdout.readline().split()[1])
            began = time.monotonic()
            wait(lambda: board.applied >= total // 2, 600)
            killed_at = time.time()
            broker.kill()
            time.sleep(args.down)
            broker.start()
            restarted_at = time.time()
            assert child.stdout.readline().strip() == "done"
            complete = wait(lambda: board.applied >= total, 120)
            elapsed = time.monotonic() - began
        finally:
            child.stdin.close()
            child.wait(60)
            scoreboard.close()
            broker.stop()

    settled_at = restarted_at + args.settle
    outside = [lat for sent, lat in board.latencies if sent < killed_at or sent > settled_at]
    during = [lat for sent, lat in board.latencies if killed_at <= sent <= settled_at]
    every = [lat for _, lat in board.latencies]
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}")
    print(f"tables: {args.tables} (one game each, an action every {args.interval} s at each table)")
    print(f"actions published: {total} journal lines in {elapsed:.1f} s ({total / elapsed:.0f} lines/s)")
    print(f"actions applied by the scoreboard: {board.applied}")
    print(f"lost {total - board.applied}" + ("" if complete else " (gave up waiting after 120 s)"))
    print(f"duplicates dropped: {board.duplicates}; resend requests: {scoreboard.resends}")
    print(f"broker killed (-9) once half the lines had arrived, down {args.down:.1f} s")
    print(f"publish-to-scoreboard latency outside the restart: p50 {statistics.median(outside) * 1000:.1f} ms, "
          f"p99 {percentile(outside, 0.99) * 1000:.1f} ms ({len(outside)} lines sent before the kill or "
          f"{args.settle:.0f} s after the restart)")
    if during:
        print(f"  lines sent from the kill to {args.settle:.0f} s after the restart: p50 {statistics.median(during) * 1000:.1f} ms, "
              f"p99 {percentile(during, 0.99) * 1000:.1f} ms ({len(during)} lines)")
    print(f"publish-to-scoreboard latency, all lines: p50 {statistics.median(every) * 1000:.1f} ms, "
          f"p99 {percentile(every, 0.99) * 1000:.1f} ms, max {max(every) * 1000:.0f} ms")
    print(f"scoreboard peak RSS: {rss_mib:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
