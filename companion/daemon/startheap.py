"""The device's start runs without Python's cyclic garbage collector; what it built is frozen at READY.

Why: a start to its first frame builds about 45,000 tracked objects (modules, classes, functions, the
text catalogue, the screens) that live as long as the device does. The collector's passes over that
heap while it grows are about 5% of a start's CPU time (4 ms of 90 on the shared x86_64 VM) and find
almost nothing to free: about 570 objects, 100 KB (argparse's help formatters, classes built and
dropped while modules load), none holding a file or a socket. Frozen at READY (``gc.freeze``), the
start's objects stay out of every later collection too, so a full collection while the table plays
walks only what play has made (a full pass over the start's heap is about 10 ms on that VM). The
price, paid once and bounded by what the start built: the 100 KB stay for the life of the process
(collecting them at READY would cost three times what the pause saves), and so would any cycle of the
start's objects that play drops later (the first screen's, when it is left); objects that play makes
are collected as before.
"""

from __future__ import annotations

import gc


class StartHeap:
    """Whether this process's start paused the collector, so only that start restarts it."""

    def __init__(self) -> None:
        self.paused = False

    def pause(self) -> None:
        """Stop the cyclic collector for the start, if it runs; ``done`` restarts it."""
        if gc.isenabled():
            gc.disable()
            self.paused = True

    def done(self) -> None:
        """The start is over (or has failed): freeze what it built and collect again from here on.
        Nothing if the start did not pause the collector (a device run inside a test, for one)."""
        if self.paused:
            self.paused = False
            gc.freeze()
            gc.enable()


START = StartHeap()  # the process's one start: paused by ``companion run``, done at its READY
