"""The seam between event mode and its broker: a client's link, and the clock its threads wait on.

The device's :class:`~companion.uplink.publisher.Publisher` and the organiser's
:class:`~companion.organiser.scoreboard.Scoreboard` speak MQTT only through a :class:`Link` made by
a :data:`Transport`: in the product, paho-mqtt's client (:mod:`.mqtt`); in the tests, a broker in
the test's own process. Every callback of a :class:`Listener` comes from the link's one thread, in
the order the broker sent; a listener only records what happened (the link's thread must not block).

The threads of both ends read and wait for time through a :class:`Clock`, so a test can run them
on a clock it moves itself: a resend after a second's gap, a status every second, a retry after a
refusal happen when the test says a second has passed, not after one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from companion.event.config import Broker

ACCOUNT_REFUSED = frozenset({4, 5, 134, 135})  # MQTT 3 and 5: bad user name or password, not authorised


@dataclass(frozen=True)
class Reason:
    """A broker's answer (an MQTT 5 reason code) as event mode reads it.

    >>> Reason(0, "Success").failed, Reason(0x87, "Not authorized").failed, str(Reason(0x87, "Not authorized"))
    (False, True, 'Not authorized')
    >>> Reason(134, "Bad user name or password").refused_account
    True
    """

    code: int
    text: str

    @property
    def failed(self) -> bool:
        return self.code >= 0x80

    @property
    def refused_account(self) -> bool:
        """The broker refused the connection for its account (the mark says ``x``, not ``!``)."""
        return self.code in ACCOUNT_REFUSED

    def __str__(self) -> str:
        return self.text


SUCCESS = Reason(0, "Success")


@dataclass(frozen=True)
class Message:
    """One publish: QoS 1 unless said otherwise (event mode never sends QoS 0 but for the broker's count)."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False


@dataclass(frozen=True)
class Session:
    """How a client connects: its id, whether the broker keeps its session (subscriptions and what
    arrives while it is away) for ever or starts it clean, its last will, and its pacing."""

    client_id: str
    persistent: bool = False
    will: Message | None = None
    max_inflight: int = 20
    keepalive: int = 15
    reconnect_delays: tuple[int, int] = (1, 30)  # seconds: the first retry after a loss, the longest


class Listener(Protocol):
    """What a link tells its owner, always from the link's own thread."""

    def link_connected(self, reason: Reason, session_present: bool) -> None:
        """The broker answered a connection: ``reason.failed`` when it refused it."""

    def link_lost(self, detail: str) -> None:
        """The connection is gone, or could not be made (the link tries again by itself)."""

    def link_acked(self, mid: int, reason: Reason) -> None:
        """The broker's acknowledgement of message ``mid`` (QoS 1): taken, or refused with a reason."""

    def link_message(self, topic: str, payload: bytes) -> None:
        """A message on a subscribed topic."""


class Link(Protocol):
    """One client's connection to the broker; it reconnects by itself until :meth:`stop`."""

    def start(self) -> None:
        """Connect in the background (the listener hears how it went)."""

    def stop(self) -> None:
        """Disconnect cleanly (no last will) and end the link's thread."""

    def publish(self, message: Message, wait: float | None = None) -> int | None:
        """Send ``message``; its id, which :meth:`Listener.link_acked` names, or None when not connected.
        With ``wait``, block until the broker acknowledged it or that many seconds passed."""

    def subscribe(self, topics: Sequence[tuple[str, int]]) -> None:
        """Subscribe to ``(topic filter, qos)`` pairs."""


Transport = Callable[[Broker, Session, Listener], Link]


class Clock(Protocol):
    """Time as event mode's threads see it."""

    def time(self) -> float:
        """Seconds since the epoch: what messages carry and the board keeps."""

    def monotonic(self) -> float:
        """Seconds for intervals: between statuses, before a retry."""

    def wait(self, condition: threading.Condition, timeout: float | None) -> None:
        """Wait on ``condition`` (held by the caller) until notified or ``timeout`` seconds of this
        clock passed; it may return early, so callers check what they wait for again."""


class SystemClock:
    """The computer's clocks."""

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def wait(self, condition: threading.Condition, timeout: float | None) -> None:
        condition.wait(timeout)


SYSTEM_CLOCK = SystemClock()


def sleep_unless(clock: Clock, condition: threading.Condition, stop: Callable[[], bool], seconds: float) -> bool:
    """Wait ``seconds`` of ``clock`` on ``condition`` (not held) unless ``stop()`` comes true first;
    returns ``stop()``.

    >>> sleep_unless(SYSTEM_CLOCK, threading.Condition(), lambda: True, 60.0)
    True
    """
    with condition:
        deadline = clock.monotonic() + seconds
        while not stop() and (left := deadline - clock.monotonic()) > 0:
            clock.wait(condition, left)
        return stop()
