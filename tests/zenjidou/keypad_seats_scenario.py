"""A fixed workout of the keypad's quiz-buzzer inputs that prints what the keypad sends.

Run as ``python keypad_seats_scenario.py FIRMWARE_DIR`` under CPython and under MicroPython's unix
port: test_keypad_seats.py checks both print the same. Only MicroPython-safe Python here.
"""

import sys

TICKS_PERIOD = 1 << 30
SCAN_MS = 2


def ticks_diff(end, start):
    half = TICKS_PERIOD // 2
    return ((end - start + half) % TICKS_PERIOD) - half


# (microseconds into the workout, seat) of every falling edge the interrupt sees
EDGES = [(100300, 2), (100301, 0), (100500, 2), (100900, 2),   # two presses 1 us apart, bounces
         (151000, 2), (152000, 2),                             # seat 3's release bounce
         (300000, 1), (400000, 2)]                             # seat 2; seat 3 again, re-armed


def held(seat, elapsed_ms):
    """Whether ``seat``'s button is down ``elapsed_ms`` into the workout."""
    if seat == 2:
        return 100 <= elapsed_ms < 150 or 400 <= elapsed_ms < 450
    if seat == 0:
        return 100 <= elapsed_ms < 120
    return 300 <= elapsed_ms < 330


def run(keypad_core, start_ms, start_us):
    firmware = keypad_core.KeypadFirmware(keypad_core.KEY_NAMES, ticks_diff, start_ms)
    seats = keypad_core.SeatInputs(3, ticks_diff)
    keys_up = [False] * len(keypad_core.KEY_NAMES)
    edges = list(EDGES)
    for elapsed in range(0, 600, SCAN_MS):
        while edges and edges[0][0] < elapsed * 1000:
            micros, seat = edges.pop(0)
            seats.edge(seat, (start_us + micros) % TICKS_PERIOD)
        now = (start_ms + elapsed) % TICKS_PERIOD
        presses = seats.scan(now, [held(seat, elapsed) for seat in range(3)])
        for line in firmware.step(now, keys_up, "", presses):
            if not line.startswith("$H"):
                print(elapsed, repr(line))


def main():
    sys.path.insert(0, sys.argv[1])
    import keypad_core

    run(keypad_core, 0, 0)
    print("--")
    run(keypad_core, TICKS_PERIOD - 100, TICKS_PERIOD - 100400)  # both clocks wrap mid-workout
    print("--")
    for text in ('{"SEATS": [10, 11]}', '{"SEATS": [10, 6]}', '{"SEATS": [10, 10]}', '{"SEATS": 10}',
                 '{"SEATS": [30]}'):
        try:
            print(repr(text), keypad_core.parse_seat_pins(text))
        except ValueError as err:
            print(repr(text), "ValueError:", err)


if __name__ == "__main__":
    main()
