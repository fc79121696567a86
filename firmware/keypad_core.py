"""Pure logic of the Pico keypad: debounce, long press, line framing, the pin map and the matrix scan.

Two layouts: seven buttons, one GP pin each (the joystick's keys), or a 4x4 matrix membrane
keypad (the card keypad: digits, A-D, * and #) on four row and four column pins. Both send the
same lines; only the key names differ.

It runs unchanged on MicroPython (RP2040) and on CPython, so the tests under tests/firmware
check the very code that ships: no f-strings, no dataclasses, no typing imports. Time comes
in as integer millisecond ticks together with a ``ticks_diff`` function; the firmware passes
``time.ticks_diff``, which stays right when the tick counter wraps, and tests pass a fake.
The wire protocol is specified in hardware/pico-keypad.md.

>>> firmware = KeypadFirmware(["OK"], lambda a, b: a - b, 0)
>>> firmware.step(0, [False])            # the boot hello
['$H 0 2*E055\\n']
>>> firmware.step(5, [True]), firmware.step(25, [True]), firmware.step(90, [False])
([], [], [])
>>> firmware.step(110, [False])          # the release has settled: one short press of OK
['$K 1 OK P*1612\\n']
"""

import json

PROTOCOL_VERSION = 2  # 2: a CRC-16 in four hex digits (1 had a two-digit XOR)
KEY_NAMES = ("UP", "DOWN", "LEFT", "RIGHT", "OK", "BACK", "AUX")
DEFAULT_PINS = {"UP": 2, "DOWN": 3, "LEFT": 4, "RIGHT": 5, "OK": 6, "BACK": 7, "AUX": 8}
# the 4x4 matrix as printed, row by row (R1 = 1 2 3 A ... R4 = * 0 # D); "*" and "#" would break
# a line's framing, so they are sent as STAR and HASH, and a digit d as Nd
MATRIX_KEY_NAMES = ("N1", "N2", "N3", "A", "N4", "N5", "N6", "B",
                    "N7", "N8", "N9", "C", "STAR", "N0", "HASH", "D")
MATRIX_SIZE = 4
DEFAULT_MATRIX = {"ROWS": [2, 3, 4, 5], "COLS": [6, 7, 8, 9]}
# GP23-GP25 and GP29 drive the power supply, VBUS sense, LED and VSYS sense (on the Pico W,
# the radio), and are not on the header.
FREE_GPIOS = tuple(range(0, 23)) + (26, 27, 28)

DEBOUNCE_MS = 20
LONG_PRESS_MS = 800
HEARTBEAT_MS = 2000
BLINK_MS = 40
SEQ_MODULO = 256
MAX_FRAME_BYTES = 120
ERROR_TEXT_LIMIT = MAX_FRAME_BYTES - len("$E 255 *0000\n")

SHORT = "P"
LONG = "L"
MAX_SEATS = 6  # quiz buzzers: one input per seat, in keypad_pins.json as "SEATS": [GP, ...]
HELLO_REQUEST = "?"
TOKEN_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_TOKEN_CHARS = 8
MAX_REQUEST_CHARS = 32


def checksum(payload):
    """CRC-16/CCITT-FALSE of the payload (polynomial 0x1021, start 0xFFFF) as four upper-case
    hex digits.

    An XOR checksum misses two flipped bits in the same bit position, so a crafted 3-byte
    change turned UP into OK; this CRC catches every error of up to three bits in a frame, any
    odd number of flipped bits and every burst up to 16 bits long. Payloads are ASCII.

    >>> checksum("123456789")  # the CRC catalogue's check value
    '29B1'
    """
    crc = 0xFFFF
    for char in payload:
        crc ^= ord(char) << 8
        for _bit in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return "%04X" % crc


def frame(payload):
    """One protocol line: ``$`` + payload + ``*`` + checksum + newline.

    >>> frame("B 7")
    '$B 7*FF03\\n'
    """
    return "$" + payload + "*" + checksum(payload) + "\n"


def printable(text, limit):
    """``text`` cut to ``limit`` characters with anything that could break framing replaced.

    >>> printable("bad $ and * and \\u00e9", 40)
    'bad ? and ? and ?'
    """
    safe = ""
    for char in text[:limit]:
        safe += char if " " <= char <= "~" and char not in "$*" else "?"
    return safe


def default_pin_map():
    """The default wiring as ``[(key name, GP number), ...]`` in key order."""
    return [(name, DEFAULT_PINS[name]) for name in KEY_NAMES]


