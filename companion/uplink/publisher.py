"""The device side of event mode: journal lines to the broker, beside the event loop, never in its way.

:meth:`Publisher.wake` is all the event loop ever calls (after a line is journalled): it sets a flag
and returns. A worker thread reads the new lines from the journal (:class:`~.outbox.Outbox`) and
hands them to paho-mqtt, whose own thread does the network; acknowledgements (PUBACK, QoS 1) move
the cursor on disk. A dead broker, a refused password or a backlog never raise into the loop: they
change :attr:`Publisher.status`, a small mark the screen draws in its corner, and are logged once
per change. The link speaks MQTT 5, so a publish the broker refuses (an ACL that does not name this
event or table) comes back with a reason code: the mark says so, the log names the topic and the
reason, and the lines stay in the journal, offered again every ``DENIED_RETRY`` seconds and at each
reconnect. ``on_status`` hears every change of that mark, on the worker thread: the device posts it
to its event loop, which redraws (nothing here ever touches the screen).

The device is a client only: it connects out to the broker and never listens on a socket.
"""

from __future__ import annotations

import contextlib
import logging
import os
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.engine.base import Game
from companion.errors import CompanionError
from companion.event.config import EventConfig
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
        wall: Callable[[], float] = time.time,
        client_id: str | None = None,
        on_status: Callable[[LinkStatus], None] = lambda status: None,
        on_seating: Callable[[list[str]], None] = lambda names: None,
        denied_retry: float = DENIED_RETRY,
    ) -> None:
        self.config = config
        self._on_status = on_status  # called on the worker thread whenever the mark changes
        self._on_seating = on_seating  # called on the worker thread with the names the event seats here
        self._reported_mark: str | None = None
        self.outbox = Outbox(state_dir, config.event, config.table)
        self._wall = wall
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
        self._status_dirty = True
        self._connected = False
        self._worker = threading.Thread(target=self._run, name="event-publisher", daemon=True)
        self.client = self._make_client(client_id or f"companion-{config.event}-{config.table}")

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
        self.client.connect_async(self.config.host, self.config.port, keepalive=KEEPALIVE, clean_start=True)
        self.client.loop_start()
        self._worker.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Say "offline" (retained), disconnect, and join both threads."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._worker.join(timeout)
        if self._connected:
            info = self.client.publish(
                self._status_topic, status_message(self._status(online=False)), qos=1, retain=True
            )
            # The connection may go meanwhile; the last will says offline instead.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.save()

    # --- paho's thread: only records what happened ----------------------------------------

    def _make_client(self, client_id: str) -> mqtt.Client:
        # MQTT 5: a refused publish comes back with a reason code instead of vanishing
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        broker = self.config.broker
        if broker.username is not None:
            client.username_pw_set(broker.username, broker.password())
        if broker.tls:
            client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None, cert_reqs=ssl.CERT_REQUIRED)
        client.will_set(
            self._status_topic, status_message({"table": self.config.table, "online": False}), qos=1, retain=True
        )
        client.max_inflight_messages_set(WINDOW)
        client.reconnect_delay_set(min_delay=1, max_delay=30)
        client.on_connect = lambda _c, _u, _f, reason, _p: self._post("connect", reason)
        client.on_disconnect = lambda _c, _u, _f, reason, _p: self._post("disconnect", reason)
        client.on_connect_fail = lambda _c, _u: self._post(
            "disconnect", "cannot connect: no broker there, or TLS failed"
        )
        client.on_publish = lambda _c, _u, mid, reason, _p: self._post("ack", (mid, reason))
        client.on_message = lambda _c, _u, message: self._post(
            "seating" if message.topic == self._seating_topic else "resend", message.payload
        )
        return client

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
                    while not (self._woken or self._events or self._stopping):
                        if not self._cond.wait(self._wait_seconds(failing)):
                            break
                    events, self._events = self._events, []
                    woken, self._woken = self._woken, False
                    durable = self._durable if woken else durable
                    if self._stopping:
                        return
                for kind, value in events:
                    self._handle(kind, value)
                if woken or events or failing or self.outbox.unsaved or self._denied_until is not None:
                    self._pump(durable)
                self._maybe_send_status()
                if failing:
                    log.info("event publishing works again")
                failing = False
            except Exception:  # a fault or a bug here must not stop play, nor publishing for good
                if not failing:
                    log.exception("event publishing failed; trying again every %g s", RETRY)
                failing = True

    def _wait_seconds(self, failing: bool) -> float | None:
        """How long the worker may sleep: until the next status, or the next try after a failure or
        a refusal."""
        waits = [self._seconds_to_status()]
        if failing or self.outbox.unsaved:
            waits.append(RETRY)
        if self._denied_until is not None:
            waits.append(max(0.0, self._denied_until - time.monotonic()))
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
            if value.is_failure:
                refused = value.value in (4, 5, 134, 135)  # bad user name or password, not authorised
                self._set_state("refused" if refused else "offline", str(value))
                return
            self._connected = True
            self._set_state("online", "")
            self.outbox.rewind()
            self._in_flight.clear()
            self._denied_until = None  # a reconnect (the broker restarted, its ACL maybe fixed) tries at once
            self.client.subscribe([(self._resend_topic, 1), (self._seating_topic, 1)])
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

    def _acknowledged(self, mid: int, reason: Any) -> None:
        """The broker's answer to a publish: taken (the cursor moves), or refused with a reason code."""
        sent = self._in_flight.pop(mid, None)
        status = mid == self._status_mid
        if status:
            self._status_mid = None
        if not getattr(reason, "is_failure", False):
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
        self._denied_until = time.monotonic() + self._denied_retry
        self._in_flight.clear()  # the rest of the window is refused alike, or offered again later
        self.outbox.rewind()

    def _denied(self) -> bool:
        """Whether lines are being held back after a refusal (until the next try)."""
        if self._denied_until is not None and time.monotonic() >= self._denied_until:
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
                payload = journal_message(game_id, line, data, sent=self._wall())
                info = self.client.publish(self._journal_topic, payload, qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    break  # the connection just went; the reconnect rewinds to the cursor
                self._in_flight[info.mid] = (game_id, line)
        self.outbox.save()
        behind_before = self._backlog > WINDOW
        self._backlog = self.outbox.backlog  # lines beyond the window go out as acks make room
        if (self._backlog > WINDOW) != behind_before:
            if behind_before:
                log.info("event broker: caught up (%d lines to send)", self._backlog)
            else:
                log.warning("event broker: %d lines waiting to be sent", self._backlog)

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
            "sent": self._wall(),
        }

    def _seconds_to_status(self) -> float | None:
        if not (self._status_dirty and self._connected) or self._denied_until is not None:
            return None
        return max(0.0, self._status_sent_at + STATUS_INTERVAL - time.monotonic())

    def _maybe_send_status(self) -> None:
        if not self._connected or not self._status_dirty or self._denied():
            return
        if time.monotonic() - self._status_sent_at < STATUS_INTERVAL:
            return
        info = self.client.publish(self._status_topic, status_message(self._status(online=True)), qos=1, retain=True)
        self._status_mid = info.mid
        self._status_dirty = False
        self._status_sent_at = time.monotonic()

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
