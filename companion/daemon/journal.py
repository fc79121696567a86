"""Crash-safe JSON Lines files: the running game's journal, and whole-file writes.

The device has no off switch, so the plug gets pulled mid-game. Each accepted record is one
line written by a single append and made durable with ``fsync`` before :meth:`Journal.append`
returns. A crash can therefore damage only the *last* line, and only a line whose append had
not yet returned: reading drops such a line with a message, and reopening cuts it off (keeping
its bytes in a ``.dropped`` file beside the journal) so that later appends start on a clean
line. Damage anywhere else cannot come from a crash, so it is a :class:`RecordError` naming the
line, never a silent skip: nothing that was accepted is ever lost.

Layout in the state directory (:func:`companion.paths.state_dir`): the running game is
``current.jsonl``; finished games are moved into ``games/`` by :func:`archive_journal`.
Functions here take paths; resolving them is the caller's job.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from companion.errors import CompanionError, RecordError

CURRENT_JOURNAL = "current.jsonl"
GAMES_DIR = "games"
DROPPED_SUFFIX = ".dropped"
_RAW_SHOWN = 40  # bytes of a dropped line quoted in its message: enough to recognise it


class JournalInUse(CompanionError, BlockingIOError):
    """Another process has the journal open: two writers would interleave two games."""


@dataclass(frozen=True)
class DroppedLine:
    """A last line that a crash cut short or garbled, left out of the game."""

    line: int  # 1-based
    reason: str
    raw: bytes  # the line's first bytes, enough to recognise it
    size: int  # the line's full length in bytes, newline excluded

    def __str__(self) -> str:
        more = "..." if self.size > len(self.raw) else ""
        return f"line {self.line} dropped ({self.reason}): {self.raw!r}{more} ({self.size} bytes)"


@dataclass(frozen=True)
class JournalRead:
    """What a journal holds: every accepted object, and the damaged last line if any."""

    objects: list[dict[str, Any]]
    dropped: list[DroppedLine]
    good_size: int  # bytes up to and including the last accepted line's newline


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One journal line: compact JSON in UTF-8 (Japanese stays readable), then a newline.

    >>> encode_line({"kind": "play", "seat": 2})
    b'{"kind":"play","seat":2}\\n'
    """
    if not isinstance(record, Mapping):
        raise RecordError(f"a journal line must be a JSON object, not {type(record).__name__}")
    try:
        text = json.dumps(dict(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise RecordError(f"this record cannot be written as JSON: {err}") from None
    return text.encode("utf-8") + b"\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _decode(raw: bytes) -> dict[str, Any]:
    """Parse one line; a ValueError's text says what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"not UTF-8 at byte {err.start + 1}") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON: {err.msg.removesuffix(' at')} at column {err.colno}") from None  # json says "... starting at"
    if not isinstance(value, dict):
        raise ValueError(f"a JSON {type(value).__name__} where an object belongs")
    return value


def _dropped(line: int, reason: str, raw: bytes) -> DroppedLine:
    return DroppedLine(line, reason, raw[:_RAW_SHOWN], len(raw))


def parse_journal(data: bytes, source: str = "journal") -> JournalRead:
    """Split a journal's bytes into accepted objects and a damaged last line.

    >>> read = parse_journal(b'{"a":1}\\n{"b":2}\\n{"c"')
    >>> read.objects
    [{'a': 1}, {'b': 2}]
    >>> print(read.dropped[0])
    line 3 dropped (no newline at the end: the write was cut short): b'{"c"' (4 bytes)
    >>> parse_journal(b'{"a":1}\\nxx\\n{"b":2}\\n', source="current.jsonl")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    companion.errors.RecordError: line 2: current.jsonl: not JSON: Expecting value at column 1; ...
    """
    *complete, tail = data.split(b"\n")
    objects: list[dict[str, Any]] = []
    good_size = 0
    for index, raw in enumerate(complete):
        try:
            objects.append(_decode(raw))
        except ValueError as bad:
            if index == len(complete) - 1 and not tail:
                return JournalRead(objects, [_dropped(index + 1, str(bad), raw)], good_size)
            raise RecordError(
                f"{source}: {bad}; only the last line can be cut short by a crash, so the file "
                "was damaged some other way: it is left untouched for a person to repair",
                index + 1,
            ) from None
        good_size += len(raw) + 1
    if not tail:
        return JournalRead(objects, [], good_size)
    reason = "no newline at the end: the write was cut short"
    return JournalRead(objects, [_dropped(len(complete) + 1, reason, tail)], good_size)


def read_journal(path: Path) -> JournalRead:
    """Read a journal without changing it (see :func:`parse_journal`)."""
    return parse_journal(Path(path).read_bytes(), source=str(path))


def fsync_directory(directory: Path) -> None:
    """Make a create, rename or unlink inside ``directory`` survive power loss."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _durable_temp_file(directory: Path, name: str, data: bytes, mode: int) -> str:
    """Write ``data`` to a fresh hidden file beside ``name``, flushed to disk; return its path."""
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    return temp


def atomic_replace(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace a whole file so that readers, and a crash, see the old or the new bytes, never half.

    For exports and settings: temp file, ``fsync``, rename over the target, ``fsync`` the directory.
    """
    path = Path(path)
    temp = _durable_temp_file(path.parent, path.name, data, mode)
    try:
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    fsync_directory(path.parent)


def archive_journal(journal_path: Path, games_dir: Path, name: str) -> Path:
    """Move a finished (and closed) game's journal into ``games_dir`` as ``name``.

    A rename, so the game is in exactly one place at every instant; an existing game of the
    same name is never replaced (FileExistsError).
    """
    if not name or name in {".", ".."} or "/" in name:
        raise ValueError(f"not a plain file name for a finished game: {name!r}")
    journal_path, games_dir = Path(journal_path), Path(games_dir)
    games_dir.mkdir(parents=True, exist_ok=True)
    target = games_dir / name
    if target.exists():
        raise FileExistsError(errno.EEXIST, "a finished game already has this name", str(target))
    os.rename(journal_path, target)
    fsync_directory(games_dir)
    fsync_directory(journal_path.parent)
    return target


class Journal:
    """An open journal, locked against a second writer; each :meth:`append` is durable on return.

    Get one with :meth:`create` (a new game) or :meth:`open` (resume after a restart or crash).
    """

    def __init__(self, path: Path, fd: int, recovered: JournalRead) -> None:
        self.path = path
        self.recovered = recovered  # what the file held when opened: replay these objects
        self._fd = fd
        self._size = recovered.good_size

    @classmethod
    def create(cls, path: Path, header: Mapping[str, Any]) -> Journal:
        """Start a journal whose first line is ``header``; never replaces an existing journal.

        The header goes into a temp file that is then linked into place, so after a crash the
        journal either does not exist or holds the complete header.
        """
        path = Path(path)
        line = encode_line(header)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = _durable_temp_file(path.parent, path.name, line, 0o644)
        try:
            os.link(temp, path)  # FileExistsError rather than overwrite a game in progress
        finally:
            os.unlink(temp)
        fsync_directory(path.parent)
        return cls.open(path)

    @classmethod
    def open(cls, path: Path) -> Journal:
        """Open for appending; a damaged last line is cut off, its bytes kept in ``.dropped``.

        Raises FileNotFoundError when no game is running, RecordError for damage a crash cannot
        cause (the file is then left exactly as it was), JournalInUse for a second writer.
        """
        path = Path(path)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise JournalInUse(
                    f"{path} is open in another companion process; stop that one first "
                    "(sudo systemctl stop tabletop-companion)"
                ) from None
            with open(fd, "rb", closefd=False) as stream:
                data = stream.read()
            recovered = parse_journal(data, source=str(path))
            if recovered.good_size < len(data):
                _keep_dropped_bytes(path, data[recovered.good_size :])
                os.ftruncate(fd, recovered.good_size)
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, recovered)

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def append(self, record: Mapping[str, Any]) -> None:
        """Add one record; on return it is on disk. On failure the file is as before the call."""
        line = encode_line(record)
        if self.closed:
            raise ValueError(f"{self.path} is closed")
        try:
            _write_all(self._fd, line)
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:
                # Appending after a half-written line would bury it mid-file; closing leaves
                # it last, where the next open() recovers from it.
                self.close()
            raise
        self._size += len(line)

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)  # also releases the lock
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _keep_dropped_bytes(path: Path, tail: bytes) -> None:
    """Append the bytes about to be cut off to ``<journal>.dropped``, so truncation loses nothing."""
    if not tail.endswith(b"\n"):
        tail += b"\n"
    keep = os.open(
        path.with_name(path.name + DROPPED_SUFFIX),
        os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
        0o644,
    )
    try:
        _write_all(keep, tail)
        os.fsync(keep)
    finally:
        os.close(keep)
    fsync_directory(path.parent)
