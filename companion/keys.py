"""The seven keys the device understands, and one press of one of them.

Everything above the hardware seam speaks only in :class:`KeyEvent`, so a joystick, a row
of plain buttons, a rotary encoder or a keyboard in mock mode are interchangeable. The vocabulary
lives outside :mod:`companion.hw` so the screens need not import the hardware seam to read a key.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

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

    @classmethod
    def parse(cls, name: str) -> Key:
        """Read a key name as people write it in config files and scripts.

        >>> Key.parse(" ok ")
        <Key.OK: 'OK'>
        >>> Key.parse("select")
        Traceback (most recent call last):
        ...
        companion.errors.ConfigError: unknown key 'select'; expected one of UP, DOWN, LEFT, RIGHT, OK, BACK, AUX
        """
        try:
            return cls[name.strip().upper()]
        except KeyError:
            known = ", ".join(key.name for key in cls)
            raise ConfigError(f"unknown key {name.strip()!r}; expected one of {known}") from None


ARROWS = frozenset({Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT})
"""Keys with no long-press meaning: buttons act on their press and repeat them while held."""


@dataclass(frozen=True)
class KeyEvent:
    """One completed press: ``long`` is a press held past the hold time.

    >>> KeyEvent(Key.OK)
    KeyEvent(key=<Key.OK: 'OK'>, long=False)
    """

    key: Key
    long: bool = False
