"""sd_notify datagrams reach a real AF_UNIX socket, as systemd would receive them."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator

import pytest

from companion.daemon.sdnotify import Notifier, watchdog_interval


@pytest.fixture
def listener() -> Iterator[tuple[socket.socket, str]]:
    """A bound datagram socket standing in for systemd's; a short path (sun_path holds 108 bytes)."""
    directory = tempfile.mkdtemp(prefix="sdn", dir="/tmp")
    path = os.path.join(directory, "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(5)
        yield sock, path
    shutil.rmtree(directory)


def test_ready_status_watchdog_stopping_arrive_as_systemd_expects(
    listener: tuple[socket.socket, str],
) -> None:
    sock, path = listener
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("Waiting for players")
    assert notifier.status("Tezuma, deal 2\ntrick 5")
    assert notifier.watchdog()
    assert notifier.stopping()
    received = [sock.recv(4096) for _ in range(4)]
    assert received == [
        b"READY=1\nSTATUS=Waiting for players",
        b"STATUS=Tezuma, deal 2 trick 5",
        b"WATCHDOG=1",
        b"STOPPING=1",
    ]


def test_abstract_socket_name_with_at_sign() -> None:
    name = f"tabletop-companion-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert Notifier(f"@{name}").ready()
        assert sock.recv(4096) == b"READY=1"


def test_without_notify_socket_nothing_is_sent() -> None:
    notifier = Notifier.from_environ({})
    assert not notifier.enabled
    assert notifier.ready() is False
    assert notifier.watchdog() is False


def test_unusable_socket_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    missing = os.path.join(tempfile.gettempdir(), f"no-such-notify-{os.getpid()}")
    assert Notifier(missing).watchdog() is False
    assert "sd_notify WATCHDOG=1 failed" in caplog.text
    assert not Notifier("relative/name").enabled
    assert "neither a path nor @name" in caplog.text


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"WATCHDOG_USEC": "30000000"}, 15.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "4242"}, 15.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),  # meant for another process
        ({}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "-5"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
    ],
)
def test_watchdog_interval_is_half_the_period_for_the_right_process(
    environ: dict[str, str], expected: float | None
) -> None:
    assert watchdog_interval(environ, pid=4242) == expected


def test_watchdog_interval_defaults_to_this_process() -> None:
    environ = {"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())}
    assert watchdog_interval(environ) == 1.0
