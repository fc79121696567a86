"""The keypad link under a flood: CPU, memory, journal and stop time of `companion run --keypad`.

Run: python bench/keypad.py [--seconds 10] [--kinds keys,repeats,errors,heartbeats,garbage].
Prints one line per flood kind; asserts nothing. Measured values are kept in docs/figures.md
with the date, the machine and the command.

For each kind a fresh ``companion run --mock --keypad PTY`` is started on an empty state
folder. This process plays the Pico on the pseudo-terminal's other side: it answers the hello
request the way the firmware does, waits a second, then writes frames as fast as the reader
takes them (the pty's buffer is the only brake, as the USB link's is on a Pi) for --seconds,
sends SIGTERM with the flood still running and times the exit. The kinds:

- ``keys``: valid key frames (short presses of the seven keys, seeded random order) with
  sequence numbers counting up, as a keypad with a key stuck in a loop would send them;
- ``repeats``: one valid key frame sent again and again with the same sequence number;
- ``errors``: valid ``E`` lines (the keypad reporting a problem), counting up;
- ``heartbeats``: valid ``B`` frames, counting up;
- ``garbage``: seeded random bytes (line noise, a wrong baud rate, another device).

Figures: CPU as a share of one core over the flood (all of the daemon's threads, from
/proc/PID/stat); RSS when the flood starts and its peak during the flood (sampled every
0.2 s); game journal lines written (every ``*.jsonl`` in the state folder: the games the flood
played) and log lines (the daemon's stderr); the bytes the pty took in (what the reader read,
plus the few KiB left in the pty's buffer); and the time from
SIGTERM to the process having exited (killed after --stop-limit seconds and shown as such).
"""

from __future__ import annotations

import argparse
import errno
import os
import random
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import cycle
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "firmware"))
from device import cpu_seconds, machine  # bench/ is on sys.path when run as a script
from keypad_core import KEY_NAMES, frame  # type: ignore[import-not-found]  # the firmware's own framing

KINDS = ("keys", "repeats", "errors", "heartbeats", "garbage")
_HELLO_REQUEST = re.compile(rb"\?([0-9A-Z]{1,8})\r?\n")
_SEQ_MODULO = 256


def blocks(kind: str, seed: int) -> Iterator[bytes]:
    """Endless blocks of flood bytes; each counted kind's block is 256 frames, so sequence
    numbers run on from block to block without a gap."""
    rng = random.Random(seed)
    if kind == "keys":
        ready = [b"".join(frame(f"K {seq} {rng.choice(KEY_NAMES)} P").encode() for seq in range(_SEQ_MODULO))
                 for _ in range(8)]
    elif kind == "repeats":
        ready = [frame("K 7 DOWN P").encode() * _SEQ_MODULO]
    elif kind == "errors":
        ready = [b"".join(frame(f"E {seq} keypad_pins.json ignored: not valid JSON").encode()
                          for seq in range(_SEQ_MODULO))]
    elif kind == "heartbeats":
        ready = [b"".join(frame(f"B {seq}").encode() for seq in range(_SEQ_MODULO))]
    elif kind == "garbage":
        ready = [rng.randbytes(4096) for _ in range(8)]
    else:
        raise ValueError(f"unknown flood kind {kind!r}; kinds are {', '.join(KINDS)}")
    return cycle(ready)


def kind_list(text: str) -> list[str]:
    """--kinds: flood kinds by name, checked before any daemon starts."""
    kinds = [kind for kind in text.split(",") if kind]
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown) or 'no kind'}: the kinds are {', '.join(KINDS)}")
    return kinds