def read_object(text, example):
    """keypad_pins.json's text as a dict, or ValueError saying what is wrong with it."""
    try:
        found = json.loads(text)
    except ValueError:
        raise ValueError("not valid JSON") from None
    if not isinstance(found, dict):
        raise ValueError("must be a JSON object like " + example)
    return found


def parse_pin_map(text):
    """Read keypad_pins.json: ``{"KEY": GP number, ...}`` over the defaults.

    Keys left out keep their default pin. Returns ``[(key name, GP number), ...]`` in key
    order; raises ValueError naming the first fault, so the firmware can say why it fell
    back to the defaults.

    >>> parse_pin_map('{"AUX": 15}')[-1]
    ('AUX', 15)
    >>> parse_pin_map('{"OK": 2}')
    Traceback (most recent call last):
    ...
    ValueError: UP and OK are both on GP2
    """
    overrides = read_object(text, '{"UP": 2}')
    pins = dict(DEFAULT_PINS)
    for name, gpio in overrides.items():
        if name in ("SEATS", "MATRIX"):  # the quiz buzzers and the card keypad: parse_* below
            continue
        if name not in KEY_NAMES:
            raise ValueError("unknown key %r; keys are %s" % (name, " ".join(KEY_NAMES)))
        if type(gpio) is not int or gpio not in FREE_GPIOS:
            raise ValueError("%s: %r is not a free GP number (0-22, 26-28)" % (name, gpio))
        pins[name] = gpio
    owner_of = {}
    for name in KEY_NAMES:
        gpio = pins[name]
        if gpio in owner_of:
            raise ValueError("%s and %s are both on GP%d" % (owner_of[gpio], name, gpio))
        owner_of[gpio] = name
    return [(name, pins[name]) for name in KEY_NAMES]


def parse_seat_pins(text):
    """The quiz buzzers' pins from keypad_pins.json: ``"SEATS": [GP, ...]``, seat 1 first.

    Absent means none. Each must be a free GP number not used by a key or another seat.

    >>> parse_seat_pins('{"SEATS": [10, 11, 12]}')
    [10, 11, 12]
    >>> parse_seat_pins('{"SEATS": [10, 6]}')
    Traceback (most recent call last):
    ...
    ValueError: seat 2 and OK are both on GP6
    """
    overrides = read_object(text, '{"SEATS": [10, 11]}')
    seats = overrides.get("SEATS", [])
    if not isinstance(seats, list) or len(seats) > MAX_SEATS:
        raise ValueError("SEATS must list at most %d GP numbers" % MAX_SEATS)
    owner_of = {}
    matrix = parse_matrix_pins(text)
    if matrix is None:
        for name, gpio in parse_pin_map(text):
            owner_of[gpio] = name
    else:
        for index, gpio in enumerate(matrix[0]):
            owner_of[gpio] = "row %d" % (index + 1)
        for index, gpio in enumerate(matrix[1]):
            owner_of[gpio] = "column %d" % (index + 1)
    for index, gpio in enumerate(seats):
        if type(gpio) is not int or gpio not in FREE_GPIOS:
            raise ValueError("seat %d: %r is not a free GP number (0-22, 26-28)" % (index + 1, gpio))
        if gpio in owner_of:
            raise ValueError("seat %d and %s are both on GP%d" % (index + 1, owner_of[gpio], gpio))
        owner_of[gpio] = "seat %d" % (index + 1)
    return seats


def parse_matrix_pins(text):
    """The card keypad's pins from keypad_pins.json: ``"MATRIX": {"ROWS": [4 GP], "COLS": [4 GP]}``
    (``"MATRIX": true`` for the default pins); None when the file names no matrix.

    Returns ``(row GPs, column GPs)``, R1 and C1 first.

    >>> parse_matrix_pins('{"MATRIX": true}')
    ([2, 3, 4, 5], [6, 7, 8, 9])
    >>> parse_matrix_pins('{"MATRIX": {"ROWS": [10, 11, 12, 13]}}')
    ([10, 11, 12, 13], [6, 7, 8, 9])
    >>> parse_matrix_pins('{"MATRIX": {"COLS": [6, 7, 8, 2]}}')
    Traceback (most recent call last):
    ...
    ValueError: row 1 and column 4 are both on GP2
    """
    overrides = read_object(text, '{"MATRIX": true}')
    matrix = overrides.get("MATRIX")
    if matrix is None or matrix is False:
        return None
    if matrix is True:
        matrix = {}
    if not isinstance(matrix, dict):
        raise ValueError('MATRIX must be true or {"ROWS": [GP x 4], "COLS": [GP x 4]}')
    for name in matrix:
        if name not in ("ROWS", "COLS"):
            raise ValueError("MATRIX: unknown entry %r; entries are ROWS COLS" % (name,))
    lines = []
    for side in ("ROWS", "COLS"):
        gpios = matrix.get(side, DEFAULT_MATRIX[side])
        if not isinstance(gpios, list) or len(gpios) != MATRIX_SIZE:
            raise ValueError("MATRIX %s must list %d GP numbers" % (side, MATRIX_SIZE))
        for gpio in gpios:
            if type(gpio) is not int or gpio not in FREE_GPIOS:
                raise ValueError("MATRIX %s: %r is not a free GP number (0-22, 26-28)" % (side, gpio))
        lines.append(list(gpios))
    owner_of = {}
    for side, gpios in zip(("row", "column"), lines):
        for index, gpio in enumerate(gpios):
            name = "%s %d" % (side, index + 1)
            if gpio in owner_of:
                raise ValueError("%s and %s are both on GP%d" % (owner_of[gpio], name, gpio))
            owner_of[gpio] = name
    return lines[0], lines[1]


