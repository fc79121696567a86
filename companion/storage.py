"""Files the device must not lose or half-write: one atomic writer and one bounded reader.

Every state file (settings, card facts, anything else written whole) goes through
:func:`atomic_replace`, so a pulled plug leaves the old or the new bytes, never a mix. Files are
created with mode 0o666 and the process umask decides the rest (systemd's ``UMask=``, a user's
shell), as every other program's files do.

Reading goes through :func:`read_file`, which refuses what is not a regular file (a directory,
``/dev/zero``, a FIFO that never ends) and anything larger than the caller's limit, so a wrong
path costs a message, not a hang or all the memory. Failures are :class:`StorageError`, a
:class:`~companion.errors.CompanionError` and an :class:`OSError` at once, whose text names the
file and the reason.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from companion.errors import StorageError

NEW_FILE_MODE = 0o666  # the umask takes away what the user does not want


class WriteUnsure(StorageError):
    """The bytes reached the file but could be neither flushed to the card nor taken back out.

    The file (as the system shows it) holds them and was closed for writing, so whoever wrote
    them should treat them as written but say the card may not keep them.
    """


def reason(err: OSError) -> str:
    """An OSError's reason without the file name (the caller names the file its own way).

    >>> reason(OSError(errno.ENOSPC, "No space left on device", "/x"))
    'No space left on device'
    """
    return err.strerror or str(err) or type(err).__name__


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is out (a write may take fewer bytes than it was given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def fsync_directory(directory: Path) -> None:
    """Make a create, rename or unlink inside ``directory`` survive power loss."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


TEMP_SUFFIX = ".tmp"
_LOWER_HEX = frozenset("0123456789abcdef")


def _temp_name(name: str) -> str:
    # os.urandom is what secrets.token_hex reads; importing secrets (hmac, OpenSSL) cost the start-up
    return f".{name}.{os.urandom(4).hex()}{TEMP_SUFFIX}"


def is_temp_of(file_name: str, name: str) -> bool:
    """Whether ``file_name`` is a name :func:`_temp_name` gives a temp file of ``name``: ``.<name>.``,
    eight lowercase hex digits, ``.tmp`` (read by hand: a pattern compiled for each name cost every
    start more than the scan it serves).

    >>> [is_temp_of(f".settings.json.{middle}.tmp", "settings.json") for middle in ("0a1b2c3d", "0A1B2C3D", "0a1b")]
    [True, False, False]
    """
    prefix = f".{name}."
    return (len(file_name) == len(prefix) + 8 + len(TEMP_SUFFIX) and file_name.startswith(prefix)
            and file_name.endswith(TEMP_SUFFIX) and _LOWER_HEX.issuperset(file_name[len(prefix):-len(TEMP_SUFFIX)]))


def any_temp_like(directory: Path, name: str) -> bool:
    """Whether ``directory`` holds any ``.<name>.*.tmp`` (a temp file of ``name``, or a name like one);
    False where it cannot be read."""
    prefix = f".{name}."
    try:
        return any(entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX)
                   and len(entry.name) >= len(prefix) + len(TEMP_SUFFIX) for entry in os.scandir(directory))
    except OSError:
        return False


def remove_stale_temps(directory: Path, name: str) -> int:
    """Remove the temp files :func:`durable_temp_file` left beside ``name`` when the process was
    killed mid-write (the target file is intact: it is replaced only by a finished temp); returns
    how many. Only names this module makes are touched, and only when no writer can be running.

    >>> import tempfile; folder = Path(tempfile.mkdtemp())
    >>> for leftover in (".settings.json.0a1b2c3d.tmp", ".settings.json.notmine.tmp", "settings.json"):
    ...     _ = (folder / leftover).write_text("")
    >>> remove_stale_temps(folder, "settings.json"), sorted(p.name for p in folder.iterdir())
    (1, ['.settings.json.notmine.tmp', 'settings.json'])
    >>> import shutil; shutil.rmtree(folder)
    """
    removed = 0
    try:
        leftovers = [entry for entry in os.scandir(directory) if is_temp_of(entry.name, name)]
    except OSError:
        return 0  # no folder, or not readable: nothing of ours to clean
    for entry in leftovers:
        try:
            os.unlink(entry.path)
            removed += 1
        except FileNotFoundError:
            pass
    return removed


LOCK_WAIT_S = 10.0
"""How long a writer waits for another to finish a read-modify-write (each takes milliseconds)."""


