"""The smallest daemon built from the real parts; tests run it as a process and signal it.

It tells systemd (or a test standing in for it) READY=1, pings the watchdog from the loop, and
on SIGTERM/SIGINT says STOPPING=1 and exits 0 after the loop has returned.
"""

from __future__ import annotations

import sys

from companion.daemon.loop import EventLoop, stop_on_signals
from companion.daemon.sdnotify import Notifier, watchdog_interval


def main() -> int:
    notifier = Notifier.from_environ()
    loop: EventLoop[object] = EventLoop(lambda event: None)
    interval = watchdog_interval()
    if interval is not None:
        loop.call_every(interval, notifier.watchdog)
    with stop_on_signals(loop) as installed:
        if not installed:
            return 2
        notifier.ready()
        loop.run()
    notifier.stopping()
    return 0


if __name__ == "__main__":
    sys.exit(main())
