"""Read a dm-log-writes log and rebuild the logged disk as it was at any entry.

Linux's ``log-writes`` device-mapper target (Documentation/admin-guide/device-mapper/log-writes.rst,
drivers/md/dm-log-writes.c) records every write that reached the disk, in the order the disk
acknowledged them: a write is logged only once a FLUSH covering it completes, so the log is a
sequence of states the disk really passed through. This is the reader xfstests' ``replay-log``
would be, for the parts the power-cut bench needs.

On the log device, all little-endian:

- byte 0: the super, ``magic u64, version u64, nr_entries u64, sectorsize u32``;
- from byte ``sectorsize`` on, ``nr_entries`` entries, each a header block of ``sectorsize`` bytes
  (``sector u64, nr_sectors u64, flags u64, data_len u64``; a MARK's name follows in the same
  block) and then ``nr_sectors`` blocks of written data (none for a DISCARD or a MARK).

``sector`` and ``nr_sectors`` count blocks of ``sectorsize`` bytes (the data device's logical
block size), not 512-byte sectors.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

MAGIC = 0x6A736677736872
VERSION = 1
FLUSH = 1 << 0
FUA = 1 << 1
DISCARD = 1 << 2
MARK = 1 << 3
METADATA = 1 << 4
KNOWN_FLAGS = FLUSH | FUA | DISCARD | MARK | METADATA

SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")


class LogFormatError(ValueError):
    """The bytes are not a dm-log-writes log, or end before the entries the super counts."""


@dataclass(frozen=True)
class Entry:
    """One logged event: a write, a flush, a discard or a mark."""

    index: int
    sector: int  # first block written, in blocks of the log's sectorsize
    nr_sectors: int
    flags: int
    mark: str | None  # the name of a MARK entry
    data_offset: int  # where this entry's written data starts in the log, in bytes

    @property
    def is_flush(self) -> bool:
        return bool(self.flags & FLUSH)

    @property
    def is_fua(self) -> bool:
        return bool(self.flags & FUA)

    @property
    def is_discard(self) -> bool:
        return bool(self.flags & DISCARD)

    @property
    def carries_data(self) -> bool:
        return not self.flags & (DISCARD | MARK) and self.nr_sectors > 0


@dataclass(frozen=True)
class WriteLog:
    """The super's facts and every entry it counts, read from an open log device or file."""

    sectorsize: int
    entries: tuple[Entry, ...]

    @classmethod
    def read(cls, log: BinaryIO) -> WriteLog:
        """Index every entry (the data stays in the file, read again by :meth:`replay`)."""
        head = _read_exact(log, 0, SUPER.size, "the super")
        magic, version, count, sectorsize = SUPER.unpack(head)
        if magic != MAGIC:
            raise LogFormatError(f"not a dm-log-writes log (magic {magic:#x})")
        if version != VERSION:
            raise LogFormatError(f"log version {version}, this reader knows {VERSION}")
        if sectorsize < 512 or sectorsize & (sectorsize - 1):
            raise LogFormatError(f"sector size {sectorsize} is not a power of two of at least 512")
        entries = []
        position = sectorsize
        for index in range(count):
            header = _read_exact(log, position, sectorsize, f"entry {index}")
            sector, nr_sectors, flags, data_len = ENTRY.unpack_from(header)
            if flags & ~KNOWN_FLAGS:
                raise LogFormatError(f"entry {index}: unknown flags {flags:#x}")
            mark = None
            if flags & MARK:
                if data_len > sectorsize - ENTRY.size:
                    raise LogFormatError(f"entry {index}: a mark of {data_len} bytes does not fit its block")
                mark = header[ENTRY.size:ENTRY.size + data_len].decode("utf-8", "replace")
            entry = Entry(index, sector, nr_sectors, flags, mark, position + sectorsize)
            entries.append(entry)
            position += sectorsize
            if not flags & DISCARD:  # a discard's range is not data (the target advances past none)
                position += nr_sectors * sectorsize
        return cls(sectorsize, tuple(entries))

    def marks(self) -> Iterator[Entry]:
        return (entry for entry in self.entries if entry.mark is not None)

    def flush_points(self) -> Iterator[Entry]:
        """The entries after which the disk promised durability: every FLUSH and every FUA write."""
        return (entry for entry in self.entries if entry.flags & (FLUSH | FUA))

    def replay(self, log: BinaryIO, disk: BinaryIO, start: int, stop: int) -> None:
        """Apply entries ``start`` up to but not including ``stop`` to ``disk``, in log order.

        A discard is written as zeros (what the target's own replay does when the disk cannot
        discard), so a later read of a discarded block sees no stale data.
        """
        for entry in self.entries[start:stop]:
            offset = entry.sector * self.sectorsize
            length = entry.nr_sectors * self.sectorsize
            if entry.is_discard:
                disk.seek(offset)
                disk.write(bytes(length))
            elif entry.carries_data:
                disk.seek(offset)
                disk.write(_read_exact(log, entry.data_offset, length, f"entry {entry.index}'s data"))
        disk.flush()


def _read_exact(log: BinaryIO, offset: int, length: int, what: str) -> bytes:
    log.seek(offset)
    data = log.read(length)
    if len(data) != length:
        raise LogFormatError(f"the log ends inside {what} (byte {offset + len(data)})")
    return data


def write_log(entries: list[tuple[int, int, int, bytes | str]], sectorsize: int = 512) -> bytes:
    """A log as the target writes it, from ``(sector, nr_sectors, flags, data or mark name)``:
    for building synthetic logs (the reader's tests) the same way the kernel lays them out."""
    blocks = [SUPER.pack(MAGIC, VERSION, len(entries), sectorsize).ljust(sectorsize, b"\0")]
    for sector, nr_sectors, flags, payload in entries:
        if isinstance(payload, str):
            name = payload.encode("utf-8")
            blocks.append((ENTRY.pack(sector, nr_sectors, flags, len(name)) + name).ljust(sectorsize, b"\0"))
            continue
        blocks.append(ENTRY.pack(sector, nr_sectors, flags, 0).ljust(sectorsize, b"\0"))
        if not flags & DISCARD:
            blocks.append(payload)
    return b"".join(blocks)
