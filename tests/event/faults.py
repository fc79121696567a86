"""The event cursor (``event-<event>.json``) as one more write path of the storage fault matrix.

Shared by tests/event/test_event_cursor.py and bench/faults.py (which adds it to the device's
write paths from tests/daemon/faults.py). Under each fault a new game starts while the cursor
cannot be written: nothing may raise, the old cursor file must stay whole, the new game's lines
must wait (its id is not on disk yet), an ERROR line must say so; once the card works again the
cursor is saved and the new game's lines go out.
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.journal import CURRENT_JOURNAL, GAMES_DIR, Journal
from companion.uplink.outbox import Outbox, cursor_path
from tests.daemon.faults import Cell, _errors_logged, inject

EVENT = "cup"


def _journal(path: Path, lines: int) -> None:
    with Journal.create(path, {"format": "x", "n": lines}) as journal:
        for n in range(1, lines):
            journal.append({"type": "draft", "n": n})


def cell_event_cursor(state: Path, fault: str) -> Cell:
    state.mkdir(parents=True, exist_ok=True)
    _journal(state / CURRENT_JOURNAL, 3)
    outbox = Outbox(state, EVENT, "3")
    outbox.refresh()
    first = outbox.current
    for _, line, _ in outbox.take(10):
        outbox.acked(first.id, line)
    outbox.save()
    before = cursor_path(state, EVENT).read_bytes()
    (state / GAMES_DIR).mkdir(exist_ok=True)
    os.rename(state / CURRENT_JOURNAL, state / GAMES_DIR / "1.jsonl")  # the game is archived, a new one starts
    _journal(state / CURRENT_JOURNAL, 2)
    running = True
    with _errors_logged() as log, inject(fault, lambda path: cursor_path(state, EVENT).name in os.path.basename(path)):
        try:
            outbox.refresh()
            held = outbox.take(10) == []  # the new game's id is not on disk: its lines wait
            saved = outbox.save()
        except Exception:  # the cell reports it: anything escaping is the failure measured
            running, held, saved = False, False, True
    whole = cursor_path(state, EVENT).read_bytes() == before
    no_temp = not any(p.name.endswith(".tmp") for p in state.iterdir())
    resumed = outbox.save() and [line for _, line, _ in outbox.take(10)] == [1, 2]
    message = log.lines[0] if log.lines else ""
    return Cell(running and not saved, held and whole and no_temp and resumed, message, bool(log.lines))
