"""A USB or Bluetooth numeric keypad as the card keypad, read through Linux's input layer.

A numeric keypad has 17 keys: the digits, ``/ * - +``, Enter, Backspace and ``.``. They speak the
card keypad's vocabulary (:data:`NUMPAD_KEYS`), so every screen, key plan and journal line is the
same whichever keypad typed it: digits are digits, ``/ * - +`` the card keypad's ``A B C D`` (the
game's first to fourth suit or colour, the same key again the fifth), Enter is ``#`` (OK),
Backspace ``*`` (BACK), ``.`` is AUX. A key held past the hold time is the card keypad's held key
(hold Enter: held OK; hold Backspace: undo; hold 2 8 4 6: the arrows).

NumLock on or off gives the same: a keypad whose own firmware turns its digits into the navigation
keys when NumLock is off (Home for 7, Up for 8, ...) sends those codes, and they are read as the
digits printed on the same keys.

The parts, from the pure to the threaded:

- :class:`NumpadDecoder` turns ``EV_KEY`` events (code, value, time) into :class:`KeyEvent`, one per
  press, a long one once the hold time passes; the kernel's auto-repeat events are ignored, so the
  hold time is ours and testable with any clock.
- :func:`is_numpad` tells a numeric keypad from other input devices by what keys it has.
- :class:`Numpad` runs a decoder on a reader thread over an :class:`InputBackend` (python-evdev on a
  Pi, the ``[pi]`` extra; a recorded stream in the tests), grabs the device so its keys never reach a
  console, and survives it being unplugged: it says so, the joystick keeps working, and the keypad is
  taken up again when it returns.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from companion.errors import HardwareError
from companion.hw.debounce import DEFAULT_HOLD_S
from companion.hw.reader import ReaderThread
from companion.keys import Key, KeyEvent

logger = logging.getLogger(__name__)

EV_KEY = 1
"""The input layer's event type for keys (linux/input-event-codes.h); others are ignored."""

# Key codes from linux/input-event-codes.h, named as there.
KEY_BACKSPACE, KEY_ENTER, KEY_KPASTERISK, KEY_NUMLOCK = 14, 28, 55, 69
KEY_KP7, KEY_KP8, KEY_KP9, KEY_KPMINUS, KEY_KP4, KEY_KP5, KEY_KP6, KEY_KPPLUS = 71, 72, 73, 74, 75, 76, 77, 78
KEY_KP1, KEY_KP2, KEY_KP3, KEY_KP0, KEY_KPDOT, KEY_KPENTER, KEY_KPSLASH = 79, 80, 81, 82, 83, 96, 98
KEY_HOME, KEY_UP, KEY_PAGEUP, KEY_LEFT, KEY_RIGHT, KEY_END, KEY_DOWN, KEY_PAGEDOWN = (
    102, 103, 104, 105, 106, 107, 108, 109)
KEY_INSERT, KEY_DELETE = 110, 111
KEY_Q, KEY_A, KEY_Z = 16, 30, 44

KEYPAD_DIGIT_CODES = (KEY_KP0, KEY_KP1, KEY_KP2, KEY_KP3, KEY_KP4, KEY_KP5, KEY_KP6, KEY_KP7, KEY_KP8, KEY_KP9)
"""What makes a device a numeric keypad: it has every keypad digit key."""

NUMPAD_KEYS: Mapping[int, Key] = {
    **dict(zip(KEYPAD_DIGIT_CODES, (Key.N0, Key.N1, Key.N2, Key.N3, Key.N4, Key.N5, Key.N6, Key.N7, Key.N8,
                                    Key.N9), strict=True)),
    KEY_KPSLASH: Key.A, KEY_KPASTERISK: Key.B, KEY_KPMINUS: Key.C, KEY_KPPLUS: Key.D,
    KEY_KPENTER: Key.HASH, KEY_ENTER: Key.HASH, KEY_BACKSPACE: Key.STAR, KEY_KPDOT: Key.AUX,
    # NumLock off, on keypads that translate in their own firmware: the key printed beside each
    KEY_INSERT: Key.N0, KEY_END: Key.N1, KEY_DOWN: Key.N2, KEY_PAGEDOWN: Key.N3, KEY_LEFT: Key.N4,
    KEY_RIGHT: Key.N6, KEY_HOME: Key.N7, KEY_UP: Key.N8, KEY_PAGEUP: Key.N9, KEY_DELETE: Key.AUX,
}
"""Each numeric-keypad key code as the card keypad key it types."""

