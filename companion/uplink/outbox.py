"""The journal as the outbox: which lines the broker has, which to send next, remembered on disk.

The device already writes every accepted line to its journal with an fsync, so the journal *is* the
queue of outgoing messages; nothing is copied. What the outbox adds is a small cursor file
(``event-<event>.json`` in the state directory, replaced atomically) that names every game this
device published for the event, by a game id of its own, and the highest line of each that the
broker acknowledged. After a restart, a dead broker or a lost connection the device sends again from
there; a line sent twice is harmless because the scoreboard keeps each line number once.

A new game on the device is a new journal file (a new inode), so it gets a new game id; a finished
game's journal is renamed into ``games/``, where the outbox finds it by inode when lines are still
owed or the scoreboard asks for them again.

>>> import tempfile
>>> from pathlib import Path
>>> from companion.journal import Journal
>>> state = Path(tempfile.mkdtemp())
>>> with Journal.create(state / "current.jsonl", {"format": "x"}) as journal:
...     journal.append({"type": "draft"})
>>> outbox = Outbox(state, "cup", "3")
>>> outbox.refresh()
True
>>> [(line, data) for _, line, data in outbox.take(10)]
[(1, {'format': 'x'}), (2, {'type': 'draft'})]
>>> game = outbox.current.id
>>> outbox.acked(game, 1), outbox.acked(game, 2), outbox.backlog
(True, True, 0)
>>> outbox.save(), Outbox(state, "cup", "3").current.acked  # a restart resumes after line 2
(True, 2)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.codec import decode_json
from companion.engine.base import is_int
from companion.errors import RecordError, StorageError
from companion.journal import CURRENT_JOURNAL, GAMES_DIR, parse_journal
from companion.storage import atomic_replace, read_text

log = logging.getLogger(__name__)

CURSOR_VERSION = 1
MAX_CURSOR_BYTES = 4 << 20  # thousands of games' entries; a larger file is not a cursor


def cursor_path(state_dir: Path, event: str) -> Path:
    return state_dir / f"event-{event}.json"


@dataclass
class GameLog:
    """One published game: its id, where its journal is, and how far the broker has it."""

    id: str
    inode: int
    header: str  # digest of the header line: an inode number can be reused once a file is deleted
    acked: int  # every line up to this one was acknowledged by the broker
    path: Path | None  # where the journal is now; None once it cannot be found
    lines: list[dict[str, Any]] = field(default_factory=list)
    loaded_bytes: int = 0
    next_send: int = 0  # 0: start after ``acked``
    acked_above: set[int] = field(default_factory=set)
    id_saved: bool = True  # False until the cursor file names this game: no line goes out before

    def read_more(self, durable: int | None = None) -> int:
        """Read the complete lines appended since the last call, up to byte ``durable`` if given."""
        if self.path is None:
            return 0
        try:
            with open(self.path, "rb") as stream:
                stream.seek(self.loaded_bytes)
                chunk = stream.read(-1 if durable is None else max(0, durable - self.loaded_bytes))
        except FileNotFoundError:
            return 0
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written waits for its newline
        if not complete:
            return 0
        objects = parse_journal(complete).objects
        self.lines += objects
        self.loaded_bytes += len(complete)
        return len(objects)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "inode": self.inode, "header": self.header, "acked": self.acked}


def _header_digest(path: Path) -> str | None:
    try:
        with open(path, "rb") as stream:
            first = stream.readline()
    except FileNotFoundError:
        return None
    return hashlib.sha256(first).hexdigest()[:16] if first.endswith(b"\n") else None


class Outbox:
    """Journal lines still owed to the broker, oldest game first. Used from one thread only."""

    def __init__(self, state_dir: Path, event: str, table: str) -> None:
        self.state_dir = Path(state_dir)
        self.table = table
        self.path = cursor_path(self.state_dir, event)
        self.games: list[GameLog] = []
        self._dirty = False
        self._save_failed = False
        self._load()

    @property
    def unsaved(self) -> bool:
        """The cursor file is behind (a full or failing card): :meth:`save` should be tried again."""
        return self._dirty and self._save_failed

    @property
    def id_waiting(self) -> bool:
        """A new game's id is not on disk yet, so its lines wait for :meth:`save`."""
        return self._dirty and any(not game.id_saved for game in self.games)

    @property
    def changed(self) -> bool:
        """The cursor file is behind what the broker acknowledged."""
        return self._dirty

    @property
    def current(self) -> GameLog | None:
        return self.games[-1] if self.games else None

    @property
    def backlog(self) -> int:
        """Lines on disk that the broker has not acknowledged yet."""
        return sum(len(g.lines) - g.acked for g in self.games if g.path is not None)

    def game(self, game_id: str) -> GameLog | None:
        return next((g for g in self.games if g.id == game_id), None)

    # --- following the journal -----------------------------------------------------------

    def refresh(self, durable: tuple[int, int] | None = None) -> bool:
        """Notice a new game and new lines; True if there is anything new to send.

        ``durable`` is ``(inode, size)`` of the journal when its last append had been fsynced: bytes
        past it may be a line still being written, which a power cut could yet take back, so they
        wait. Without it (at start-up, after the journal's recovery) the whole file counts.
        """
        journal = self.state_dir / CURRENT_JOURNAL
        current = self.current
        try:
            inode = journal.stat().st_ino
        except FileNotFoundError:
            inode = None
        if current is not None and current.path == journal and current.inode != inode:
            self._relocate(current)  # the game was archived (and maybe a new one started)
        new = False
        if inode is not None and (current is None or current.inode != inode):
            header = _header_digest(journal)
            if header is None:
                return False  # the header is still being linked into place
            self.games.append(GameLog(self._new_id(), inode, header, 0, journal, id_saved=False))
            self._dirty = True
            self.save()  # the id is on disk before any line goes out under it (take() waits for that)
            new = True
        for game in self.games:
            if game.acked < len(game.lines) or game is self.current:
                limit = durable[1] if durable is not None and durable[0] == game.inode else None
                new = game.read_more(limit) > 0 or new
        return new

    def _relocate(self, game: GameLog) -> None:
        """Find a renamed journal in ``games/`` by inode (and header), or give it up with a log line."""
        games_dir = self.state_dir / GAMES_DIR
        for candidate in sorted(games_dir.glob("*.jsonl")) if games_dir.is_dir() else []:
            try:
                if candidate.stat().st_ino == game.inode and _header_digest(candidate) == game.header:
                    game.path = candidate
                    return
            except FileNotFoundError:
                continue
        if game.acked < len(game.lines):
            log.error(
                "game %s: its journal is gone with lines %d-%d unpublished", game.id, game.acked + 1, len(game.lines)
            )
        game.path = None

    def _new_id(self) -> str:
        return f"{self.table}-{secrets.token_hex(6)}"

    # --- sending and acknowledging --------------------------------------------------------

    def take(self, limit: int) -> list[tuple[str, int, dict[str, Any]]]:
        """Up to ``limit`` lines to publish next: ``(game id, line number, object)``, oldest first."""
        out: list[tuple[str, int, dict[str, Any]]] = []
        for game in self.games:
            if game.path is None or not game.id_saved:
                continue
            start = game.next_send or game.acked + 1
            while len(out) < limit and start <= len(game.lines):
                out.append((game.id, start, game.lines[start - 1]))
                start += 1
            game.next_send = start
            if len(out) >= limit:
                break
        return out

    def acked(self, game_id: str, line: int) -> bool:
        """The broker has line ``line`` of ``game_id``; True if the cursor moved."""
        game = self.game(game_id)
        if game is None or line <= game.acked:
            return False
        game.acked_above.add(line)
        moved = False
        while game.acked + 1 in game.acked_above:
            game.acked_above.discard(game.acked + 1)
            game.acked += 1
            moved = True
        self._dirty |= moved
        return moved

    def rewind(self) -> None:
        """After a reconnect: everything not acknowledged goes out again."""
        for game in self.games:
            game.next_send = 0
            game.acked_above.clear()

    def resend(self, game_id: str, after: int) -> bool:
        """The scoreboard misses lines after ``after`` of ``game_id``; False for an unknown game."""
        game = self.game(game_id)
        if game is None or game.path is None:
            return False
        game.next_send = min(game.next_send or game.acked + 1, after + 1)
        return True

    def published(self) -> dict[str, int]:
        """Every game of this event with its line count as far as known: the status's ledger."""
        return {g.id: max(len(g.lines), g.acked) for g in self.games}

    # --- the cursor file -------------------------------------------------------------------

    def save(self) -> bool:
        """Write the cursor file if it changed; False if that failed (said once, tried again later).

        A full card must not stop publishing: lines already named go on (the broker's
        acknowledgements are kept in memory meanwhile), and a new game waits until its id is on disk.
        """
        if not self._dirty:
            return True
        data = {"version": CURSOR_VERSION, "table": self.table, "games": [g.to_json() for g in self.games]}
        try:
            atomic_replace(self.path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
        except StorageError as err:
            if not self._save_failed:
                log.error("event cursor: %s; publishing goes on, and it is saved again when the card has room", err)
            self._save_failed = True
            return False
        if self._save_failed:
            log.info("event cursor: saved again")
        self._save_failed = False
        self._dirty = False
        for game in self.games:
            game.id_saved = True
        return True

    def _load(self) -> None:
        """Read the cursor file with the bounded reader; a damaged one is set aside (and said), and
        the current game is published again from the start (the scoreboard keeps each line once)."""
        try:
            data = decode_json(read_text(self.path, MAX_CURSOR_BYTES))
            games = [_entry(entry) for entry in data["games"]]
        except FileNotFoundError:
            return
        except (StorageError, RecordError, KeyError, TypeError, ValueError) as err:
            self._set_aside(str(err) if isinstance(err, (StorageError, RecordError)) else f"not a cursor file: {err!r}")
            return
        self.games.extend(games)
        journal = self.state_dir / CURRENT_JOURNAL
        for game in self.games:
            if game is self.current and _inode(journal) == game.inode and _header_digest(journal) == game.header:
                game.path = journal
            else:
                self._relocate(game)
            game.read_more()

    def _set_aside(self, why: str) -> None:
        for n in range(1, 1000):
            aside = self.path.with_name(f"{self.path.name}.damaged-{n}")
            if not os.path.lexists(aside):
                break
        try:
            os.rename(self.path, aside)
            where = f"set aside as {aside.name}"
        except OSError as err:
            where = f"could not be set aside ({err.strerror}); it is replaced at the next save"
            self._dirty = True
        log.error(
            "event cursor %s is damaged (%s): %s; publishing the current game again from the start",
            self.path,
            why,
            where,
        )


def _entry(entry: Any) -> GameLog:
    """One game of the cursor file, every field checked (a wrong type is a damaged file)."""
    if not isinstance(entry, dict):
        raise TypeError("a game entry is not an object")
    game_id, inode, header, acked = entry["id"], entry["inode"], entry["header"], entry["acked"]
    if not (isinstance(game_id, str) and is_int(inode) and isinstance(header, str) and is_int(acked) and acked >= 0):
        raise TypeError(f"a game entry has wrong types: {entry!r:.80}")
    return GameLog(game_id, inode, header, acked, None)


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None
