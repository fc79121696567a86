"""firmware/main.py run under CPython on a fake RP2040: fake pins, tick clock and USB serial.

It checks the wiring main.py owns: pull-ups, active-low reading, the pin map file, the host's
``?`` and the LED; the logic behind it is tested in test_keypad_core.py.
"""

import io
import runpy
import sys
import types
from pathlib import Path

import keypad_core
import pytest
from keypad_core import frame

MAIN_PY = Path(keypad_core.__file__).parent / "main.py"


class PowerOff(Exception):
    """Raised by the fake sleep to end main.py's endless scan loop."""


class FakeBoard:
    """A Pico whose GPIOs are driven by a script of (from ms, to ms, GP number) presses."""

    def __init__(self, presses: list[tuple[int, int, int]], host_input: dict[int, str],
                 run_ms: int) -> None:
        self.now = 0
        self.presses = presses
        self.host_input = host_input
        self.run_ms = run_ms
        self.stdin = ""
        self.pins: dict[object, FakeBoard.Pin] = {}
        self.led_levels: list[tuple[int, bool]] = []

    def is_low(self, gpio: object) -> bool:
        return any(start <= self.now < end and gpio == pressed
                   for start, end, pressed in self.presses)

    def sleep_ms(self, duration: int) -> None:
        self.now += duration
        self.stdin += self.host_input.pop(self.now, "")
        if self.now >= self.run_ms:
            raise PowerOff

    def modules(self) -> dict[str, types.ModuleType]:
        """The MicroPython modules main.py imports, backed by this board."""
        board = self

        class Pin:
            IN, OUT, PULL_UP = "IN", "OUT", "PULL_UP"

            def __init__(self, gpio: object, mode: str, pull: str | None = None) -> None:
                self.gpio, self.mode, self.pull = gpio, mode, pull
                board.pins[gpio] = self

            def value(self, level: object = None) -> int | None:
                if level is None:
                    return 0 if board.is_low(self.gpio) and self.pull == Pin.PULL_UP else 1
                board.led_levels.append((board.now, bool(level)))
                return None

        class Poll:
            def register(self, stream: object, _events: int) -> None:
                self.stream = stream

            def poll(self, _timeout: int) -> list[tuple[object, int]]:
                return [(self.stream, 1)] if board.stdin else []

        machine = types.ModuleType("machine")
        machine.Pin = Pin
        select = types.ModuleType("select")
        select.poll, select.POLLIN = Poll, 1
        clock = types.ModuleType("time")
        clock.ticks_ms = lambda: board.now
        clock.ticks_diff = lambda end, start: end - start
        clock.sleep_ms = self.sleep_ms
        return {"machine": machine, "select": select, "time": clock}

    def read(self, count: int) -> str:
        received, self.stdin = self.stdin[:count], self.stdin[count:]
        return received


def run_main(monkeypatch: pytest.MonkeyPatch, board: FakeBoard) -> list[str]:
    """Boot main.py on ``board`` until it powers off; returns the lines it wrote."""
    for name, module in board.modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stdin", board)
    with pytest.raises(PowerOff):
        runpy.run_path(str(MAIN_PY), run_name="__main__")
    return stdout.getvalue().splitlines(keepends=True)


@pytest.fixture
def in_tmp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The Pico's filesystem root: main.py opens keypad_pins.json relative to it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_default_pins_short_and_long_presses_and_the_hello_on_request(
        monkeypatch: pytest.MonkeyPatch, in_tmp_dir: Path) -> None:
    ok, aux = keypad_core.DEFAULT_PINS["OK"], keypad_core.DEFAULT_PINS["AUX"]
    board = FakeBoard(presses=[(1000, 1100, ok), (2000, 3000, aux)], host_input={500: "?\n"},
                      run_ms=3500)
    lines = run_main(monkeypatch, board)
    assert lines == [frame("H 0 2"), frame("H 1 2"), frame("K 2 OK P"), frame("K 3 AUX L")]
    buttons = [pin for gpio, pin in board.pins.items() if gpio != "LED"]
    assert sorted(pin.gpio for pin in buttons) == sorted(keypad_core.DEFAULT_PINS.values())
    assert all((pin.mode, pin.pull) == ("IN", "PULL_UP") for pin in buttons)
    assert board.pins["LED"].mode == "OUT"


