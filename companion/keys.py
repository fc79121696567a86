"""The keys the device understands, and one press of one of them.

Everything above the hardware seam speaks only in :class:`KeyEvent`, so a joystick, a row
of plain buttons, a rotary encoder or a keyboard in mock mode are interchangeable. Seven keys
(four arrows, OK, BACK, AUX) are all a joystick has; a card keypad (a 4x4 matrix: the digits,
the letters A-D, ``*`` and ``#``) adds its own sixteen, which the screens map per game
(:mod:`companion.ui.keypad`). The vocabulary
lives outside :mod:`companion.hw` so the screens need not import the hardware seam to read a key.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from companion.errors import ConfigError


class Key(enum.Enum):
    """A logical key; boards map their own switches onto these names."""

    UP = "UP"
    DOWN = "DOWN"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    OK = "OK"
    BACK = "BACK"
    AUX = "AUX"
    # the card keypad's sixteen keys, as its firmware names them on the wire ("*" and "#" would
    # break a protocol line's framing, so they are STAR and HASH)
    N1 = "N1"
    N2 = "N2"
    N3 = "N3"
    A = "A"
    N4 = "N4"
    N5 = "N5"
    N6 = "N6"
    B = "B"
    N7 = "N7"
    N8 = "N8"
    N9 = "N9"
    C = "C"
    STAR = "STAR"
    N0 = "N0"
    HASH = "HASH"
    D = "D"

    @classmethod
    def parse(cls, name: str) -> Key:
        """Read a key name as people write it in config files and scripts.

        >>> Key.parse(" ok ")
        <Key.OK: 'OK'>
        >>> Key.parse("select")  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
        Traceback (most recent call last):
        ...
        companion.errors.ConfigError: unknown key 'select';
        expected one of UP, DOWN, LEFT, RIGHT, OK, BACK, AUX, N1, ..., D
        """
        try:
            return cls[name.strip().upper()]
        except KeyError:
            known = ", ".join(key.name for key in cls)
            raise ConfigError(f"unknown key {name.strip()!r}; expected one of {known}") from None


ARROWS = frozenset({Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT})
"""Keys with no long-press meaning: buttons act on their press and repeat them while held."""

JOYSTICK_KEYS = (Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT, Key.OK, Key.BACK, Key.AUX)
"""The seven keys of the joystick, the on-board buttons and the seven-key Pico keypad."""

CARD_KEYPAD_ROWS = ((Key.N1, Key.N2, Key.N3, Key.A), (Key.N4, Key.N5, Key.N6, Key.B),
                    (Key.N7, Key.N8, Key.N9, Key.C), (Key.STAR, Key.N0, Key.HASH, Key.D))
"""The card keypad's keys as printed on the common 4x4 membrane part, top row first."""

DIGITS = {Key.N0: 0, Key.N1: 1, Key.N2: 2, Key.N3: 3, Key.N4: 4, Key.N5: 5, Key.N6: 6, Key.N7: 7,
          Key.N8: 8, Key.N9: 9}
LETTERS = (Key.A, Key.B, Key.C, Key.D)


class KeyEvent(NamedTuple):
    """One completed press: ``long`` is a press held past the hold time.

    >>> KeyEvent(Key.OK)
    KeyEvent(key=<Key.OK: 'OK'>, long=False)
    """

    key: Key
    long: bool = False
