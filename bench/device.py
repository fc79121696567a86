"""Device figures on this machine: latency, display bytes, start-up, idle CPU, memory, presses.

Run: python bench/device.py [--games 2] [--idle-seconds 30]. Prints figures; asserts nothing.

- press-to-frame: from the mock pin's release edge to the frame reaching the display driver,
  CPU time of our code path (the debouncer's settle time, 20 ms by design, is on top and stated);
- display-bus bytes per press against a full 1024-byte SSD1306 frame (the real driver class over
  a recording bus, with the page-diff writer);
- cold start to first frame of ``companion run --mock`` against a bare
  ``import luma.oled.device, gpiozero, PIL.Image`` (whole processes, median of several);
- idle CPU of ``companion run --mock`` over --idle-seconds, and its peak RSS;
- key presses per card over whole scripted games (the UI's key planner: what a person presses).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import SETTLE_FACTOR
from companion.sim import table_model
from companion.ui.planner import presses_for

FULL_FRAME = 1024


class TimedDevice(VirtualDevice):
    """A virtual device that times each press from the release edge to the driver's frame."""

    def __init__(self, state: Path, seed: int) -> None:
        super().__init__(state, seed=seed)
        self.latencies: list[float] = []
        self.journalled: list[bool] = []  # whether that press appended (and fsynced) an action
        self.bytes_per_press: list[int] = []
        self._frame_at: float | None = None
        show = self.display.display

        def timed_display(image: Any) -> None:
            show(image)
            self._frame_at = time.perf_counter()

        self.display.display = timed_display  # type: ignore[method-assign]

    def press(self, event: KeyEvent) -> None:
        settle = SETTLE_FACTOR * self.pad.pad.debounce_s
        pin = self.pad.pin(event.key)
        before = self.display.bus.total_bytes
        accepted = self.device.store.accepted
        pin.drive_low()
        self.time.sleep(self.pad.pad.hold_s + settle if event.long else settle)
        self._frame_at = None
        released = time.perf_counter()
        pin.drive_high()
        self.time.sleep(settle)
        self.device.loop.run_until_idle()
        if self._frame_at is not None:
            self.latencies.append(self._frame_at - released)
            self.journalled.append(self.device.store.accepted != accepted)
        self.bytes_per_press.append(self.display.bus.total_bytes - before)
        self.presses += 1
        self.pressed.append(event)


def play_games(games: int) -> tuple[TimedDevice, list[tuple[float, bool]], int, int]:
    """Whole 4-player games through the keys; returns the last device, (latency, journalled) per
    frame and the press counts."""
    latencies: list[tuple[float, bool]] = []
    card_presses = cards = 0
    dev = None
    for i in range(games):
        with tempfile.TemporaryDirectory() as tmp:
            dev = TimedDevice(Path(tmp), seed=i)
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
            latencies += zip(dev.latencies, dev.journalled)
            dev.close()
    assert dev is not None
    return dev, latencies, card_presses, cards


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def process_seconds(argv: list[str], runs: int) -> float:
    """Median wall time of whole processes, after one warm-up run that writes the bytecode caches
    an installed package has (pip compiles them at install time)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


FIRST_FRAME = """
import random, sys, tempfile
from pathlib import Path
from companion.daemon.app import Device
from companion.daemon.store import Store
from companion.hw.boards import load_board
from companion.hw.display import open_display, parse_display_args
board = load_board("adafruit-oled-bonnet")
display = open_display(parse_display_args([], board), recording=True)
with tempfile.TemporaryDirectory() as tmp:
    device = Device(Store(Path(tmp)), display, rng=random.Random(1))
    device.start()
    assert device.frames == 1
"""


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--start-runs", type=int, default=5)
    args = parser.parse_args()

    dev, frames, card_presses, cards = play_games(args.games)
    per_press = statistics.mean(dev.bytes_per_press)
    for label, chosen in [
        ("all", [t for t, _ in frames]),
        ("with a journal append (fsync)", [t for t, j in frames if j]),
        ("without", [t for t, j in frames if not j]),
    ]:
        print(
            f"press-to-frame, {label} ({len(chosen)} frames): p50 {percentile(chosen, 0.5) * 1000:.2f} ms, "
            f"p99 {percentile(chosen, 0.99) * 1000:.2f} ms (plus the 20 ms debounce settle by design)"
        )
    print(
        f"display bytes per press (last game, {len(dev.bytes_per_press)} presses): mean {per_press:.0f} "
        f"= {per_press / FULL_FRAME:.1%} of a {FULL_FRAME}-byte frame, p99 {percentile(dev.bytes_per_press, 0.99)}"
    )
    print(f"presses per card over {args.games} games: {card_presses / cards:.2f} ({card_presses} presses, {cards} plays)")

    bare = process_seconds([sys.executable, "-c", "import luma.oled.device, gpiozero, PIL.Image"], args.start_runs)
    first = process_seconds([sys.executable, "-c", FIRST_FRAME], args.start_runs)
    print(f"cold start to first frame: {first:.2f} s vs bare imports {bare:.2f} s = {first / bare:.2f}x")

    used, rss = idle_figures(args.idle_seconds)
    print(f"idle: {used:.2f} CPU s over {args.idle_seconds:.0f} s ({used / args.idle_seconds:.2%}), peak RSS {rss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
