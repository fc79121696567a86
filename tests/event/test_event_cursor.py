"""The event cursor never stops a table: damaged, it is set aside; unwritable, publishing goes on."""

from __future__ import annotations

import json
import logging
import os

import pytest

from companion.journal import CURRENT_JOURNAL, Journal
from companion.uplink import outbox as outbox_module
from companion.uplink import publisher as publisher_module
from companion.uplink.outbox import Outbox, cursor_path
from tests.daemon.faults import FAULTS, inject
from tests.event.conftest import EVENT, MockTable, assert_board_equals_replays, has_every_line, settle, wait_for
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


def test_the_cursor_is_written_at_most_once_a_second_and_holds_every_acknowledged_line_after_it(
        tmp_path, broker, monkeypatch):
    """Saved at every acknowledgement, the cursor cost the card two fsyncs a line, more than the
    journal; a second's lines sent again after a power cut cost nothing (the scoreboard drops repeats)."""
    writes: list[str] = []
    atomic_replace = outbox_module.atomic_replace
    monkeypatch.setattr(outbox_module, "atomic_replace",
                        lambda path, data: (writes.append(path.name), atomic_replace(path, data))[1])
    table = MockTable(tmp_path, "1", broker, seed=5)
    try:
        table.new_game("tezuma")
        table.play(30)  # on the publisher's clock, no time passes while keys are pressed
        wait_for(lambda: table.publisher is not None and table.publisher.status.backlog == 0, "every line acknowledged")
        cursor = cursor_path(table.state, EVENT)
        assert 1 <= writes.count(cursor.name) <= 3  # the new game's id at once, then the first acknowledgements
        lines = len(table.journals()[-1].read_bytes().splitlines())
        broker.clock.advance(publisher_module.CURSOR_EVERY)
        wait_for(lambda: json.loads(cursor.read_text())["games"][-1]["acked"] == lines, "the cursor at the last line")
    finally:
        table.close()
