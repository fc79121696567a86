"""Device figures on this machine: latency, display bytes, start-up, idle CPU, memory, presses.

Run: python bench/device.py [--games 2] [--idle-seconds 30] [--phones 5]. Prints figures; asserts nothing.
Measured values are kept in docs/figures.md with the date, the machine and the command.

- the font the screens were drawn with (the package's own misaki gothic, or a fallback);
- press-to-frame: from the mock pin edge a key acts on (the press edge for arrows, which act as
  their press settles; the release edge for OK/BACK, whose long press must be told apart) to the
  frame reaching the display driver: CPU time of our code path, with the debouncer's 20 ms
  settle (by design) on top and stated;
- display-bus bytes per press against a full 1024-byte SSD1306 frame (the real driver class over
  a recording bus, with the page-diff writer), as payload and as I2C wire bytes (each transfer
  adds the address byte and luma's control byte), and the same for start-up;
- cold start to first frame of the real ``companion run --mock`` command (spawned until it tells
  sd_notify READY=1, sent once the first frame is shown) against a bare
  ``import luma.oled.device, gpiozero, PIL.Image`` (whole processes, median of several);
- idle CPU of ``companion run --mock`` over --idle-seconds, and its peak RSS;
- key presses per card over whole scripted games (the UI's key planner: what a person presses);
- the same press-to-frame with the table page served (``run --web``) and --phones phones following
  its event stream, beside the figure without; and how long after a journalled press the phones
  receive the page's new data.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from companion.daemon.virtual import VirtualDevice
from companion.hw.debounce import DEFAULT_DEBOUNCE_S
from companion.hw.keys import ARROWS, Key, KeyEvent
from companion.hw.mock import SETTLE_FACTOR
from companion.sim import table_model
from companion.ui.canvas import SHIPPED_MISAKI, Typeface
from companion.ui.planner import presses_for

FULL_FRAME = 1024
I2C_HZ = 400_000


class Phones:
    """``count`` phones following the table page's event stream, each noting when new data arrive."""

    def __init__(self, url: str, count: int) -> None:
        self.arrivals: list[list[float]] = [[] for _ in range(count)]
        self.threads = [threading.Thread(target=self._follow, args=(url, n), daemon=True) for n in range(count)]
        for thread in self.threads:
            thread.start()

    def _follow(self, url: str, phone: int) -> None:
        try:
            with urllib.request.urlopen(url + "events", timeout=60) as stream:
                for line in stream:
                    if line.startswith(b"data: "):
                        self.arrivals[phone].append(time.perf_counter())
        except OSError:
            return  # the server stopped

    def join(self) -> None:
        for thread in self.threads:
            thread.join(10)


class TimedDevice(VirtualDevice):
    """A virtual device that times each press from the edge its key acts on to the driver's frame;
    with ``phones``, it serves the table page to that many phones following its event stream."""

    def __init__(self, state: Path, seed: int, phones: int = 0) -> None:
        super().__init__(state, seed=seed)
        self.page: Any = None
        self.phones: Phones | None = None
        self.journalled_at: list[float] = []  # when each press that appended a line had it on disk
        if phones:
            from companion.daemon.page import TablePageServer, TableView

            view = TableView(state).start()
            self.device.store.on_journalled.append(view.wake)
            # every phone here comes from 127.0.0.1; in a room each has its own address
            self.page = TablePageServer(("127.0.0.1", 0), view, max_per_client=phones).serve_in_thread()
            self.phones = Phones(self.page.url, phones)
        self.latencies: list[float] = []
        self.journalled: list[bool] = []  # whether that press appended (and fsynced) an action
        self.on_press_edge: list[bool] = []  # whether that key acted on its press edge (an arrow)
        self.bytes_per_press: list[int] = []
        self.wire_bytes_per_press: list[int] = []
        self._frame_at: float | None = None
        show = self.display.display

        def timed_display(image: Any) -> None:
            show(image)
            self._frame_at = time.perf_counter()

        self.display.display = timed_display  # type: ignore[method-assign]

    def press(self, event: KeyEvent) -> None:
        settle = SETTLE_FACTOR * self.pad.pad.debounce_s
        pin = self.pad.pin(event.key)
        bus = self.display.bus
        before, wire_before = bus.total_bytes, bus.i2c_bytes
        accepted = self.device.store.accepted
        acts_on_press = event.key in ARROWS
        self._frame_at = None
        edge = time.perf_counter()
        pin.drive_low()
        self.time.sleep(self.pad.pad.hold_s + settle if event.long else settle)
        self.device.loop.run_until_idle()
        if not acts_on_press:
            self._frame_at = None
            edge = time.perf_counter()
        pin.drive_high()
        self.time.sleep(settle)
        self.device.loop.run_until_idle()
        if self.device.store.accepted != accepted:
            self.journalled_at.append(time.perf_counter())
        if self._frame_at is not None:
            self.latencies.append(self._frame_at - edge)
            self.journalled.append(self.device.store.accepted != accepted)
            self.on_press_edge.append(acts_on_press)
        self.bytes_per_press.append(bus.total_bytes - before)
        self.wire_bytes_per_press.append(bus.i2c_bytes - wire_before)
        self.presses += 1
        self.pressed.append(event)