PRINTED_KEYS: Mapping[str, int] = {
    **{str(digit): code for digit, code in enumerate(KEYPAD_DIGIT_CODES)},
    "/": KEY_KPSLASH, "*": KEY_KPASTERISK, "-": KEY_KPMINUS, "+": KEY_KPPLUS, "Enter": KEY_KPENTER,
    "Backspace": KEY_BACKSPACE, ".": KEY_KPDOT,
}
"""The 17 keys as printed on a numeric keypad, and the code each sends with NumLock on."""

NUMPAD_LEGEND: Mapping[str, Key] = {label: NUMPAD_KEYS[code] for label, code in PRINTED_KEYS.items()}
"""The 17 keys as printed on a numeric keypad, and what each types (the legend in hardware/numpad.md)."""

class NumpadDecoder:
    """Key events of one numeric keypad in, presses out: one per press, long once held ``hold_s``.

    A keyboard's own controller debounces, so a press is what the kernel says: short when released
    before ``hold_s``, long as soon as it has been held that long (its release then types nothing,
    so a hold never also counts as a tap). Times are any one clock's seconds.

    >>> pad = NumpadDecoder()
    >>> pad.feed(KEY_KP7, 1, 0.0), pad.feed(KEY_KP7, 0, 0.1)
    ([], [KeyEvent(key=<Key.N7: 'N7'>, long=False)])
    >>> pad.feed(KEY_KPENTER, 1, 1.0), pad.feed(KEY_KPENTER, 2, 1.5), pad.advance(1.9)   # held
    ([], [], [KeyEvent(key=<Key.HASH: 'HASH'>, long=True)])
    >>> pad.feed(KEY_KPENTER, 0, 2.0), pad.feed(KEY_NUMLOCK, 1, 2.1), pad.advance(3.0)
    ([], [], [])
    """

    def __init__(self, *, hold_s: float = DEFAULT_HOLD_S) -> None:
        if hold_s <= 0:
            raise ValueError(f"hold time must be positive, not {hold_s}")
        self._hold_s = hold_s
        self._down: dict[int, float] = {}  # key code -> when it went down, while its long press is due

    @property
    def deadline(self) -> float | None:
        """When :meth:`advance` must next be called for a hold to be noticed."""
        return min(self._down.values()) + self._hold_s if self._down else None

    def feed(self, code: int, value: int, at: float) -> list[KeyEvent]:
        """One ``EV_KEY`` event: ``value`` 1 pressed, 0 released, 2 the kernel's auto-repeat (ignored)."""
        events = self.advance(at)
        key = NUMPAD_KEYS.get(code)
        if key is None:
            return events
        if value == 1:
            self._down[code] = at
        elif value == 0 and self._down.pop(code, None) is not None:
            events.append(KeyEvent(key))
        return events

    def advance(self, at: float) -> list[KeyEvent]:
        """Let time pass to ``at``; returns the long presses that fell due, in time order."""
        due = sorted((since, code) for code, since in self._down.items() if since + self._hold_s <= at)
        for _since, code in due:
            del self._down[code]  # its release types nothing now
        return [KeyEvent(NUMPAD_KEYS[code], long=True) for _since, code in due]

    def release_all(self, at: float) -> list[KeyEvent]:
        """The device went away: keys down now count as released at ``at`` (nothing stays held)."""
        events = self.advance(at)
        events += [KeyEvent(NUMPAD_KEYS[code]) for _since, code in sorted((s, c) for c, s in self._down.items())]
        self._down.clear()
        return events


def is_numpad(key_codes: Iterable[int], *, letters_allowed: bool = False) -> bool:
    """Whether a device with these key codes is a numeric keypad: every keypad digit, and (unless
    ``letters_allowed``) no letter keys, so a full keyboard is never taken unless named.

    >>> is_numpad(NUMPAD_KEYS), is_numpad([*NUMPAD_KEYS, KEY_Q, KEY_A, KEY_Z]), is_numpad([KEY_KP1])
    (True, False, False)
    """
    codes = set(key_codes)
    if not codes.issuperset(KEYPAD_DIGIT_CODES):
        return False
    return letters_allowed or not codes & {KEY_Q, KEY_A, KEY_Z}


class InputDevice(Protocol):
    """One opened input device, as :class:`Numpad` needs it."""

    path: str
    name: str

    def grab(self) -> None: ...

    def read_keys(self, timeout: float) -> list[tuple[int, int]]:
        """``EV_KEY`` (code, value) pairs that arrived within ``timeout`` s; OSError once gone."""
        ...

    def close(self) -> None: ...


class InputBackend(Protocol):
    """Finds numeric keypads: python-evdev on a Pi, a recording in the tests."""

    def find(self, wanted: str) -> InputDevice | None:
        """The keypad ``wanted`` names (``auto``, a device path or part of its name), opened; None if absent."""
        ...


