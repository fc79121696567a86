"""Tell an outside observer where each acknowledged action ends in the journal (off by default).

A power-cut test records every write that reaches the disk and rebuilds the disk at each point;
to check that nothing acknowledged was lost it must know, in the same order as the writes, when
each action was acknowledged. When ``$COMPANION_ACK_PIPE`` names a FIFO, the device writes one
line per journal line on disk (after ``fsync`` returned, before the screen moves on): the
journal's size in bytes at that moment. An observer turns each line into a mark in its block
log; a mark that arrives late only asks less of the disk, never more. Nothing else reads it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from contextlib import ExitStack

log = logging.getLogger(__name__)

ACK_PIPE_ENV = "COMPANION_ACK_PIPE"


class AckPipe:
    """Writes the journal's size, one line per acknowledged journal line, to an open FIFO."""

    def __init__(self, fd: int, journal_size: Callable[[], int]) -> None:
        self._fd = fd
        self._journal_size = journal_size

    @classmethod
    def from_environ(cls, journal_size: Callable[[], int], environ: Mapping[str, str] = os.environ) -> AckPipe | None:
        """The pipe ``$COMPANION_ACK_PIPE`` names (the open waits for its reader), or None when unset."""
        path = environ.get(ACK_PIPE_ENV)
        if not path:
            return None
        log.info("acknowledgements go to %s", path)
        return cls(os.open(path, os.O_WRONLY | os.O_CLOEXEC), journal_size)

    def __call__(self) -> None:
        if self._fd < 0:
            return
        try:
            os.write(self._fd, f"{self._journal_size()}\n".encode("ascii"))
        except OSError as err:  # the observer went away: the game goes on without it
            log.warning("acknowledgement pipe closed (%s); no more acknowledgements sent", err.strerror)
            self.close()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def attach(journal_size: Callable[[], int], listeners: list[Callable[[], None]], cleanup: ExitStack,
           environ: Mapping[str, str] = os.environ) -> AckPipe | None:
    """Open ``$COMPANION_ACK_PIPE`` if set, tell it of every journalled line (``listeners`` are the
    store's), and close it with ``cleanup``; None when the variable is unset."""
    acks = AckPipe.from_environ(journal_size, environ)
    if acks is not None:
        cleanup.callback(acks.close)
        listeners.append(acks)
    return acks
