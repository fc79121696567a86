"""Debian's headless Chromium driven over the DevTools protocol on a pipe (no extra packages, no port).

The browser tests (the scoreboard's page, the device's table page) call :func:`needs_chromium`.

``--remote-debugging-pipe`` makes Chromium read protocol commands from fd 3 and write replies and
events to fd 4, each a JSON object ended by a NUL byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
    "--remote-debugging-pipe",
]


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def needs_chromium() -> None:
    """Skip, saying why, without Chromium; with ``COMPANION_BROWSER_TESTS=required`` (set by .ci/run,
    which installs it) fail instead, so CI never passes a browser test it did not run."""
    if chromium_binary():
        return
    why = "chromium is not installed (sudo apt install chromium)"
    if os.environ.get("COMPANION_BROWSER_TESTS") == "required":
        pytest.fail(why + "; COMPANION_BROWSER_TESTS=required")
    pytest.skip(why)


class Chromium:
    """One headless browser with one page; :meth:`evaluate` runs JavaScript in it."""

    def __init__(self, profile: Path, timeout: float = 20.0) -> None:
        binary = chromium_binary()
        if binary is None:
            raise FileNotFoundError("chromium is not installed")
        self.timeout = timeout
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        def child_fds() -> None:  # the child sees the pipe ends as fds 3 and 4
            reading = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)  # copies above 4 first, so that
            writing = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)  # neither dup2 clobbers the other
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, pass_fds=(3, 4),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="chromium-pipe", daemon=True)
        self._reader.start()
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t["targetId"] for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page, flatten=True)["sessionId"]

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        with self._arrived:
            if not self._arrived.wait_for(lambda: ident in self._replies, self.timeout):
                raise TimeoutError(f"chromium did not answer {method}")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", self.session, url=url)

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", self.session, expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, what: str) -> Any:
        """Evaluate until the value is truthy (the page updates from its event stream)."""
        deadline = time.monotonic() + self.timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page never showed {what}")
            time.sleep(0.05)

    def close(self) -> None:
        try:
            os.write(self._to_browser, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.process.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(10)
        os.close(self._to_browser)
        self._reader.join(10)
        os.close(self._from_browser)

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 65536)
            if not chunk:
                return
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for raw in messages:
                message = json.loads(raw)
                if "id" in message:
                    with self._arrived:
                        self._replies[message["id"]] = message
                        self._arrived.notify_all()
