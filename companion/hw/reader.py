"""A device read on a background thread of its own: started, stopped and joined the same way.

The Pico keypad's serial link and the numeric keypad's input device each block on their own reads
and survive their device going away; what they share is how their thread starts and ends, here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Self

from companion.errors import ConfigError, HardwareError


class ReaderThread:
    """Runs :meth:`_run` on a daemon thread; :meth:`_run` returns soon after ``_stopping`` is set.

    ``what`` names the reader in the error a join that timed out raises ("keypad reader on
    /dev/ttyACM0"), ``thread_name`` its thread. ``backoff`` is how long :meth:`_wait_to_retry` waits
    before the device is looked for again: each delay in turn, the last one repeating.
    """

    def __init__(self, what: str, thread_name: str, backoff: Sequence[float]) -> None:
        if not backoff or min(backoff) < 0:
            raise ConfigError(f"backoff needs at least one delay, none negative: {backoff!r}")
        self._what = what
        self._thread_name = thread_name
        self._backoff = tuple(backoff)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def _wait_to_retry(self, attempt: int) -> None:
        """Wait the backoff's delay for retry number ``attempt`` (0 the first), or until stopped."""
        self._stopping.wait(self._backoff[min(attempt, len(self._backoff) - 1)])

    def start(self) -> None:
        """Start the reader thread; the device is opened there, so a missing one does not raise."""
        if self._thread is not None:
            raise RuntimeError(f"this {type(self).__name__} was already started")
        self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the reader thread to finish; it notices within its read timeout."""
        self._stopping.set()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` s for the reader thread to finish (after :meth:`stop`)."""
        if self._thread is None:
            return
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise HardwareError(f"{self._what} did not stop within {timeout} s")

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.stop()
        self.join(timeout=5.0)

    def _run(self) -> None:
        raise NotImplementedError
