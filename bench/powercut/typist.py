#!/usr/bin/python3
"""Types a whole game on a virtual numeric keypad in the power-cut VM: ``typist.py KEYS GO``.

Makes a uinput keyboard with the numeric keypad's keys (python-evdev, the guest's python3-evdev),
waits until the file GO exists (the bench creates it once the device has taken the keypad), then
presses each ``CODE HELD`` line of KEYS (tests/powercut/checks.py ``numpad_script``): key down,
held 1.5 s when HELD is 1, else 0.05 s, key up, then a pause. Standard library and evdev only: it
runs on the guest's own python3, outside the device's virtualenv.
"""

import os
import sys
import time

import evdev

HELD_S = 1.5  # past the device's hold time, with room for an emulated CPU's lateness
TAP_S = 0.05
PAUSE_S = 0.25  # between presses: the device shows each entry before the next is asked
# the 17 keys printed on a numeric keypad, as a real one reports them (the device's `auto` looks for the digits)
PRINTED = [*(f"KEY_KP{digit}" for digit in range(10)), "KEY_KPSLASH", "KEY_KPASTERISK", "KEY_KPMINUS", "KEY_KPPLUS",
           "KEY_KPENTER", "KEY_BACKSPACE", "KEY_KPDOT"]


def main(keys_path: str, go_path: str) -> None:
    with open(keys_path, encoding="ascii") as lines:
        presses = [tuple(int(word) for word in line.split()) for line in lines if line.strip()]
    codes = sorted({code for code, _ in presses} | {getattr(evdev.ecodes, name) for name in PRINTED})
    with evdev.UInput({evdev.ecodes.EV_KEY: codes}, name="powercut numeric keypad") as keypad:
        print(f"typist: {keypad.device.path}, {len(presses)} presses to type", flush=True)
        while not os.path.exists(go_path):
            time.sleep(0.2)
        for number, (code, held) in enumerate(presses, start=1):
            keypad.write(evdev.ecodes.EV_KEY, code, 1)
            keypad.syn()
            time.sleep(HELD_S if held else TAP_S)
            keypad.write(evdev.ecodes.EV_KEY, code, 0)
            keypad.syn()
            time.sleep(PAUSE_S)
            if number % 100 == 0:
                print(f"typist: {number} typed", flush=True)
        print("typist: done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
