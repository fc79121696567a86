"""The daemon's event loop: one thread does all the work, woken by an event or the next deadline.

Producers (button threads, the serial reader, signal handlers) :meth:`EventLoop.post` events;
timers are deadlines in a heap. :meth:`EventLoop.run` sleeps in ``get(timeout=<time to the next
deadline>)``, so an idle device wakes only when something happens or a timer is due: no polling
tick. The watchdog keep-alive is just ``call_every(interval, notifier.watchdog)``; because it runs
on this thread, a stuck handler stops the pings and systemd restarts the daemon.

The queue is a :class:`queue.SimpleQueue` rather than :class:`queue.Queue` because its ``put`` is
reentrant: a signal handler may call :meth:`EventLoop.stop` while the main thread is inside
``put`` or ``get`` without deadlocking.

Two bounds keep a flooding producer (a keypad gone wild, say) from taking the device with it.
The queue holds at most ``max_pending`` events: :meth:`EventLoop.post` drops the rest and
counts them, and the loop logs the count at most once per :data:`DROP_REPORT_INTERVAL_S`
(not the producer: it may be a signal handler, which must not take the logging lock). And a
stop does not wait behind the queue: :meth:`EventLoop.run` returns as soon as the handler in
progress does, so SIGTERM is obeyed at once however many events are waiting.

Tests drive the loop deterministically with a fake clock and :meth:`EventLoop.run_until_idle`:

>>> now = [0.0]
>>> seen = []
>>> loop = EventLoop(seen.append, clock=lambda: now[0])
>>> _ = loop.call_at(2.0, lambda: seen.append("timer"))
>>> loop.post("button")
True
>>> loop.run_until_idle()
1
>>> now[0] = 2.0
>>> loop.run_until_idle()
1
>>> seen
['button', 'timer']
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, Generic, TypeVar

Clock = Callable[[], float]
Event = TypeVar("Event")
logger = logging.getLogger(__name__)

# Memory, not pace: inputs keep their own pace (the keypad reader a hand's, a key script one press
# per debounce), so only a runaway producer fills this; a slow machine replaying a long key script
# must never reach it. 4096 small events are well under a MiB.
MAX_PENDING_EVENTS = 4096
DROP_REPORT_INTERVAL_S = 10.0


class _Control:
    """Queue items the loop itself understands, never shown to the handler."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_WAKE = _Control("wake")  # re-read the deadlines and the stop flag: something changed them


