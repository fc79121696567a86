"""hardware/pico-keypad.md must agree with the firmware and the host reader it documents."""

import re
from pathlib import Path

import keypad_core

from companion.hw import serial_keypad
from companion.hw.keys import KeyEvent
from companion.hw.serial_keypad import KeypadLineParser, Problem, SeatPress

DOC = (Path(keypad_core.__file__).parents[1] / "hardware" / "pico-keypad.md").read_text(
    encoding="utf-8")
# Pico pins 1-20 down the left header row, USB at the top.
LEFT_ROW = ["GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7", "GP8", "GP9",
            "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15"]


def table(name: str) -> list[list[str]]:
    """The rows of the marked table ``name``, header and rule left out."""
    match = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", DOC, re.S)
    assert match is not None, f"hardware/pico-keypad.md lost its {name} table"
    lines = match[1].strip().splitlines()[2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


def test_the_wiring_table_is_the_firmwares_default_pin_map_on_the_real_header() -> None:
    rows = table("pico-wiring")
    assert [(key, int(gp.removeprefix("GP"))) for key, gp, _pin, _ground in rows] == (
        keypad_core.default_pin_map())
    for _key, gp, pin, ground in rows:
        assert LEFT_ROW[int(pin) - 1] == gp
        ground_pin = int(re.fullmatch(r"GND \(pin (\d+)\)", ground)[1])
        assert LEFT_ROW[ground_pin - 1] == "GND"


def test_the_timing_table_states_the_constants_in_the_code() -> None:
    documented = {what: value for what, value in table("pico-timing")}
    assert documented == {
        "scan period": "2 ms",
        "debounce: a level must hold this long to count": f"{keypad_core.DEBOUNCE_MS} ms",
        "long press: fires while held, this long after the press settled":
            f"{keypad_core.LONG_PRESS_MS} ms",
        "heartbeat: sent when no other line went out for": f"{keypad_core.HEARTBEAT_MS} ms",
        "LED flash per line sent": f"{keypad_core.BLINK_MS} ms",
        "host reports a silent keypad after": f"{3 * serial_keypad.HEARTBEAT_S:g} s",
        "host repeats an unanswered hello request every": f"{serial_keypad.HELLO_RETRY_S:g} s",
    }
    main_py = (Path(keypad_core.__file__).parent / "main.py").read_text(encoding="utf-8")
    assert "SCAN_PERIOD_MS = 2\n" in main_py


def test_every_frame_shown_in_the_doc_is_one_the_firmware_would_send() -> None:
    shown = re.findall(r"`(\$[^`]*\*[0-9A-F]{4})`", DOC)
    assert len(shown) >= 5
    for line in shown:
        payload = line[1:line.index("*")]
        assert keypad_core.frame(payload) == line + "\n"
        results = KeypadLineParser().feed((line + "\r\n").encode())
        assert all(isinstance(result, (KeyEvent, SeatPress)) or result.message.startswith("keypad reports")
                   for result in results)


def test_the_longest_error_frame_fits_the_readers_limit_even_with_crlf() -> None:
    firmware = keypad_core.KeypadFirmware(["OK"], lambda end, start: end - start, 0, "x" * 500)
    lines = firmware.step(0, [False], host_input="?\n" * 127)  # the last E frame has seq 255
    assert lines[-1].startswith("$E 255 ")
    assert max(len(line) for line in lines) == keypad_core.MAX_FRAME_BYTES
    wire = "".join(lines).replace("\n", "\r\n").encode()
    assert KeypadLineParser().feed(wire) == [
        Problem("keypad reports: " + "x" * keypad_core.ERROR_TEXT_LIMIT)] * 128


def test_the_card_keypad_table_is_the_firmwares_default_matrix_on_the_real_header() -> None:
    rows = table("card-wiring")
    assert [int(keypad_pin) for keypad_pin, *_ in rows] == list(range(1, 9))
    gpios = [int(gp.removeprefix("GP")) for _pin, _line, gp, _pico in rows]
    assert gpios == keypad_core.DEFAULT_MATRIX["ROWS"] + keypad_core.DEFAULT_MATRIX["COLS"]
    for _pin, _line, gp, pico_pin in rows:
        assert LEFT_ROW[int(pico_pin) - 1] == gp
    names = [name.removeprefix("N").replace("STAR", "*").replace("HASH", "#") for name in keypad_core.MATRIX_KEY_NAMES]
    for index, (_pin, line, _gp, _pico) in enumerate(rows):
        keys = names[index * 4:index * 4 + 4] if index < 4 else names[index - 4::4]
        assert line.endswith(f"({' '.join(keys)})")