@contextmanager
def exclusive(lock_path: Path, *, wait: float = LOCK_WAIT_S, clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep) -> Iterator[None]:
    """Hold the lock file ``lock_path`` (created if need be) while reading, changing and writing a
    file that several processes update, so no writer's change is lost to another's older copy.

    The lock is on a file of its own because the data file is replaced by renames. Raises
    :class:`StorageError` when the lock cannot be opened or another holder keeps it for ``wait``
    seconds (a stopped process, say).
    """
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, NEW_FILE_MODE)
    except PermissionError:
        try:  # someone else's lock file in a folder we may write in: a read-only open locks too
            fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as err:
            raise StorageError(f"could not lock {lock_path}: {reason(err)}") from err
    except OSError as err:
        raise StorageError(f"could not lock {lock_path}: {reason(err)}") from err
    try:
        deadline = clock() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if clock() >= deadline:
                    raise StorageError(f"{lock_path} stayed locked by another process for {wait:g} s;"
                                       " is a companion command stopped (Ctrl-Z)?") from None
                sleep(0.005)
        yield
    finally:
        os.close(fd)  # releases the lock


def durable_temp_file(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to a fresh hidden file beside ``name``, flushed to disk; return its path.

    The file is created with :data:`NEW_FILE_MODE` under the umask (``mkstemp`` would force
    0600). On any failure the temp file is removed and the error propagates.
    """
    for _attempt in range(100):
        temp = Path(directory) / _temp_name(name)
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, NEW_FILE_MODE)
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary file name", str(directory))
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        temp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return temp


def atomic_replace(path: Path, data: bytes) -> None:
    """Replace a whole file so that readers, and a crash, see the old or the new bytes, never half.

    Temp file, ``fsync``, rename over the target, ``fsync`` the directory. A symbolic link is
    written through: the file it points to is replaced (beside it, where the rename is atomic)
    and the link stays, as a shell's ``>`` would leave it. Raises :class:`StorageError` naming the
    file; the old file is then untouched and no temp is left.
    """
    path = Path(path)
    target = Path(os.path.realpath(path))
    try:
        temp = durable_temp_file(target.parent, target.name, data)
        try:
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        fsync_directory(target.parent)
    except OSError as err:
        raise StorageError(f"could not write {path}: {reason(err)}") from err


class NotRegularFile(OSError):
    """A device, pipe or socket where a file was expected (reading it could block or never end)."""


class TooLarge(OSError):
    """A file longer than the reader's limit: the wrong file, not one to load whole."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; every reader of a file
    a person or the device wrote comes through here and phrases the failures its own way.

    Raises FileNotFoundError, IsADirectoryError, :class:`NotRegularFile`, :class:`TooLarge`, or the
    OSError the system gave. A pipe is refused before anything is read, so it cannot block.

    >>> read_bounded(Path("/"), 10)
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] Is a directory: '/'
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        check_regular_file(fd, path)
        return read_open_file(fd, path, limit)
    finally:
        os.close(fd)


def check_regular_file(fd: int, path: Path) -> None:
    """Raise IsADirectoryError or :class:`NotRegularFile` unless ``fd`` (opened from ``path`` with
    ``O_NONBLOCK``, so a pipe did not block the open) is a regular file: reading a pipe or a device
    such as /dev/zero may never end."""
    kind = os.fstat(fd).st_mode
    if stat.S_ISDIR(kind):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(kind):
        raise NotRegularFile(errno.EINVAL, "not a regular file (a device or a pipe?)", str(path))


def read_open_file(fd: int, path: Path, limit: int, too_large: str | None = None) -> bytes:
    """The bytes of the regular file open as ``fd``, from where it stands, at most ``limit`` of them;
    more raise :class:`TooLarge` saying ``too_large`` (by default the limit in bytes)."""
    chunks = []
    size = 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise TooLarge(errno.EFBIG, too_large or f"larger than {limit} bytes", str(path))
    return b"".join(chunks)


def read_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises FileNotFoundError when there is no such file (callers often treat that as "empty"),
    and :class:`StorageError` for anything else that makes it unreadable: a directory or device,
    no permission, an I/O error, or more than ``limit`` bytes.

    >>> read_file(Path("/"), 10)
    Traceback (most recent call last):
    ...
    companion.errors.StorageError: / is a directory, not a file
    """
    path = Path(path)
    try:
        return read_bounded(path, limit)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise StorageError(f"{path} is a directory, not a file") from None
    except NotRegularFile:
        raise StorageError(f"{path} is not a regular file (a device or a pipe?)") from None
    except TooLarge:
        raise StorageError(f"{path} is larger than {limit} bytes: not a file this reads") from None
    except OSError as err:
        raise StorageError(f"cannot read {path}: {reason(err)}") from err


def read_text(path: Path, limit: int) -> str:
    """:func:`read_file` decoded as UTF-8; bytes that are not UTF-8 are a :class:`StorageError`."""
    data = read_file(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StorageError(f"{path} is not UTF-8 text (byte {err.start + 1})") from None
