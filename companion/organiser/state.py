"""The scoreboard's own state directory: every game it rebuilt, kept on disk so its restart resumes.

``<dir>/<table>/<game id>.jsonl`` holds a game's journal lines in line order, as received: a record
``companion replay`` reads. Each file is replaced atomically (:func:`~companion.storage.atomic_replace`)
when its game changed, so a crash or a pulled plug leaves the old or the new file, never half of one.
A restarted scoreboard loads them and asks the tables only for the lines it lacks (a table's
retained status says how many there are). A table or game id that is not a safe file name is
kept in memory only, and said once.

Loading is bounded as the device's journal is: a game file over ``MAX_GAME_BYTES`` or
``MAX_GAME_LINES`` lines (an honest game has a few hundred lines, some 50 kB), a table's files
beyond ``MAX_GAMES_PER_TABLE`` or ``MAX_TABLE_BYTES``, and tables beyond ``MAX_TABLES`` are set
aside: renamed ``*.set-aside`` unread (or read no further than needed to know), and named. A stop
(Ctrl-C) between two files ends the load.

``<dir>/<table>/heard.json`` keeps when the scoreboard heard each of the table's games live,
``{"<game id>": [first, last]}`` by its own clock (:mod:`.names` uses it to prove two tables used a
name at the same time): a restart must not lose it, since what arrives right after one is not live.

>>> import tempfile
>>> from companion.organiser.board import Board
>>> from companion.event.wire import JournalMessage
>>> directory = Path(tempfile.mkdtemp())
>>> board = Board()
>>> _ = board.journal("3", JournalMessage("3-ab", 1, None, {"format": "not a record"}), now=0.0)
>>> BoardState(directory).save(board)
1
>>> restored = Board()
>>> BoardState(directory).load(restored).games, restored.tables["3"].games["3-ab"].stream.applied
(1, 1)
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from companion.codec import decode_json
from companion.errors import RecordError, StorageError
from companion.organiser.board import MAX_GAMES_PER_TABLE, MAX_TABLE_BYTES, MAX_TABLES, Board
from companion.record import encode_line, parse_lines
from companion.storage import atomic_replace, read_file

log = logging.getLogger(__name__)

HEARD = "heard.json"
MAX_HEARD_BYTES = 1 << 20  # a table's heard times: 200 games of about 60 bytes, with room to spare
MAX_GAME_BYTES = 2 << 20  # one saved game: forty times an honest game's record
MAX_GAME_LINES = 10_000  # one saved game's lines: thirty times an honest game's
SET_ASIDE = ".set-aside"  # the suffix of a file loading left alone

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")  # a file name on any file system, never . or ..


def safe_name(text: str) -> bool:
    """Whether a table or game id can name a file as it is.

    >>> safe_name("3-9f2c01ab77de"), safe_name("../x"), safe_name("a/b"), safe_name("x" * 300)
    (True, False, False, False)
    """
    return bool(_NAME.match(text))


@dataclass
class Loaded:
    """What :meth:`BoardState.load` did: the games it read, what it set aside and why, and whether a
    stop ended it early."""

    games: int = 0
    set_aside: list[str] = field(default_factory=list)  # "<table>/<file>: why"
    stopped: bool = False

    def summary(self, limit: int = 3) -> str:
        """One line for the organiser: "N games resumed", and what was set aside, the first few named.

        >>> Loaded(4, ["7/a.jsonl: 16.0 MB, over 2 MiB", "7/b.jsonl: 1 more"]).summary(1)
        '4 games resumed; 2 files set aside (*.set-aside): 7/a.jsonl: 16.0 MB, over 2 MiB, and 1 more'
        """
        said = f"{self.games} games resumed" + (" before the stop" if self.stopped else "")
        if self.set_aside:
            named = "; ".join(self.set_aside[:limit])
            more = f", and {len(self.set_aside) - limit} more" if len(self.set_aside) > limit else ""
            files = f"{len(self.set_aside)} file{'s' if len(self.set_aside) > 1 else ''}"
            said += f"; {files} set aside (*{SET_ASIDE}): {named}{more}"
        return said


class BoardState:
    """Saves a :class:`Board`'s changed games into ``directory`` and loads them back."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._said: set[str] = set()  # ids already said to be unsafe, or writes already said to fail

    def check(self) -> None:
        """Create the directory and prove it writable, before the scoreboard starts (else StorageError)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            probe = self.directory / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as err:
            raise StorageError(f"--state {self.directory}: cannot write there ({err.strerror or err})") from None

    def save(self, board: Board) -> int:
        """Write every game changed since the last save; returns how many files were written.

        A write that fails (a full disk) is logged once and tried again at the next save.
        """
        written = 0
        failed: list[tuple[str, str]] = []
        for table_id, game_id, lines in board.take_dirty():
            if not (safe_name(table_id) and safe_name(game_id)):
                self._say(f"{table_id}/{game_id}", "table %r game %r: not a safe file name; kept in memory only",
                          table_id, game_id)
                continue
            folder = self.directory / table_id
            try:
                folder.mkdir(parents=True, exist_ok=True)
                atomic_replace(folder / f"{game_id}.jsonl", b"".join(encode_line(line) for line in lines))
            except (OSError, StorageError) as err:
                failed.append((table_id, game_id))
                self._say("write", "the scoreboard's state cannot be saved (%s); trying again", err)
                continue
            self._said.discard("write")
            written += 1
        board.mark_dirty(failed)
        unsaved = []
        for table_id, heard in board.take_heard():
            if not safe_name(table_id):
                continue  # said above, with its games
            try:
                (self.directory / table_id).mkdir(parents=True, exist_ok=True)
                atomic_replace(self.directory / table_id / HEARD, json.dumps(heard, sort_keys=True).encode("utf-8"))
            except (OSError, StorageError) as err:
                unsaved.append(table_id)
                self._say("write", "the scoreboard's state cannot be saved (%s); trying again", err)
        board.mark_heard_dirty(unsaved)
        return written

    def load(self, board: Board, stop: threading.Event | None = None) -> Loaded:
        """Feed every saved game to ``board`` (each table's oldest file first), within the bounds in
        the module docstring; ends early when ``stop`` is set."""
        loaded = Loaded()
        if not self.directory.is_dir():
            return loaded
        tables = sorted(p for p in self.directory.iterdir() if p.is_dir() and safe_name(p.name))
        for number, folder in enumerate(tables):
            files = sorted((p for p in folder.glob("*.jsonl") if safe_name(p.stem)), key=_age)
            if number >= MAX_TABLES:
                for path in files:
                    self._set_aside(path, f"more than {MAX_TABLES} tables", loaded)
                continue
            budget = MAX_TABLE_BYTES
            for count, path in enumerate(files):
                if stop is not None and stop.is_set():
                    loaded.stopped = True
                    return loaded
                if count >= MAX_GAMES_PER_TABLE:
                    self._set_aside(path, f"more than {MAX_GAMES_PER_TABLE} games at this table", loaded)
                    continue
                lines = self._read_game(path, budget, loaded)
                if lines is not None:
                    board.restore(folder.name, path.stem, lines)
                    budget -= _size(path)
                    loaded.games += 1
            if safe_name(folder.name) and (folder / HEARD).is_file():
                self._load_heard(board, folder / HEARD)
        return loaded

    def _read_game(self, path: Path, budget: int, loaded: Loaded) -> list[dict[str, object]] | None:
        """One game's lines, or None when it is set aside (too large) or cannot be read (said)."""
        size = _size(path)
        if size > min(MAX_GAME_BYTES, budget):
            why = (f"{size / 1e6:.1f} MB, over {MAX_GAME_BYTES >> 20} MiB" if size > MAX_GAME_BYTES
                   else f"the table's games pass {MAX_TABLE_BYTES >> 20} MiB")
            self._set_aside(path, why, loaded)
            return None
        try:
            data = read_file(path, MAX_GAME_BYTES)
        except (OSError, StorageError) as err:
            log.warning("scoreboard state: %s is skipped (%s)", path, err)
            return None
        if data.count(b"\n") > MAX_GAME_LINES:  # counted before anything is parsed
            self._set_aside(path, f"more than {MAX_GAME_LINES} lines", loaded)
            return None
        return parse_lines(data).objects

    def _set_aside(self, path: Path, why: str, loaded: Loaded) -> None:
        """Rename a file loading leaves alone, so that it is not read at every start, and name it."""
        where = f"{path.parent.name}/{path.name}"
        try:
            os.replace(path, path.with_name(path.name + SET_ASIDE))
        except OSError as err:
            why += f"; left in place ({err.strerror or err})"
        log.warning("scoreboard state: %s set aside: %s", where, why)
        loaded.set_aside.append(f"{where}: {why}")

    def _load_heard(self, board: Board, path: Path) -> None:
        """One table's heard times; a damaged file is skipped with a warning (those games then prove
        nothing about when they were played, which flags nothing)."""
        try:
            heard = decode_json(read_file(path, MAX_HEARD_BYTES).decode("utf-8"))
        except (OSError, StorageError, RecordError, UnicodeDecodeError) as err:
            log.warning("scoreboard state: %s is skipped (%s)", path, err)
            return
        if not isinstance(heard, dict):
            log.warning("scoreboard state: %s is skipped (not an object)", path)
            return
        for game_id, times in heard.items():
            if (isinstance(times, list) and len(times) == 2
                    and all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times)):
                board.restore_heard(path.parent.name, game_id, float(times[0]), float(times[1]))

    def _say(self, key: str, message: str, *args: object) -> None:
        if key not in self._said:
            self._said.add(key)
            log.warning(message, *args)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _age(path: Path) -> tuple[int, str]:
    try:
        return path.stat().st_mtime_ns, str(path)
    except OSError:
        return 0, str(path)
