"""The journal keeps every accepted record through crashes, and sets damage aside without losing a byte."""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import RecordError, StorageError
from companion.journal import (
    DROPPED_SUFFIX,
    CardLost,
    Journal,
    JournalClosed,
    JournalInUse,
    archive_journal,
    parse_journal,
    read_journal,
)
from companion.record import encode_line
from companion.storage import WriteUnsure, atomic_replace

HEADER = {"kind": "header", "game": "tezuma", "players": 4}
RECORDS = [
    {"kind": "play", "seat": 0, "card": "蝶7"},
    {"kind": "play", "seat": 1, "card": "傘3", "ability": "紙卵"},
    {"kind": "trick", "winner": 1},
]


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "current.jsonl"
    with Journal.create(path, HEADER) as journal:
        for record in RECORDS:
            journal.append(record)
    return path


def test_round_trip_keeps_order_and_japanese_text(journal_path: Path) -> None:
    read = read_journal(journal_path)
    assert read.objects == [HEADER, *RECORDS]
    assert read.dropped == []
    assert "蝶7" in journal_path.read_text(encoding="utf-8")  # readable, not \u escapes


def test_create_refuses_to_replace_a_game_in_progress(journal_path: Path) -> None:
    before = journal_path.read_bytes()
    with pytest.raises(FileExistsError):
        Journal.create(journal_path, {"kind": "header", "game": "other"})
    assert journal_path.read_bytes() == before
    assert [p.name for p in journal_path.parent.iterdir()] == [journal_path.name]  # no temp left


def test_open_returns_what_was_there_and_appends_after_it(journal_path: Path) -> None:
    with Journal.open(journal_path) as journal:
        assert journal.recovered.objects == [HEADER, *RECORDS]
        journal.append({"kind": "score", "points": [3, 0, 5, 2]})
    assert read_journal(journal_path).objects[-1] == {"kind": "score", "points": [3, 0, 5, 2]}


def test_every_cut_inside_the_last_line_loses_only_that_line(journal_path: Path) -> None:
    """A crash mid-append leaves any prefix of the last line; each one must recover cleanly."""
    full = journal_path.read_bytes()
    last_line_start = full.rstrip(b"\n").rfind(b"\n") + 1
    accepted_before_last = [HEADER, *RECORDS[:-1]]
    for cut in range(last_line_start, len(full) - 1):  # the whole line without "\n" counts: see below
        journal_path.write_bytes(full[:cut])
        journal_path.with_name(journal_path.name + DROPPED_SUFFIX).unlink(missing_ok=True)

        read = read_journal(journal_path)
        assert read.objects == accepted_before_last, cut
        assert len(read.dropped) == (0 if cut == last_line_start else 1), cut

        with Journal.open(journal_path) as journal:
            assert journal.recovered.objects == accepted_before_last
            journal.append({"kind": "resumed"})
        after = read_journal(journal_path)
        assert after.objects == [*accepted_before_last, {"kind": "resumed"}], cut
        assert after.dropped == [], cut


def test_dropped_line_message_names_line_reason_and_bytes(journal_path: Path) -> None:
    with journal_path.open("ab") as stream:
        stream.write(b'{"kind":"play","seat":2,"card":"' + b"x" * 100)
    (dropped,) = read_journal(journal_path).dropped
    assert dropped.line == 5
    assert dropped.size == 132
    assert len(dropped.raw) < dropped.size
    message = str(dropped)
    assert message.startswith("line 5 dropped (no newline at the end")
    assert "..." in message and "132 bytes" in message


def test_cut_bytes_are_kept_beside_the_journal(journal_path: Path) -> None:
    torn = b'{"kind":"play","se'
    with journal_path.open("ab") as stream:
        stream.write(torn)
    Journal.open(journal_path).close()
    assert journal_path.with_name("current.jsonl.dropped").read_bytes() == torn + b"\n"
    assert not journal_path.read_bytes().endswith(torn)


