"""A small threaded HTTP server that slow or unread clients cannot fill: for read-only pages on a LAN.

A thread per connection is simple and enough for a projector page and a few downloads, but each
connection holds a slot until it ends: 64 clients that send their request a byte at a time, or that
open a live stream and never read it, would hold every slot for as long as they like.
:class:`GuardedHTTPServer` (with a handler derived from :class:`GuardedHandler`) bounds that:

- **a deadline per request**: a request line and headers not complete within ``request_deadline``
  seconds (a client trickling bytes, or idle between two requests) end the connection;
- **write timeouts**: every answer must be taken by the client within ``write_timeout`` seconds (the
  socket's timeout covers a whole ``sendall``), and a stream gets a small send buffer, so an unread
  stream blocks, and ends, soon;
- **a cap per client address** (``max_per_client``) beside the cap on all connections
  (``max_connections``);
- **the oldest idle stream closed first**: when a cap is reached, a new connection takes the slot of
  the oldest live stream (of its own address for the per-address cap), else of the connection that
  has been sending its request longest (past ``SLOW_REQUEST``); only if there is neither is the new
  one closed at once.

The server side never imports anything of event mode: the device may serve a page with it too.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_CONNECTIONS = 64  # served at once, each on its own thread
MAX_PER_CLIENT = 16  # from one address: a room's projectors and downloads come from several
REQUEST_DEADLINE = 10.0  # seconds for a request line and its headers (a browser takes milliseconds)
WRITE_TIMEOUT = 10.0  # seconds a client may take to accept one answer or one stream update
SLOW_REQUEST = 1.0  # seconds after which a request still arriving may lose its slot to a newcomer
STREAM_SEND_BUFFER = 32 * 1024  # bytes the kernel holds for a stream: an unread one blocks soon


@dataclass(eq=False)
class Connection:
    """One served connection: whose, and what it is doing since when."""

    sock: socket.socket
    address: str
    phase: str  # "request" (its request is arriving, or it idles between two), "answer" or "stream"
    since: float
    closing: bool = False


class GuardedHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer whose slots slow, idle or unread clients cannot keep (module docstring).

    Counters for a bench or a test: ``refused`` (closed at once: every slot busy), ``evicted``
    (closed to make room for a newcomer) and ``timed_out`` (a request past its deadline).
    """

    daemon_threads = True
    request_queue_size = 128  # the listen backlog: a burst of connections waits to be admitted, not retried

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[GuardedHandler],
        *,
        max_connections: int = MAX_CONNECTIONS,
        max_per_client: int = MAX_PER_CLIENT,
        request_deadline: float = REQUEST_DEADLINE,
        write_timeout: float = WRITE_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_connections = max_connections
        self.max_per_client = max_per_client
        self.request_deadline = request_deadline
        self.write_timeout = write_timeout
        self.clock = clock
        self.refused = self.evicted = self.timed_out = 0
        self._open: dict[socket.socket, Connection] = {}
        self._lock = threading.Lock()
        super().__init__(address, handler)

    # --- slots ------------------------------------------------------------------------------

    # The ignore below: a TCP server, so each request is a socket; socketserver types requests wider
    def process_request(self, request: socket.socket, client_address: Any) -> None:  # type: ignore[override]
        """Serve the connection on a thread if a slot is free or can be freed, else close it."""
        address = str(client_address[0])
        with self._lock:
            admitted = self._admit(address)
            if admitted:
                self._open[request] = Connection(request, address, "request", self.clock())
        if not admitted:
            self.refused += 1
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._forget(request)
            raise

    # The ignore below: as process_request
    def process_request_thread(self, request: socket.socket, client_address: Any) -> None:  # type: ignore[override]
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._forget(request)

    def _admit(self, address: str) -> bool:
        """Room for one more from ``address``, freeing a slot if a cap is reached (under the lock)."""
        live = [c for c in self._open.values() if not c.closing]
        mine = [c for c in live if c.address == address]
        if len(mine) >= self.max_per_client and not self._evict(mine):
            return False
        live = [c for c in live if not c.closing]
        return len(live) < self.max_connections or self._evict(live)

    def _evict(self, among: list[Connection]) -> bool:
        """Close the oldest live stream of ``among``, else its slowest arriving request; False if none."""
        now = self.clock()
        streams = [c for c in among if c.phase == "stream" and not c.closing]
        slow = [c for c in among if c.phase == "request" and not c.closing and now - c.since >= SLOW_REQUEST]
        victims = streams or slow
        if not victims:
            return False
        self._close(min(victims, key=lambda c: c.since))
        self.evicted += 1
        return True

    def _close(self, connection: Connection) -> None:
        """End a connection from outside its thread: its blocked read or write returns at once."""
        connection.closing = True
        with contextlib.suppress(OSError):  # already gone
            connection.sock.shutdown(socket.SHUT_RDWR)

    def _forget(self, request: socket.socket) -> None:
        with self._lock:
            self._open.pop(request, None)

    def connections(self, phase: str | None = None, address: str | None = None) -> int:
        """How many connections are served (in ``phase``, from ``address``), for a bench or a test."""
        with self._lock:
            return sum(1 for c in self._open.values() if not c.closing and phase in (None, c.phase)
                       and address in (None, c.address))

    def enter(self, sock: socket.socket, phase: str) -> None:
        """The handler says what its connection does now ("request", "answer" or "stream")."""
        with self._lock:
            connection = self._open.get(sock)
            if connection is not None and connection.phase != phase:
                connection.phase, connection.since = phase, self.clock()

    def service_actions(self) -> None:
        """Called by serve_forever about twice a second: end requests past their deadline."""
        now = self.clock()
        with self._lock:
            late = [c for c in self._open.values()
                    if c.phase == "request" and not c.closing and now - c.since > self.request_deadline]
            for connection in late:
                self._close(connection)
                self.timed_out += 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that vanished, timed out or was closed to make room is not news


class GuardedHandler(BaseHTTPRequestHandler):
    """The handler side: tells its :class:`GuardedHTTPServer` what the connection does, so slow
    requests meet their deadline and a stream can be closed to make room."""

    server: GuardedHTTPServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.write_timeout)  # a read, or a whole write, must finish in it

    def handle_one_request(self) -> None:
        self.server.enter(self.connection, "request")
        super().handle_one_request()

    def parse_request(self) -> bool:
        parsed = super().parse_request()  # reads the headers: until then the request is arriving
        self.server.enter(self.connection, "answer")
        return parsed

    def begin_stream(self) -> None:
        """This answer is a live stream: a small send buffer, so a client that stops reading blocks
        the next write (and the write timeout ends it), and the slot may go to a newcomer."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)
        self.server.enter(self.connection, "stream")
