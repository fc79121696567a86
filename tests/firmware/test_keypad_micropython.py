"""keypad_core must behave on MicroPython (what the Pico runs) as on CPython (what we test)."""

import os
import subprocess
import sys
from pathlib import Path

import keypad_core

SCENARIO = Path(__file__).with_name("keypad_core_scenario.py")
FIRMWARE_DIR = Path(keypad_core.__file__).parent


def run_scenario(interpreter: list[str]) -> str:
    completed = subprocess.run(
        [*interpreter, str(SCENARIO), str(FIRMWARE_DIR)], capture_output=True, text=True,
        timeout=120, check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_the_scenario_exercises_every_kind_of_line_under_cpython() -> None:
    framing, from_boot, across_tick_wrap, pin_maps = run_scenario([sys.executable]).split("--\n")
    assert framing == "29B1 '$B 7*FF03\\n'\n"
    assert from_boot == across_tick_wrap
    for expected in ("'$H 0 2*", "'$E 1 pins ? ignored: ? ?*", "'$K 2 UP P*", "'$H 3 2 AB12*",
                     "'$E 4 pins ? ignored: ? ?*", "'$K 5 OK L*", "'$K 6 LEFT P*", "'$K 7 AUX P*",
                     "'$B 8*"):
        assert expected in from_boot
    assert "ValueError: UP and OK are both on GP2" in pin_maps
    assert "['N1'] [0, 1, 2, 3, None]" in pin_maps
    assert "['N6', 'N9'] [0, 1, 2, 3, None]" in pin_maps
    assert "['STAR', 'N0', 'HASH', 'D'] [0, 1, 2, 3, None]" in pin_maps
    assert "ValueError: row 4 and column 1 are both on GP6" in pin_maps
    assert "ValueError: MATRIX COLS must list 4 GP numbers" in pin_maps
    assert "ValueError: seat 1 and column 4 are both on GP9" in pin_maps


def test_micropython_runs_keypad_core_exactly_as_cpython_does(micropython: str) -> None:
    assert run_scenario([micropython]) == run_scenario([sys.executable])


def test_micropython_compiles_main_py(micropython: str) -> None:
    """main.py needs the Pico's machine module to run, but its syntax can be checked here."""
    source = (FIRMWARE_DIR / "main.py").read_text(encoding="utf-8")
    completed = subprocess.run(
        [micropython, "-c", "import sys; compile(sys.stdin.read(), 'main.py', 'exec')"],
        input=source, capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stderr
