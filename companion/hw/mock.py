"""Mock mode for the keys: the real ButtonPad on gpiozero MockFactory pins, and key
sources that press those pins (a script, the terminal keyboard, or nothing at all).

Nothing here bypasses the production path: a scripted ``press OK`` drives a mock pin low,
gpiozero reports the edge, our debouncer settles it, and the UI gets the same KeyEvent a
real button would give. :class:`VirtualTime` lets a script run in no wall-clock time with
the same timings (tests and benchmarks use it); the default is real time.
"""

from __future__ import annotations

import bisect
import itertools
import math
import os
import re
import select
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Protocol

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from companion.errors import ConfigError, quoted
from companion.hw.buttons import ButtonPad, Cancel, Timer, thread_timer
from companion.hw.debounce import DEFAULT_DEBOUNCE_S, DEFAULT_HOLD_S
from companion.inputs import read_text_file
from companion.keys import DIGITS, JOYSTICK_KEYS, LETTERS, Key, KeyEvent

SETTLE_FACTOR = 2.5
"""Mock presses and releases last this many debounce periods, so they always settle."""

MAX_REPEAT = 10_000
MAX_SCRIPT_BYTES = 1024 * 1024  # a long demo is a few KiB
MAX_WAIT_S = 3600.0  # a demo waits seconds, or ten minutes for the screen to go off; more is a typo
SETTLE_CHECKS = 40  # wait at most ten more settle periods for a late timer


def install_mock_factory() -> MockFactory:
    """Make a fresh MockFactory gpiozero's default pin factory (mock mode) and return it."""
    factory = MockFactory()
    Device.pin_factory = factory
    return factory


