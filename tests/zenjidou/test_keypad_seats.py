"""The Pico keypad's quiz-buzzer inputs: interrupt-stamped presses, framed, read by the host,
ordered by their stamps across the clock's wrap; the same on MicroPython as on CPython."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from companion.hw.buzzers import BuzzerArbiter, KeypadBuzzers, Verdict
from companion.hw.serial_keypad import KeypadLineParser, SeatPress

SCENARIO = Path(__file__).with_name("keypad_seats_scenario.py")
FIRMWARE = Path(__file__).parents[2] / "firmware"


def run(interpreter: str) -> str:
    done = subprocess.run([interpreter, str(SCENARIO), str(FIRMWARE)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def frames(section: str) -> list[str]:
    return [ast.literal_eval(line.split(" ", 1)[1]) for line in section.strip().splitlines()]


def test_presses_bounces_and_release_bounces_become_one_frame_each_and_the_host_orders_them() -> None:
    from_boot, wrapped, pins = run(sys.executable).split("--\n")
    wire = "".join(frames(from_boot)).replace("\n", "\r\n").encode()
    presses = KeypadLineParser().feed(wire)
    assert presses == [SeatPress(0, 100301), SeatPress(2, 100300), SeatPress(1, 300000), SeatPress(2, 400000)]
    for section in (from_boot, wrapped):
        arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.01)
        arbiter.arm(now=0.0)
        buzzers = KeypadBuzzers(arbiter, clock=lambda: 0.0)
        results = KeypadLineParser().feed("".join(frames(section)).encode())
        for press in results[:2]:
            buzzers(press)
        assert arbiter.verdict(now=1.0) == Verdict("tie", (0, 2))  # 1 us apart: too close to order
        arbiter.rule_out(0)
        assert arbiter.verdict(now=1.0) == Verdict("first", (2,))
    assert "ValueError: seat 2 and OK are both on GP6" in pins


def test_micropython_runs_the_seat_inputs_exactly_as_cpython_does(micropython: str) -> None:
    """``micropython`` (tests/conftest.py) skips, saying why, where the unix port has no wheel."""
    assert run(micropython) == run(sys.executable)
