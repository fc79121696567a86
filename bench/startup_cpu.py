"""CPU time of ``companion run --mock`` at its READY=1, from several source trees, beside the bare imports.

Run: python bench/startup_cpu.py [--runs N] TREE [TREE ...]   (a TREE is a checkout's root, as for
bench/startup_trees.py). Prints figures; asserts nothing.

bench/startup_trees.py gives the wall time to READY and the child's CPU time until it has exited,
its clean shutdown included. On a machine whose load moves the wall time by a factor of two, the
CPU time the process has used when it sends READY says best what a cold start costs: each child
here reads ``time.process_time()`` as it sends READY=1 (the device's own ``Notifier.ready``,
wrapped) and prints it; the bare imports (luma, gpiozero, Pillow, as bench/startup.py imports
them) print theirs after the imports. Trees and the bare imports run in turns, after one
unmeasured start each (bytecode written, as an installed device runs from it); medians and minima.

``--instructions`` adds what no load moves: the instructions each child runs until READY=1 (the
device then exits at once) or until its bare imports are done, counted by valgrind's callgrind,
one run each. Their ratio is the cold start's ratio as this machine's CPU time gives it when idle.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is a package of the checkout

from bench.device import spawn_until_ready, tree_env
from bench.startup import BARE_IMPORTS

DEVICE = (
    "import os, sys, time\n"
    "import companion.daemon.sdnotify as sdnotify\n"
    "ready = sdnotify.Notifier.ready\n"
    "exit_at_ready = sys.argv[2:] == ['exit']\n"
    "def timed(self, *args, **kwargs):\n"
    "    print('CPU_AT_READY', time.process_time(), file=sys.stderr, flush=True)\n"
    "    if exit_at_ready:\n"
    "        os._exit(0)\n"
    "    return ready(self, *args, **kwargs)\n"
    "sdnotify.Notifier.ready = timed\n"
    "sys.argv = ['companion', 'run', '--mock', '--state-dir', sys.argv[1]]\n"
    "from companion.__main__ import main\n"
    "sys.exit(main())\n"
)
BARE = f"import sys, time\n{BARE_IMPORTS}\nprint('CPU_AT_READY', time.process_time(), file=sys.stderr)\n"


def cpu_at_ready(tree: str | None) -> float:
    env = tree_env(tree)
    with tempfile.TemporaryDirectory() as tmp:
        if tree is None:
            bare = subprocess.run([sys.executable, "-c", BARE], env=env, capture_output=True, text=True, check=True)
            err = bare.stderr
        else:
            # -P: the tree's companion (PYTHONPATH), not the current directory's, which -c puts first
            argv = [sys.executable, "-P", "-c", DEVICE, "STATE"]
            _, child = spawn_until_ready(argv, env, tmp)
            child.terminate()
            _, err = child.communicate(timeout=30)
    line = next(line for line in err.splitlines() if line.startswith("CPU_AT_READY"))
    return float(line.split()[1])


def instructions(tree: str | None) -> int:
    """Instructions the child runs, counted by callgrind: the device until READY=1, or the bare imports."""
    with tempfile.TemporaryDirectory() as tmp:
        child = [sys.executable, "-c", BARE] if tree is None else [sys.executable, "-P", "-c", DEVICE, tmp, "exit"]
        counted = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.devnull}", *child],
                                 env=tree_env(tree), stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=600, check=True)
    match = re.search(r"Collected : (\d+)", counted.stderr)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{counted.stderr[-2000:]}")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each child's instructions with valgrind (callgrind), once each")
    parser.add_argument("trees", nargs="+", help="source trees (checkout roots) to start companion from")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    kinds: list[str | None] = [None, *(str(Path(tree).resolve()) for tree in args.trees)]
    for tree in kinds:
        cpu_at_ready(tree)  # unmeasured: writes the bytecode caches
    figures: dict[str | None, list[float]] = {tree: [] for tree in kinds}
    for _ in range(args.runs):
        for tree in kinds:
            figures[tree].append(cpu_at_ready(tree))
    bare, bare_min = statistics.median(figures[None]), min(figures[None])
    print(f"bare imports: cpu {bare * 1000:.0f} ms (median of {args.runs}; min {bare_min * 1000:.0f} ms)")
    for name, tree in zip(args.trees, kinds[1:], strict=True):
        cpu, least = statistics.median(figures[tree]), min(figures[tree])
        print(f"{name}: cpu at READY {cpu * 1000:.0f} ms = {cpu / bare:.2f}x (min {least * 1000:.0f} ms = "
              f"{least / bare_min:.2f}x)")
    if args.instructions:
        counts = {tree: instructions(tree) for tree in kinds}  # after the timed rounds: bytecode is written
        print(f"bare imports: {counts[None] / 1e6:.1f} million instructions")
        for name, tree in zip(args.trees, kinds[1:], strict=True):
            ratio = counts[tree] / counts[None]
            print(f"{name}: {counts[tree] / 1e6:.1f} million instructions to READY = {ratio:.2f}x")


if __name__ == "__main__":
    main()