@pytest.mark.parametrize(
    ("last_line", "reason"),
    [
        (b"\x00\x00\x00\x00", "not valid JSON"),  # a block of zeros after power loss
        (b"\xff\xfe\x80garbage", "not UTF-8 at byte 1"),
        (b'{"card":"\xe8\x9d"}', "not UTF-8 at byte 10"),  # a multi-byte character cut in two
        (b"[1, 2]", "must be a JSON object, not a list"),
        (b'{"points": NaN}', "NaN is not JSON"),
        (b"[" * 100_000, "nested more than 32 deep"),
        (b'{"n": ' + b"9" * 5000 + b"}", "not valid JSON"),  # past Python's integer-digits limit
    ],
)
def test_complete_but_corrupt_last_line_is_dropped(
    journal_path: Path, last_line: bytes, reason: str
) -> None:
    with journal_path.open("ab") as stream:
        stream.write(last_line + b"\n")
    read = read_journal(journal_path)
    assert read.objects == [HEADER, *RECORDS]
    (dropped,) = read.dropped
    assert dropped.line == 5 and reason in dropped.reason


def test_a_blank_last_line_is_skipped_like_any_blank_line(journal_path: Path) -> None:
    with journal_path.open("ab") as stream:
        stream.write(b"\n  \n")
    read = read_journal(journal_path)
    assert read.objects == [HEADER, *RECORDS] and read.dropped == []


def test_a_whole_last_line_without_its_newline_counts_and_gets_one(journal_path: Path) -> None:
    with journal_path.open("ab") as stream:
        stream.write(b'{"kind":"late"}')
    assert read_journal(journal_path).objects[-1] == {"kind": "late"}
    with Journal.open(journal_path) as journal:
        journal.append({"kind": "after"})
    assert read_journal(journal_path).objects[-2:] == [{"kind": "late"}, {"kind": "after"}]


@pytest.mark.parametrize(
    "bad_line", [b"{not json", b"\xff\xfe", b'"a string"', b'{"points": Infinity}', b"[" * 50]
)
def test_corrupt_middle_line_keeps_the_prefix_and_sets_the_rest_aside(
    journal_path: Path, bad_line: bytes
) -> None:
    lines = journal_path.read_bytes().split(b"\n")
    lines[2] = bad_line
    damaged = b"\n".join(lines)
    journal_path.write_bytes(damaged)
    read = read_journal(journal_path)
    assert read.objects == [HEADER, RECORDS[0]]
    (dropped,) = read.dropped
    assert (dropped.line, dropped.last) == (3, 4)
    assert str(dropped).startswith("lines 3-4 dropped (")
    with Journal.open(journal_path) as journal:
        assert journal.recovered.objects == [HEADER, RECORDS[0]]
    prefix = damaged[: read.good_size]
    assert journal_path.read_bytes() == prefix
    assert journal_path.with_name(journal_path.name + DROPPED_SUFFIX).read_bytes() == damaged[len(prefix) :]


def test_keep_prefix_cuts_after_the_lines_the_rules_took(journal_path: Path) -> None:
    whole = journal_path.read_bytes()
    with Journal.open(journal_path) as journal:
        tail = journal.keep_prefix(2)
        journal.append({"kind": "instead"})
    assert read_journal(journal_path).objects == [HEADER, RECORDS[0], {"kind": "instead"}]
    assert whole.endswith(tail)
    assert journal_path.with_name(journal_path.name + DROPPED_SUFFIX).read_bytes() == tail


VALID_LINES = st.lists(
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=8), max_size=3),
    max_size=5,
)


@given(accepted=VALID_LINES, garbage=st.binary(max_size=60))
def test_garbage_after_accepted_lines_never_loses_or_skips_them(
    accepted: list[dict[str, object]], garbage: bytes
) -> None:
    good = b"".join(encode_line(record) for record in accepted)
    read = parse_journal(good + garbage)
    assert read.objects[: len(accepted)] == accepted
    assert len(read.dropped) <= 1
    # What is kept is exactly a clean journal: re-reading it drops nothing.
    kept = parse_journal((good + garbage)[: read.good_size])
    assert kept.objects == read.objects and kept.dropped == []


def test_append_rejects_what_cannot_be_a_json_object_and_writes_nothing(journal_path: Path) -> None:
    before = journal_path.read_bytes()
    with Journal.open(journal_path) as journal:
        with pytest.raises(RecordError, match="JSON object, not list"):
            journal.append([1, 2])  # type: ignore[arg-type]
        with pytest.raises(RecordError, match="cannot be written as JSON"):
            journal.append({"points": float("nan")})
        with pytest.raises(RecordError, match="cannot be written as JSON"):
            journal.append({"when": object()})
    assert journal_path.read_bytes() == before


