"""A broker that refuses the tables' lines (its ACL does not name the event) is seen at both ends.

Through a real mosquitto whose ACL is docs/mosquitto/acl with ``EVENT_ID`` left in: the broker
answers every journal publish with MQTT 5's reason code 0x87 (Not authorized). The device shows
``x``, names the refused topic in its log and keeps every line; the scoreboard, which sees clients
connected and nothing of theirs, says so. Once the ACL is filled in and the broker reloads it, the
lines go out and both clear.
"""

from __future__ import annotations

import logging
import signal
from pathlib import Path

from companion.event.config import Topics, parse_broker
from companion.event.mosquitto import write_password_file
from companion.organiser.board import Board
from companion.organiser.scoreboard import Scoreboard
from tests.event.conftest import EVENT, MockTable, has_every_line, journal_lines, listening, settle, wait_for

ACL = Path(__file__).resolve().parents[2] / "docs" / "mosquitto" / "acl"


def test_an_acl_that_does_not_name_the_event_is_said_by_the_device_and_the_scoreboard(
        tmp_path, start_broker, caplog):
    caplog.set_level(logging.INFO, logger="companion.uplink")
    caplog.set_level(logging.INFO, logger="companion.organiser")
    write_password_file(tmp_path / "passwd", {"7": "table", "scoreboard": "board"})
    (tmp_path / "table.pw").write_text("table\n")
    (tmp_path / "board.pw").write_text("board\n")
    acl = tmp_path / "companion.acl"
    acl.write_text(ACL.read_text())  # EVENT_ID left in, as an organiser might
    broker = start_broker(password_file=tmp_path / "passwd", acl_file=acl)
    account = parse_broker(broker.url, username="scoreboard", password_file=str(tmp_path / "board.pw"))
    scoreboard = Scoreboard(account, Topics("companion", EVENT), Board(gap_grace=0.5), check_every=0.1,
                            quiet=0.5).start()
    table = MockTable(tmp_path, "7", broker, username="7", password_file=str(tmp_path / "table.pw"),
                      publisher_options={"denied_retry": 0.5})
    try:
        listening(scoreboard)
        table.new_game("tezuma")
        assert table.play(10) == 10
        publisher = table.publisher
        wait_for(lambda: publisher.status.state == "denied", "the refusal")
        table.device.device.loop.run_until_idle()
        assert table.device.app.status_mark == "x"
        lines = journal_lines(table.journals()[-1])
        wait_for(lambda: publisher.status.backlog == lines, "every line read from the journal")  # and kept:
        assert publisher.outbox.current.acked == 0 and publisher.status.state == "denied"  # none acknowledged
        refused = [r.getMessage() for r in caplog.records if "Not authorized" in r.getMessage()]
        assert refused and f"companion/{EVENT}/tables/7/" in refused[0]  # its status or its journal
        board = scoreboard.board
        settle(board, lambda: board.notice is not None, "the note that nothing arrives")
        assert f"ACL must name event {EVENT}" in board.notice and not board.tables

        acl.write_text(ACL.read_text().replace("EVENT_ID", EVENT))  # the organiser fills it in
        broker.process.send_signal(signal.SIGHUP)  # mosquitto reads its ACL again
        settle(board, has_every_line(board, [table]), "every line once the ACL names the event")
        wait_for(lambda: publisher.status.mark == "", "the mark clearing")
        settle(board, lambda: board.notice is None, "the note going")
    finally:
        table.close()
        scoreboard.close()