def play_games(games: int, phones: int = 0,
               page_delays: list[float] | None = None) -> tuple[TimedDevice, list[tuple[float, bool, bool]], int, int]:
    """Whole 4-player games through the keys; returns the last device, (latency, journalled,
    acted on the press edge) per frame and the press counts. With ``phones``, the table page is
    served to them meanwhile, and ``page_delays`` gets, per journalled press, the time until the
    slowest phone received data sent after it."""
    latencies: list[tuple[float, bool, bool]] = []
    card_presses = cards = 0
    dev = None
    for i in range(games):
        with tempfile.TemporaryDirectory() as tmp:
            dev = TimedDevice(Path(tmp), seed=i, phones=phones)
            game_id = ("tezuma-2015", "tezuma")[i % 2]
            while dev.app.top.game.value != game_id:
                dev.press(KeyEvent(Key.RIGHT))
            dev.press(KeyEvent(Key.UP))
            dev.press(KeyEvent(Key.OK))
            rng = random.Random(i)
            game = dev.game
            table = table_model(game, rng, 0.3)
            while not game.is_over():
                action = table.choose(game, rng)
                keys = presses_for(dev.app, action)
                for key in keys:
                    dev.press(key)
                if action.type == "play" and action.cards:
                    card_presses += len(keys)
                    cards += 1
                table.after(game, action)
            latencies += zip(dev.latencies, dev.journalled, dev.on_press_edge, strict=True)
            if dev.page is not None and dev.phones is not None:
                time.sleep(1.0)  # the last line reaches the phones
                dev.page.stop()
                dev.phones.join()
                if page_delays is not None:
                    page_delays += delays_to_phones(dev.journalled_at, dev.phones.arrivals)
            dev.close()
    assert dev is not None
    return dev, latencies, card_presses, cards


def delays_to_phones(journalled_at: list[float], arrivals: list[list[float]]) -> list[float]:
    """Per journalled press, how long until every phone had received data sent after it."""
    delays = []
    for at in journalled_at:
        firsts = [next((t for t in phone if t >= at), None) for phone in arrivals]
        if all(t is not None for t in firsts):
            delays.append(max(t for t in firsts if t is not None) - at)
    return delays


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


BARE_IMPORTS = """
import os, socket
import luma.oled.device, gpiozero, PIL.Image
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"READY=1", os.environ["NOTIFY_SOCKET"])
"""