class FakePico(threading.Thread):
    """The master side of the pty: answers hello requests; floods once :attr:`flooding` is set."""

    def __init__(self, master: int, kind: str, seed: int) -> None:
        super().__init__(name=f"flood {kind}", daemon=True)
        self.master = master
        self.flood = blocks(kind, seed)
        self.flooding = threading.Event()
        self.answered = threading.Event()
        self.finished = threading.Event()
        self.written = 0
        os.set_blocking(master, False)

    def run(self) -> None:
        heard = b""
        hellos: list[bytes] = []
        pending = b""
        while not self.finished.is_set():
            want_write = bool(pending or hellos or self.flooding.is_set())
            readable, writable, _ = select.select([self.master], [self.master] if want_write else [], [], 0.05)
            if readable:
                try:
                    heard += os.read(self.master, 4096)
                except OSError as err:  # EIO: no one has the slave side open at this moment
                    if err.errno != errno.EIO:
                        raise
                for match in _HELLO_REQUEST.finditer(heard):
                    hellos.append(frame(f"H 255 2 {match.group(1).decode()}").encode())  # floods count from 0
                heard = heard[heard.rfind(b"\n") + 1:]
            if writable:
                if not pending:  # a hello goes in between whole blocks, never inside a frame
                    pending = hellos.pop(0) if hellos else next(self.flood) if self.flooding.is_set() else b""
                    if pending.startswith(b"$H"):
                        self.answered.set()
                try:
                    sent = os.write(self.master, pending)
                except BlockingIOError:
                    continue
                self.written += sent
                pending = pending[sent:]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class Figures:
    kind: str
    cpu_percent: float
    rss_start_mib: float
    rss_peak_mib: float
    journal_lines: int
    log_lines: int
    read_kib_per_s: float
    stop_s: float
    killed: bool

    def line(self) -> str:
        stop = f"> {self.stop_s:.0f} s (killed)" if self.killed else f"{self.stop_s:.2f} s"
        return (f"{self.kind:<10}  CPU {self.cpu_percent:5.1f}% of a core  RSS {self.rss_start_mib:.0f} -> "
                f"{self.rss_peak_mib:.0f} MiB  journal lines {self.journal_lines}  log lines {self.log_lines}  "
                f"sent {self.read_kib_per_s:.0f} KiB/s  stop after SIGTERM {stop}")


def flood(kind: str, seconds: float, stop_limit: float, seed: int, keep_log: Path | None) -> Figures:
    """One fresh daemon, one flood; see the module's docstring for what is measured."""
    with tempfile.TemporaryDirectory(prefix="keypad-bench-") as tmp:
        master, slave = os.openpty()
        tty.setraw(slave)  # the slave stays open here too, so the pty outlives the daemon's reopenings
        notify = str(Path(tmp) / "notify")
        state = Path(tmp) / "state"
        log = Path(tmp) / "stderr.log"
        pico = FakePico(master, kind, seed)
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener, log.open("w") as err:
            listener.bind(notify)
            listener.settimeout(60)
            child = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", str(state),
                 "--keypad", os.ttyname(slave)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                env={**os.environ, "NOTIFY_SOCKET": notify})
            pico.start()
            try:
                while b"READY=1" not in listener.recv(4096):
                    pass
                if not pico.answered.wait(30):
                    raise RuntimeError("the daemon never asked the keypad for a hello")
                time.sleep(1.0)  # let the hello be read before the flood buries it
                rss_start, peak = rss_kib(child.pid), 0
                cpu_before, start = cpu_seconds(child.pid), time.perf_counter()
                written_before = pico.written
                pico.flooding.set()
                while time.perf_counter() - start < seconds:
                    peak = max(peak, rss_kib(child.pid))
                    time.sleep(0.2)
                cpu = cpu_seconds(child.pid) - cpu_before
                elapsed = time.perf_counter() - start
                read_rate = (pico.written - written_before) / elapsed / 1024
                child.send_signal(signal.SIGTERM)
                term_at = time.perf_counter()
                try:
                    child.wait(timeout=stop_limit)
                    killed = False
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait(timeout=30)
                    killed = True
                stop_s = time.perf_counter() - term_at
            finally:
                pico.finished.set()
                if child.poll() is None:
                    child.kill()
                    child.wait(timeout=30)
                pico.join(5.0)
                os.close(master)
                os.close(slave)
        journal = sum(len(path.read_bytes().splitlines()) for path in state.rglob("*.jsonl"))
        log_lines = len(log.read_bytes().splitlines())
        if keep_log is not None:
            keep_log.mkdir(parents=True, exist_ok=True)
            (keep_log / f"{kind}.log").write_bytes(log.read_bytes())
    return Figures(kind, 100 * cpu / elapsed, rss_start / 1024, peak / 1024, journal, log_lines, read_rate,
                   stop_limit if killed else stop_s, killed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each flood lasts (default 10)")
    parser.add_argument("--stop-limit", type=float, default=20.0,
                        help="seconds to wait for the exit after SIGTERM before killing (default 20)")
    parser.add_argument("--kinds", type=kind_list, default=list(KINDS), help=f"comma-separated, from {','.join(KINDS)}")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--keep-log", type=Path, metavar="DIR", help="keep each daemon's stderr as DIR/KIND.log")
    args = parser.parse_args()
    kinds = args.kinds
    print(f"machine: {machine()}; flood {args.seconds:g} s per kind, seed {args.seed}")
    for kind in kinds:
        print(flood(kind, args.seconds, args.stop_limit, args.seed, args.keep_log).line(), flush=True)


if __name__ == "__main__":
    main()
