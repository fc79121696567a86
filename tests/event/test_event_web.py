"""The scoreboard's web server: security headers on every answer, idle connections closed, a bounded
number of connections (each a thread). No broker needed: the server serves a Board."""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import threading
import urllib.error
import urllib.request

import pytest

from companion.event import web
from companion.event.board import Board
from companion.event.web import PAGE, ScoreboardServer
from tests.event.conftest import SETTLE


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(web, "IDLE_TIMEOUT", 0.5)
    monkeypatch.setattr(web._Handler, "timeout", 0.5)
    monkeypatch.setattr(web, "MAX_CONNECTIONS", 3)
    served = ScoreboardServer(("127.0.0.1", 0), Board()).serve_in_thread()
    yield served
    served.stop()


def headers(url: str) -> dict[str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return dict(response.headers)
    except urllib.error.HTTPError as err:
        return dict(err.headers)


@pytest.mark.parametrize("path", ["", "board.json", "standings.csv", "games.csv", "nothing-here"])
def test_every_answer_carries_the_security_headers(server, path):
    got = headers(server.url + path)
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


def test_an_idle_connection_is_closed_and_its_thread_ends(server):
    idle = socket.create_connection(server.server_address[:2])
    idle.settimeout(SETTLE)
    try:
        assert idle.recv(1) == b""  # closed by the server after IDLE_TIMEOUT, with nothing sent
    finally:
        idle.close()


def test_connections_beyond_the_limit_are_closed_at_once(server, monkeypatch):
    monkeypatch.setattr(web._Handler, "timeout", SETTLE)  # the three held ones stay open meanwhile
    before = threading.active_count()
    held = [socket.create_connection(server.server_address[:2]) for _ in range(3)]
    extra = socket.create_connection(server.server_address[:2])
    extra.settimeout(SETTLE)
    try:
        assert extra.recv(1) == b""
        assert server.refused >= 1
        assert threading.active_count() <= before + 3
    finally:
        for conn in [*held, extra]:
            conn.close()
