"""The running game's journal: crash-safe JSON Lines, one durable append per accepted action.

The device has no off switch, so the plug gets pulled mid-game. Each accepted record is one
line written by a single append and made durable with ``fsync`` before :meth:`Journal.append`
returns. A crash can therefore damage only the *last* line, and only a line whose append had
not yet returned. Lines are read the one way every record is read
(:func:`companion.record.parse_lines`); reopening cuts off the first line that cannot be
read and everything after it, keeping those bytes in a ``.dropped`` file beside the journal, so
later appends start on a clean line and the device resumes the readable prefix. Nothing is
deleted: whatever is cut off can be read back by a person.

A failed append leaves the journal as it was, or, when the half-written line cannot be taken
back (an SD card gone read-only), closes it for writing: it never holds a line the game does not.

A card can also say a write is done and drop it (a failing or counterfeit card). After each
``fsync`` the line is read back from the card itself (``O_DIRECT``, past the page cache, which
still holds it); a line the card does not hold closes the journal for writing (:class:`CardLost`),
so the table is told at once and nothing more is acknowledged on a card that lies. Where the file
system has no direct I/O (tmpfs) the read-back is skipped.

Layout in the state directory (:func:`companion.paths.state_dir`): the running game is
``current.jsonl``; finished games are moved into ``games/`` by :func:`archive_journal`.
Functions here take paths; resolving them is the caller's job.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import mmap
import os
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from companion.errors import CompanionError, StorageError
from companion.storage import (
    WriteUnsure,
    check_regular_file,
    durable_temp_file,
    fsync_directory,
    read_open_file,
    reason,
    write_all,
)

if TYPE_CHECKING:  # the record codec loads with the first journal: a device starting with none does not read one
    from companion.record import RecordLines

CURRENT_JOURNAL = "current.jsonl"
GAMES_DIR = "games"
DROPPED_SUFFIX = ".dropped"
MAX_JOURNAL_BYTES = 4 << 20
"""The most a journal may hold to be opened. The longest of 30 simulated games per game at its
largest table (6-player Irohanihohedo and Zenjidou, 4-player Tezuma) wrote 16 KB; undo lines at most
double that. A larger file is not one game's journal, and reading it whole could fill the memory."""



class JournalInUse(CompanionError, BlockingIOError):
    """Another process has the journal open: two writers would interleave two games."""


class JournalClosed(StorageError):
    """The journal refuses appends: it was closed, or a failed write could not be taken back."""


class CardLost(JournalClosed):
    """The card acknowledged a line (``fsync`` returned) that reading it back from the card did not find."""


def open_direct(path: Path) -> int:
    """A read-only descriptor of ``path`` that reads the card, not the page cache (``O_DIRECT``);
    -1 where the file system has no direct I/O (tmpfs answers EINVAL)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECT | os.O_CLOEXEC)
    except OSError as err:
        if err.errno in (errno.EINVAL, errno.EOPNOTSUPP):
            return -1
        raise


def read_back(fd: int, start: int, length: int) -> bytes:
    """``length`` bytes at ``start`` as the card holds them, read through the ``O_DIRECT`` descriptor
    ``fd``: whole pages into a page-aligned buffer, as direct I/O requires."""
    first = start - start % mmap.PAGESIZE
    size = -(-(start + length - first) // mmap.PAGESIZE) * mmap.PAGESIZE
    with mmap.mmap(-1, size) as buffer:
        got = os.preadv(fd, [buffer], first)
        return bytes(buffer[start - first : min(start - first + length, got)])


def parse_journal(data: bytes) -> RecordLines:
    """A journal's bytes read the one way every record is read (:func:`~companion.record.parse_lines`):
    the accepted objects, and the line dropped if any.

    >>> read = parse_journal(b'{"a":1}\\n{"b":2}\\n{"c"')
    >>> read.objects
    [{'a': 1}, {'b': 2}]
    >>> print(read.dropped[0])
    line 3 dropped (no newline at the end: the write was cut short): b'{"c"' (4 bytes)
    """
    from companion.record import parse_lines

    return parse_lines(data)


def held_by_a_writer(path: Path) -> bool:
    """Whether a running device holds ``path`` open as its journal (it keeps an exclusive lock).

    A file that cannot be opened is not held; the caller's own error handling names the problem.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # also releases a lock just taken
    return False


