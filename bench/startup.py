"""Start-up: how long ``companion run --mock`` takes to READY, beside its yardsticks.

Run: python bench/startup.py [--runs N] [--lines 10000] [--undos 4900]. Prints figures; asserts nothing.

Each figure is the median of N runs of a fresh process, measured in the same run as its yardstick:

- **bare imports**: a process that imports only what any device must (luma.oled's drivers,
  gpiozero, Pillow) and exits. The device cannot start faster than this.
- **cold start**: ``companion run --mock`` on an empty state directory, from the process's start to
  the READY it sends systemd (``$NOTIFY_SOCKET``, as the unit sees it), headless.
- **long journal**: the same on a state directory whose ``current.jsonl`` holds a real game of about
  ``--lines`` lines, ``--undos`` of them undo lines (each action entered, taken back and entered
  again, as a table that keeps correcting itself writes it). The device rebuilds that game before
  READY; the ratio to the cold start is what a long evening's journal costs at a restart.

The journal is written once, by the device's own store and session (fsync per line), into a
temporary directory; each run copies it, so every start reads the same bytes. The children may
write bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped) and one start of each kind runs first,
unmeasured: an installed device runs from the bytecode pip compiled, as its yardstick's packages do.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is a package of the checkout

from bench.device import spawn_until_ready
from companion.daemon.store import Store
from companion.registry import game_class
from companion.sim import random_game

BARE_IMPORTS = "import luma.oled.device, luma.core.render, gpiozero, PIL.Image, PIL.ImageDraw, PIL.ImageFont"


CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def bare_imports() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE_IMPORTS], check=True, env=CHILD_ENV)
    return time.perf_counter() - start


def to_ready(state: Path) -> float:
    """Seconds from spawning the device on ``state`` to its READY=1; the device is then stopped."""
    argv = [sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(state)]
    with tempfile.TemporaryDirectory() as notify_dir:
        seconds, child = spawn_until_ready(argv, CHILD_ENV, notify_dir)
        child.terminate()
        child.communicate(timeout=60)
    return seconds


def long_journal(state: Path, lines: int, undos: int, seed: int) -> int:
    """Write a game of ``lines`` journal lines, ``undos`` of them undos: each kept action entered,
    taken back and entered again, the undos spread evenly; returns the actions kept."""
    kept = lines - 1 - 2 * undos  # the header, the kept actions, and a push and an undo per undo
    played = random_game("irohanihohedo", 6, random.Random(seed))
    if not 0 < kept <= len(played.actions):
        raise SystemExit(f"--lines {lines} with --undos {undos} keeps {kept} actions; a game has {len(played.actions)}")
    store = Store(state, wall=lambda: "2026-11-26T20:00:00+00:00")
    store.recover()
    session = store.start(played.setup)
    for index, action in enumerate(played.actions[:kept]):
        for _ in range(undos // kept + (index < undos % kept)):
            session.push(action)
            session.undo()
        session.push(action)
    store.close()
    return kept


def median_of(runs: int, measure: Callable[[], float]) -> float:
    measure()  # bytecode written, files in the page cache: what every later start finds
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--undos", type=int, default=4_900)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game_class("irohanihohedo")  # a wrong install fails here, not in a child
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        kept = scratch / "kept"
        actions = long_journal(kept, args.lines, args.undos, args.seed)
        text = (kept / "current.jsonl").read_text(encoding="utf-8")
        written, size = text.count("\n"), len(text.encode("utf-8"))

        def cold() -> float:
            state = scratch / "empty"
            shutil.rmtree(state, ignore_errors=True)
            return to_ready(state)

        def journal() -> float:
            state = scratch / "long"
            shutil.rmtree(state, ignore_errors=True)
            shutil.copytree(kept, state)
            return to_ready(state)

        imports = median_of(args.runs, bare_imports)
        empty = median_of(args.runs, cold)
        resumed = median_of(args.runs, journal)
    print(f"bare imports (luma, gpiozero, Pillow): {imports * 1000:.0f} ms (median of {args.runs})")
    print(f"cold start to READY: {empty * 1000:.0f} ms, {empty / imports:.2f}x the bare imports")
    print(f"restart on a journal of {written} lines ({args.undos} undos, {actions} actions kept, {size // 1024} KiB): "
          f"{resumed * 1000:.0f} ms, {resumed / empty:.2f}x the cold start")


if __name__ == "__main__":
    main()