def scan_matrix(select_row, read_columns, rows):
    """The raw pressed state of every key of a matrix, row by row (MATRIX_KEY_NAMES's order).

    ``select_row(index)`` pulls row ``index`` low and lets the others float (None: all float);
    ``read_columns()`` returns the column levels, which pull-ups hold at 1 unless a pressed key
    joins the column to the selected row. Letting the other rows float, rather than driving them
    high, keeps two keys pressed in one column from shorting a high row to the low one.

    >>> held = {(1, 2)}  # row 2, column 3: the 6 key
    >>> selected = []
    >>> levels = scan_matrix(selected.append, lambda: [0 if (selected[-1], c) in held else 1 for c in range(4)], 4)
    >>> [MATRIX_KEY_NAMES[i] for i, level in enumerate(levels) if level], selected[-1]
    (['N6'], None)
    """
    levels = []
    for row in range(rows):
        select_row(row)
        levels += [level == 0 for level in read_columns()]
    select_row(None)
    return levels


class SeatInputs:
    """Quiz buzzers: the first falling edge of each press, stamped in microseconds where it happened.

    :meth:`edge` runs in the pin's hard interrupt with ``time.ticks_us()``: it only stores a small
    integer, so it allocates nothing. The scan loop then collects the stamped presses with
    :meth:`scan`. After a press a seat stays disarmed (contact bounce, the release's bounce) until
    the scan has seen it released for ``rearm_ms``.

    >>> seats = SeatInputs(2, lambda a, b: a - b)
    >>> seats.edge(1, 5000); seats.edge(1, 5070)   # a press and its bounce
    >>> seats.scan(6, [False, True]), seats.scan(8, [False, False])
    ([(1, 5000)], [])
    """

    def __init__(self, count, ticks_diff, rearm_ms=DEBOUNCE_MS):
        self._ticks_diff = ticks_diff
        self._rearm_ms = rearm_ms
        self._armed = [True] * count
        self._pending = [None] * count
        self._released_since = [None] * count

    def edge(self, seat, micros):
        """A falling edge on ``seat``'s input at ``micros`` (interrupt context)."""
        if self._armed[seat] and self._pending[seat] is None:
            self._pending[seat] = micros

    def scan(self, now, levels):
        """Presses stamped since the last scan as ``[(seat, micros)]``; re-arms released seats."""
        presses = []
        for seat in range(len(self._armed)):
            micros = self._pending[seat]
            if micros is not None:
                presses.append((seat, micros))
                self._pending[seat] = None
                self._armed[seat] = False
                self._released_since[seat] = None
            elif not self._armed[seat]:
                if levels[seat]:
                    self._released_since[seat] = None
                elif self._released_since[seat] is None:
                    self._released_since[seat] = now
                elif self._ticks_diff(now, self._released_since[seat]) >= self._rearm_ms:
                    self._armed[seat] = True
        return presses


