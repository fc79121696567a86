"""CPU time of ``companion run --mock`` at its READY=1, from several source trees, beside the bare imports.

Run: python bench/startup_cpu.py [--runs N] [--layout installed|source|both] TREE [TREE ...]   (a TREE
is a checkout's root, as for bench/startup_trees.py). Prints figures; asserts nothing.

bench/startup_trees.py gives the wall time to READY and the child's CPU time until it has exited,
its clean shutdown included. On a machine whose load moves the wall time by a factor of two, the
CPU time the process has used when it sends READY says best what a cold start costs: each child
here reads its resource usage as it sends READY=1 (the device's own ``Notifier.ready``, wrapped)
and prints it (user and system CPU, minor page faults); the bare imports (luma, gpiozero, Pillow,
as bench/startup.py imports them) print theirs after the imports. Trees and the bare imports run in
turns, after one unmeasured start each (bytecode written, as an installed device runs from it);
medians and minima.

``--layout``: where the child finds ``companion``. ``installed`` (the default) is a device's layout:
each tree is built into a wheel and installed with pip, not editable, into a virtual environment of
its own beside the runtime dependencies (copied from this interpreter's environment, which must hold
them), and the child is a script in that environment's ``bin/``, as the ``companion`` script is
(its folder first on ``sys.path``); the bare imports run the same way in the first tree's
environment. ``source`` starts each tree's ``companion`` from the checkout (``PYTHONPATH=TREE``,
``python -P -c``) in this interpreter's environment, whose ``.pth`` files (an editable install's
finder, setuptools' shim) load in every child, bare imports included: the layout of the figures
before 2026-11-27 05:00. ``both`` prints both.

``--instructions`` adds what no load moves: the instructions each child runs until READY=1 (the
device then exits at once) or until its bare imports are done, counted by valgrind's callgrind,
one run each. Their ratio is the cold start's ratio as this machine's CPU time gives it when idle.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import venv
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script: bench/ is a package of the checkout

from bench.device import spawn_until_ready, tree_env
from bench.startup import BARE_IMPORTS

USAGE = ("import resource as _resource\n"
         "_usage = _resource.getrusage(_resource.RUSAGE_SELF)\n"
         "print('CPU_AT_READY', _usage.ru_utime, _usage.ru_stime, _usage.ru_minflt, file=sys.stderr, flush=True)\n")
# The device's own entry (the ``companion`` script) loads nothing of the project before ``main``,
# which pauses the collector first: Notifier.ready is wrapped as its module loads, not by importing
# it here (that loaded logging and the daemon package before the pause: 4 million instructions).
DEVICE = (
    "import os, sys\n"
    "exit_at_ready = sys.argv[2:] == ['exit']\n"
    "def wrap_ready(sdnotify):\n"
    "    ready = sdnotify.Notifier.ready\n"
    "    def timed(self, *args, **kwargs):\n"
    + "".join(f"        {line}\n" for line in USAGE.splitlines()) +
    "        if exit_at_ready:\n"
    "            os._exit(0)\n"
    "        return ready(self, *args, **kwargs)\n"
    "    sdnotify.Notifier.ready = timed\n"
    "class WrapReady:\n"
    "    @staticmethod\n"
    "    def find_spec(name, path=None, target=None):\n"
    "        if name != 'companion.daemon.sdnotify':\n"
    "            return None\n"
    "        sys.meta_path.remove(WrapReady)\n"
    "        finder = next(f for f in sys.meta_path if getattr(f, '__name__', '') == 'PathFinder')\n"
    "        spec = finder.find_spec(name, path, target)\n"
    "        run = spec.loader.exec_module\n"
    "        def exec_module(module):\n"
    "            run(module)\n"
    "            wrap_ready(module)\n"
    "        spec.loader.exec_module = exec_module\n"
    "        return spec\n"
    "sys.meta_path.insert(0, WrapReady)\n"
    "sys.argv = ['companion', 'run', '--mock', '--state-dir', sys.argv[1]]\n"
    "from companion.__main__ import main\n"
    "sys.exit(main())\n"
)
BARE = f"import sys\n{BARE_IMPORTS}\n{USAGE}"
PROJECT = "tabletop-companion"
# A device child that has not exited this long after its SIGTERM is killed and named in the output
# (trees before f67adef could sleep through a SIGTERM that another thread received).
STOP_SECONDS = 10
STUCK: list[str] = []


@dataclass(frozen=True)
class Usage:
    """What a child had used when it sent READY=1 (or finished its bare imports)."""

    user: float
    system: float
    minor_faults: int

    @property
    def cpu(self) -> float:
        return self.user + self.system


@dataclass(frozen=True)
class Child:
    """How to start one kind of child: the device of a tree, or the bare imports (``tree`` None)."""

    label: str
    tree: str | None
    python: str  # the interpreter
    scripts: Path | None  # installed layout: the environment's bin/, holding the children as scripts

    def argv(self, state: str, *extra: str) -> list[str]:
        if self.scripts is not None:
            name = "bench-bare" if self.tree is None else "bench-device"
            return [self.python, str(self.scripts / name), *([] if self.tree is None else [state, *extra])]
        if self.tree is None:
            return [self.python, "-c", BARE]
        # -P: the tree's companion (PYTHONPATH), not the current directory's, which -c puts first
        return [self.python, "-P", "-c", DEVICE, state, *extra]

    def env(self) -> dict[str, str]:
        return tree_env(None if self.scripts is not None else self.tree)


def usage_at_ready(child: Child) -> Usage:
    with tempfile.TemporaryDirectory() as tmp:
        if child.tree is None:
            err = subprocess.run(child.argv(tmp), env=child.env(), capture_output=True, text=True, check=True).stderr
        else:
            _, process = spawn_until_ready(child.argv("STATE"), child.env(), tmp)
            process.terminate()
            try:
                _, err = process.communicate(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:  # its figure is in already; the stop is not measured here
                STUCK.append(child.label)
                process.kill()
                _, err = process.communicate(timeout=30)
    line = next(line for line in err.splitlines() if line.startswith("CPU_AT_READY"))
    user, system, faults = line.split()[1:]
    return Usage(float(user), float(system), int(faults))


def instructions(child: Child) -> int:
    """Instructions the child runs, counted by callgrind: the device until READY=1, or the bare imports."""
    with tempfile.TemporaryDirectory() as tmp:
        counted = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.devnull}",
                                  *child.argv(tmp, "exit")],
                                 env=child.env(), stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=600, check=True)
    match = re.search(r"Collected : (\d+)", counted.stderr)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{counted.stderr[-2000:]}")
    return int(match.group(1))


def runtime_distributions() -> list[importlib.metadata.Distribution]:
    """The project's runtime requirements and theirs, as installed in this interpreter's environment."""
    found: dict[str, importlib.metadata.Distribution] = {}

    def visit(name: str) -> None:
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in found:
            return
        dist = importlib.metadata.distribution(name)
        found[key] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                visit(requirement.name)

    visit(PROJECT)
    return [dist for key, dist in found.items() if key != PROJECT]


def installed(tree: str, where: Path) -> Path:
    """A virtual environment in ``where`` as a device's: ``tree`` installed by pip from a wheel (not
    editable, bytecode compiled), its runtime dependencies copied in whole; its bin/ folder."""
    venv.create(where, with_pip=False, symlinks=True)
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(subprocess.run([str(where / "bin" / "python"), "-c", purelib],
                               capture_output=True, text=True, check=True).stdout.strip())
    for dist in runtime_distributions():
        for file in dist.files or []:
            source = Path(str(dist.locate_file(file)))
            if source.is_file() and ".." not in file.parts:
                (site / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, site / file)
    wheels = where / "wheel"
    pip = [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels), tree], check=True)
    # --ignore-installed: with --prefix alone, pip first uninstalls the running environment's own copy
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--ignore-installed", "--prefix", str(where),
                    *(str(wheel) for wheel in wheels.glob("*.whl"))], check=True)
    scripts = where / "bin"
    (scripts / "bench-device").write_text(DEVICE)
    (scripts / "bench-bare").write_text(BARE)
    return scripts


def children(trees: list[str], layout: str, stack: ExitStack) -> list[Child]:
    """The bare imports and each tree's device, in one layout."""
    roots = [str(Path(tree).resolve()) for tree in trees]
    if layout == "source":
        return [Child("bare imports", None, sys.executable, None),
                *(Child(name, root, sys.executable, None) for name, root in zip(trees, roots, strict=True))]
    made = [installed(root, Path(stack.enter_context(tempfile.TemporaryDirectory()))) for root in roots]
    return [Child("bare imports", None, str(made[0] / "python"), made[0]),
            *(Child(name, root, str(bin_dir / "python"), bin_dir)
              for name, root, bin_dir in zip(trees, roots, made, strict=True))]


