"""Pico keypad firmware: seven buttons to the Raspberry Pi as protocol lines on USB serial.

All behaviour lives in keypad_core, which the host's tests run under CPython and MicroPython;
this file only wires the RP2040's pins, LED and USB serial to it. Ctrl-C still stops it, so
mpremote can take over the board to update these files.
"""

import select
import sys
import time

from machine import Pin

import keypad_core

PIN_MAP_FILE = "keypad_pins.json"
SCAN_PERIOD_MS = 2


def load_pin_map():
    """Return ``(pin map, warning)``: the file's pins, or the defaults and why it was not used."""
    try:
        with open(PIN_MAP_FILE) as pin_file:
            text = pin_file.read()
    except OSError:
        return keypad_core.default_pin_map(), ""
    try:
        return keypad_core.parse_pin_map(text), ""
    except ValueError as err:
        return keypad_core.default_pin_map(), PIN_MAP_FILE + " ignored: " + str(err)


def read_host(poller):
    """Whatever the host has sent since the last scan, without blocking."""
    received = ""
    while poller.poll(0):
        received += sys.stdin.read(1)
    return received


def main():
    pin_map, warning = load_pin_map()
    buttons = [Pin(gpio, Pin.IN, Pin.PULL_UP) for _name, gpio in pin_map]
    led = Pin("LED", Pin.OUT)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    firmware = keypad_core.KeypadFirmware(
        [name for name, _gpio in pin_map], time.ticks_diff, time.ticks_ms(), warning)
    while True:
        now = time.ticks_ms()
        # Buttons short the pin to GND against the internal pull-up: pressed reads 0.
        levels = [button.value() == 0 for button in buttons]
        for line in firmware.step(now, levels, read_host(poller)):
            sys.stdout.write(line)
        led.value(firmware.led_on(now))
        time.sleep_ms(SCAN_PERIOD_MS)


main()
