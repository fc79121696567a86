"""Cold start of ``companion run --mock`` from several source trees, interleaved with the bare imports.

Run: python bench/startup_trees.py [--runs N] TREE [TREE ...]   (a TREE is a checkout's root, e.g.
``git archive REV | tar -x -C /tmp/rev``). Prints figures; asserts nothing.

On a shared machine wall times move by a factor of two from minute to minute, so comparing two
revisions measured at different times says little. This runs them in turns, one start of each
tree and of the bare imports (luma, gpiozero, Pillow, as bench/startup.py imports them) per round,
after one unmeasured start each (bytecode written), and prints for each the median over the rounds
of the wall time from spawn to sd_notify READY=1 and of the child's CPU time (user + system, from
``os.wait4``) from spawn until it has exited on the SIGTERM sent at READY.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is a package of the checkout

from bench.device import spawn_until_ready, tree_env
from bench.startup import BARE_IMPORTS

BARE = (
    "import os, socket, time\n"
    f"{BARE_IMPORTS}\n"
    "socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'READY=1', os.environ['NOTIFY_SOCKET'])\n"
    "time.sleep(60)\n"
)


def start(argv: list[str], tree: str | None) -> tuple[float, float]:
    """(wall seconds to READY=1, CPU seconds of the child until its exit on SIGTERM at READY)."""
    with tempfile.TemporaryDirectory() as tmp:
        wall, child = spawn_until_ready(argv, tree_env(tree), tmp)
        child.terminate()
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0  # reaped by wait4
        if child.stderr is not None:
            child.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("trees", nargs="+", help="source trees (checkout roots) to start companion from")
    args = parser.parse_args()
    # -P: no current directory first on sys.path, where ``-m`` would put it, so each child imports
    # the companion of its tree (PYTHONPATH), not the one of the checkout the bench is run from
    device = [sys.executable, "-P", "-m", "companion", "run", "--mock", "--state-dir", "STATE"]
    kinds: dict[str, tuple[list[str], str | None]] = {"bare imports": ([sys.executable, "-c", BARE], None)}
    kinds.update({tree: (device, str(Path(tree).resolve())) for tree in args.trees})
    for argv, tree in kinds.values():
        start(argv, tree)  # unmeasured: writes the bytecode caches
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
    for _ in range(args.runs):
        for name, (argv, tree) in kinds.items():
            figures[name].append(start(argv, tree))
    wall0 = statistics.median(wall for wall, _ in figures["bare imports"])
    cpu0 = statistics.median(cpu for _, cpu in figures["bare imports"])
    print(f"bare imports: wall {wall0 * 1000:.0f} ms, cpu {cpu0 * 1000:.0f} ms (medians of {args.runs})")
    for name in args.trees:
        wall = statistics.median(wall for wall, _ in figures[name])
        cpu = statistics.median(cpu for _, cpu in figures[name])
        print(f"{name}: wall {wall * 1000:.0f} ms = {wall / wall0:.2f}x, cpu {cpu * 1000:.0f} ms = {cpu / cpu0:.2f}x")


if __name__ == "__main__":
    main()
