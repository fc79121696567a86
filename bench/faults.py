"""Faults and bad input, measured: fuzz outcomes per reader, the storage fault matrix, keypad flood CPU.

Run: python bench/faults.py [--cases N] [--flood-seconds 10] [--skip fuzz,matrix,flood]

1. Fuzzing (tests/fuzz/mutation.py): N mutated inputs per reader (replay/export, device start,
   card facts; keypad lines get 10 N), each run to completion. Counted: read, refused with a
   message, escaped exceptions (goal 0) and hangs, a case still running after 10 s (goal 0).
2. Fault matrix (tests/daemon/faults.py, and the event cursor from tests/event/faults.py): every write
   path under ENOSPC, EIO on write, EIO on fsync, EIO on fsync then on truncate, read-only. Per cell:
   device still running, files equal to what the device shows, message shown, ERROR line in the log
   (a CLI command prints instead).
3. Keypad flood: ``companion run --mock --keypad PTY`` as its own process while another process
   writes junk into the pty at USB full speed (1.2 MB/s, the most a 12 Mbit/s bulk pipe carries)
   for ``--flood-seconds``; the daemon's CPU time (utime + stime from /proc) over that window, as
   a share of one core, and how many keypad lines reached its log.
"""

from __future__ import annotations

import argparse
import collections
import logging
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import tty
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HANG_S = 10
USB_FULL_SPEED = 1_200_000  # bytes/s: 19 x 64-byte bulk packets per 1 ms frame, rounded down


