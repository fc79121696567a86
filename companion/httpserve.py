"""One read-only page and its live event stream, served over :mod:`companion.httpguard`.

The scoreboard's page (:mod:`companion.organiser.web`) and the device's table page
(:mod:`companion.daemon.page`) are both served by it, with the same protections:

* every answer carries a Content-Security-Policy that allows only the page's own inline script and
  style (by hash) and connections back to this server, ``X-Content-Type-Options: nosniff`` and no
  referrer; nothing outside the page is ever loaded (no scripts, fonts or CDNs);
* GET and HEAD only (anything else is 501): nothing can be changed through it;
* slow or unread clients cannot keep others out (:class:`~companion.httpguard.GuardedHTTPServer`: a
  deadline per request, write timeouts, a cap per client address and on all connections, the oldest
  stream closed first to make room).

A page's live data is a :class:`Live` source: a version that grows on every change, waited on by
each event stream (server-sent events), which sends the newest snapshot and never queues old ones.
"""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, Protocol

from companion.httpguard import GuardedHandler, GuardedHTTPServer

MIN_INTERVAL = 0.25  # seconds between two updates of one page: a person reading needs no more
KEEPALIVE = 15.0  # seconds: a comment line keeps proxies and the browser from closing the stream


class Live(Protocol):
    """What an event stream follows: :meth:`wait_change` and the bytes of the newest snapshot."""

    @property
    def closed(self) -> bool: ...

    def wait_change(self, seen: int, timeout: float) -> int: ...

    def event_data(self) -> tuple[int, bytes]: ...


def inline_hash(page: str, tag: str) -> str:
    """The CSP source of the page's one inline ``<tag>`` element: its text's SHA-256."""
    match = re.search(f"<{tag}>(.*?)</{tag}>", page, re.S)
    if match is None:
        raise LookupError(f"the page has no <{tag}>")
    return "'sha256-" + base64.b64encode(hashlib.sha256(match.group(1).encode("utf-8")).digest()).decode() + "'"


def security_headers(page: str) -> dict[str, str]:
    """The headers every answer carries: only ``page``'s own inline script and style may run."""
    return {
        "Content-Security-Policy": (
            f"default-src 'none'; script-src {inline_hash(page, 'script')}; style-src {inline_hash(page, 'style')}; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


class PageServer(GuardedHTTPServer):
    """Serves one page (``handler``'s); :meth:`serve_in_thread`, then :meth:`stop`. ``guard`` options
    go to :class:`~companion.httpguard.GuardedHTTPServer` (its caps and timeouts)."""

    def __init__(self, address: tuple[str, int], handler: type[PageHandler], page: str, *,
                 on_stop: Callable[[], None] = lambda: None, name: str = "page-web", **guard: Any) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.headers = security_headers(page)
        self.stopping = threading.Event()
        self._on_stop = on_stop  # wakes every event stream, so its thread ends
        self._name = name
        self._thread: threading.Thread | None = None
        super().__init__(address, handler, **guard)

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    def serve_in_thread(self) -> PageServer:
        self._thread = threading.Thread(target=self.serve_forever, name=self._name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        self.stopping.set()
        self._on_stop()
        if self._thread is not None:
            self.shutdown()  # waits for serve_forever to return: only if it ever ran
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout)


class PageHandler(GuardedHandler):
    """GET and HEAD of a page's paths (:meth:`answer`); every answer with the server's headers."""

    server: PageServer

    def end_headers(self) -> None:
        for name, value in self.server.headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # `format`: the base class's name
        pass  # a page reloading is not news

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        self.answer(self.path.split("?", 1)[0], body)

    def answer(self, path: str, body: bool) -> None:
        """Send what ``path`` is (a subclass's paths), or 404."""
        self.send_error(HTTPStatus.NOT_FOUND)

    def send_data(self, kind: str, data: bytes, body: bool, extra: dict[str, str] | None = None) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def stream_events(self, live: Live) -> None:
        """Server-sent events: the newest snapshot whenever ``live`` changes (at most every
        MIN_INTERVAL), a comment every KEEPALIVE; ends when the server stops, the page goes, it stops
        reading for the write timeout, or its slot goes to a newcomer."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.begin_stream()
        seen = -1
        try:
            while not self.server.stopping.is_set():
                version = live.wait_change(seen, KEEPALIVE)
                if self.server.stopping.is_set() or live.closed:
                    return
                if version == seen:
                    self.wfile.write(b": still here\n\n")
                else:
                    seen, data = live.event_data()
                    self.wfile.write(b"data: " + data + b"\n\n")
                self.wfile.flush()
                time.sleep(MIN_INTERVAL)
        except OSError:
            return
