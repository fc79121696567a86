"""An MQTT broker in the test's own process, and the virtual clock event mode's threads run on.

The device's publisher and the organiser's scoreboard talk to it through the same seam as to
mosquitto (:mod:`companion.event.link`): a :class:`MemoryBroker` is a transport. It keeps what the
event logic relies on: retained messages; QoS 1 with acknowledgements, redelivery of what a
persistent session had not handled when its connection went, and acknowledgements lost with a
connection (so lines come twice); clean and persistent sessions (a persistent one queues what
arrives while it is away); last wills; accounts and mosquitto's ACL file (``user``, ``topic``,
``pattern`` with ``%u`` and ``%c``: a refused publish is answered "Not authorized", a subscriber
is given only what it may read); ``$SYS/broker/clients/connected``; and a broker killed (with or
without persistence) and started again. Every callback comes from the link's own thread, in the
order the broker sent, as paho's do.

Time is a :class:`VirtualClock`: it moves only when a test says so, or, while a test waits for
something (tests/event/conftest.py's ``settle`` and ``wait_for``), whenever the broker has nothing
left to deliver. What happens "a second later" happens without a second's wait.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.event.config import Broker
from companion.event.link import SUCCESS, Listener, Message, Reason, Session

NOT_AUTHORIZED = Reason(0x87, "Not authorized")
BAD_PASSWORD = Reason(0x86, "Bad user name or password")
CLIENTS_TOPIC = "$SYS/broker/clients/connected"


class VirtualClock:
    """Wall and monotonic time as one number, moved by :meth:`advance` (or by setting :attr:`now`,
    which wakes nobody); threads waiting on it wake when their time has come."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now
        self._lock = threading.Lock()
        self._back = threading.Condition(self._lock)  # a thread (re)started waiting
        self._generation = 0  # advances so far
        self._waiters: dict[int, tuple[threading.Condition, int]] = {}  # -> (condition, generation seen)
        self._tokens = itertools.count()

    def __call__(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def wait(self, condition: threading.Condition, timeout: float | None) -> None:
        if timeout is not None and timeout <= 0:
            return
        with self._lock:
            token = next(self._tokens)
            self._waiters[token] = (condition, self._generation)
            self._back.notify_all()
        try:
            condition.wait()  # notified by its owner, or by advance()
        finally:
            with self._lock:
                del self._waiters[token]

    def advance(self, seconds: float) -> None:
        """Move time on, wake every thread waiting on this clock, and return once each has looked at
        the new time and waits again (or after a real second, for one that does not come back)."""
        with self._lock:
            self.now += seconds
            self._generation += 1
            generation, waiting = self._generation, len(self._waiters)
            conditions = {id(c): c for c, _ in self._waiters.values()}.values()
        for condition in conditions:
            with condition:
                condition.notify_all()
        with self._lock:
            self._back.wait_for(lambda: sum(g >= generation for _, g in self._waiters.values()) >= waiting, 1.0)


def topic_matches(pattern: str, topic: str) -> bool:
    """MQTT's topic filter match: ``+`` one level, ``#`` the rest; a wildcard never starts a match
    on a ``$`` topic.

    >>> topic_matches("companion/+/tables/#", "companion/cup/tables/3/journal"), topic_matches("#", "$SYS/x")
    (True, False)
    """
    if topic.startswith("$") and pattern[:1] in ("+", "#"):
        return False
    parts, levels = pattern.split("/"), topic.split("/")
    for index, part in enumerate(parts):
        if part == "#":
            return True
        if index >= len(levels) or part not in ("+", levels[index]):
            return False
    return len(parts) == len(levels)


@dataclass
class Acl:
    """mosquitto's ACL file: per-user ``topic`` lines and every user's ``pattern`` lines."""

    topics: dict[str | None, list[tuple[str, str]]] = field(default_factory=dict)  # user -> (access, filter)
    patterns: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> Acl:
        acl, user = cls(), None
        for raw in path.read_text(encoding="utf-8").splitlines():
            words = raw.split()
            if not words or words[0].startswith("#"):
                continue
            if words[0] == "user":
                user = words[1]
                continue
            access, pattern = (words[1], words[2]) if len(words) == 3 else ("readwrite", words[1])
            if words[0] == "topic":
                acl.topics.setdefault(user, []).append((access, pattern))
            elif words[0] == "pattern":
                acl.patterns.append((access, pattern))
        return acl

    def allows(self, user: str | None, client_id: str, topic: str, access: str) -> bool:
        rules = list(self.topics.get(user, []))
        if user is not None:
            rules += [(a, p.replace("%u", user).replace("%c", client_id)) for a, p in self.patterns]
        return any(access in a and topic_matches(p, topic) for a, p in rules)


@dataclass
class _Session:
    """What the broker keeps of one client id."""

    client_id: str
    persistent: bool
    subscriptions: dict[str, int] = field(default_factory=dict)  # filter -> qos
    queued: deque[Message] = field(default_factory=deque)  # QoS 1 messages not yet handled by the client
    link: MemoryLink | None = None


class MemoryBroker:
    """An MQTT broker in this process; call it as a :data:`~companion.event.link.Transport`."""

    url = "mqtt://memory.invalid"

    def __init__(self, clock: VirtualClock | None = None, *, persistence: bool = True,
                 accounts: Mapping[str, str] | None = None, acl: Acl | None = None) -> None:
        self.clock = clock or VirtualClock()
        self.persistence = persistence
        self.accounts = dict(accounts) if accounts is not None else None
        self.acl = acl
        self.running = True
        self.retained: dict[str, Message] = {}
        self.sessions: dict[str, _Session] = {}
        self.links: list[MemoryLink] = []  # started and not stopped: they connect whenever the broker runs
        self.delivered = 0  # messages handed to subscribers, for the tests' own checks
        self._lock = threading.RLock()
        self._mids = itertools.count(1)

    def __call__(self, broker: Broker, session: Session, listener: Listener) -> MemoryLink:
        return MemoryLink(self, broker, session, listener)

    # --- what a test does to the broker ----------------------------------------------------

    def kill(self) -> None:
        """The broker dies (SIGKILL): every connection goes, without wills; without persistence, its
        sessions and retained messages go too."""
        with self._lock:
            self.running = False
            for session in list(self.sessions.values()):
                if session.link is not None:
                    self._drop(session.link, "connection lost: the broker died", will=False)
            if not self.persistence:
                self.sessions.clear()
                self.retained.clear()

    stop = kill  # mosquitto saves on SIGTERM; this broker's persistence is already up to date

    def start(self) -> MemoryBroker:
        """The broker runs again: every link still started connects at once."""
        with self._lock:
            self.running = True
            for link in self.links:
                link.post_connect()
        return self

    def restart(self, *, kill: bool = True) -> None:
        self.kill()
        self.start()

    def idle(self) -> bool:
        """Nothing left to hand to any client."""
        with self._lock:
            return all(link.pending == 0 for link in self.links)

    # --- the links' side ---------------------------------------------------------------------

    def connect(self, link: MemoryLink) -> None:
        """A link's connection attempt (on its thread): its listener hears the answer."""
        with self._lock:
            if link not in self.links:
                return
            if not self.running:
                link.post(link.epoch, lambda: link.listener.link_lost("cannot connect: no broker there"))
                return
            if self.accounts is not None and self.accounts.get(link.username or "") != link.password:
                link.post(link.epoch, lambda: link.listener.link_connected(BAD_PASSWORD, False))
                return
            client_id = link.session.client_id
            old = self.sessions.get(client_id)
            if old is not None and old.link is not None:
                self._drop(old.link, "session taken over", will=True)
            present = old is not None and old.persistent and link.session.persistent
            session = old if present and old is not None else _Session(client_id, link.session.persistent)
            self.sessions[client_id] = session
            session.link, link.connected = link, True
            link.post(link.epoch, lambda: link.listener.link_connected(SUCCESS, present))
            pending, session.queued = session.queued, deque()
            for message in pending:
                self._deliver(session, message)
            self._count_clients()

    def disconnect(self, link: MemoryLink) -> None:
        """A clean disconnect: no last will."""
        with self._lock:
            if link in self.links:
                self.links.remove(link)
            if link.connected:
                self._drop(link, "normal disconnection", will=False)

    def publish(self, link: MemoryLink, message: Message) -> int | None:
        with self._lock:
            if not link.connected:
                return None
            mid = next(self._mids)
            allowed = self.acl is None or self.acl.allows(link.username, link.session.client_id, message.topic,
                                                          "write")
            if allowed:
                self._route(message)
            if message.qos:
                reason = SUCCESS if allowed else NOT_AUTHORIZED
                link.post(link.epoch, lambda: link.listener.link_acked(mid, reason))
            return mid

    def subscribe(self, link: MemoryLink, topics: Sequence[tuple[str, int]]) -> None:
        with self._lock:
            session = self.sessions.get(link.session.client_id)
            if not link.connected or session is None or session.link is not link:
                return
            for pattern, qos in topics:
                session.subscriptions[pattern] = qos
                for topic, message in list(self.retained.items()):
                    if topic_matches(pattern, topic):
                        self._deliver(session, message)

    def handled(self, link: MemoryLink, message: Message) -> None:
        """The client handled a delivery: a persistent session no longer owes it."""
        with self._lock:
            session = self.sessions.get(link.session.client_id)
            if session is not None and session.link is link and message in link.owed:
                link.owed.remove(message)

    # --- inside the broker -----------------------------------------------------------------

    def _route(self, message: Message) -> None:
        if message.retain:
            if message.payload:
                self.retained[message.topic] = message
            else:
                self.retained.pop(message.topic, None)
        for session in list(self.sessions.values()):
            qos = max((q for p, q in session.subscriptions.items() if topic_matches(p, message.topic)), default=None)
            if qos is None:
                continue
            delivery = Message(message.topic, message.payload, min(qos, message.qos), message.retain)
            if session.link is not None:
                self._deliver(session, delivery)
            elif session.persistent and delivery.qos:
                session.queued.append(delivery)

    def _deliver(self, session: _Session, message: Message) -> None:
        link = session.link
        if link is None:
            if session.persistent and message.qos:
                session.queued.append(message)
            return
        if self.acl is not None and not self.acl.allows(link.username, session.client_id, message.topic, "read"):
            return
        if message.qos:
            link.owed.append(message)
        self.delivered += 1
        link.post(link.epoch, lambda: link.receive(message))

    def _drop(self, link: MemoryLink, detail: str, *, will: bool) -> None:
        """End ``link``'s connection: what it had not handled stays owed to a persistent session (so
        it comes again), acknowledgements on their way to it are lost."""
        link.connected = False
        link.epoch += 1
        session = self.sessions.get(link.session.client_id)
        if session is not None and session.link is link:
            session.link = None
            if session.persistent:
                session.queued.extendleft(reversed(link.owed))
            else:
                del self.sessions[session.client_id]
        link.owed.clear()
        link.post(link.epoch, lambda: link.listener.link_lost(detail))
        if will and link.session.will is not None:
            self._route(link.session.will)
        self._count_clients()

    def _count_clients(self) -> None:
        if not self.running:
            return
        count = sum(1 for session in self.sessions.values() if session.link is not None)
        self._route(Message(CLIENTS_TOPIC, str(count).encode(), qos=0, retain=True))


RUNNING: list[MemoryBroker] = []  # the test's brokers (here, as pytest imports conftest.py twice over)


class MemoryLink:
    """One client of a :class:`MemoryBroker`, with a thread that runs its listener's callbacks."""

    def __init__(self, broker: MemoryBroker, address: Broker, session: Session, listener: Listener) -> None:
        self.broker = broker
        self.session = session
        self.listener = listener
        self.username = address.username
        self.password = address.password() if address.username is not None else None
        self.connected = False
        self.epoch = 0  # one per connection: what was on its way to an older one is dropped
        self.owed: list[Message] = []  # delivered, not yet handled
        self.inbox: queue.SimpleQueue[tuple[int, Callable[[], None]] | None] = queue.SimpleQueue()
        self.pending = 0  # callbacks posted and not yet run
        self._pending_lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"memory-link-{session.client_id}", daemon=True)

    def start(self) -> None:
        with self.broker._lock:
            self.broker.links.append(self)
        self._thread.start()
        self.post_connect()

    def stop(self) -> None:
        self.broker.disconnect(self)
        self.inbox.put(None)
        self._thread.join(10)

    def publish(self, message: Message, wait: float | None = None) -> int | None:
        return self.broker.publish(self, message)  # taken at once: there is nothing to wait for

    def subscribe(self, topics: Sequence[tuple[str, int]]) -> None:
        self.broker.subscribe(self, topics)

    def post(self, epoch: int, callback: Callable[[], None]) -> None:
        with self._pending_lock:
            self.pending += 1
        self.inbox.put((epoch, callback))

    def post_connect(self) -> None:
        self.post(-1, lambda: self.broker.connect(self))

    def receive(self, message: Message) -> None:
        self.listener.link_message(message.topic, message.payload)
        self.broker.handled(self, message)

    def _run(self) -> None:
        while True:
            item = self.inbox.get()
            if item is None:
                return
            epoch, callback = item
            try:
                if epoch in (-1, self.epoch):  # else on its way to a connection that is gone
                    callback()
            finally:
                with self._pending_lock:
                    self.pending -= 1


def wait_until(ready: Callable[[], bool], brokers: Iterable[MemoryBroker], *, timeout: float,
               pause: Callable[[], bool] | None = None, step: float = 0.1) -> bool:
    """A test's wait: until ``ready()``, or False after ``timeout`` real seconds. Between two looks it
    calls ``pause`` (True when something changed: look again at once); when nothing changed and no
    broker has anything left to deliver, each broker's clock moves on by ``step``."""
    deadline = time.monotonic() + timeout
    brokers = list(brokers)
    pause = pause or (lambda: bool(time.sleep(0.002)))
    while not ready():
        if time.monotonic() > deadline:
            return False
        if not pause() and all(broker.idle() for broker in brokers):
            for clock in {id(broker.clock): broker.clock for broker in brokers}.values():
                clock.advance(step)
    return True