def test_each_append_is_fsynced_before_it_returns(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced_sizes: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced_sizes.append(os.fstat(fd).st_size)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    with Journal.open(journal_path) as journal:
        size = journal_path.stat().st_size
        for seat in range(3):
            synced_sizes.clear()
            journal.append({"kind": "play", "seat": seat})
            size += len(encode_line({"kind": "play", "seat": seat}))
            assert synced_sizes == [size]  # the line was complete when it was synced


def test_create_syncs_the_file_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced_kinds: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced_kinds.append("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    Journal.create(tmp_path / "current.jsonl", HEADER).close()
    assert synced_kinds == ["file", "dir"]


def test_failed_append_leaves_the_file_as_it_was(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full SD card mid-write must not leave half a line for the next append to glue onto."""
    before = journal_path.read_bytes()
    real_write = os.write

    def half_then_full(fd: int, data: memoryview) -> int:
        if len(data) > 4:
            return real_write(fd, data[:4])
        raise OSError(28, "No space left on device")

    with Journal.open(journal_path) as journal:
        monkeypatch.setattr(os, "write", half_then_full)
        with pytest.raises(StorageError, match="No space") as raised:
            journal.append({"kind": "play", "seat": 3})
        assert not isinstance(raised.value, JournalClosed)
        monkeypatch.setattr(os, "write", real_write)
        assert journal_path.read_bytes() == before
        journal.append({"kind": "play", "seat": 3})
    assert read_journal(journal_path).objects[-1] == {"kind": "play", "seat": 3}


def test_a_second_writer_is_refused(journal_path: Path) -> None:
    with Journal.open(journal_path), pytest.raises(JournalInUse, match="another companion process"):
        Journal.open(journal_path)
    Journal.open(journal_path).close()  # free again once the first one closed


def test_closed_journal_refuses_appends(journal_path: Path) -> None:
    journal = Journal.open(journal_path)
    journal.close()
    with pytest.raises(JournalClosed, match="closed"):
        journal.append({"kind": "late"})


def test_archive_moves_a_finished_game_and_never_overwrites(journal_path: Path) -> None:
    games = journal_path.parent / "games"
    target = archive_journal(journal_path, games, "2025-01-02-tezuma.jsonl")
    assert target == games / "2025-01-02-tezuma.jsonl"
    assert not journal_path.exists()
    assert read_journal(target).objects == [HEADER, *RECORDS]

    Journal.create(journal_path, HEADER).close()
    with pytest.raises(FileExistsError):
        archive_journal(journal_path, games, "2025-01-02-tezuma.jsonl")
    assert journal_path.exists()
    with pytest.raises(ValueError, match="plain file name"):
        archive_journal(journal_path, games, "../escape.jsonl")


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_follow_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        atomic_replace(tmp_path / "settings.json", b'{"contrast": 1}')
        atomic_replace(tmp_path / "settings.json", b'{"contrast": 2}')
        Journal.create(tmp_path / "current.jsonl", HEADER).close()
        (tmp_path / "current.jsonl").write_bytes(encode_line(HEADER) + b"{torn")
        Journal.open(tmp_path / "current.jsonl").close()
    finally:
        os.umask(old)
    assert json.loads((tmp_path / "settings.json").read_bytes()) == {"contrast": 2}
    for name in ("settings.json", "current.jsonl", "current.jsonl" + DROPPED_SUFFIX):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current.jsonl", "current.jsonl.dropped", "settings.json"]


def test_atomic_replace_failure_keeps_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "export.jsonl"
    target.write_bytes(b"old\n")

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StorageError, match=f"could not write {target}: Input/output"):
        atomic_replace(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["export.jsonl"]


def test_fsync_then_truncate_failing_keeps_the_whole_line_and_closes_the_journal(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SD card gone read-only: the line is in the file, unflushed; nothing may follow it."""

    def failing(*_: object) -> None:
        raise OSError(5, "Input/output error")

    with Journal.open(journal_path) as journal:
        monkeypatch.setattr(os, "fsync", failing)
        monkeypatch.setattr(os, "ftruncate", failing)
        with pytest.raises(WriteUnsure, match="closed for writing"):
            journal.append({"kind": "play", "seat": 3})
        monkeypatch.undo()
        assert journal.closed
        with pytest.raises(JournalClosed):
            journal.append({"kind": "play", "seat": 0})
    assert read_journal(journal_path).objects[-1] == {"kind": "play", "seat": 3}


def test_a_half_written_line_that_cannot_be_taken_back_closes_the_journal(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    writes = []

    def half_then_full(fd: int, data: memoryview) -> int:
        writes.append(len(data))
        if len(writes) == 1:
            return real_write(fd, data[:4])
        raise OSError(28, "No space left on device")

    def failing_truncate(*_: object) -> None:
        raise OSError(30, "Read-only file system")

    with Journal.open(journal_path) as journal:
        monkeypatch.setattr(os, "write", half_then_full)
        monkeypatch.setattr(os, "ftruncate", failing_truncate)
        with pytest.raises(JournalClosed, match="half-written line could not be taken back"):
            journal.append({"kind": "play", "seat": 3})
        monkeypatch.undo()
        assert journal.closed
    read = read_journal(journal_path)
    assert read.objects == [HEADER, *RECORDS] and len(read.dropped) == 1  # dropped as torn on the next open


def test_each_append_is_read_back_from_the_card_past_the_page_cache(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_back: list[tuple[int, int]] = []
    real_preadv = os.preadv

    def recording_preadv(fd: int, buffers: list[memoryview], offset: int) -> int:
        assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_DIRECT  # the card, not the page cache
        read_back.append((offset, sum(len(buffer) for buffer in buffers)))
        return real_preadv(fd, buffers, offset)

    monkeypatch.setattr(os, "preadv", recording_preadv)
    with Journal.open(journal_path) as journal:
        size = journal.size
        journal.append({"kind": "play", "seat": 3})
    assert len(read_back) == 1
    offset, length = read_back[0]
    assert offset <= size and offset + length >= journal_path.stat().st_size  # the whole new line


def _card_kept_nothing(fd: int, buffers: list[memoryview], offset: int) -> int:
    """dm-flakey's drop_writes, a lying card: write and fsync succeeded, the card holds none of it."""
    count = REAL_PREADV(fd, buffers, offset)
    for buffer in buffers:
        buffer[:] = bytes(len(buffer))
    return count


def _card_unreadable(*_: object) -> int:
    raise OSError(errno.EIO, "Input/output error")


REAL_PREADV = os.preadv


@pytest.mark.parametrize(
    ("card", "said"), [(_card_kept_nothing, "other bytes"), (_card_unreadable, "Input/output error")]
)
def test_a_line_the_card_does_not_give_back_closes_the_journal_and_is_taken_back(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch, card: Callable[..., int], said: str
) -> None:
    before = journal_path.read_bytes()
    with Journal.open(journal_path) as journal:
        monkeypatch.setattr(os, "preadv", card)
        with pytest.raises(CardLost, match=rf"does not hold it \(read back: {said}\); the card is failing"):
            journal.append({"kind": "play", "seat": 3})
        monkeypatch.undo()
        assert journal.closed
        with pytest.raises(JournalClosed):
            journal.append({"kind": "play", "seat": 0})
    assert journal_path.read_bytes() == before


def test_without_direct_io_the_journal_appends_unchecked(
    journal_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tmpfs has no O_DIRECT (EINVAL): the journal works as before, nothing is read back."""
    real_open = os.open

    def no_direct_io(path: str, flags: int, *args: int) -> int:
        if flags & os.O_DIRECT:
            raise OSError(errno.EINVAL, "Invalid argument", path)
        return real_open(path, flags, *args)

    def no_read(*_: object) -> int:
        raise AssertionError("read back without direct I/O")

    monkeypatch.setattr(os, "open", no_direct_io)
    monkeypatch.setattr(os, "preadv", no_read)
    with Journal.open(journal_path) as journal:
        journal.append({"kind": "play", "seat": 3})
    monkeypatch.undo()
    assert read_journal(journal_path).objects[-1] == {"kind": "play", "seat": 3}
