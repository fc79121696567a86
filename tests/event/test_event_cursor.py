"""The event cursor never stops a table: damaged, it is set aside; unwritable, publishing goes on."""

from __future__ import annotations

import logging
import os

import pytest

from companion.journal import CURRENT_JOURNAL, Journal
from companion.uplink import publisher as publisher_module
from companion.uplink.outbox import Outbox, cursor_path
from tests.daemon.faults import FAULTS, inject
from tests.event.conftest import EVENT, MockTable, assert_board_equals_replays, has_every_line, settle
from tests.event.faults import cell_event_cursor

DAMAGE = {
    "empty": b"",
    "not UTF-8": b'{"version": 1, "games": [\xff\xfe]}',
    "nested 100,000 deep": b"[" * 100_000,
    "not JSON": b"{'games': []}",
    "wrong types": b'{"version": 1, "games": [{"id": 7, "inode": 1.5, "header": null, "acked": true}]}',
    "a list": b"[]",
}


@pytest.mark.parametrize("damage", [*DAMAGE, "a directory"])
def test_a_damaged_cursor_is_set_aside_said_and_publishing_restarts_from_the_start(tmp_path, caplog, damage):
    with Journal.create(tmp_path / CURRENT_JOURNAL, {"format": "x"}) as journal:
        journal.append({"type": "draft"})
    cursor = cursor_path(tmp_path, EVENT)
    if damage == "a directory":
        cursor.mkdir()
        (cursor / "inside").write_text("x")
    else:
        cursor.write_bytes(DAMAGE[damage])
    with caplog.at_level(logging.ERROR, logger="companion.uplink.outbox"):
        outbox = Outbox(tmp_path, EVENT, "3")
    assert "is damaged" in caplog.text and "set aside as" in caplog.text
    aside = sorted(p.name for p in tmp_path.iterdir() if ".damaged-" in p.name)
    assert aside == [f"{cursor.name}.damaged-1"]
    outbox.refresh()
    assert [line for _, line, _ in outbox.take(10)] == [1, 2]  # every line again, from the start
    assert outbox.save() and cursor.is_file()


@pytest.mark.parametrize("fault", FAULTS)
def test_the_event_cursor_under_every_storage_fault(tmp_path, fault):
    cell = cell_event_cursor(tmp_path, fault)
    assert cell.ok, cell


def test_after_a_full_card_the_publisher_resumes_when_there_is_room(tmp_path, broker, scoreboard, monkeypatch):
    monkeypatch.setattr(publisher_module, "RETRY", 0.1)
    table = MockTable(tmp_path, "1", broker, seed=5)
    board = scoreboard.board
    try:
        table.new_game("tezuma")
        table.play(5)
        settle(board, has_every_line(board, [table]), "the first lines")
        cursor = cursor_path(table.state, EVENT).name
        with inject("ENOSPC", lambda path: cursor in os.path.basename(path)):
            table.play(20)  # acknowledged lines cannot move the cursor on disk: they still go out
            settle(board, has_every_line(board, [table]), "the lines played on a full card")
            table.play()
            table.new_game("tezuma")  # a new game's id cannot be saved: its lines wait
            table.play(3)
            assert table.publisher is not None and table.publisher._worker.is_alive()
        settle(board, has_every_line(board, [table]), "every line once the card has room again")
        assert_board_equals_replays(board, [table])
    finally:
        table.close()