class VirtualTime:
    """A clock, sleep and timer in one: ``sleep`` jumps the clock and runs the timers that
    fall due on the way, in order, in the sleeping thread."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.RLock()
        self._order = itertools.count()
        self._pending: list[tuple[float, int, Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def timer(self, delay_s: float, callback: Callable[[], None]) -> Cancel:
        """Schedule ``callback`` at now + ``delay_s``; a :data:`~companion.hw.buttons.Timer`."""
        with self._lock:
            entry = (self._now + delay_s, next(self._order), callback)
            bisect.insort(self._pending, entry)

        def cancel() -> None:
            with self._lock:
                if entry in self._pending:
                    self._pending.remove(entry)
        return cancel

    def sleep(self, seconds: float) -> None:
        with self._lock:
            until = self._now + seconds
            while self._pending and self._pending[0][0] <= until:
                due, _, callback = self._pending.pop(0)
                self._now = max(self._now, due)
                callback()
            self._now = until


class MockPad:
    """A :class:`ButtonPad` on MockFactory pins, plus the hands that press them."""

    def __init__(self, pin_map: Mapping[Key, int], on_event: Callable[[KeyEvent], None], *,
                 factory: MockFactory | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 timer: Timer = thread_timer,
                 debounce_s: float = DEFAULT_DEBOUNCE_S, hold_s: float = DEFAULT_HOLD_S,
                 encoder_pins: tuple[int, int] | None = None) -> None:
        self.factory = factory if factory is not None else install_mock_factory()
        self._sleep = sleep
        self._on_event = on_event
        self.pad = ButtonPad(pin_map, on_event, pin_factory=self.factory, clock=clock,
                             debounce_s=debounce_s, hold_s=hold_s, timer=timer,
                             encoder_pins=encoder_pins)

    def pin(self, key: Key) -> MockPin:
        """The mock pin wired to ``key`` (drive it low to close the switch)."""
        return self.factory.pin(self.pad.pin_map[key])

    def press(self, key: Key, *, long: bool = False) -> None:
        """Close and open ``key``'s switch, long enough for one (long) press to settle. A card-keypad
        key has no pin on the board: it arrives as the serial keypad's reader hands its presses on
        (the line protocol under it is tested on its own, tests/firmware/test_serial_keypad.py)."""
        if key not in self.pad.pin_map and key not in JOYSTICK_KEYS:
            self._on_event(KeyEvent(key, long=long))
            return
        settle = SETTLE_FACTOR * self.pad.debounce_s
        pin = self.pin(key)
        pin.drive_low()
        self._sleep(self.pad.hold_s + settle if long else settle)
        pin.drive_high()
        self._sleep(settle)
        # On a loaded machine the settle timer can run late: the press is done only once its
        # event is out, so a script's next step (or its end) never overtakes it.
        for _ in range(SETTLE_CHECKS):
            if self.pad.settled:
                break
            self._sleep(settle / 4)

    def close(self) -> None:
        self.pad.close()


class Presser(Protocol):
    """What a key source needs: something that presses a key (a :class:`MockPad`)."""

    def press(self, key: Key, *, long: bool = False) -> None: ...


class ThreadedSource:
    """A key source running in its own daemon thread; stop it and join with a timeout.

    An exception in the thread is kept and raised again by :meth:`join`, so it is not lost.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError(f"{self._name} already started")
        self._prepare()
        self._thread = threading.Thread(target=self._guarded, name=self._name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Ask the thread to end and wait up to ``timeout``; True if it has ended."""
        self._stopping.set()
        return self.join(timeout)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the thread; True if it has ended."""
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                return False
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return True

    def _guarded(self) -> None:
        try:
            self._run()
        except BaseException as error:  # handed to join(), which re-raises it
            self._error = error

    def _prepare(self) -> None:
        """Runs in the caller's thread just before the source's own thread starts."""

    def _run(self) -> None:
        raise NotImplementedError


class IdleKeySource(ThreadedSource):
    """Presses nothing: mock mode with no script and no terminal (e.g. under systemd)."""

    def __init__(self) -> None:
        super().__init__("idle-keys")

    def _run(self) -> None:
        self._stopping.wait()


ScriptStep = KeyEvent | float
"""A press to make, or seconds to wait."""

_SCRIPT_LINE = r"(?:repeat\s+(?P<count>\S+)\s+)?(?P<verb>\S+)(?:\s+(?P<arg>\S+))?"  # re compiles it at first use


def parse_script(text: str, name: str = "<script>") -> list[ScriptStep]:
    """Read a key script: ``press KEY``, ``hold KEY``, ``wait SECONDS``, each optionally
    prefixed ``repeat N``; ``#`` starts a comment.

    >>> parse_script("press ok\\nrepeat 2 wait 0.5  # pause\\nhold BACK")
    [KeyEvent(key=<Key.OK: 'OK'>, long=False), 0.5, 0.5, KeyEvent(key=<Key.BACK: 'BACK'>, long=True)]
    >>> parse_script("jump OK", "demo.keys")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: demo.keys, line 1: unknown command 'jump' (use press, hold, wait): 'jump OK'
    """
    steps: list[ScriptStep] = []
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            steps.extend(_parse_line(line))
        except ConfigError as err:
            raise ConfigError(f"{name}, line {number}: {err}: {quoted(line)}") from None
    return steps


def _parse_line(line: str) -> list[ScriptStep]:
    match = re.fullmatch(_SCRIPT_LINE, line)
    if match is None:
        raise ConfigError("expected 'press KEY', 'hold KEY', 'wait SECONDS' or 'repeat N ...'")
    count = _parse_count(match["count"]) if match["count"] is not None else 1
    verb, arg = match["verb"].lower(), match["arg"]
    if verb not in ("press", "hold", "wait"):
        raise ConfigError(f"unknown command {match['verb']!r} (use press, hold, wait)")
    if arg is None:
        raise ConfigError(f"{verb} needs {'a number of seconds' if verb == 'wait' else 'a key'}")
    step: ScriptStep = (_parse_seconds(arg) if verb == "wait"
                        else KeyEvent(Key.parse(arg), long=verb == "hold"))
    return [step] * count


def _parse_count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_REPEAT:
        raise ConfigError(f"repeat count {quoted(text)} must be a whole number from 1 to {MAX_REPEAT}")
    return int(text)


def _parse_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise ConfigError(f"{quoted(text)} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"wait {quoted(text)} must be zero or more seconds")
    if seconds > MAX_WAIT_S:
        raise ConfigError(f"wait {quoted(text)} is more than {MAX_WAIT_S:g} seconds (an hour)")
    return seconds


class ScriptKeySource(ThreadedSource):
    """Plays a key script on a :class:`Presser`; the script is checked before it starts.

    ``sleep`` defaults to a wait that :meth:`stop` interrupts; pass
    :meth:`VirtualTime.sleep` to run without real waiting.
    """

    def __init__(self, script: str, presser: Presser, *, name: str = "<script>",
                 sleep: Callable[[float], None] | None = None,
                 on_done: Callable[[], object] | None = None) -> None:
        super().__init__(f"script-keys {name}")
        self.steps = parse_script(script, name)
        self._presser = presser
        self._sleep = sleep if sleep is not None else self._stopping.wait
        self._on_done = on_done

    @classmethod
    def from_file(cls, path: str | Path, presser: Presser, *,
                  sleep: Callable[[float], None] | None = None,
                  on_done: Callable[[], object] | None = None) -> ScriptKeySource:
        text = read_text_file(Path(path), "key script", limit=MAX_SCRIPT_BYTES)
        return cls(text, presser, name=str(path), sleep=sleep, on_done=on_done)

    def _run(self) -> None:
        for step in self.steps:
            if self._stopping.is_set():
                return
            if isinstance(step, KeyEvent):
                self._presser.press(step.key, long=step.long)
            else:
                self._sleep(step)
        if self._on_done is not None:
            self._on_done()


CARD_KEYPAD_KEYS = {**{str(digit).encode(): key for key, digit in DIGITS.items()}, b"*": Key.STAR, b"#": Key.HASH,
                    **dict(zip((b"f", b"g", b"h", b"j"), LETTERS, strict=True))}
"""The card keypad's sixteen keys on the keyboard: the digits, ``*`` and ``#`` are themselves; A-D
are ``f`` ``g`` ``h`` ``j`` (a, b and d move and go back, as on the joystick)."""
NUMPAD_APPLICATION_KEYS = {**{b"pqrstuvwxy"[digit:digit + 1]: key for key, digit in DIGITS.items()},
                           b"o": Key.A, b"j": Key.B, b"m": Key.C, b"k": Key.D, b"M": Key.HASH, b"n": Key.AUX}
"""A PC's numeric keypad in the terminal's application keypad mode (``ESC O`` and a letter): the keys a
USB numeric keypad types on the device (companion/hw/numpad.py), ``/ * - +`` the card keypad's A-D."""
_NUMPAD_PLAIN_KEYS = {b"/": Key.A, b"-": Key.C, b"+": Key.D, b".": Key.AUX}
"""The same keys where a terminal sends them as plain characters (NumLock on, in most terminals); a
plain ``*`` stays the card keypad's ``*``, so there the numpad's ``*`` is BACK (NumLock off: its B)."""
_ARROWS = {b"A": Key.UP, b"B": Key.DOWN, b"C": Key.RIGHT, b"D": Key.LEFT}
_PLAIN_KEYS = {b"\r": Key.OK, b"\n": Key.OK, b"\x7f": Key.BACK, b"\x08": Key.BACK,
               b" ": Key.AUX, b"w": Key.UP, b"s": Key.DOWN, b"a": Key.LEFT, b"d": Key.RIGHT,
               b"o": Key.OK, b"b": Key.BACK, b"x": Key.AUX,
               **CARD_KEYPAD_KEYS, **_NUMPAD_PLAIN_KEYS}
_TERMINAL_TOKEN = (  # compiled (and kept) by re at first use: a device with no terminal never needs it
    rb"\x1b\[(?:1;(?P<modifier>\d+))?(?P<csi>[ABCD])"  # arrows, with xterm modifier codes
    rb"|\x1bO(?P<ss3>[ABCD])"                          # arrows in application cursor mode
    rb"|\x1bO(?P<numpad>[jkmnoMp-y])"                  # the numeric keypad in application keypad mode
    rb"|(?P<other>\x1b\[[0-9;]*[\x40-\x7e]|\x1bO.)"     # other function keys: ignored
    rb"|\x1b(?P<alt>[^\[O])"                           # Alt+key
    rb"|(?P<byte>[\x00-\xff])")


def decode_keys(chunk: bytes) -> list[KeyEvent]:
    """Turn bytes read from a terminal in cbreak mode into presses.

    Arrows, WASD, Enter/o = OK, Backspace/Esc/b = BACK, space/x = AUX; the card keypad's keys
    (:data:`CARD_KEYPAD_KEYS`). A capital letter or a modifier (Shift/Alt/Ctrl+arrow, Alt+key)
    makes it a long press. A lone Esc can only be told from the start of a sequence by arriving
    alone, as terminals send sequences whole.

    >>> decode_keys(b"\\x1b[A\\x1b[1;2Bo\\x1b")  # doctest: +NORMALIZE_WHITESPACE
    [KeyEvent(key=<Key.UP: 'UP'>, long=False), KeyEvent(key=<Key.DOWN: 'DOWN'>, long=True),
     KeyEvent(key=<Key.OK: 'OK'>, long=False), KeyEvent(key=<Key.BACK: 'BACK'>, long=False)]
    >>> decode_keys(b"W?")
    [KeyEvent(key=<Key.UP: 'UP'>, long=True)]
    >>> decode_keys(b"\\x1bOq\\x1bOj\\x1bOM")  # doctest: +NORMALIZE_WHITESPACE
    [KeyEvent(key=<Key.N1: 'N1'>, long=False), KeyEvent(key=<Key.B: 'B'>, long=False),
     KeyEvent(key=<Key.HASH: 'HASH'>, long=False)]
    """
    events: list[KeyEvent] = []
    for token in re.finditer(_TERMINAL_TOKEN, chunk, re.DOTALL):
        key: Key | None
        if token["other"] is not None:
            continue
        if arrow := token["csi"] or token["ss3"]:
            key, long = _ARROWS[arrow], token["modifier"] is not None
        elif token["numpad"] is not None:
            key, long = NUMPAD_APPLICATION_KEYS[token["numpad"]], False
        elif token["alt"] is not None:
            key, long = _PLAIN_KEYS.get(token["alt"].lower()), True
        elif token["byte"] == b"\x1b":
            key, long = Key.BACK, False
        else:
            key, long = _PLAIN_KEYS.get(token["byte"].lower()), token["byte"].isupper()
        if key is not None:
            events.append(KeyEvent(key, long=long))
    return events


class TtyKeySource(ThreadedSource):
    """Reads the terminal keyboard (cbreak mode, so Ctrl-C still interrupts the program)
    and presses the matching keys; the terminal's settings are restored when it stops."""

    def __init__(self, presser: Presser, *, fd: int | None = None, poll_s: float = 0.1) -> None:
        super().__init__("tty-keys")
        self._presser = presser
        self._fd = sys.stdin.fileno() if fd is None else fd
        self._poll_s = poll_s
        if not os.isatty(self._fd):
            raise ConfigError(f"file descriptor {self._fd} is not a terminal")
        self._saved: list[Any] = []

    def _prepare(self) -> None:
        # Switch before start() returns, and without flushing, so no key typed after
        # start() is lost to the mode change. Loaded here: only a device at a terminal reads its keyboard.
        import termios
        import tty

        self._saved = termios.tcgetattr(self._fd)
        tty.setcbreak(self._fd, termios.TCSANOW)

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                readable, _, _ = select.select([self._fd], [], [], self._poll_s)
                if not readable:
                    continue
                chunk = os.read(self._fd, 64)
                if not chunk:
                    return
                for event in decode_keys(chunk):
                    self._presser.press(event.key, long=event.long)
        finally:
            import termios

            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)


def key_source_for(presser: Presser, *, script: str | Path | None = None,
                   stdin: IO[str] | None = None) -> ThreadedSource:
    """The mock-mode source to use: the script if given, else the keyboard if stdin is a
    terminal, else idle."""
    if script is not None:
        return ScriptKeySource.from_file(script, presser)
    stdin = sys.stdin if stdin is None else stdin
    if stdin.isatty():
        return TtyKeySource(presser, fd=stdin.fileno())
    return IdleKeySource()
