"""The scoreboard's web server: security headers on every answer, and slow or unread clients that
cannot keep anyone else out (a deadline per request, write timeouts, a cap per client address, the
oldest idle stream closed first). No broker needed: the server serves a Board."""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from companion.httpguard import MAX_CONNECTIONS, MAX_PER_CLIENT, SLOW_REQUEST
from companion.organiser import web
from companion.organiser.board import MAX_TABLES, Board
from companion.organiser.web import PAGE, ScoreboardServer
from tests.event.conftest import SETTLE


class StepClock:
    """The server's clock, moved by the test: "slow" is counted, not waited for."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def serve() -> Iterator:
    started: list[ScoreboardServer] = []

    def start(board: Board | None = None, **guard) -> ScoreboardServer:
        server = ScoreboardServer(("127.0.0.1", 0), board or Board(), **guard).serve_in_thread()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def headers(url: str) -> dict[str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return dict(response.headers)
    except urllib.error.HTTPError as err:
        return dict(err.headers)


def page(server: ScoreboardServer) -> int:
    with urllib.request.urlopen(server.url, timeout=SETTLE) as response:
        response.read()
        return response.status


def connect(server: ScoreboardServer, source: str = "127.0.0.1", first: bytes = b"") -> socket.socket:
    """A client from ``source`` (any 127.x.y.z is this host) that has sent ``first``."""
    sock = socket.create_connection(server.server_address[:2], timeout=SETTLE, source_address=(source, 0))
    sock.sendall(first)
    return sock


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + SETTLE
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {SETTLE:.0f} s")
        time.sleep(0.01)


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server ends this connection within SETTLE s (whatever it sent before: a stream's
    keep-alive lines keep coming while it is open)."""
    deadline = time.monotonic() + SETTLE
    sock.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True  # reset
    return False


def open_in_order(server: ScoreboardServer, count: int, phase: str, first: bytes, source=lambda n: "127.0.0.1",
                  clock: StepClock | None = None) -> list[socket.socket]:
    """``count`` connections, each one in ``phase`` before the next is opened, so the first is the oldest."""
    opened = []
    for n in range(count):
        opened.append(connect(server, source(n), first))
        wait_until(lambda n=n: server.connections(phase) == n + 1, f"connection {n + 1} in phase {phase}")
        if clock is not None:
            clock.now += 0.001
    return opened


@pytest.mark.parametrize("path", ["", "board.json", "standings.csv", "games.csv", "nothing-here"])
def test_every_answer_carries_the_security_headers(serve, path):
    got = headers(serve().url + path)
    assert got["X-Content-Type-Options"] == "nosniff"
    policy = got["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy


def test_the_policy_allows_exactly_the_pages_own_script_and_style():
    policy = web.SECURITY_HEADERS["Content-Security-Policy"]
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        (body,) = re.findall(f"<{tag}>(.*?)</{tag}>", PAGE, re.DOTALL)
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy
    assert "unsafe-inline" not in policy and "<script src" not in PAGE


def test_a_request_trickling_in_meets_its_deadline(serve):
    server = serve(request_deadline=0.5)
    slow = connect(server, first=b"G")
    sent = 0
    try:
        while True:  # a byte at a time, each well within any idle timeout, never a whole request
            slow.sendall(b"E" if sent == 0 else b"x")
            sent += 1
            time.sleep(0.05)
    except OSError:
        pass  # the server closed it
    finally:
        slow.close()
    assert server.timed_out == 1


def test_64_trickling_clients_do_not_keep_the_page_out(serve):
    """Every slot held by clients sending their request a byte at a time, from 64 addresses."""
    clock = StepClock()
    server = serve(clock=clock)
    slow = open_in_order(server, MAX_CONNECTIONS, "request", b"GET / HTTP/1.1\r\nHo", lambda n: f"127.0.1.{n + 1}",
                         clock)
    try:
        clock.now += SLOW_REQUEST  # they are slow now: a newcomer may take the slowest one's slot
        assert page(server) == 200
        assert server.evicted == 1 and closed_by_server(slow[0])
    finally:
        for sock in slow:
            sock.close()


def test_64_unread_event_streams_do_not_keep_the_page_out(serve):
    server = serve()
    streams = open_in_order(server, MAX_CONNECTIONS, "stream", b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n",
                            lambda n: f"127.0.2.{n + 1}")
    try:
        assert page(server) == 200
        assert server.evicted == 1 and server.refused == 0
        assert closed_by_server(streams[0])  # the oldest stream made room
        assert server.connections("stream") == MAX_CONNECTIONS - 1
    finally:
        for sock in streams:
            sock.close()


def test_one_address_holds_at_most_its_cap_and_others_are_served(serve):
    server = serve()
    mine = open_in_order(server, MAX_PER_CLIENT, "stream", b"GET /events HTTP/1.1\r\n\r\n")
    try:
        for n in range(4):  # each one more from the same address takes the slot of its oldest stream
            mine.append(connect(server, first=b"GET /events HTTP/1.1\r\n\r\n"))
            wait_until(lambda n=n: server.evicted == n + 1 and server.connections("stream") == MAX_PER_CLIENT,
                       "the per-address cap")
        assert all(closed_by_server(sock) for sock in mine[:4])  # the oldest four went
        other = connect(server, "127.0.3.1", b"GET /events HTTP/1.1\r\n\r\n")
        wait_until(lambda: server.connections("stream", "127.0.3.1") == 1, "another address's stream")
        assert server.connections("stream", "127.0.0.1") == MAX_PER_CLIENT
        other.close()
    finally:
        for sock in mine:
            sock.close()


def test_an_unread_stream_ends_on_its_write_timeout(serve):
    board = Board()
    server = serve(board, write_timeout=0.5)
    unread = socket.socket()
    unread.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads nothing fills up soon
    unread.connect(server.server_address[:2])
    unread.sendall(b"GET /events HTTP/1.1\r\n\r\n")
    try:
        wait_until(lambda: server.connections("stream") == 1, "the stream")
        table, deadline = 0, time.monotonic() + SETTLE
        while server.connections("stream"):  # every change sends the whole board: a large one
            assert time.monotonic() < deadline, "the unread stream was never closed"
            for _ in range(50):
                board.status(str(table % MAX_TABLES), {"online": True}, now=0.0)
                table += 1
            time.sleep(0.05)
        assert server.connections() == 0
    finally:
        unread.close()


def test_connections_beyond_the_cap_with_none_to_spare_are_closed_at_once(serve):
    server = serve(max_connections=3)
    held = [connect(server) for _ in range(3)]  # requests just begun: none is slow yet
    extra = connect(server)
    try:
        assert extra.recv(1) == b""
        assert server.refused == 1 and server.evicted == 0
    finally:
        for sock in [*held, extra]:
            sock.close()
