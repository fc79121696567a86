"""The dm-log-writes reader on synthetic logs laid out as the kernel writes them."""

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.powercut.logwrites import (
    DISCARD,
    ENTRY,
    FLUSH,
    FUA,
    MAGIC,
    MARK,
    SUPER,
    LogFormatError,
    WriteLog,
    write_log,
)


def block(fill: int, count: int = 1, size: int = 512) -> bytes:
    return bytes([fill]) * size * count


def replayed(log_bytes: bytes, stop: int, disk_size: int = 8 * 512) -> bytes:
    log = WriteLog.read(io.BytesIO(log_bytes))
    disk = io.BytesIO(bytes(disk_size))
    log.replay(io.BytesIO(log_bytes), disk, 0, stop)
    return disk.getvalue()


def test_entries_flags_and_marks_are_read_in_order():
    data = write_log([(2, 1, 0, block(1)), (0, 0, FLUSH, b""), (0, 0, MARK, "ack 1"), (3, 2, FUA, block(2, 2))])
    log = WriteLog.read(io.BytesIO(data))
    assert [e.flags for e in log.entries] == [0, FLUSH, MARK, FUA]
    assert [e.mark for e in log.marks()] == ["ack 1"]
    assert [e.index for e in log.flush_points()] == [1, 3]
    # each entry's data starts one header block after the previous entry's data ends
    assert [e.data_offset for e in log.entries] == [1024, 2048, 2560, 3072]


def test_replay_stops_before_the_entry_named():
    data = write_log([(1, 1, 0, block(7)), (0, 0, FLUSH, b""), (1, 1, 0, block(9))])
    assert replayed(data, 0)[512:1024] == block(0)
    assert replayed(data, 2)[512:1024] == block(7)
    assert replayed(data, 3)[512:1024] == block(9)


def test_a_discard_zeroes_its_range_and_carries_no_data():
    data = write_log([(0, 2, 0, block(5, 2)), (0, 1, DISCARD, b""), (3, 1, 0, block(6))])
    disk = replayed(data, 3)
    assert disk[:512] == block(0)
    assert disk[512:1024] == block(5)
    assert disk[1536:2048] == block(6)  # the entry after the discard was found where the target put it


def test_a_larger_sector_size_counts_sectors_in_its_blocks():
    data = write_log([(1, 1, FUA, block(3, 1, 4096))], sectorsize=4096)
    log = WriteLog.read(io.BytesIO(data))
    assert log.sectorsize == 4096
    disk = io.BytesIO(bytes(3 * 4096))
    log.replay(io.BytesIO(data), disk, 0, 1)
    assert disk.getvalue()[4096:8192] == block(3, 1, 4096)
    assert disk.getvalue()[:4096] == bytes(4096)


def test_a_mark_holds_its_name_in_its_header_block():
    data = write_log([(0, 0, MARK, "game tezuma")])
    assert data[512 + ENTRY.size:512 + ENTRY.size + 11] == b"game tezuma"
    assert [e.mark for e in WriteLog.read(io.BytesIO(data)).entries] == ["game tezuma"]


@pytest.mark.parametrize(("damage", "message"), [
    (lambda d: SUPER.pack(MAGIC + 1, 1, 0, 512) + d[SUPER.size:], "not a dm-log-writes log"),
    (lambda d: SUPER.pack(MAGIC, 2, 1, 512) + d[SUPER.size:], "log version 2"),
    (lambda d: SUPER.pack(MAGIC, 1, 1, 1000) + d[SUPER.size:], "sector size 1000"),
    (lambda d: d[:-100], "the log ends inside entry 0's data"),
    (lambda d: SUPER.pack(MAGIC, 1, 2, 512) + d[SUPER.size:], "the log ends inside entry 1"),
    (lambda d: d[:512] + ENTRY.pack(0, 1, 1 << 9, 0) + d[512 + ENTRY.size:], "unknown flags 0x200"),
])
def test_a_damaged_log_is_refused_saying_where(damage, message):
    data = damage(write_log([(0, 1, 0, block(1))]))
    with pytest.raises(LogFormatError, match=message):
        log = WriteLog.read(io.BytesIO(data))
        log.replay(io.BytesIO(data), io.BytesIO(bytes(4096)), 0, len(log.entries))


writes = st.lists(st.tuples(st.integers(0, 7), st.integers(1, 3), st.sampled_from([0, FLUSH, FUA, DISCARD]),
                            st.integers(1, 255)), max_size=20)


@given(writes, st.data())
def test_replaying_up_to_any_entry_equals_applying_those_writes(ops, data):
    entries = []
    for sector, count, flags, fill in ops:
        count = min(count, 8 - sector)
        entries.append((sector, count, flags, b"" if flags & DISCARD else block(fill, count)))
    stop = data.draw(st.integers(0, len(entries)))
    expected = bytearray(8 * 512)
    for sector, count, flags, payload in entries[:stop]:
        expected[sector * 512:(sector + count) * 512] = bytes(count * 512) if flags & DISCARD else payload
    assert replayed(write_log(entries), stop) == bytes(expected)