def tree_env(tree: str | None) -> dict[str, str]:
    """The environment of a child started from source ``tree`` (its companion on PYTHONPATH; with
    None, the installed one): bytecode written, as an installed device runs from it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    return env if tree is None else {**env, "PYTHONPATH": tree}


def spawn_until_ready(argv: list[str], env: dict[str, str], tmp: str) -> tuple[float, subprocess.Popen[str]]:
    """Spawn ``argv`` (``STATE`` in it becomes ``tmp``) with a NOTIFY_SOCKET in ``tmp``; the seconds
    until it sends READY=1, and the child, still running (its stderr a pipe)."""
    address = str(Path(tmp) / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(address)
        listener.settimeout(60)
        start = time.perf_counter()
        child = subprocess.Popen([arg.replace("STATE", tmp) for arg in argv], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                 env={**env, "NOTIFY_SOCKET": address})
        while b"READY=1" not in listener.recv(4096):
            pass
        return time.perf_counter() - start, child


def seconds_to_ready(argv: list[str], runs: int) -> tuple[float, str]:
    """Median time from spawning ``argv`` to its sd_notify READY=1, after one warm-up run that
    writes the bytecode caches an installed package has (pip compiles them at install time);
    and what the last run printed on stderr once stopped with SIGTERM. ``STATE`` in ``argv``
    becomes a fresh temporary directory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times, err = [], ""
    for _ in range(runs + 1):
        with tempfile.TemporaryDirectory() as tmp:
            seconds, child = spawn_until_ready(argv, env, tmp)
            times.append(seconds)
            child.terminate()
            _, err = child.communicate(timeout=30)
    return statistics.median(times[1:]), err


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def idle_figures(seconds: float) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", tmp],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(3.0)  # past start-up
            before = cpu_seconds(child.pid)
            time.sleep(seconds)
            used = cpu_seconds(child.pid) - before
            rss = peak_rss_kib(child.pid)
        finally:
            child.terminate()
            child.wait(timeout=10)
    return used, rss


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith(("model name", "Model"))), platform.processor() or "unknown CPU")
    return f"{platform.machine()}, {model}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--start-runs", type=int, default=5)
    parser.add_argument("--phones", type=int, default=5, help="phones following the table page (0: skip)")
    parser.add_argument("--page-rounds", type=int, default=3, help="rounds of --games without, then with, the page")
    args = parser.parse_args()

    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    face = Typeface.find()
    which = "the package's own" if face.path == SHIPPED_MISAKI else "a system copy" if face.path else "none: fallback"
    print(f"font: {face.path or 'Pillow bitmap (English only)'} ({which}; Japanese {'yes' if face.japanese else 'no'})")

    dev, frames, card_presses, cards = play_games(args.games)
    settle = f"plus the {DEFAULT_DEBOUNCE_S * 1000:.0f} ms debounce settle by design"
    for label, chosen in [
        ("arrows, from the press edge", [t for t, _, on_press in frames if on_press]),
        ("OK/BACK/AUX, from the release edge or the hold time", [t for t, _, on_press in frames if not on_press]),
        ("with a journal append (fsync)", [t for t, journalled, _ in frames if journalled]),
        ("without", [t for t, journalled, _ in frames if not journalled]),
    ]:
        print(f"press-to-frame, {label} ({len(chosen)} frames): p50 {ms(percentile(chosen, 0.5))}, "
              f"p99 {ms(percentile(chosen, 0.99))} ({settle})")
    if args.phones:  # game by game, with and without, so the machine's other load falls on both alike
        page_delays: list[float] = []
        plain: list[tuple[float, bool, bool]] = []
        paged: list[tuple[float, bool, bool]] = []
        for _ in range(args.page_rounds):
            plain += play_games(args.games)[1]
            paged += play_games(args.games, args.phones, page_delays)[1]
        for label, journalled in (("every press", (True, False)), ("presses without a journal append", (False,))):
            without = [t for t, kept, _ in plain if kept in journalled]
            served = [t for t, kept, _ in paged if kept in journalled]
            print(f"press-to-frame, {label} ({len(without)} frames): p50 {ms(percentile(without, 0.5))}, "
                  f"p99 {ms(percentile(without, 0.99))} without the table page; served to {args.phones} phones "
                  f"following its event stream: p50 {ms(percentile(served, 0.5))}, p99 {ms(percentile(served, 0.99))}"
                  f" ({percentile(served, 0.99) / percentile(without, 0.99) - 1:+.1%})")
        print(f"journalled press to the slowest of {args.phones} phones' event streams ({len(page_delays)} presses, "
              f"played back to back): p50 {ms(percentile(page_delays, 0.5))}, p99 {ms(percentile(page_delays, 0.99))}, "
              f"max {ms(max(page_delays))}")
    per_press = statistics.mean(dev.bytes_per_press)
    wire = statistics.mean(dev.wire_bytes_per_press)
    print(
        f"display bytes per press (last game, {len(dev.bytes_per_press)} presses): mean {per_press:.0f} "
        f"= {per_press / FULL_FRAME:.1%} of a {FULL_FRAME}-byte frame, p99 {percentile(dev.bytes_per_press, 0.99)}; "
        f"on I2C with address and control bytes: mean {wire:.0f} ({wire * 9 / I2C_HZ * 1000:.1f} ms at 400 kHz)"
    )
    print(
        f"presses per card over {args.games} games: {card_presses / cards:.2f} ({card_presses} presses, {cards} plays)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        opened = VirtualDevice(Path(tmp))
        bus = opened.display.bus
        print(
            f"start-up display traffic (luma's init and clear, then the first frame): {bus.total_bytes} bytes, "
            f"{bus.i2c_bytes} on I2C in {bus.transfers} transfers "
            f"({bus.i2c_bytes * 9 / I2C_HZ * 1000:.1f} ms at 400 kHz)"
        )
        opened.close()

    bare, _ = seconds_to_ready([sys.executable, "-c", BARE_IMPORTS], args.start_runs)
    command = str(Path(sys.executable).with_name("companion"))
    first, said = seconds_to_ready([command, "run", "--mock", "--state-dir", "STATE"], args.start_runs)
    last_line = said.strip().splitlines()[-1] if said.strip() else "nothing"
    print(f"cold start to first frame of `companion run --mock` (spawn to READY=1): {first:.2f} s "
          f"vs bare imports {bare:.2f} s = {first / bare:.2f}x; on SIGTERM it said: {last_line}")

    used, rss = idle_figures(args.idle_seconds)
    print(
        f"idle: {used:.2f} CPU s over {args.idle_seconds:.0f} s ({used / args.idle_seconds:.2%}), "
        f"peak RSS {rss / 1024:.1f} MiB"
    )


if __name__ == "__main__":
    main()
