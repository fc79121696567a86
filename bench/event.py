"""Event figures: N simulated tables through a private mosquitto, one broker kill -9 in the middle.

Run: python bench/event.py --tables 200 [--interval 0.1] [--seed 1] [--pin 0,1]. Prints figures; asserts nothing.
``--pin T,S`` puts the simulated tables on CPU T and the scoreboard and the broker on CPU S.
``python bench/event.py --hostile`` instead sends issue 16's attacks from one table account, one
after another, and prints what the scoreboard did with each, its peak RSS and its resend requests.
``python bench/event.py --page-attack`` holds 64 connections to the scoreboard's page (clients sending
their request a byte a second, then clients opening /events and never reading it; a closed one is
opened again at once) and prints how many of 20 plain GETs of the page were answered, and how fast.
``python bench/event.py --state-load`` starts ``companion scoreboard`` on a --state folder holding a
16 MB file of tiny lines beside 20 honest games and prints the seconds until it says what it
resumed, and its peak RSS.

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
  and over all lines;
- CPU: the scoreboard's and the broker's user + system time over the run, as a share of one core;
  the load average before and after (the machine may be shared).
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/ has the hostile table

from companion.event.config import Topics, parse_broker
from companion.event.mosquitto import Mosquitto
from companion.organiser.board import Board
from companion.organiser.scoreboard import Scoreboard

TABLES = textwrap.dedent(
    """
    import logging, random, sys, time
    logging.basicConfig(level=logging.ERROR)  # 200 tables each saying "offline" is no figure
    from pathlib import Path
    from companion.daemon.store import Store
    from companion.event.config import EventConfig, parse_broker
    from companion.uplink.publisher import Publisher
    from companion.sim import random_game

    root, url = Path(sys.argv[1]), sys.argv[2]
    count, interval, seed = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    tables = []
    for n in range(1, count + 1):
        game = random_game("tezuma" if n % 2 else "tezuma-2015", 3 + n % 2, random.Random(seed * 100_000 + n))
        store = Store(root / f"table-{n}")
        config = EventConfig(parse_broker(url), "bench", str(n))
        publisher = Publisher(config, store.root, client_id=f"table-{n}").start()
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
    parser.add_argument("--pin", metavar="T,S", help="CPU of the simulated tables, CPU of the scoreboard and broker")
    parser.add_argument("--hostile", action="store_true", help="the hostile-table run instead")
    parser.add_argument("--page-attack", action="store_true", help="the slow-client run instead")
    parser.add_argument("--state-load", action="store_true", help="the large state folder run instead")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    if args.hostile:
        return hostile_run()
    if args.page_attack:
        return page_attack_run()
    if args.state_load:
        return state_load_run()
    pins = [int(cpu) for cpu in args.pin.split(",")] if args.pin else None
    if pins:
        os.sched_setaffinity(0, {pins[1]})
    load_before = os.getloadavg()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    broker_cpu = 0.0

    with tempfile.TemporaryDirectory(prefix="bench-event-") as tmp:
        root = Path(tmp)
        broker = Mosquitto(root / "broker", persistence=True).start()
        if pins:
            os.sched_setaffinity(broker.process.pid, {pins[1]})
        board = Board(gap_grace=1.0)
        scoreboard = Scoreboard(parse_broker(broker.url), Topics("companion", "bench"), board).start()
        scoreboard.connected.wait(10)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                TABLES,
                str(root / "tables"),
                broker.url,
                str(args.tables),
                str(args.interval),
                str(args.seed),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        if pins:
            os.sched_setaffinity(child.pid, {pins[0]})  # before it starts its threads: they inherit it
        try:
            total = int(child.stdout.readline().split()[1])
            began = time.monotonic()
            wait(lambda: board.applied >= total // 2, 600)
            killed_at = time.time()
            broker_cpu += process_cpu(broker.process.pid)
            broker.kill()
            time.sleep(args.down)
            broker.start()
            if pins:
                os.sched_setaffinity(broker.process.pid, {pins[1]})
            restarted_at = time.time()
            assert child.stdout.readline().strip() == "done"
            complete = wait(lambda: board.applied >= total, 120)
            elapsed = time.monotonic() - began
            broker_cpu += process_cpu(broker.process.pid)
            cpu_after = resource.getrusage(resource.RUSAGE_SELF)
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
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
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
        print(
            f"  lines sent from the kill to {args.settle:.0f} s after the restart: "
            f"p50 {statistics.median(during) * 1000:.1f} ms, "
            f"p99 {percentile(during, 0.99) * 1000:.1f} ms ({len(during)} lines)"
        )
    print(f"publish-to-scoreboard latency, all lines: p50 {statistics.median(every) * 1000:.1f} ms, "
          f"p99 {percentile(every, 0.99) * 1000:.1f} ms, max {max(every) * 1000:.0f} ms")
    print(f"scoreboard peak RSS: {rss_mib:.0f} MiB")
    own = cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime
    print(f"CPU over the run ({elapsed:.0f} s): scoreboard {own:.1f} s ({own / elapsed:.0%} of one core), "
          f"broker {broker_cpu:.1f} s ({broker_cpu / elapsed:.0%})" + (f"; tables on CPU {pins[0]}, scoreboard and "
                                                                    f"broker on CPU {pins[1]}" if pins else ""))
    print(f"load average (1 min) before {load_before[0]:.2f}, after {os.getloadavg()[0]:.2f}")
    return 0


def process_cpu(pid: int) -> float:
    """User + system seconds of a process so far (from /proc; 0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hostile_run(window: float = 10.0) -> int:
    """Issue 16's attacks from table 66, one after another, against a live scoreboard and its page."""
    import json
    import urllib.request

    from companion.event.wire import journal_message, status_message
    from companion.organiser.scoreboard import export, render_text, standings_csv
    from companion.organiser.web import ScoreboardServer
    from tests.event.test_event_hostile import HostileTable, example_lines

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        root = Path(tmp)
        broker = Mosquitto(root / "broker", persistence=True).start()
        board = Board(gap_grace=1.0)
        scoreboard = Scoreboard(parse_broker(broker.url), Topics("companion", "cup"), board).start()
        scoreboard.connected.wait(10)
        server = ScoreboardServer(("127.0.0.1", 0), board).serve_in_thread()
        tables: list[HostileTable] = []

        def game(game_id: str, lines: list) -> None:
            for number, data in enumerate(lines, start=1):
                tables[-1].journal(game_id, number, data)

        def mine() -> Any:
            return board.tables[tables[-1].table]

        float_lines = example_lines()
        float_lines[0]["options"]["start_seat"] = 0.0
        named = example_lines()
        named[0]["players"] = ['=HYPERLINK("http://x","y")', "\x1b]0;owned\x07\x1b[2J", "+1-2"]
        attacks = [
            ("Tezuma header with options.start_seat 0.0", lambda: game("float", float_lines[:20]),
             lambda: str(mine().games["float"].stream.failure)),
            ("retained status claiming 10^12 lines", lambda: tables[-1].send(
                "status", status_message({"online": True, "game": "x", "games": {"x": 10**12}}), retain=True),
             lambda: f"count capped at {mine().games['x'].announced:,}; looks for {mine().games['x'].missing()} only"),
            ("5,000 junk game ids (each missing line 1)",
             lambda: [tables[-1].journal(f"junk-{n}", 2, {"type": "play"}) for n in range(5000)],
             lambda: f"{len(mine().games)} games kept, {mine().refused} messages refused and counted"),
            ("20,000 junk messages", lambda: [tables[-1].send("journal", f"junk {n}".encode()) for n in range(20000)],
             lambda: f"{len(mine().problems)} problem shown, {mine().problems_unshown:,} counted"),
            ("3 copies of one finished game", lambda: [game(f"copy-{n}", example_lines()) for n in range(3)],
             lambda: f"{sum(1 for g in mine().games.values() if g.copy_of)} flagged as copies; each player has "
                     f"{max((s.games for s in board.standings()), default=0)} game in the standings"),
            ("escape sequences and a formula in names", lambda: game("names", named),
             lambda: f"terminal gets ESC: {chr(27) in render_text(board.snapshot())}; CSV cells starting with "
                     f"'=': {sum(1 for line in standings_csv(board).splitlines() if ',=' in line)}"),
            ("game ids with '/', NUL and 300 bytes", lambda: [game("a/b", example_lines()[:3]),
                                                              game("n\x00l", example_lines()[:3]),
                                                              game("x" * 300, example_lines()[:3])],
             lambda: "300 bytes refused; export: " + "; ".join(_skipped(export, board, root / "export"))),
            ("a 100 kB message", lambda: tables[-1].send(
                "journal", journal_message("big", 1, {"pad": "y" * 100_000}, sent=0.0)),
             lambda: "refused by name" if any("over the scoreboard's limit" in p for p in board.snapshot()["problems"])
             else "kept"),
        ]
        print(f"machine: {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}; "
              f"load average (1 min) {load_before[0]:.2f}")
        print("\nEach attack from a table account of its own (66, 67, ...), then {window:.0f} s more.".replace(
            "{window:.0f}", f"{window:.0f}"))
        print("\n| attack | what the scoreboard did | resend requests to that table (per s) | board.json | peak RSS |")
        print("|---|---|---|---|---|")
        try:
            for number, (name, attack, outcome) in enumerate(attacks):
                tables.append(HostileTable(broker, str(66 + number), f"hostile-{66 + number}"))
                began = time.monotonic()
                attack()
                wait(lambda: scoreboard.received[tables[-1].table] >= tables[-1].sent, 300)
                time.sleep(window)
                asked = scoreboard.resent[tables[-1].table]
                with urllib.request.urlopen(server.url + "board.json", timeout=10) as response:
                    size = len(response.read())
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                print(f"| {name} | {outcome()} | {asked} in {time.monotonic() - began:.0f} s "
                      f"({asked / (time.monotonic() - began):.1f}/s) | {size:,} B | {rss:.0f} MiB |", flush=True)
            with urllib.request.urlopen(server.url + "board.json", timeout=10) as response:
                alive = json.loads(response.read())["version"] > 0
            print(f"\nscoreboard still answering its page: {alive}; resend requests in all: {scoreboard.resends}; "
                  f"load average (1 min) after {os.getloadavg()[0]:.2f}")
        finally:
            for table in tables:
                table.close()
            server.stop()
            scoreboard.close()
            broker.stop()
    return 0


def _skipped(export, board: Board, directory: Path) -> list[str]:
    said: list[str] = []
    written = export(board, directory, say=said.append)
    return [*said, f"{sum(1 for p in written if p.parent.name == 'records')} records written"]



ATTACKERS = 64  # the page's connection slots


def attacker(address: tuple[str, int], n: int, first: bytes, stop: Any) -> None:
    """One hostile connection from 127.0.9.n, opened again whenever the server closes it: it sends
    ``first``, then a byte a second (a request that never ends) or nothing (a stream never read)."""
    import socket

    while not stop.is_set():
        try:
            with socket.create_connection(address, timeout=2, source_address=(f"127.0.9.{n + 1}", 0)) as sock:
                sock.sendall(first)
                while not stop.wait(1.0):
                    if first.endswith(b"Ho"):
                        sock.sendall(b"x")
                    elif sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                        break  # closed by the server
        except OSError:
            continue


def page_attack_run(gets: int = 20) -> int:
    """Plain GETs of the page while 64 connections trickle or never read (module docstring)."""
    import threading
    import urllib.request

    from companion.organiser.web import ScoreboardServer

    attacks = {
        "trickling requests (a byte a second)": b"GET / HTTP/1.1\r\nHo",
        "unread /events streams": b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n",
    }
    for name, first in attacks.items():
        server = ScoreboardServer(("127.0.0.1", 0), Board()).serve_in_thread()
        stop = threading.Event()
        threads = [threading.Thread(target=attacker, args=(server.server_address[:2], n, first, stop), daemon=True)
                   for n in range(ATTACKERS)]
        for thread in threads:
            thread.start()
        time.sleep(3.0)  # every attacker connected and, for a deadline, no longer new
        answered, times = 0, []
        for _ in range(gets):
            began = time.monotonic()
            try:
                with urllib.request.urlopen(server.url, timeout=5) as response:
                    response.read()
                    answered += response.status == 200
                    times.append(time.monotonic() - began)
            except OSError:
                pass
        stop.set()
        for thread in threads:
            thread.join(5)
        server.stop()
        timing = (f"median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
                  if times else "none answered")
        print(f"{name}: {answered} of {gets} GETs of / answered ({timing}); server counted refused "
              f"{getattr(server, 'refused', '?')}, evicted {getattr(server, 'evicted', '-')}, "
              f"timed out {getattr(server, 'timed_out', '-')}")
    return 0


def state_load_run(honest: int = 20) -> int:
    """``companion scoreboard`` starting on a state folder with a 16 MB file of tiny lines."""
    root = Path(__file__).resolve().parents[1]
    example = (root / "docs" / "examples" / "tezuma.jsonl").read_bytes()
    with tempfile.TemporaryDirectory(prefix="bench-state-") as tmp:
        state = Path(tmp) / "state"
        for table in range(1, honest + 1):
            (state / str(table)).mkdir(parents=True)
            (state / str(table) / f"{table}-game.jsonl").write_bytes(example)
        (state / "66").mkdir()
        (state / "66" / "66-huge.jsonl").write_bytes(b"{}\n" * (16_000_000 // 3))
        command = [sys.executable, "-m", "companion.cli", "scoreboard", "--broker", "mqtt://127.0.0.1:1",
                   "--event", "bench", "--http", "off", "--quiet", "--state", str(state)]
        began = time.monotonic()
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
        said = ""
        assert child.stderr is not None
        for line in child.stderr:
            if line.startswith("scoreboard state:"):
                said = line.strip()
                break
        up = time.monotonic() - began
        child.send_signal(2)  # Ctrl-C
        child.communicate(timeout=60)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"state folder: {honest} honest games + a 16 MB file of 5,333,333 tiny lines")
    print(f"up (the state line said) after {up:.1f} s; peak RSS {rss:.0f} MiB")
    print(said)
    return 0


if __name__ == "__main__":
    sys.exit(main())