class Hang(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise Hang


def fuzz(cases: int, seed: int) -> None:
    from tests.fuzz.mutation import READERS

    print(f"\n## Fuzzing ({cases} cases per reader, keypad lines {cases * 10}; seed {seed})\n")
    print("| reader | cases | read | refused with a message | escaped exceptions | hangs (>10 s) | slowest case |")
    print("|---|---|---|---|---|---|---|")
    logging.disable(logging.CRITICAL)
    signal.signal(signal.SIGALRM, _alarm)
    for name, (make, run) in READERS.items():
        count = cases * 10 if name == "keypad lines" else cases
        rng = random.Random(seed)
        outcomes: collections.Counter[str] = collections.Counter()
        escapes: collections.Counter[str] = collections.Counter()
        slowest = 0.0
        for _ in range(count):
            data = make(rng)
            start = time.perf_counter()
            signal.alarm(HANG_S)
            try:
                outcomes[run(data)] += 1
            except Hang:
                outcomes["hang"] += 1
            except Exception as err:  # counting them is the point
                outcomes["escaped"] += 1
                where = traceback.extract_tb(err.__traceback__)[-1]
                escapes[f"{type(err).__name__} at {Path(where.filename).name}:{where.lineno}"] += 1
            finally:
                signal.alarm(0)
            slowest = max(slowest, time.perf_counter() - start)
        print(f"| {name} | {count} | {outcomes['ok']} | {outcomes['refused']} | {outcomes['escaped']} "
              f"| {outcomes['hang']} | {slowest * 1000:.0f} ms |")
        for where, times in escapes.most_common(5):
            print(f"|  escaped: {where} | {times} | | | | | |")
    logging.disable(logging.NOTSET)


def matrix() -> None:
    from tests.daemon.faults import FAULTS, WRITE_PATHS, run_cell
    from tests.event.faults import cell_event_cursor

    paths = {**WRITE_PATHS, "event cursor": cell_event_cursor}

    print("\n## Storage fault matrix\n")
    print("Each cell: running / files = screen / message / log line (✓ or ✗; - for a command, which prints).\n")
    print("| write path | " + " | ".join(FAULTS) + " |")
    print("|---|" + "---|" * len(FAULTS))
    logging.disable(logging.WARNING)  # ERROR lines still reach the cells' own handler
    failures = 0
    for path, cell_of in paths.items():
        row = []
        for fault in FAULTS:
            with tempfile.TemporaryDirectory() as tmp:
                state = Path(tmp) / "state"
                cell = run_cell(path, fault, state) if path in WRITE_PATHS else cell_of(state, fault)
            failures += not cell.ok
            marks = [cell.running, cell.consistent, bool(cell.message), cell.logged]
            row.append(" ".join("-" if m is None else "✓" if m else "✗" for m in marks))
        print(f"| {path} | " + " | ".join(row) + " |")
    logging.disable(logging.NOTSET)
    print(f"\n{len(paths) * len(FAULTS)} cells, {failures} failing")


JUNK = {
    "random bytes": lambda rng: rng.randbytes(4096),
    "junk text lines": lambda rng: b"".join(
        bytes(rng.randrange(32, 127) for _ in range(rng.randrange(0, 80))) + b"\r\n" for _ in range(60)
    ),
    "newlines": lambda rng: b"\n" * 4096,
    "$ flood": lambda rng: b"$" * 4096,
    "frames with a bad CRC": lambda rng: b"".join(
        b"$K %d OK P*%04X\n" % (i % 256, rng.randrange(65536)) for i in range(256)
    ),
}

WRITER = """
import os, random, sys, time
fd, rate, seconds, kind = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
sys.path.insert(0, sys.argv[5])
sys.path.insert(0, sys.argv[5] + "/firmware")
from bench.faults import JUNK
import keypad_core
os.set_blocking(fd, True)
request = b""
while not request.endswith(b"\\n"):  # the daemon's hello request: answer it, as the keypad does
    request += os.read(fd, 64)
token = request.decode().strip().rsplit("?", 1)[-1]
os.write(fd, keypad_core.frame("H 0 %d %s" % (keypad_core.PROTOCOL_VERSION, token)).encode())
sys.stdin.readline()  # go
rng = random.Random(1)
blocks = [JUNK[kind](rng) for _ in range(64)]  # made beforehand: the writer must keep up
sent, start, index = 0, time.monotonic(), 0
while (now := time.monotonic()) - start < seconds:
    due = int((now - start) * rate)
    while sent < due:
        index += 1
        sent += os.write(fd, blocks[index % 64][: due - sent])
    time.sleep(0.002)
print(sent)
"""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def flood(seconds: float, root: str) -> None:
    print(
        f"\n## Keypad flood: {seconds:g} s of junk at {USB_FULL_SPEED / 1e6:.1f} MB/s into the daemon's keypad port\n"
    )
    print("| junk | bytes written | daemon CPU (share of one core) | idle CPU before | keypad log lines |")
    print("|---|---|---|---|---|")
    for kind in JUNK:
        master, slave = os.openpty()
        tty.setraw(slave)
        port = os.ttyname(slave)
        with tempfile.TemporaryDirectory() as tmp:
            log_path = Path(tmp) / "daemon.log"
            with log_path.open("w") as log:
                daemon = subprocess.Popen(
                    [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", tmp, "--keypad", port],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, cwd=root)
            try:
                writer = subprocess.Popen(
                    [sys.executable, "-c", WRITER, str(master), str(USB_FULL_SPEED), str(seconds), kind, root],
                    pass_fds=(master,), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                time.sleep(4.0)  # start-up: imports, first frame, port opened, hello answered
                idle_start = _cpu_seconds(daemon.pid)
                time.sleep(1.0)
                idle = _cpu_seconds(daemon.pid) - idle_start
                before = _cpu_seconds(daemon.pid)
                out, _ = writer.communicate("go\n", timeout=seconds + 60)
                used = _cpu_seconds(daemon.pid) - before
                written = int(out.strip() or 0)
            finally:
                daemon.send_signal(signal.SIGTERM)
                daemon.wait(timeout=30)
                os.close(master)
                os.close(slave)
            keypad_lines = sum("keypad" in line for line in log_path.read_text(errors="replace").splitlines())
        print(f"| {kind} | {written:,} | {used / seconds:.1%} | {idle:.1%} | {keypad_lines} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--flood-seconds", type=float, default=10.0)
    parser.add_argument("--skip", default="", help="comma-separated parts to leave out: fuzz, matrix, flood")
    parser.add_argument("--flood-tree", default=str(Path(__file__).resolve().parent.parent),
                        help="source tree whose daemon and firmware the flood runs (to compare with another revision)")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"# bench/faults.py, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}: "
          f"{platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"command: python bench/faults.py {' '.join(sys.argv[1:])}".rstrip())
    if "fuzz" not in skip:
        fuzz(args.cases, args.seed)
    if "matrix" not in skip:
        matrix()
    if "flood" not in skip:
        flood(args.flood_seconds, args.flood_tree)


if __name__ == "__main__":
    main()
