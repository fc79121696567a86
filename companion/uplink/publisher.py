"""The device side of event mode: journal lines to the broker, beside the event loop, never in its way.

:meth:`Publisher.wake` is all the event loop ever calls (after a line is journalled): it sets a flag
and returns. A worker thread reads the new lines from the journal (:class:`~.outbox.Outbox`) and
hands them to its link (paho-mqtt's client, :mod:`companion.event.mqtt`), whose own thread does the
network; acknowledgements (PUBACK, QoS 1) move the cursor on disk. A dead broker, a refused password
or a backlog never raise into the loop: they change :attr:`Publisher.status`, a small mark the screen
draws in its corner, and are logged once per change. The link speaks MQTT 5, so a publish the broker
refuses (an ACL that does not name this event or table) comes back with a reason code: the mark says
so, the log names the topic and the reason, and the lines stay in the journal, offered again every
``DENIED_RETRY`` seconds and at each reconnect. ``on_status`` hears every change of that mark, on the
worker thread: the device posts it to its event loop, which redraws (nothing here ever touches the
screen).

The device is a client only: it connects out to the broker and never listens on a socket.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.engine.base import Game
from companion.errors import CompanionError
from companion.event.config import EventConfig
from companion.event.link import SYSTEM_CLOCK, Clock, Link, Message, Reason, Session, Transport
from companion.event.stream import LineStream
from companion.event.wire import decode_resend, decode_seating, journal_message, status_message
from companion.journal import CURRENT_JOURNAL
from companion.uplink.outbox import Outbox

log = logging.getLogger(__name__)

WINDOW = 100  # lines sent but not yet acknowledged; more waits in the journal
STATUS_INTERVAL = 1.0  # seconds between retained status updates while a game is being played
KEEPALIVE = 15  # seconds: the broker publishes the last will ("offline") after 1.5 x this
RETRY = 5.0  # seconds between two tries after a failure (a full card: the cursor cannot be saved)
DENIED_RETRY = 30.0  # seconds before lines the broker refused to take are offered again (the ACL may be fixed)
CURSOR_EVERY = 1.0  # seconds between two saves of the cursor while acknowledgements move it (a new game's id: at once)


@dataclass(frozen=True)
class LinkStatus:
    """How the link to the broker is doing, for a mark in a corner of the screen.

    >>> LinkStatus("online", 0).mark, LinkStatus("online", 500).mark, LinkStatus("refused", 3).mark
    ('', '~', 'x')
    >>> LinkStatus("denied", 3, "publish refused").mark  # connected, but the broker refuses our lines
    'x'
    """

    state: str  # "connecting", "online", "offline", "refused" (the account) or "denied" (a publish)
    backlog: int  # journal lines the broker has not acknowledged
    detail: str = ""

    @property
    def mark(self) -> str:
        """'' all well; '~' behind (lines queued); '!' no broker; 'x' the broker refused us or our lines."""
        if self.state in ("refused", "denied"):
            return "x"
        if self.state != "online":
            return "!"
        return "~" if self.backlog > WINDOW else ""


def game_status(game: Game[Any] | None) -> dict[str, Any]:
    """Where a game stands, for the retained status message (the scoreboard recomputes it)."""
    if game is None:
        return {}
    summary = game.summary()
    deals = summary.get("deals", [])
    tricks = deals[-1]["tricks"] if deals else []
    return {
        "kind": game.game_id,
        "players": list(game.setup.players),
        "deal": len(deals),
        "trick": len(tricks) + (0 if game.is_over() else 1),
        "totals": game.totals(),
        "over": game.is_over(),
    }


class Publisher:
    """Publishes a state directory's journals to the event's broker until :meth:`close`."""

    def __init__(
        self,
        config: EventConfig,
        state_dir: Path,
        *,
        clock: Clock = SYSTEM_CLOCK,
        transport: Transport | None = None,
        client_id: str | None = None,
        on_status: Callable[[LinkStatus], None] = lambda status: None,
        on_seating: Callable[[list[str]], None] = lambda names: None,
        denied_retry: float = DENIED_RETRY,
    ) -> None:
        """``transport`` makes the link to the broker (paho-mqtt's client unless given); ``clock``
        is what the worker reads and waits on."""
        self.config = config
        self._on_status = on_status  # called on the worker thread whenever the mark changes
        self._on_seating = on_seating  # called on the worker thread with the names the event seats here
        self._reported_mark: str | None = None
        self.outbox = Outbox(state_dir, config.event, config.table)
        self._clock = clock
        self._topics = config.topics
        self._journal_topic = config.journal_topic
        self._status_topic = self._topics.table(config.table, "status")
        self._resend_topic = self._topics.table(config.table, "resend")
        self._seating_topic = self._topics.table(config.table, "seating")
        self._cond = threading.Condition()
        self._woken = True  # the first pass reads what the journal already holds
        self._durable: tuple[int, int] | None = None  # (inode, size) at the last wake
        self._journal_path = Path(state_dir) / CURRENT_JOURNAL
        self._events: list[tuple[str, Any]] = []  # from paho's thread, handled by the worker
        self._stopping = False
        self._state = "connecting"
        self._detail = ""
        self._backlog = self.outbox.backlog
        self._in_flight: dict[int, tuple[str, int]] = {}  # message id -> (game id, line)
        self._status_mid: int | None = None  # the status message awaiting its acknowledgement
        self._denied_until: float | None = None  # monotonic: lines wait until then (the broker refused them)
        self._denied_retry = denied_retry
        self._stream = LineStream()  # the current game, for the status message
        self._stream_game = ""
        self._status_sent_at = float("-inf")
        self._cursor_saved_at = float("-inf")
        self._status_dirty = True
        self._connected = False
        self._worker = threading.Thread(target=self._run, name="event-publisher", daemon=True)
        self.link = self._make_link(client_id or f"companion-{config.event}-{config.table}", transport)

    # --- the loop's side: cheap and never blocking on the network --------------------------

    def wake(self) -> None:
        """A line was journalled and fsynced: look at the journal soon.

        Called on the event loop, the journal's only writer, right after an append returned, so the
        journal's size now is what is on disk for sure; lines past it are never published early.
        """
        try:
            found = os.stat(self._journal_path)
            durable: tuple[int, int] | None = (found.st_ino, found.st_size)
        except FileNotFoundError:
            durable = None
        with self._cond:
            self._durable = durable
            self._woken = True
            self._cond.notify()

    @property
    def status(self) -> LinkStatus:
        return LinkStatus(self._state, self._backlog, self._detail)

    def start(self) -> Publisher:
        self.link.start()
        self._worker.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Say "offline" (retained), disconnect, and join both threads."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._worker.join(timeout)
        if self._connected:  # the connection may go meanwhile; the last will says offline instead
            offline = Message(self._status_topic, status_message(self._status(online=False)), retain=True)
            self.link.publish(offline, wait=timeout)
        self.link.stop()
        self.outbox.save()

    # --- the link's thread: only records what happened ------------------------------------

    def _make_link(self, client_id: str, transport: Transport | None) -> Link:
        if transport is None:
            from companion.event.mqtt import paho_link

            transport = paho_link
        will = Message(self._status_topic, status_message({"table": self.config.table, "online": False}), retain=True)
        session = Session(client_id, will=will, max_inflight=WINDOW, keepalive=KEEPALIVE, reconnect_delays=(1, 30))
        return transport(self.config.broker, session, self)

    def link_connected(self, reason: Reason, session_present: bool) -> None:
        self._post("connect", reason)

    def link_lost(self, detail: str) -> None:
        self._post("disconnect", detail)

    def link_acked(self, mid: int, reason: Reason) -> None:
        self._post("ack", (mid, reason))

    def link_message(self, topic: str, payload: bytes) -> None:
        self._post("seating" if topic == self._seating_topic else "resend", payload)

    def _post(self, kind: str, value: Any) -> None:
        with self._cond:
            self._events.append((kind, value))
            self._cond.notify()

    # --- the worker thread -----------------------------------------------------------------

    def _run(self) -> None:
        """The worker's loop. Nothing ends it but :meth:`close`: a failure (a card that cannot take
        the cursor, a journal that cannot be read) is logged, and the pass is tried again later."""
        failing = False
        durable: tuple[int, int] | None = None
        while True:
            try:
                self._report_status()
                with self._cond:
                    self._sleep(self._wait_seconds(failing))
                    events, self._events = self._events, []
                    woken, self._woken = self._woken, False
                    durable = self._durable if woken else durable
                    if self._stopping:
                        return
                for kind, value in events:
                    self._handle(kind, value)
                if (woken or events or failing or self.outbox.unsaved or self._denied_until is not None
                        or self._cursor_due()):
                    self._pump(durable)
                self._maybe_send_status()
                if failing:
                    log.info("event publishing works again")
                failing = False
            except Exception:  # a fault or a bug here must not stop play, nor publishing for good
                if not failing:
                    log.exception("event publishing failed; trying again every %g s", RETRY)
                failing = True

    def _sleep(self, seconds: float | None) -> None:
        """Wait on the condition (held) until woken, told something, stopped, or ``seconds`` passed."""
        deadline = None if seconds is None else self._clock.monotonic() + seconds
        while not (self._woken or self._events or self._stopping):
            left = None if deadline is None else deadline - self._clock.monotonic()
            if left is not None and left <= 0:
                return
            self._clock.wait(self._cond, left)

    def _wait_seconds(self, failing: bool) -> float | None:
        """How long the worker may sleep: until the next status, or the next try after a failure or
        a refusal."""
        waits = [self._seconds_to_status()]
        if failing or self.outbox.unsaved:
            waits.append(RETRY)
        elif self.outbox.changed:
            waits.append(max(0.0, self._cursor_saved_at + CURSOR_EVERY - self._clock.monotonic()))
        if self._denied_until is not None:
            waits.append(max(0.0, self._denied_until - self._clock.monotonic()))
        known = [wait for wait in waits if wait is not None]
        return min(known) if known else None

    def _report_status(self) -> None:
        """Tell ``on_status`` when the mark changed (the first time, whatever it is)."""
        status = self.status
        if status.mark != self._reported_mark:
            self._reported_mark = status.mark
            self._on_status(status)

    def _handle(self, kind: str, value: Any) -> None:
        if kind == "connect":
            if value.failed:
                self._set_state("refused" if value.refused_account else "offline", str(value))
                return
            self._connected = True
            self._set_state("online", "")
            self.outbox.rewind()
            self._in_flight.clear()
            self._denied_until = None  # a reconnect (the broker restarted, its ACL maybe fixed) tries at once
            self.link.subscribe([(self._resend_topic, 1), (self._seating_topic, 1)])
            self._status_dirty = True
            self._status_sent_at = float("-inf")
        elif kind == "disconnect":
            self._connected = False
            if self._state != "refused":
                self._set_state("offline", str(value))
        elif kind == "ack":
            self._acknowledged(*value)
        elif kind == "seating":
            self._seating(value)
        elif kind == "resend":
            try:
                game_id, after = decode_resend(value)
            except CompanionError as err:
                log.warning("ignored a resend request: %s", err)
                return
            if self.outbox.resend(game_id, after):
                log.info("the scoreboard asked for game %s again after line %d", game_id, after)

    def _seating(self, payload: bytes) -> None:
        """The event's names for this table (retained, so also at every connection); an empty message
        (the organiser's list no longer seats this table) takes them back."""
        try:
            names = decode_seating(payload) if payload else []
        except CompanionError as err:
            log.warning("ignored the seating list sent for this table: %s", err)
            return
        log.info("the event seats %d names at this table", len(names))
        self._on_seating(names)

    def _acknowledged(self, mid: int, reason: Reason) -> None:
        """The broker's answer to a publish: taken (the cursor moves), or refused with a reason code."""
        sent = self._in_flight.pop(mid, None)
        status = mid == self._status_mid
        if status:
            self._status_mid = None
        if not reason.failed:
            if sent is not None:
                self.outbox.acked(*sent)
            if self._state == "denied" and (sent is not None or status):
                self._set_state("online", "")  # the broker takes our messages again
            return
        if sent is None and not status:
            return  # an answer to a message of an earlier connection, already offered again
        topic = self._status_topic if status else self._journal_topic
        self._deny(f"the broker refused to publish on {topic}: {reason}")
        if status:
            self._status_dirty = True  # said again once the broker takes messages

    def _deny(self, detail: str) -> None:
        """Hold every line back for DENIED_RETRY s: the journal keeps them, the mark shows 'x', the log
        says which topic was refused and that the broker's ACL must name this event and table."""
        self._set_state("denied", f"{detail}; the ACL must let table {self.config.table} of event "
                        f"{self.config.event} write there (docs/mosquitto/acl); the lines wait in the journal "
                        f"and are offered again every {self._denied_retry:g} s")
        self._denied_until = self._clock.monotonic() + self._denied_retry
        self._in_flight.clear()  # the rest of the window is refused alike, or offered again later
        self.outbox.rewind()

    def _denied(self) -> bool:
        """Whether lines are being held back after a refusal (until the next try)."""
        if self._denied_until is not None and self._clock.monotonic() >= self._denied_until:
            self._denied_until = None
        return self._denied_until is not None

    def _pump(self, durable: tuple[int, int] | None) -> None:
        """Read new journal lines and publish what the window allows."""
        if self.outbox.refresh(durable):
            self._status_dirty = True
        if self._follow_current_game():
            self._status_sent_at = float("-inf")  # a new game is announced at once
        if self._connected and not self._denied():
            room = WINDOW - len(self._in_flight)
            for game_id, line, data in self.outbox.take(max(0, room)):
                payload = journal_message(game_id, line, data, sent=self._clock.time())
                mid = self.link.publish(Message(self._journal_topic, payload))
                if mid is None:
                    break  # the connection just went; the reconnect rewinds to the cursor
                self._in_flight[mid] = (game_id, line)
        if self._cursor_due():
            self.outbox.save()
            self._cursor_saved_at = self._clock.monotonic()
        behind_before = self._backlog > WINDOW
        self._backlog = self.outbox.backlog  # lines beyond the window go out as acks make room
        if (self._backlog > WINDOW) != behind_before:
            if behind_before:
                log.info("event broker: caught up (%d lines to send)", self._backlog)
            else:
                log.warning("event broker: %d lines waiting to be sent", self._backlog)

    def _cursor_due(self) -> bool:
        """Whether to write the cursor now: at once for a new game's id (its lines wait for it),
        after a failed save at the next try, else at most every CURSOR_EVERY seconds. A cursor a
        second behind costs, after a power cut, that second's lines sent again, which the scoreboard
        drops as repeats; saved at every acknowledgement it cost the card two fsyncs a line."""
        if self.outbox.id_waiting or self.outbox.unsaved:
            return True
        return self.outbox.changed and self._clock.monotonic() - self._cursor_saved_at >= CURSOR_EVERY

    def _follow_current_game(self) -> bool:
        """Feed the current game's new lines to the engine; True when it is a new game."""
        current = self.outbox.current
        if current is None:
            return False
        new = current.id != self._stream_game
        if new:
            self._stream, self._stream_game = LineStream(), current.id
        for number in range(self._stream.applied + 1, len(current.lines) + 1):
            self._stream.offer(number, current.lines[number - 1])
        return new

    def _status(self, *, online: bool) -> dict[str, Any]:
        current = self.outbox.current
        return {
            "table": self.config.table,
            "online": online,
            "game": current.id if current else None,
            **game_status(self._stream.game),
            "games": self.outbox.published(),
            "sent": self._clock.time(),
        }

    def _seconds_to_status(self) -> float | None:
        if not (self._status_dirty and self._connected) or self._denied_until is not None:
            return None
        return max(0.0, self._status_sent_at + STATUS_INTERVAL - self._clock.monotonic())

    def _maybe_send_status(self) -> None:
        if not self._connected or not self._status_dirty or self._denied():
            return
        if self._clock.monotonic() - self._status_sent_at < STATUS_INTERVAL:
            return
        status = Message(self._status_topic, status_message(self._status(online=True)), retain=True)
        self._status_mid = self.link.publish(status)
        self._status_dirty = False
        self._status_sent_at = self._clock.monotonic()

    def _set_state(self, state: str, detail: str) -> None:
        if (state, detail) != (self._state, self._detail):
            level = logging.INFO if state == "online" else logging.ERROR if state == "denied" else logging.WARNING
            log.log(
                level,
                "event broker %s:%d: %s%s",
                self.config.host,
                self.config.port,
                state,
                f" ({detail})" if detail else "",
            )
        self._state, self._detail = state, detail