def report(layout: str, kinds: list[Child], figures: dict[Child, list[Usage]], runs: int) -> None:
    bare = kinds[0]
    base = statistics.median(usage.cpu for usage in figures[bare])
    base_min = min(usage.cpu for usage in figures[bare])
    print(f"layout {layout}; medians of {runs} (min); user and system CPU, minor page faults:")
    for child in kinds:
        usages = figures[child]
        cpu, least = statistics.median(u.cpu for u in usages), min(u.cpu for u in usages)
        user, system = statistics.median(u.user for u in usages), statistics.median(u.system for u in usages)
        faults = statistics.median(u.minor_faults for u in usages)
        ratio = "" if child is bare else f" = {cpu / base:.2f}x (min {least / base_min:.2f}x)"
        print(f"  {child.label}: cpu {cpu * 1000:.0f} ms{ratio}, min {least * 1000:.0f} ms; "
              f"user {user * 1000:.0f} ms, system {system * 1000:.0f} ms; {faults:.0f} faults")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (default 15)")
    parser.add_argument("--layout", choices=("installed", "source", "both"), default="installed",
                        help="installed: each tree pip-installed in an environment of its own, as on a device "
                             "(default); source: PYTHONPATH=TREE in this environment; both")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each child's instructions with valgrind (callgrind), once each")
    parser.add_argument("trees", nargs="+", help="source trees (checkout roots) to start companion from")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    with ExitStack() as stack:
        layouts = ("installed", "source") if args.layout == "both" else (args.layout,)
        kinds = {layout: children(args.trees, layout, stack) for layout in layouts}
        every = [child for layout in layouts for child in kinds[layout]]
        for child in every:
            usage_at_ready(child)  # unmeasured: writes the bytecode caches
        figures: dict[Child, list[Usage]] = {child: [] for child in every}
        for _ in range(args.runs):
            for child in every:
                figures[child].append(usage_at_ready(child))
        print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
        for label in STUCK:
            print(f"  a child of {label} did not exit within {STOP_SECONDS} s of its SIGTERM: killed")
        for layout in layouts:
            report(layout, kinds[layout], figures, args.runs)
        if args.instructions:
            for layout in layouts:  # after the timed rounds: bytecode is written
                counts = {child: instructions(child) for child in kinds[layout]}
                bare = counts[kinds[layout][0]]
                print(f"layout {layout}: bare imports {bare / 1e6:.1f} million instructions")
                for child in kinds[layout][1:]:
                    print(f"  {child.label}: {counts[child] / 1e6:.1f} million instructions to READY = "
                          f"{counts[child] / bare:.2f}x")


if __name__ == "__main__":
    main()
