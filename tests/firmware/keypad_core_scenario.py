"""A fixed workout of keypad_core that prints what it sends, for comparing two Python runtimes.

Run as ``python keypad_core_scenario.py FIRMWARE_DIR`` under CPython and under MicroPython's
unix port: test_keypad_micropython.py checks both print the same, so the module the Pico runs
behaves as the CPython tests say. Only MicroPython-safe Python here too.
"""

import sys

TICKS_PERIOD = 1 << 30
SCAN_MS = 2


def ticks_diff(end, start):
    half = TICKS_PERIOD // 2
    return ((end - start + half) % TICKS_PERIOD) - half


def pressed_keys(elapsed):
    """Which keys are held ``elapsed`` ms into the workout: taps, chatter, holds, two at once."""
    held = []
    if 100 <= elapsed < 200 or elapsed in (90, 94):
        held.append("UP")
    if 300 <= elapsed < 1400:
        held.append("OK")
    if 1500 <= elapsed < 1600 or elapsed in (1602, 1606):
        held.append("AUX")
    if 1500 <= elapsed < 1600:
        held.append("LEFT")
    return held


def run_firmware(keypad_core, start):
    firmware = keypad_core.KeypadFirmware(
        keypad_core.KEY_NAMES, ticks_diff, start, "pins $ ignored: * \u00e9")
    for elapsed in range(0, 6000, SCAN_MS):
        now = (start + elapsed) % TICKS_PERIOD
        held = pressed_keys(elapsed)
        levels = [name in held for name in keypad_core.KEY_NAMES]
        host_input = "?AB12\n" if elapsed == 1000 else ""
        for line in firmware.step(now, levels, host_input):
            print(elapsed, repr(line), firmware.led_on(now))


def parse_pin_maps(keypad_core):
    for text in ('{"AUX": 15}', '{"OK": 2}', '{"OK": 25}', '{"ok": 3}', '[1]', '{', '{"OK": true}'):
        try:
            print(repr(text), keypad_core.parse_pin_map(text))
        except ValueError as err:
            print(repr(text), "ValueError:", err)


def scan_matrices(keypad_core):
    """The matrix scan with keys held (one, two in a column, a whole row), then its pin maps."""
    for held in ([(0, 0)], [(1, 2), (2, 2)], [(3, c) for c in range(4)]):
        selected = []

        def read_columns(held=held, selected=selected):
            return [0 if (selected[-1], column) in held else 1 for column in range(4)]

        levels = keypad_core.scan_matrix(selected.append, read_columns, 4)
        print([name for name, level in zip(keypad_core.MATRIX_KEY_NAMES, levels) if level], selected)
    for text in ('{"MATRIX": true}', '{"MATRIX": {"ROWS": [10, 11, 12, 13]}}', '{"MATRIX": {"COLS": [6, 7]}}',
                 '{"MATRIX": {"ROWS": [2, 3, 4, 6]}}', '{"MATRIX": 1}', '{"MATRIX": true, "SEATS": [9]}'):
        try:
            print(repr(text), keypad_core.parse_matrix_pins(text), keypad_core.parse_seat_pins(text))
        except ValueError as err:
            print(repr(text), "ValueError:", err)


def main():
    sys.path.insert(0, sys.argv[1])
    import keypad_core

    print(keypad_core.checksum("123456789"), repr(keypad_core.frame("B 7")))
    print("--")
    run_firmware(keypad_core, 0)
    print("--")
    run_firmware(keypad_core, TICKS_PERIOD - 1000)
    print("--")
    parse_pin_maps(keypad_core)
    scan_matrices(keypad_core)


if __name__ == "__main__":
    main()
