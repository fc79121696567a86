"""Quiz buzzers: one button per seat, and who pressed first by the time of the edge itself.

A quiz (Zenjidou rule B) asks who pointed first. The press that is *handled* first is not always
the one that happened first: edge callbacks queue behind one another and behind a busy event
loop. So every press carries the time of its edge as the input driver stamped it (lgpio's kernel
timestamp on a Raspberry Pi, the drive time on gpiozero's mock pins, the Pico keypad's microsecond
clock in its seat inputs' interrupt), and :class:`BuzzerArbiter` orders presses by that time. It decides a
little after the first press arrives (``settle_s``), so an earlier press still in flight counts.
Two presses closer than the source's timing resolution are reported as a tie, never silently
ordered: the table repeats the point.

>>> arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.02)
>>> arbiter.arm(now=0.0)
>>> arbiter.press(2, at=1.0031, now=1.010)  # handled first, pressed second
>>> arbiter.press(0, at=1.0020, now=1.011)
>>> arbiter.verdict(now=1.015) is None, arbiter.verdict(now=1.030)
(True, Verdict(kind='first', seats=(0,)))
>>> arbiter.rule_out(0)  # a wrong point: the next press counts
>>> arbiter.verdict(now=1.031)
Verdict(kind='first', seats=(2,))
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpiozero import DigitalInputDevice, Factory, GPIOZeroError

from companion.errors import ConfigError, HardwareError

if TYPE_CHECKING:  # the serial link (pyserial) is loaded only where the Pico keypad is used
    from companion.hw.serial_keypad import SeatPress

DEFAULT_RESOLUTION_S = 0.0002  # GPIO edge stamps are far finer; switch contact timing is not
DEFAULT_SETTLE_S = 0.05  # how long after the first handled press a decision waits for earlier edges
KEYPAD_TICKS_PERIOD = 1 << 30  # MicroPython's ticks_us on the RP2040 wraps here (about 17.9 minutes)


@dataclass(frozen=True)
class Verdict:
    """``first``: one seat pressed first; ``tie``: these seats pressed too close together to tell."""

    kind: str
    seats: tuple[int, ...]


class BuzzerArbiter:
    """Collects presses (from any thread) for one question and decides who was first by edge time.

    ``now`` values are the app's clock; ``at`` values are edge times on the press source's clock,
    compared only with each other. Thread-safe: edge callbacks call :meth:`press`.
    """

    def __init__(self, *, resolution_s: float = DEFAULT_RESOLUTION_S, settle_s: float = DEFAULT_SETTLE_S) -> None:
        self.resolution_s = resolution_s
        self.settle_s = settle_s
        self._lock = threading.Lock()
        self._presses: dict[int, tuple[float, float]] = {}  # seat -> (edge time, handled at)
        self._out: set[int] = set()
        self._armed = False
        self.token: object = None
        self._seats: int | None = None  # seats the game has; None: any

    def seat_count(self, seats: int | None) -> None:
        """Only seats 0 to ``seats`` - 1 answer (None: any): the keypad has six buzzer inputs, and a
        press on one a smaller table leaves free claimed the quiz for a player nobody is."""
        with self._lock:
            self._seats = seats

    def arm(self, now: float, out: set[int] | frozenset[int] = frozenset(), token: object = None) -> None:
        """Start listening for a new question (``token`` names it); seats in ``out`` may not answer it."""
        with self._lock:
            self._presses.clear()
            self._out = set(out)
            self._armed = True
            self.token = token

    def disarm(self) -> None:
        with self._lock:
            self._armed = False

    def press(self, seat: int, at: float, now: float) -> None:
        """A press of ``seat``'s buzzer whose edge happened at ``at``; a seat's later presses are bounce."""
        with self._lock:
            if not self._armed or seat in self._out or seat in self._presses:
                return
            if seat < 0 or (self._seats is not None and seat >= self._seats):
                return
            self._presses[seat] = (at, now)

    def _deadline(self) -> float | None:
        handled = [when for seat, (_, when) in self._presses.items() if seat not in self._out]
        return min(handled) + self.settle_s if handled else None

    def deadline(self) -> float | None:
        """When a verdict can be given (an app-clock time), or None with no press of a seat still in."""
        with self._lock:
            return self._deadline()

    def verdict(self, now: float) -> Verdict | None:
        """Who pressed first among the seats still in, once the settle time has passed."""
        with self._lock:
            deadline = self._deadline()
            if deadline is None or now < deadline:
                return None
            remaining = sorted((at, seat) for seat, (at, _) in self._presses.items() if seat not in self._out)
            first_at = remaining[0][0]
            close = tuple(sorted(seat for at, seat in remaining if at - first_at < self.resolution_s))
            return Verdict("tie" if len(close) > 1 else "first", close)

    def rule_out(self, seat: int) -> None:
        """``seat`` pointed wrong: out for this question; the next press in edge order counts."""
        with self._lock:
            self._out.add(seat)

    def repeat(self, now: float) -> None:
        """After a tie the table repeats the point: forget the presses, keep who is out."""
        self.arm(now, self._out, self.token)


class _EdgeStampedInput(DigitalInputDevice):  # type: ignore[misc]  # gpiozero ships no types
    """A switch to ground that reports each press with the edge time its pin driver stamped.

    gpiozero hands every pin change to ``_fire_events(ticks, active)`` with ``ticks`` the time
    the change occurred (documented for descendants); the public ``when_activated`` drops it.
    """

    def __init__(self, pin: int, on_press: Callable[[Any], None], pin_factory: Factory | None) -> None:
        self._on_press = on_press
        super().__init__(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)

    def _fire_events(self, ticks: Any, new_active: bool) -> None:
        was_active = self._last_active
        super()._fire_events(ticks, new_active)
        if was_active is False and new_active:
            self._on_press(ticks)


class GpioBuzzers:
    """One button per seat on GPIO pins (``{seat: BCM pin}``), feeding an arbiter.

    ``clock`` is the app's clock (for the settle deadline); edge times come from the pins.
    """

    def __init__(self, pins: Mapping[int, int], arbiter: BuzzerArbiter, *, clock: Callable[[], float],
                 pin_factory: Factory | None = None, on_press: Callable[[], None] = lambda: None) -> None:
        self.arbiter = arbiter
        self._clock = clock
        self._on_press = on_press  # e.g. wake the device's event loop: a verdict deadline is now due
        self._inputs: list[_EdgeStampedInput] = []
        try:
            for seat, pin in pins.items():
                try:
                    self._inputs.append(_EdgeStampedInput(pin, functools.partial(self._pressed, seat), pin_factory))
                except GPIOZeroError as err:
                    raise HardwareError(f"cannot open GPIO{pin} for seat {seat + 1}'s buzzer: {err}") from err
        except BaseException:
            self.close()
            raise

    def _pressed(self, seat: int, ticks: Any) -> None:
        self.arbiter.press(seat, float(ticks), self._clock())
        self._on_press()

    def close(self) -> None:
        for device in self._inputs:
            device.close()
        self._inputs.clear()


class KeypadBuzzers:
    """The Pico keypad's seat inputs (``SerialKeypad(on_seat=...)``) into an arbiter.

    The keypad stamps each press with ``ticks_us`` in the pin's interrupt; the stamps wrap, so they
    are put on one scale by their signed difference to the previous stamp (presses a quiz compares
    are seconds apart, far inside half the wrap). A press handled late keeps its earlier stamp.
    Edge times from the keypad and from GPIO are on different clocks: use one source per arbiter.

    >>> from companion.hw.serial_keypad import SeatPress
    >>> arbiter = BuzzerArbiter(settle_s=0.01)
    >>> arbiter.arm(now=0.0)
    >>> buzzers = KeypadBuzzers(arbiter, clock=lambda: 1.0)
    >>> buzzers(SeatPress(0, 150))                          # after the wrap...
    >>> buzzers(SeatPress(2, KEYPAD_TICKS_PERIOD - 850))    # ...handled second, pressed 1 ms earlier
    >>> arbiter.verdict(now=2.0)
    Verdict(kind='first', seats=(2,))
    """

    def __init__(self, arbiter: BuzzerArbiter, *, clock: Callable[[], float],
                 on_press: Callable[[], None] = lambda: None) -> None:
        self.arbiter = arbiter
        self._clock = clock
        self._on_press = on_press
        self._last: tuple[int, int] | None = None  # (raw stamp, its place on the growing scale)

    def seconds(self, micros: int) -> float:
        """A wrapping stamp on one scale, in seconds."""
        if self._last is None:
            scaled = micros
        else:
            raw, previous = self._last
            half = KEYPAD_TICKS_PERIOD // 2
            scaled = previous + ((micros - raw + half) % KEYPAD_TICKS_PERIOD) - half
        self._last = (micros, scaled)
        return scaled / 1_000_000

    def __call__(self, press: SeatPress) -> None:
        self.arbiter.press(press.seat, self.seconds(press.micros), self._clock())
        self._on_press()


def check_buzzer_pins(pins: Sequence[object]) -> dict[int, int]:
    """One BCM pin per seat, seat 1 first: distinct whole numbers 0-27.

    >>> check_buzzer_pins([5, 6, 13])
    {0: 5, 1: 6, 2: 13}
    >>> check_buzzer_pins([5, 5])
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: buzzer pins must be distinct whole numbers 0-27, one per seat
    """
    if len(set(pins)) != len(pins) or not all(
            isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 27 for p in pins):
        raise ConfigError("buzzer pins must be distinct whole numbers 0-27, one per seat")
    return dict(enumerate(pins))  # type: ignore[arg-type]  # the check above made every pin an int


def parse_buzzer_pins(text: str) -> dict[int, int]:
    """``companion run --buzzers``: BCM pins separated by commas, seat 1 first.

    >>> parse_buzzer_pins("5, 6,13")
    {0: 5, 1: 6, 2: 13}
    >>> parse_buzzer_pins("5,x")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: --buzzers takes BCM pin numbers separated by commas, not '5,x'
    """
    items = [item.strip() for item in text.split(",")]
    if not all(item.isdigit() for item in items):
        raise ConfigError(f"--buzzers takes BCM pin numbers separated by commas, not {text!r}")
    return check_buzzer_pins([int(item) for item in items])