class Numpad(ReaderThread):
    """Reads a numeric keypad on a background thread and hands each press to ``on_event``.

    ``wanted`` is ``auto`` (the first device that :func:`is_numpad`), a ``/dev/input/...`` path, or
    part of a device's name. ``on_status`` hears each change in a sentence ("numeric keypad
    connected: ...", "numeric keypad unplugged: ..."), for the panel and the log. Both callbacks run
    on the reader thread.
    """

    def __init__(self, wanted: str, backend: InputBackend, on_event: Callable[[KeyEvent], None], *,
                 on_status: Callable[[str], None] = logger.warning,
                 clock: Callable[[], float] = time.monotonic, backoff: Sequence[float] = (0.5, 1.0, 2.0),
                 poll_s: float = 0.1, hold_s: float = DEFAULT_HOLD_S) -> None:
        self._wanted = wanted
        self._backend = backend
        self._on_event = on_event
        self._on_status = on_status
        self._clock = clock
        self._poll_s = poll_s
        self._hold_s = hold_s
        super().__init__("numeric keypad reader", "numpad", backoff)
        self.connected = threading.Event()
        """Set while a keypad is open and grabbed: tests wait on it instead of sleeping."""

    def _run(self) -> None:
        attempt = 0
        missing_said = False
        while not self._stopping.is_set():
            device = self._open()
            if device is None:
                if not missing_said:
                    self._on_status(f"numeric keypad {self._wanted!r} not found: the joystick keeps working")
                    missing_said = True
                self._wait_to_retry(attempt)
                attempt += 1
                continue
            attempt, missing_said = 0, True
            self._serve(device)

    def _open(self) -> InputDevice | None:
        try:
            device = self._backend.find(self._wanted)
            if device is not None:
                device.grab()  # exclusively ours: its keys never reach a console
        except OSError as err:
            logger.debug("numeric keypad: %s", err)
            return None
        return device

    def _serve(self, device: InputDevice) -> None:
        decoder = NumpadDecoder(hold_s=self._hold_s)
        self.connected.set()
        self._on_status(f"numeric keypad connected: {device.name}")
        try:
            while not self._stopping.is_set():
                deadline = decoder.deadline
                timeout = self._poll_s if deadline is None else max(0.0, min(self._poll_s, deadline - self._clock()))
                try:
                    pairs = device.read_keys(timeout)
                except OSError as err:
                    self._hand_on(decoder.release_all(self._clock()))
                    gone = "unplugged" if err.errno in (errno.ENODEV, errno.ENOENT, None) else f"lost ({err})"
                    self._on_status(f"numeric keypad {gone}: the joystick keeps working")
                    return
                now = self._clock()
                for code, value in pairs:
                    self._hand_on(decoder.feed(code, value, now))
                self._hand_on(decoder.advance(self._clock()))
        finally:
            self.connected.clear()
            device.close()

    def _hand_on(self, events: list[KeyEvent]) -> None:
        for event in events:
            self._on_event(event)


class EvdevBackend:
    """Numeric keypads through python-evdev (the ``[pi]`` extra), imported only when used."""

    def __init__(self) -> None:
        try:
            import evdev  # noqa: F401
        except ImportError as err:
            raise HardwareError(
                "the numeric keypad needs python-evdev: pip install 'tabletop-companion[pi]'") from err

    def find(self, wanted: str) -> InputDevice | None:
        import evdev

        for path in evdev.list_devices():
            try:
                device = evdev.InputDevice(path)
            except OSError:
                continue
            keys = device.capabilities().get(EV_KEY, [])
            if _matches(wanted, path, device.name, keys):
                return _EvdevDevice(device)
            device.close()
        return None


def _matches(wanted: str, path: str, name: str, keys: Iterable[int]) -> bool:
    """Whether a device is the keypad ``wanted`` names: ``auto`` takes any numeric keypad, a path
    that device alone, another word a numeric keypad (letters allowed) whose name contains it."""
    if wanted == "auto":
        return is_numpad(keys)
    if wanted.startswith("/"):
        return path == wanted
    return wanted.casefold() in name.casefold() and is_numpad(keys, letters_allowed=True)


class _EvdevDevice:
    def __init__(self, device: Any) -> None:
        self._device = device
        self.path = str(self._device.path)
        self.name = str(self._device.name)

    def grab(self) -> None:
        self._device.grab()

    def read_keys(self, timeout: float) -> list[tuple[int, int]]:
        import select

        readable, _, _ = select.select([self._device.fd], [], [], timeout)
        if not readable:
            return []
        return [(event.code, event.value) for event in self._device.read() if event.type == EV_KEY]

    def close(self) -> None:
        with contextlib.suppress(OSError):  # already gone with its device node
            self._device.close()