def test_the_led_blinks_when_a_line_goes_out(
        monkeypatch: pytest.MonkeyPatch, in_tmp_dir: Path) -> None:
    board = FakeBoard(presses=[], host_input={}, run_ms=1000)
    run_main(monkeypatch, board)
    lit = [at for at, level in board.led_levels if level]
    assert lit and lit[0] == 0 and lit[-1] < keypad_core.BLINK_MS
    assert board.led_levels[-1][1] is False


def test_the_pin_map_file_moves_a_key(monkeypatch: pytest.MonkeyPatch, in_tmp_dir: Path) -> None:
    (in_tmp_dir / "keypad_pins.json").write_text('{"OK": 20}', encoding="utf-8")
    default_ok = keypad_core.DEFAULT_PINS["OK"]
    board = FakeBoard(presses=[(100, 200, default_ok), (300, 400, 20)], host_input={}, run_ms=600)
    assert run_main(monkeypatch, board) == [frame("H 0 2"), frame("K 1 OK P")]
    assert default_ok not in board.pins


def test_a_broken_pin_map_file_falls_back_to_the_defaults_and_says_why(
        monkeypatch: pytest.MonkeyPatch, in_tmp_dir: Path) -> None:
    (in_tmp_dir / "keypad_pins.json").write_text('{"OK": 25}', encoding="utf-8")
    ok = keypad_core.DEFAULT_PINS["OK"]
    board = FakeBoard(presses=[(100, 200, ok)], host_input={}, run_ms=400)
    assert run_main(monkeypatch, board) == [
        frame("H 0 2"),
        frame("E 1 keypad_pins.json ignored: OK: 25 is not a free GP number (0-22, 26-28)"),
        frame("K 2 OK P"),
    ]


class MatrixBoard(FakeBoard):
    """A Pico with a 4x4 matrix keypad: a held key joins its column to its row, and a column
    reads low only while main.py pulls that key's row low."""

    def is_low(self, gpio: object) -> bool:
        return any(start <= self.now < end and gpio == column and self.pulled_low(row)
                   for start, end, (row, column) in self.presses)  # type: ignore[misc]

    def pulled_low(self, gpio: object) -> bool:
        pin = self.pins.get(gpio)
        return pin is not None and pin.mode == "OUT" and pin.level == 0

    def modules(self) -> dict[str, types.ModuleType]:
        modules = super().modules()
        base = modules["machine"].Pin

        class Pin(base):  # type: ignore[misc, valid-type]
            level = 1

            def init(self, mode: str, value: int = 1) -> None:
                self.mode, self.level = mode, value

        modules["machine"].Pin = Pin
        modules["time"].sleep_us = lambda _duration: None
        return modules


def test_the_matrix_layout_scans_rows_and_sends_the_card_keys(
        monkeypatch: pytest.MonkeyPatch, in_tmp_dir: Path) -> None:
    (in_tmp_dir / "keypad_pins.json").write_text('{"MATRIX": true}', encoding="utf-8")
    rows, columns = keypad_core.DEFAULT_MATRIX["ROWS"], keypad_core.DEFAULT_MATRIX["COLS"]
    six, hash_key, d_key = (rows[1], columns[2]), (rows[3], columns[2]), (rows[3], columns[3])
    board = MatrixBoard(presses=[(100, 200, six), (300, 1300, hash_key), (1400, 1500, d_key),
                                 (1400, 1500, six)], host_input={}, run_ms=1700)
    assert run_main(monkeypatch, board) == [frame("H 0 2"), frame("K 1 N6 P"), frame("K 2 HASH L"),
                                            frame("K 3 N6 P"), frame("K 4 D P")]
    assert all(board.pins[gpio].pull == "PULL_UP" for gpio in columns)
    assert all(board.pins[gpio].mode == "IN" for gpio in rows)  # every row floats between scans
