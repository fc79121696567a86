"""Pico keypad firmware: seven buttons, or a 4x4 matrix keypad, to the Raspberry Pi as protocol
lines on USB serial (keypad_pins.json's "MATRIX" picks the matrix).

All behaviour lives in keypad_core, which the host's tests run under CPython and MicroPython;
this file only wires the RP2040's pins, LED and USB serial to it. Ctrl-C still stops it, so
mpremote can take over the board to update these files.
"""

import select
import sys
import time

import keypad_core
from machine import Pin

PIN_MAP_FILE = "keypad_pins.json"
SCAN_PERIOD_MS = 2
ROW_SETTLE_US = 10


def load_pin_map():
    """Return ``(pin map, matrix pins, seat pins, warning)``: the file's pins, or the defaults
    (seven buttons, no seats) and why the file was not used. Matrix pins are None for buttons."""
    try:
        with open(PIN_MAP_FILE) as pin_file:
            text = pin_file.read()
    except OSError:
        return keypad_core.default_pin_map(), None, [], ""
    try:
        matrix = keypad_core.parse_matrix_pins(text)
        pin_map = keypad_core.parse_pin_map(text) if matrix is None else []
        return pin_map, matrix, keypad_core.parse_seat_pins(text), ""
    except ValueError as err:
        return keypad_core.default_pin_map(), None, [], PIN_MAP_FILE + " ignored: " + str(err)


def button_reader(pin_map):
    """Key names and a function reading each button: shorted to GND against the pull-up, pressed reads 0."""
    buttons = [Pin(gpio, Pin.IN, Pin.PULL_UP) for _name, gpio in pin_map]
    return [name for name, _gpio in pin_map], lambda: [button.value() == 0 for button in buttons]


def matrix_reader(matrix):
    """Key names and a function scanning the matrix: columns pulled up, one row at a time pulled low."""
    row_gpios, column_gpios = matrix
    rows = [Pin(gpio, Pin.IN) for gpio in row_gpios]
    columns = [Pin(gpio, Pin.IN, Pin.PULL_UP) for gpio in column_gpios]

    def select_row(index):
        for number, row in enumerate(rows):
            if number == index:
                row.init(Pin.OUT, value=0)
            else:
                row.init(Pin.IN)
        if index is not None:
            time.sleep_us(ROW_SETTLE_US)  # the membrane's lines charge through the pull-ups

    def read_columns():
        return [column.value() for column in columns]

    return list(keypad_core.MATRIX_KEY_NAMES), lambda: keypad_core.scan_matrix(select_row, read_columns, len(rows))


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
    pin_map, matrix, seat_pins, warning = load_pin_map()
    key_names, read_keys = button_reader(pin_map) if matrix is None else matrix_reader(matrix)
    seats = keypad_core.SeatInputs(len(seat_pins), time.ticks_diff)
    seat_inputs = watch_seats(seat_pins, seats)
    led = Pin("LED", Pin.OUT)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    firmware = keypad_core.KeypadFirmware(key_names, time.ticks_diff, time.ticks_ms(), warning)
    while True:
        now = time.ticks_ms()
        levels = read_keys()
        presses = seats.scan(now, [seat.value() == 0 for seat in seat_inputs])
        for line in firmware.step(now, levels, read_host(poller), presses):
            sys.stdout.write(line)
        led.value(firmware.led_on(now))
        time.sleep_ms(SCAN_PERIOD_MS)


main()
