"""Tell systemd how the daemon is doing (sd_notify(3)) without depending on python-systemd.

The protocol is one datagram of newline-separated ``KEY=VALUE`` lines sent to the AF_UNIX
socket named by ``$NOTIFY_SOCKET``; a name starting with ``@`` lives in the abstract namespace.
Outside systemd the variable is unset and every call does nothing, so mock mode on a PC runs
the very same code as the device.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def _socket_address(name: str) -> str | None:
    """The address to send to, or None for a name sd_notify(3) does not define.

    >>> _socket_address("@abstract/name")
    '\\x00abstract/name'
    >>> _socket_address("/run/systemd/notify")
    '/run/systemd/notify'
    """
    if name.startswith("@"):
        return "\0" + name[1:]
    if name.startswith("/"):
        return name
    return None


class Notifier:
    """Sends state changes to the service manager; does nothing when there is none."""

    def __init__(self, socket_name: str | None) -> None:
        self._address = _socket_address(socket_name) if socket_name else None
        if socket_name and self._address is None:
            log.warning("NOTIFY_SOCKET=%r is neither a path nor @name; not notifying", socket_name)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Notifier:
        return cls(environ.get("NOTIFY_SOCKET") or None)

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def send(self, *assignments: str) -> bool:
        """Send ``KEY=VALUE`` lines in one datagram; True when it was delivered.

        A failure is logged, not raised: systemd then notices on its own (start timeout or
        watchdog), while raising here would turn a status message into a crash.
        """
        if self._address is None:
            return False
        payload = "\n".join(assignments).encode("utf-8")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto(payload, self._address)
        except OSError as err:
            log.warning("sd_notify %s failed: %s", ",".join(assignments), err)
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """Start-up is complete: systemctl start returns, and the watchdog starts counting."""
        return self.send("READY=1", *_status_line(status))

    def status(self, text: str) -> bool:
        """A one-line state shown by ``systemctl status``."""
        return self.send(*_status_line(text))

    def watchdog(self) -> bool:
        """Keep-alive: proves the event loop still turns."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        return self.send("STOPPING=1", *_status_line(status))


def _status_line(text: str | None) -> list[str]:
    """``STATUS=`` ends at a newline, so a multi-line text is folded onto one line.

    >>> _status_line("Dealing\\nround 2")
    ['STATUS=Dealing round 2']
    """
    return [] if text is None else ["STATUS=" + " ".join(text.splitlines())]


def watchdog_interval(environ: Mapping[str, str] = os.environ, pid: int | None = None) -> float | None:
    """Seconds between keep-alives (half of ``WatchdogSec=``), or None when no watchdog is set.

    ``$WATCHDOG_PID``, when present, names the process meant to ping; a child that inherited
    the variables must not.

    >>> watchdog_interval({"WATCHDOG_USEC": "30000000"})
    15.0
    >>> watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, pid=42) is None
    True
    """
    usec_text = environ.get("WATCHDOG_USEC", "")
    if not usec_text:
        return None
    meant_for = environ.get("WATCHDOG_PID", "")
    if meant_for and meant_for != str(os.getpid() if pid is None else pid):
        return None
    usec = int(usec_text) if usec_text.isdecimal() else 0
    if usec <= 0:
        log.warning("WATCHDOG_USEC=%r is not a positive integer; not pinging", usec_text)
        return None
    return usec / 2 / 1_000_000