class Button:
    """One switch's debounce and long-press state machine, fed a raw sample per scan.

    A raw level counts once it has held for ``debounce_ms`` without change, which hides
    contact chatter on press and on release. A settled press reports LONG as soon as it has
    lasted ``long_ms`` (so the player feels it fire while still holding) and then its
    release reports nothing; a shorter press reports SHORT when its release settles.
    """

    def __init__(self, ticks_diff, debounce_ms=DEBOUNCE_MS, long_ms=LONG_PRESS_MS):
        self._ticks_diff = ticks_diff
        self._debounce_ms = debounce_ms
        self._long_ms = long_ms
        self._pressed = False
        self._changing_since = None
        self._pressed_since = 0
        self._long_sent = False

    def sample(self, raw_pressed, now):
        """Feed the raw level seen at ``now``; returns SHORT, LONG or None.

        When the hold time is reached in the same scan as the release settles, the press
        is long: it did last that long.
        """
        kind = None
        if (self._pressed and not self._long_sent
                and self._ticks_diff(now, self._pressed_since) >= self._long_ms):
            self._long_sent = True
            kind = LONG
        if (self._changing_since is not None
                and self._ticks_diff(now, self._changing_since) >= self._debounce_ms):
            # the new level held for the whole debounce time up to this scan, whatever it shows
            # now: it settles first (the on-board buttons, timed by their edges, agree)
            self._changing_since = None
            self._pressed = not self._pressed
            if self._pressed:
                self._pressed_since = now
                self._long_sent = False
            elif not self._long_sent:
                kind = SHORT
        if raw_pressed == self._pressed:
            self._changing_since = None
        elif self._changing_since is None:
            self._changing_since = now
        return kind


class KeypadFirmware:
    """Everything the keypad does, minus the pins: samples and host input in, lines out.

    Every line carries a sequence number (mod 256) so the host can count lost lines; the
    hello at boot carries 0. The host asks for a hello with ``?TOKEN`` and a newline, and the
    hello echoes TOKEN: lines the USB stack buffered while no host listened come before it,
    so the host can tell them from live ones. A heartbeat goes out when nothing else was sent
    for HEARTBEAT_MS, and the LED lights for BLINK_MS whenever a line goes out, so a glance
    shows the keypad alive and each press registered.
    """

    def __init__(self, key_names, ticks_diff, now, warning=""):
        self._key_names = list(key_names)
        self._buttons = [Button(ticks_diff) for _name in self._key_names]
        self._ticks_diff = ticks_diff
        self._seq = 0
        self._last_sent = now
        self._lit_since = None
        self._host_line = ""
        self._warning = printable(warning, ERROR_TEXT_LIMIT)
        self._queued = self._hello("")

    def step(self, now, levels, host_input="", seat_presses=()):
        """One scan: ``levels`` are the raw pressed states in key order, ``seat_presses`` the
        quiz buzzers' ``(seat, micros)`` from :meth:`SeatInputs.scan`; returns lines to send."""
        lines = self._queued
        self._queued = []
        for token in self._hello_requests(host_input):
            lines += self._hello(token)
        for name, button, level in zip(self._key_names, self._buttons, levels):
            kind = button.sample(level, now)
            if kind is not None:
                lines.append(self._next_frame("K", name + " " + kind))
        for seat, micros in seat_presses:
            lines.append(self._next_frame("S", str(seat + 1) + " " + str(micros)))
        if not lines and self._ticks_diff(now, self._last_sent) >= HEARTBEAT_MS:
            lines.append(self._next_frame("B", ""))
        if lines:
            self._last_sent = now
            self._lit_since = now
        return lines

    def led_on(self, now):
        """Whether the LED should be lit at ``now``: for BLINK_MS after each line sent."""
        return self._lit_since is not None and self._ticks_diff(now, self._lit_since) < BLINK_MS

    def _hello_requests(self, host_input):
        """The tokens of the hello requests that ``host_input`` completes, in order.

        A request is the rest of a line after its last ``?``; characters outside TOKEN_CHARS
        are dropped, so nothing the host sends can break a frame.
        """
        tokens = []
        for char in host_input:
            if char not in "\r\n":
                if len(self._host_line) < MAX_REQUEST_CHARS:
                    self._host_line += char
                continue
            request, self._host_line = self._host_line, ""
            if HELLO_REQUEST in request:
                asked = request[request.rfind(HELLO_REQUEST) + 1:]
                tokens.append("".join(c for c in asked if c in TOKEN_CHARS)[:MAX_TOKEN_CHARS])
        return tokens

    def _hello(self, token):
        """The hello, then the boot warning if any: a host that missed boot still learns of it."""
        lines = [self._next_frame("H", (str(PROTOCOL_VERSION) + " " + token).strip())]
        if self._warning:
            lines.append(self._next_frame("E", self._warning))
        return lines

    def _next_frame(self, kind, fields):
        payload = kind + " " + str(self._seq)
        if fields:
            payload += " " + fields
        self._seq = (self._seq + 1) % SEQ_MODULO
        return frame(payload)
