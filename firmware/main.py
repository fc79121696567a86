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
    """Return ``(pin map, seat pins, warning)``: the file's pins, or the defaults (no seats) and
    why the file was not used."""
    try:
        with open(PIN_MAP_FILE) as pin_file:
            text = pin_file.read()
    except OSError:
        return keypad_core.default_pin_map(), [], ""
    try:
        return keypad_core.parse_pin_map(text), keypad_core.parse_seat_pins(text), ""
    except ValueError as err:
        return keypad_core.default_pin_map(), [], PIN_MAP_FILE + " ignored: " + str(err)


def read_host(poller):
    """Whatever the host has sent since the last scan, without blocking."""
    received = ""
    while poller.poll(0):
        received += sys.stdin.read(1)
    return received


def watch_seats(seat_pins, seats):
    """Quiz buzzers: a hard interrupt per seat input stamps each falling edge with ticks_us."""
    inputs = []
    for index, gpio in enumerate(seat_pins):
        pin = Pin(gpio, Pin.IN, Pin.PULL_UP)
        pin.irq(lambda _pin, seat=index: seats.edge(seat, time.ticks_us()), Pin.IRQ_FALLING, hard=True)
        inputs.append(pin)
    return inputs


def main():
    pin_map, seat_pins, warning = load_pin_map()
    buttons = [Pin(gpio, Pin.IN, Pin.PULL_UP) for _name, gpio in pin_map]
    seats = keypad_core.SeatInputs(len(seat_pins), time.ticks_diff)
    seat_inputs = watch_seats(seat_pins, seats)
    led = Pin("LED", Pin.OUT)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    firmware = keypad_core.KeypadFirmware(
        [name for name, _gpio in pin_map], time.ticks_diff, time.ticks_ms(), warning)
    while True:
        now = time.ticks_ms()
        # Buttons short the pin to GND against the internal pull-up: pressed reads 0.
        levels = [button.value() == 0 for button in buttons]
        presses = seats.scan(now, [seat.value() == 0 for seat in seat_inputs])
        for line in firmware.step(now, levels, read_host(poller), presses):
            sys.stdout.write(line)
        led.value(firmware.led_on(now))
        time.sleep_ms(SCAN_PERIOD_MS)


main()