class Timer:
    """A scheduled callback; ``interval`` makes it repeat. Cancel it with :meth:`cancel`."""

    __slots__ = ("callback", "cancelled", "interval", "when")

    def __init__(self, when: float, callback: Callable[[], object], interval: float | None) -> None:
        self.when = when
        self.callback = callback
        self.interval = interval
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class EventLoop(Generic[Event]):
    """Dispatches posted events to ``handler`` and fires timers, all on the thread that runs it.

    An exception from the handler or a timer ends :meth:`run` and propagates: the daemon
    crashes loudly and systemd restarts it, and the journal makes that safe.
    """

    def __init__(self, handler: Callable[[Event], object], clock: Clock = time.monotonic, *,
                 max_pending: int = MAX_PENDING_EVENTS) -> None:
        if max_pending < 1:
            raise ValueError(f"the event queue needs room for at least one event, not {max_pending}")
        self._handler = handler
        self._clock = clock
        self._queue: queue.SimpleQueue[Event | _Control] = queue.SimpleQueue()
        self._max_pending = max_pending
        self._stop_requested = False  # a plain flag: setting it is safe in a signal handler
        self.dropped = 0
        """Events :meth:`post` refused because the queue was full."""
        self._drops_reported = 0
        self._drops_reported_at: float | None = None
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()  # equal deadlines fire in the order they were set
        self._timers_lock = threading.Lock()
        self._running_thread: int | None = None

    def post(self, event: Event) -> bool:
        """Queue an event; safe from any thread and from signal handlers.

        Returns False, and counts the event in :attr:`dropped`, when ``max_pending`` events
        are already waiting (producers racing may overshoot the bound by one each).
        """
        if self._queue.qsize() >= self._max_pending:
            self.dropped += 1
            return False
        self._queue.put(event)
        return True

    def stop(self) -> None:
        """Make :meth:`run` return as soon as the handler in progress (if any) returns.

        Safe from any thread and from signal handlers. Events still queued are not handled
        by this run; a later run takes them (the daemon has none: it exits, and a press not
        yet handled was never shown or journalled).
        """
        self._stop_requested = True
        self._wake()  # run() may be asleep in get()

    def call_at(self, when: float, callback: Callable[[], object]) -> Timer:
        """Run ``callback`` on the loop thread once ``clock()`` reaches ``when``."""
        return self._schedule(Timer(when, callback, None))

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        return self.call_at(self._clock() + delay, callback)

    def call_every(self, interval: float, callback: Callable[[], object]) -> Timer:
        """Run ``callback`` every ``interval`` seconds, the first time one interval from now.

        A loop that fell behind (a long handler, a suspended machine) fires once and carries
        on from now, rather than firing a burst of missed beats.
        """
        if interval <= 0:
            raise ValueError(f"a repeating timer needs a positive interval, not {interval}")
        return self._schedule(Timer(self._clock() + interval, callback, interval))

    def run(self) -> None:
        """Handle events and timers until :meth:`stop`; blocks the calling thread."""
        if self._running_thread is not None:
            raise RuntimeError("this event loop is already running")
        self._running_thread = threading.get_ident()
        try:
            with _woken_by_signals(self._wake) if threading.current_thread() is threading.main_thread() \
                    else nullcontext():
                self._serve()
        finally:
            self._running_thread = None

    def _serve(self) -> None:
        while not self._take_stop_request():
            if self._fire_next_due_timer():
                continue
            try:
                item = self._queue.get(timeout=self._seconds_to_next_deadline())
            except queue.Empty:
                continue
            self._handle(item)

    def _wake(self) -> None:
        """Make :meth:`run` look again at its stop flag and deadlines (and so run pending signal handlers)."""
        self._queue.put(_WAKE)

    def step(self) -> bool:
        """Without waiting: fire one due timer, else handle one queued event.

        Returns False when there was nothing to do, or when a stop was requested (the request
        is used up: the next step goes on).
        """
        if self._take_stop_request():
            return False
        if self._fire_next_due_timer():
            return True
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return False
            if item is not _WAKE:  # a wake-up is not work: look further
                self._handle(item)
                return True

    def run_until_idle(self, max_steps: int = 10_000) -> int:
        """Step until nothing is due or queued (or a stop is reached); returns the steps taken.

        ``max_steps`` catches a timer that keeps re-arming itself for a clock that tests never
        advance, which would otherwise spin forever.
        """
        for steps in range(max_steps):
            if not self.step():
                return steps
        raise RuntimeError(f"still busy after {max_steps} steps: a timer that re-arms itself at now?")

    def _schedule(self, timer: Timer) -> Timer:
        with self._timers_lock:
            heapq.heappush(self._timers, (timer.when, next(self._order), timer))
        running = self._running_thread
        if running is not None and running != threading.get_ident():
            self._wake()  # run() may be sleeping past this new deadline
        return timer

    def _take_stop_request(self) -> bool:
        """Whether a stop was requested; clears the request and reports any drops not yet told."""
        if not self._stop_requested:
            return False
        self._stop_requested = False
        self._report_drops(final=True)
        return True

    def _handle(self, item: Event | _Control) -> None:
        if item is not _WAKE:
            self._handler(item)  # type: ignore[arg-type]  # not a _Control, so an Event
        if self.dropped != self._drops_reported:
            self._report_drops()

    def _report_drops(self, *, final: bool = False) -> None:
        """Log the events dropped since the last report: at most once per interval, and at a stop."""
        now = self._clock()
        last = self._drops_reported_at
        if self.dropped == self._drops_reported or (not final and last is not None
                                                    and now - last < DROP_REPORT_INTERVAL_S):
            return
        logger.warning("dropped %d event(s): %d were already waiting to be handled (a flooding input?)",
                       self.dropped - self._drops_reported, self._max_pending)
        self._drops_reported, self._drops_reported_at = self.dropped, now

    def _next_live_timer(self) -> Timer | None:
        """The earliest timer not cancelled; call with the lock held."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][2] if self._timers else None

    def _seconds_to_next_deadline(self) -> float | None:
        with self._timers_lock:
            timer = self._next_live_timer()
        return None if timer is None else max(0.0, timer.when - self._clock())

    def _fire_next_due_timer(self) -> bool:
        with self._timers_lock:
            timer = self._next_live_timer()
            if timer is None or timer.when > self._clock():
                return False
            heapq.heappop(self._timers)
        timer.callback()
        if timer.interval is not None and not timer.cancelled:
            now = self._clock()
            timer.when += timer.interval
            if timer.when <= now:
                timer.when = now + timer.interval
            self._schedule(timer)
        return True


@contextmanager
def _woken_by_signals(wake: Callable[[], None]) -> Iterator[None]:
    """Inside the block, every signal the process gets calls ``wake`` from a thread of its own.

    Python runs a signal's handler in the main thread, but the kernel gives a signal sent to the
    process to any thread that does not block it (luma's, gpiozero's, a key script's). A main thread
    asleep in the loop's queue is woken only by a signal it receives itself; otherwise the handler
    (a SIGTERM's stop) waits for the next event or timer. Python's C-level handler writes each
    signal's number to the wakeup file (:func:`signal.set_wakeup_fd`) whichever thread takes it, so
    a reader of that pipe can wake the loop, and the main thread runs the handler at once.
    """
    readable, writable = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(writable, False)  # the C-level handler must never block on a full pipe
    previous = signal.set_wakeup_fd(writable, warn_on_full_buffer=False)

    def wake_on_each_signal() -> None:
        while os.read(readable, 64):  # empty once the write end is closed: the block has ended
            wake()

    reader = threading.Thread(target=wake_on_each_signal, name="signal-wakeup", daemon=True)
    reader.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(writable)
        reader.join(timeout=5.0)  # it returns at once on the closed pipe
        os.close(readable)


@contextmanager
def stop_on_signals(
    loop: EventLoop[Any], signals: Iterable[int] = (signal.SIGTERM, signal.SIGINT)
) -> Iterator[bool]:
    """Inside the block, SIGTERM and SIGINT stop ``loop`` cleanly instead of killing the process.

    The handler in progress (say, a journal append) finishes first. Python can set signal
    handlers only in the main thread; elsewhere this changes nothing and yields False.
    Previous handlers are restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return
    previous = {signum: signal.signal(signum, lambda _signum, _frame: loop.stop()) for signum in signals}
    try:
        yield True
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
