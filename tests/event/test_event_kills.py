"""The broker and the scoreboard both killed with SIGKILL while tables publish a burst: nothing lost.

Three tables play as fast as keys can be pressed (a burst of journal lines in flight). The scoreboard
is a real ``companion scoreboard`` process with a --state folder: it is killed -9 mid-burst (its last
save up to two seconds old), then the broker is killed -9 mid-burst (persistence on: its last second
lost) and started again. A scoreboard started on the dead one's state folder and session must then
hold every line of every journal exactly once, equal to ``companion replay`` of each.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from companion.event.config import Topics, parse_broker
from companion.organiser.board import Board
from companion.organiser.scoreboard import Scoreboard
from companion.organiser.state import BoardState
from tests.event.conftest import (
    EVENT,
    SETTLE,
    MockTable,
    assert_board_equals_replays,
    has_every_line,
    settle,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID = "organiser"


def scoreboard_process(url: str, state: Path) -> tuple[subprocess.Popen[str], threading.Event, list[str]]:
    """``companion scoreboard`` as the organiser runs it; the event is set once it is connected."""
    child = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "scoreboard", "--broker", url, "--event", EVENT, "--http", "off",
         "--quiet", "--state", str(state), "--client-id", CLIENT_ID],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    connected, said = threading.Event(), []

    def read() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            said.append(line)
            if "connected to " in line:
                connected.set()

    threading.Thread(target=read, daemon=True).start()
    return child, connected, said


def test_the_broker_and_the_scoreboard_killed_during_a_burst_lose_nothing(tmp_path, start_broker):
    broker = start_broker(persistence=True)
    state = tmp_path / "scoreboard-state"
    child, connected, said = scoreboard_process(broker.url, state)
    playing = [MockTable(tmp_path, str(n), broker, seed=n) for n in range(1, 4)]
    scoreboard = None
    try:
        assert connected.wait(SETTLE), "".join(said)
        for table in playing:
            table.new_game("tezuma")
        for table in playing:
            table.play(15)
        wait_for(lambda: len(list(state.glob("*/*.jsonl"))) == len(playing), "the scoreboard's first save")
        for _ in range(3):  # a burst: every table at full speed, lines in flight all the while
            for table in playing:
                table.play(15)
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        assert "Traceback" not in "".join(said)
        for table in playing:
            table.play(20)
        broker.kill()
        for table in playing:
            table.play(20)
        broker.start()
        for table in playing:
            table.play()
        board = Board(gap_grace=0.5)
        saved = BoardState(state)
        assert saved.load(board).games == len(playing)  # what the killed process had saved, lines since lost
        scoreboard = Scoreboard(parse_broker(broker.url), Topics("companion", EVENT), board, client_id=CLIENT_ID,
                                check_every=0.1, state=saved).start()
        settle(board, has_every_line(board, playing), "every journal line after both kills")
        assert_board_equals_replays(board, playing)
        assert board.applied == sum(len(p.read_bytes().splitlines()) for t in playing for p in t.journals())
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        for table in playing:
            table.close()
        if scoreboard is not None:
            scoreboard.close()
