"""Start-up never crash-loops: whatever is in the state directory ends in a message and a usable
device, with the good prefix resumed and every byte of the rest kept."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.record import GameBuilder, read_bytes
from tests.daemon.faults import _start, _Table

OK = KeyEvent(Key.OK)


@pytest.fixture
def played(tmp_path: Path) -> tuple[Path, list[object]]:
    """A state directory holding a tezuma game of 8 actions, and those actions."""
    dev = VirtualDevice(tmp_path)
    _start(dev, "tezuma")
    _Table(dev).play(8)
    actions = list(dev.game.actions)
    dev.close()
    return tmp_path, actions


def restart(state: Path) -> VirtualDevice:
    return VirtualDevice(state)


def test_a_legal_prefix_is_resumed_and_only_the_refused_line_on_is_set_aside(played) -> None:
    state, actions = played
    journal = state / "current.jsonl"
    whole = journal.read_bytes()
    refused = b'{"type":"play","seat":3,"cards":["Z9"]}\n{"type":"undo"}\n'
    journal.write_bytes(whole + refused)
    dev = restart(state)
    try:
        assert any(m.startswith("journal line 10: illegal action") and "the game before that line is kept" in m
                   for m in dev.device.startup_messages)
        assert dev.app.message is not None and "line 10" in dev.app.message  # on the screen too
        dev.press(OK)
        assert list(dev.game.actions) == actions
        assert journal.read_bytes() == whole
        assert (state / "current.jsonl.dropped").read_bytes() == refused
    finally:
        dev.close()


@pytest.mark.parametrize(
    "last_line",
    [b"[" * 100_000, b'{"type":"play","seat":' + b"9" * 5000 + b"}", b'{"type":"play","seat":NaN}'],
)
def test_a_hostile_last_line_is_dropped_not_a_crash(played, last_line: bytes) -> None:
    state, actions = played
    with (state / "current.jsonl").open("ab") as stream:
        stream.write(last_line + b"\n")
    dev = restart(state)
    try:
        assert any("dropped" in m for m in dev.device.startup_messages)
        dev.press(OK)
        assert list(dev.game.actions) == actions
    finally:
        dev.close()


@pytest.mark.parametrize(
    ("path", "value"),
    [(("suits", 0), "B"), (("scoring", "cards", 0, "points"), [1]), (("laid_out", "scoring"), 5),
     (("scoring", "label"), "{0}"), (("abilities",), {"id": 1})],
)
def test_damaged_card_data_in_the_header_sets_the_game_aside_whole_and_says_so(played, path, value) -> None:
    state, _ = played
    journal = state / "current.jsonl"
    header, rest = journal.read_bytes().split(b"\n", 1)
    data = json.loads(header)
    node = data["cards"]
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    damaged = json.dumps(data).encode() + b"\n" + rest
    journal.write_bytes(damaged)
    dev = restart(state)
    try:
        (message,) = dev.device.startup_messages
        assert "card data" in message and "kept as games/damaged-" in message
        assert type(dev.app.top).__name__ == "SetupForm"  # a usable device: a new game can start
        (kept,) = (state / "games").glob("damaged-*.jsonl")
        assert kept.read_bytes() == damaged
    finally:
        dev.close()


def test_replay_and_the_device_read_a_journal_the_same_way(played) -> None:
    """A whole last line without a newline, a blank line in the middle, U+2028 in a string."""
    state, actions = played
    journal = state / "current.jsonl"
    lines = journal.read_bytes().rstrip(b"\n").split(b"\n")
    lines.insert(3, b"")
    lines[1] = lines[1][:-1] + ',"note":"a\u2028b"}'.encode()
    journal.write_bytes(b"\n".join(lines))  # no newline after the last line
    replayed = read_bytes(journal.read_bytes(), GameBuilder())
    assert replayed.failure is None and list(replayed.game.actions) == actions
    dev = restart(state)
    try:
        assert dev.device.startup_messages == []
        dev.press(OK)
        assert list(dev.game.actions) == actions
    finally:
        dev.close()


@pytest.mark.parametrize("kind", ["a named pipe", "a device"])
def test_a_journal_that_is_no_regular_file_is_left_alone_and_said(tmp_path: Path, kind: str) -> None:
    """A pipe there hung the start-up for ever (reading it waits for a writer), /dev/zero would
    have filled the memory: the journal is opened only when it is a regular file."""
    from companion.daemon.store import Store

    journal = tmp_path / "current.jsonl"
    if kind == "a named pipe":
        os.mkfifo(journal)
    else:
        journal.symlink_to("/dev/null")  # ends at once, so the old reader ended too: it must not read it
    store = Store(tmp_path)
    found = store.recover()
    store.close()
    assert found.game is None
    assert any("not a regular file" in message for message in found.messages), found.messages
    assert journal.is_symlink() if kind == "a device" else stat.S_ISFIFO(journal.lstat().st_mode)


def test_a_journal_too_large_for_one_game_is_left_whole_and_named(played) -> None:
    """A current.jsonl of gigabytes was read whole at start-up and could fill the memory: past the
    bound it is not opened at all, so its lines are neither replayed nor cut off."""
    from companion.daemon.store import Store
    from companion.journal import MAX_JOURNAL_BYTES

    state, _ = played
    journal = state / "current.jsonl"
    with journal.open("ab") as out:
        line = b'{"type":"filler"}\n'
        out.write(line * (MAX_JOURNAL_BYTES // len(line) + 1))
    before = journal.read_bytes()
    store = Store(state)
    found = store.recover()
    store.close()
    assert found.game is None
    assert any(str(journal) in m and "larger than 4 MiB" in m for m in found.messages), found.messages
    assert journal.read_bytes() == before and not (state / "current.jsonl.dropped").exists()


@pytest.mark.parametrize(("header", "more"), [(b'{"format":"tabletop-companion-record","v', b""),
                                              (b"{not json\n", b""),
                                              (b"{not json\n", b'{"type":"undo"}\n')])
def test_a_refused_header_is_reported_as_that_not_as_a_torn_line(tmp_path: Path, header: bytes, more: bytes) -> None:
    (tmp_path / "current.jsonl").write_bytes(header + more)
    device = restart(tmp_path)
    try:
        [message] = device.device.startup_messages
        assert message.startswith("the journal's header (the game's setup) is refused (line 1: ")
        assert "torn" not in message and "current.jsonl.dropped" in message and "kept as games/damaged-" in message
        assert type(device.app.top).__name__ != "ResumeOffer"
    finally:
        device.close()