def read_journal(path: Path) -> RecordLines:
    """Read a journal without changing it (see :func:`parse_journal`)."""
    return parse_journal(Path(path).read_bytes())


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

    def __init__(self, path: Path, fd: int, recovered: RecordLines) -> None:
        self.path = path
        self.recovered = recovered  # what the file held when opened: replay these objects
        self._fd = fd
        self._size = recovered.good_size
        self._direct = -1  # the O_DIRECT descriptor that reads lines back (-1: none)

    @classmethod
    def create(cls, path: Path, header: Mapping[str, Any]) -> Journal:
        """Start a journal whose first line is ``header``; never replaces an existing journal.

        The header goes into a temp file that is then linked into place, so after a crash the
        journal either does not exist or holds the complete header.
        """
        from companion.record import encode_line

        path = Path(path)
        line = encode_line(header)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = durable_temp_file(path.parent, path.name, line)
        try:
            os.link(temp, path)  # FileExistsError rather than overwrite a game in progress
        finally:
            os.unlink(temp)
        fsync_directory(path.parent)
        return cls.open(path)

    @classmethod
    def open(cls, path: Path) -> Journal:
        """Open for appending. A line that cannot be read is cut off with everything after it
        (the bytes are kept in ``.dropped``); a whole last line without its newline gets one.

        Raises FileNotFoundError when no game is running, JournalInUse for a second writer, and
        OSError when the file cannot be read or repaired, or is larger than :data:`MAX_JOURNAL_BYTES`
        (TooLarge); it is then left as it was.
        """
        path = Path(path)
        # O_NONBLOCK: opening a device may wait (it has no effect on a regular file's reads and writes)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NONBLOCK)
        try:
            check_regular_file(fd, path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise JournalInUse(
                    f"{path} is open in another companion process; stop that one first "
                    "(sudo systemctl stop tabletop-companion)"
                ) from None
            data = read_open_file(fd, path, MAX_JOURNAL_BYTES,
                                  f"larger than {MAX_JOURNAL_BYTES >> 20} MiB: not one game's journal")
            recovered = parse_journal(data)
            journal = cls(path, fd, recovered)
            if recovered.good_size < len(data):
                journal._cut(data, recovered.good_size)
            elif recovered.missing_newline:
                write_all(fd, b"\n")
                os.fsync(fd)
                journal._size += 1
            journal._direct = open_direct(path)
        except BaseException:
            os.close(fd)
            raise
        return journal

    def keep_prefix(self, objects: int) -> bytes:
        """Cut the journal after its first ``objects`` recovered objects (the rules refused the
        next line); the bytes cut off go to ``.dropped`` and are returned. Raises OSError."""
        if self.closed:
            raise JournalClosed(f"{self.path} is closed")
        end = self.recovered.ends[objects - 1] if objects else 0
        with open(self._fd, "rb", closefd=False) as stream:
            stream.seek(0)
            data = stream.read()
        return self._cut(data, end)

    def _cut(self, data: bytes, size: int) -> bytes:
        tail = data[size:]
        _keep_dropped_bytes(self.path, tail)
        os.ftruncate(self._fd, size)
        os.fsync(self._fd)
        self._size = size
        return tail

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def size(self) -> int:
        """The bytes of whole lines in the file: where the next append starts."""
        return self._size

    def append(self, record: Mapping[str, Any]) -> None:
        """Add one record; on return it is on disk.

        On failure the journal is either as before the call (StorageError: the record is not
        in it) or closed for writing (JournalClosed: a half-written line stays last, where the
        next open drops it; WriteUnsure: the whole line stays, unflushed; CardLost: the card
        acknowledged the line and does not hold it). A closed journal refuses every later append
        with JournalClosed.
        """
        from companion.record import encode_line

        line = encode_line(record)
        if self.closed:
            raise JournalClosed(
                f"{self.path} is closed for writing after a storage failure: nothing more can be saved "
                "until the storage is fixed and the device restarted"
            )
        written = 0
        try:
            view = memoryview(line)
            while view:
                count = os.write(self._fd, view)
                written += count
                view = view[count:]
            os.fsync(self._fd)
        except OSError as err:
            if written == 0 and len(line):  # the write itself failed: nothing reached the file
                raise StorageError(f"{self.path}: could not save ({reason(err)}); the journal is as it was") from err
            try:
                os.ftruncate(self._fd, self._size)
            except OSError as second:
                # Appending after this line would bury it mid-file; closing leaves it last.
                self.close()
                why = f"{reason(err)}, then {reason(second)} taking it back"
                if written == len(line):
                    raise WriteUnsure(
                        f"{self.path}: the line is in the file but could not be flushed ({why}); "
                        "the journal is closed for writing"
                    ) from err
                raise JournalClosed(
                    f"{self.path}: a half-written line could not be taken back ({why}); "
                    "the journal is closed for writing"
                ) from err
            raise StorageError(f"{self.path}: could not save ({reason(err)}); the journal is as it was") from err
        self._check_on_card(line)
        self._size += len(line)

    def _check_on_card(self, line: bytes) -> None:
        """Read the line just synced back from the card; one it does not hold is taken back out of
        the file and closes the journal (:class:`CardLost`): what the card acknowledges cannot be
        trusted any more. A read that fails is taken the same way: the card cannot show it holds the line."""
        if self._direct < 0:
            return
        try:
            held = read_back(self._direct, self._size, len(line))
        except OSError as err:
            why = reason(err)
        else:
            if held == line:
                return
            why = "other bytes" if held else "nothing"
        with contextlib.suppress(OSError):  # the line must not stay last in the file the game is read from
            os.ftruncate(self._fd, self._size)
        self.close()
        raise CardLost(f"{self.path}: the card said the line was saved but does not hold it (read back: {why});"
                       " the card is failing: the journal is closed for writing, replace the card")

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)  # also releases the lock
            self._fd = -1
        if self._direct >= 0:
            os.close(self._direct)
            self._direct = -1

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
        0o666,
    )
    try:
        write_all(keep, tail)
        os.fsync(keep)
    finally:
        os.close(keep)
    fsync_directory(path.parent)
