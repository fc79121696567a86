"""Buttons on GPIO pins (real or gpiozero mock), debounced by us, reported as KeyEvents.

gpiozero's own ``bounce_time`` ignores edges for a while after the first one, which can
drop the release of a quick tap and cannot be tested with mock pins; so each switch is
opened with ``bounce_time=None`` and its raw edges go to a :class:`Debouncer`. The switches
are gpiozero ``DigitalInputDevice``s, the base of ``Button`` without its hold thread: that
thread wakes ten times a second per button to look for holds, which our debouncer already
times, and it was the device's only idle CPU use. Holds and
settling releases are noticed by a one-shot timer armed for the debouncer's next deadline
(no polling loop); the timer is injectable so tests fire it from a fake clock.

Arrows act when their press settles and repeat while held (see :class:`Repeat`); OK and BACK,
whose long press means something, act on release or at the hold time, as before.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType

from gpiozero import DigitalInputDevice, Factory, GPIOZeroError, RotaryEncoder

from companion.errors import HardwareError
from companion.hw.debounce import DEFAULT_DEBOUNCE_S, DEFAULT_HOLD_S, DEFAULT_REPEAT, Debouncer, Repeat
from companion.keys import ARROWS, Key, KeyEvent

Cancel = Callable[[], None]
Timer = Callable[[float, Callable[[], None]], Cancel]
"""``timer(delay_s, callback)`` runs ``callback`` once after ``delay_s``; returns a canceller."""


def thread_timer(delay_s: float, callback: Callable[[], None]) -> Cancel:
    """The production :data:`Timer`: a daemon ``threading.Timer``."""
    timer = threading.Timer(delay_s, callback)
    timer.daemon = True
    timer.start()
    return timer.cancel


class ButtonPad:
    """One gpiozero input device per key (wired to ground, internal pull-up) plus an optional encoder.

    ``on_event`` is called from gpiozero's edge thread or the timer thread, one call at a
    time; it should hand the event on (to a queue, say) rather than draw on the display.
    An encoder on ``encoder_pins`` (A, B) reports one UP per counter-clockwise detent and one
    DOWN per clockwise detent, so turning it scrolls a list like the joystick does.
    """

    def __init__(self, pin_map: Mapping[Key, int], on_event: Callable[[KeyEvent], None], *,
                 pin_factory: Factory | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 debounce_s: float = DEFAULT_DEBOUNCE_S, hold_s: float = DEFAULT_HOLD_S,
                 timer: Timer = thread_timer,
                 encoder_pins: tuple[int, int] | None = None,
                 repeat: Repeat | None = DEFAULT_REPEAT) -> None:
        self.pin_map: dict[Key, int] = dict(pin_map)
        self.encoder_pins = encoder_pins
        self.debounce_s = debounce_s
        self.hold_s = hold_s
        self._on_event = on_event
        self._clock = clock
        self._timer = timer
        self._lock = threading.RLock()
        self._debouncers = {key: Debouncer(key, debounce_s=debounce_s, hold_s=hold_s,
                                           repeat=repeat if key in ARROWS else None)
                            for key in self.pin_map}
        self._cancels: dict[Key, Cancel] = {}
        self._buttons: list[DigitalInputDevice] = []
        self._encoder: RotaryEncoder | None = None
        self._closed = False
        try:
            for key, pin in self.pin_map.items():
                self._buttons.append(self._open_button(key, pin, pin_factory))
            if encoder_pins is not None:
                self._encoder = self._open_encoder(encoder_pins, pin_factory)
        except BaseException:
            self.close()
            raise

    def _open_button(self, key: Key, pin: int, pin_factory: Factory | None) -> DigitalInputDevice:
        try:
            button = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
        except GPIOZeroError as err:
            raise HardwareError(f"cannot open GPIO{pin} for key {key.name}: {err}") from err
        button.when_activated = functools.partial(self._on_edge, key, True)
        button.when_deactivated = functools.partial(self._on_edge, key, False)
        return button

    def _open_encoder(self, pins: tuple[int, int],
                      pin_factory: Factory | None) -> RotaryEncoder:
        a, b = pins
        try:
            encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=pin_factory)
        except GPIOZeroError as err:
            raise HardwareError(f"cannot open rotary encoder on GPIO{a}/GPIO{b}: {err}") from err
        encoder.when_rotated_clockwise = functools.partial(self._emit_step, Key.DOWN)
        encoder.when_rotated_counter_clockwise = functools.partial(self._emit_step, Key.UP)
        return encoder

    def _on_edge(self, key: Key, pressed: bool) -> None:
        with self._lock:
            if self._closed:
                return
            events = self._debouncers[key].edge(pressed, self._clock())
            self._rearm(key)
            for event in events:
                self._on_event(event)

    def _on_deadline(self, key: Key) -> None:
        with self._lock:
            if self._closed:
                return
            events = self._debouncers[key].advance(self._clock())
            self._rearm(key)
            for event in events:
                self._on_event(event)

    def _rearm(self, key: Key) -> None:
        """Replace the key's pending timer with one for its debouncer's next deadline."""
        cancel = self._cancels.pop(key, None)
        if cancel is not None:
            cancel()
        deadline = self._debouncers[key].deadline
        if deadline is not None:
            delay = max(deadline - self._clock(), 0.0)
            self._cancels[key] = self._timer(delay, functools.partial(self._on_deadline, key))

    def _emit_step(self, key: Key) -> None:
        with self._lock:
            if not self._closed:
                self._on_event(KeyEvent(key))

    @property
    def settled(self) -> bool:
        """No key is pressed or waiting for its debounce or hold deadline: every event is out."""
        with self._lock:
            return all(d.deadline is None and not d.pressed for d in self._debouncers.values())

    def close(self) -> None:
        """Cancel pending timers and release every pin; safe to call twice."""
        with self._lock:
            self._closed = True
            for cancel in self._cancels.values():
                cancel()
            self._cancels.clear()
        for button in self._buttons:
            button.close()
        self._buttons.clear()
        if self._encoder is not None:
            self._encoder.close()
            self._encoder = None

    def __enter__(self) -> ButtonPad:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
