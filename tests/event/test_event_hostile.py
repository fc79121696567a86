"""A careless or hostile table with a valid account, against a broker and a live scoreboard.

Each test sends one attack from issue 16 as table 66 while honest tables play, and asserts that the
scoreboard stays up and answers its page, that the honest tables' games equal their
``companion replay``, and that what the attack makes the scoreboard hold (games, lines, problems,
page size) and send (resend requests) stays within its bounds. The broker is the one in the test's
process (tests/event/memory.py); the scoreboard runs on a clock the test steps, so "at most one
resend request per table per second" is counted, not timed.
"""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.event.config import Topics
from companion.event.link import Message
from companion.event.stream import MAX_AHEAD
from companion.event.wire import MAX_MESSAGE, journal_message, status_message
from companion.organiser import board as limits
from companion.organiser.board import Board, standings
from companion.organiser.scoreboard import Scoreboard, export, render_text, standings_csv
from companion.organiser.state import BoardState
from companion.organiser.text import columns
from companion.organiser.web import ScoreboardServer
from companion.record import decode_line
from tests.event.conftest import (
    EVENT,
    AnyBroker,
    MockTable,
    RawClient,
    assert_board_equals_replays,
    has_every_line,
    replay_json,
    scored_as,
    settle,
    start_scoreboard,
    wait_for,
)
from tests.event.memory import VirtualClock

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
HOSTILE = "66"
PAGE_LIMIT = 512 * 1024  # bytes: board.json with two honest tables and a hostile one stays far below


SteppedClock = VirtualClock  # the scoreboard's clock, moved on only by the test (resend pacing is counted)


def example_lines(name: str = "tezuma") -> list[dict[str, Any]]:
    return [decode_line(raw) for raw in (EXAMPLES / f"{name}.jsonl").read_bytes().splitlines() if raw.strip()]


class HostileTable:
    """A raw MQTT client logged in as table 66 (through the devices' own seam), publishing whatever it
    likes on its own topics."""

    def __init__(self, broker: AnyBroker, table: str = HOSTILE, client_id: str = "hostile-66") -> None:
        self.topics = Topics("companion", EVENT)
        self.table = table
        self.sent = 0
        self.client = RawClient(broker, client_id)

    def send(self, kind: str, payload: bytes, *, retain: bool = False) -> int:
        """Publish on table 66's ``kind`` topic; the message's id, for :meth:`flush`."""
        self.sent += 1
        mid = self.client.link.publish(Message(self.topics.table(self.table, kind), payload, retain=retain))
        assert mid is not None, "the hostile table lost its connection"
        return mid

    def journal(self, game: str, line: int, data: dict[str, Any]) -> int:
        return self.send("journal", journal_message(game, line, data, sent=time.time()))

    def game(self, game: str, lines: list[dict[str, Any]]) -> None:
        for number, data in enumerate(lines, start=1):
            self.journal(game, number, data)

    def flush(self, mid: int) -> None:
        """Wait until the broker acknowledged message ``mid`` (and, in order, every one before it)."""
        wait_for(lambda: mid in self.client.acked, f"the broker's acknowledgement of message {mid}")

    def close(self) -> None:
        self.client.close()


class Arena:
    """A broker, a scoreboard on a stepped clock with its page, two honest tables and table 66."""

    def __init__(self, root: Path, broker: AnyBroker) -> None:
        self.root = root
        self.broker = broker
        self.clock = SteppedClock()
        self.scoreboard = self.new_scoreboard("arena")
        self.board = self.scoreboard.board
        self.server = ScoreboardServer(("127.0.0.1", 0), self.board).serve_in_thread()
        self.honest = [MockTable(root, str(n), broker, seed=n) for n in (1, 2)]
        self.hostile = HostileTable(broker)

    def new_scoreboard(self, client_id: str, state: BoardState | None = None) -> Scoreboard:
        return start_scoreboard(self.broker, Board(), client_id=client_id, clock=self.clock, check_every=0.05,
                                state=state)

    def play_honest(self, actions: int | None = None) -> None:
        for table in self.honest:
            if table.device.game is None or table.device.game.is_over():
                table.new_game("tezuma")
            table.play(actions)
        settle(self.board, has_every_line(self.board, self.honest), "every honest line")

    def heard_all(self, scoreboard: Scoreboard | None = None) -> None:
        """Wait until the scoreboard took every message table 66 sent (kept or refused)."""
        scoreboard = scoreboard or self.scoreboard
        wait_for(lambda: scoreboard.received[HOSTILE] >= self.hostile.sent,
                 f"all {self.hostile.sent} of table 66's messages")

    def step(self, seconds: float, times: int) -> None:
        """Move the scoreboard's clock ``times`` times by ``seconds``; its checker looks at each step."""
        for _ in range(times):
            self.clock.advance(seconds)

    def page(self) -> bytes:
        with urllib.request.urlopen(self.server.url + "board.json", timeout=10) as response:
            assert response.status == 200
            return response.read()

    def assert_standing_up(self) -> None:
        """The scoreboard answers its page within its size bound, holds no more than its limits allow,
        and the honest tables' games are their replays."""
        page = self.page()
        assert len(page) < PAGE_LIMIT, f"board.json is {len(page)} bytes"
        json.loads(page)
        for table in self.board.tables.values():
            assert len(table.games) <= limits.MAX_GAMES_PER_TABLE
            assert table.payload <= limits.MAX_TABLE_BYTES
            assert len(table.problems) <= limits.MAX_PROBLEMS_PER_TABLE
            assert all(len(g.stream.waiting) <= MAX_AHEAD for g in table.games.values())
        honest_board = {t.table: self.board.tables[t.table] for t in self.honest}
        assert all(g.stream.failure is None for t in honest_board.values() for g in t.games.values())
        for table in self.honest:
            replays = sorted(json.dumps(replay_json(p), sort_keys=True) for p in table.journals())
            assert len(replays) == len(honest_board[table.table].games)

    def close(self) -> None:
        self.hostile.close()
        for table in self.honest:
            table.close()
        self.server.stop()
        self.scoreboard.close()


@pytest.fixture
def arena(tmp_path: Path, broker: AnyBroker) -> Iterator[Arena]:
    made = Arena(tmp_path, broker)
    yield made
    made.close()


# --- the attacks -----------------------------------------------------------------------------


def test_a_float_start_seat_refuses_that_game_by_name_and_nothing_else(arena: Arena) -> None:
    arena.play_honest(10)
    lines = example_lines()
    lines[0]["options"]["start_seat"] = 0.0
    arena.hostile.game("66-float", lines[:20])
    arena.hostile.flush(arena.hostile.send("status", b"{}"))
    arena.heard_all()
    failure = arena.board.tables[HOSTILE].games["66-float"].stream.failure
    assert failure is not None and "options.start_seat must be a seat number" in str(failure)
    arena.play_honest()
    arena.assert_standing_up()
    assert_board_equals_replays(arena.board, arena.honest)


def test_a_retained_status_with_a_huge_count_neither_freezes_this_scoreboard_nor_the_next(arena: Arena) -> None:
    huge = status_message({"online": True, "game": "x", "games": {"x": 10**12, "y": 2**62}})
    arena.hostile.flush(arena.hostile.send("status", huge, retain=True))
    arena.hostile.flush(arena.hostile.journal("x", 10**5, {"type": "play"}))
    arena.heard_all()
    arena.step(1.0, 5)
    wait_for(lambda: arena.scoreboard.resent[HOSTILE] >= 1, "a request for the missing lines")
    assert arena.scoreboard.resent[HOSTILE] <= 5  # one request per table per second of its clock, at most
    waiting = arena.board.tables[HOSTILE].games["x"].missing()
    assert waiting == [1, 2, 3, 4, 5]  # a few numbers, not a range of 10^12
    # a scoreboard started now gets the retained status at once, and is not frozen by it either
    second = arena.new_scoreboard("second")
    try:
        wait_for(lambda: HOSTILE in second.board.tables, "the retained status")
        assert second.board.tables[HOSTILE].games["x"].announced == 100_000
        assert render_text(second.board.snapshot())
    finally:
        second.close()
    arena.play_honest()
    arena.assert_standing_up()
    assert_board_equals_replays(arena.board, arena.honest)


def test_a_flood_of_junk_game_ids_and_junk_messages_is_bounded_and_counted(arena: Arena) -> None:
    arena.play_honest(5)
    header = example_lines()[0]
    last = None
    for n in range(5_000):  # each a game that seems to miss line 1: the scoreboard would ask for all of them
        last = arena.hostile.journal(f"junk-{n}", 2, {"type": "play", "n": n})
    for n in range(20_000):  # and as many messages that are not even JSON, each different
        last = arena.hostile.send("journal", f"junk {n}".encode())
    arena.hostile.flush(arena.hostile.journal("junk-0", 1, header))
    assert last is not None
    arena.heard_all()
    arena.step(1.0, 10)
    hostile = arena.board.tables[HOSTILE]
    assert len(hostile.games) == limits.MAX_GAMES_PER_TABLE
    assert hostile.refused >= 5_000 - limits.MAX_GAMES_PER_TABLE
    assert hostile.problems_unshown > 20_000 - limits.MAX_PROBLEMS_PER_TABLE - 1
    assert arena.scoreboard.resent[HOSTILE] <= 10  # ten steps of one second: one request each at most
    assert "more problems not shown" in " ".join(arena.board.snapshot()["problems"])
    arena.play_honest()
    arena.assert_standing_up()
    assert_board_equals_replays(arena.board, arena.honest)


def test_copies_of_a_finished_game_count_once_whoever_sends_them(arena: Arena) -> None:
    arena.play_honest()  # both honest tables finish a game
    honest = arena.honest[0]
    (journal,) = honest.journals()
    lines = [decode_line(raw) for raw in journal.read_bytes().splitlines()]
    for copy in range(3):  # table 66 sends table 1's finished game three times under ids of its own
        arena.hostile.game(f"66-copy-{copy}", lines)
    example = example_lines()
    for copy in range(3):  # and a finished game of its own three times
        arena.hostile.game(f"66-own-{copy}", example)
    arena.hostile.flush(arena.hostile.send("status", b"{}"))
    arena.heard_all()
    rows = arena.board.standings()
    replays = [(t.table, replay_json(p)) for t in arena.honest for p in t.journals()]
    own = (HOSTILE, replay_json(EXAMPLES / "tezuma.jsonl"))
    expected = standings([(scored_as(r["players"], table, arena.board), r["totals"]) for table, r in [*replays, own]],
                         arena.board.rank_points)
    assert rows == expected  # every game once: table 1's game, table 2's, and table 66's own
    copies = [g for g in arena.board.tables[HOSTILE].games.values() if g.copy_of]
    assert len(copies) == 5
    assert all(g.copy_of == f"table 1, game {honest_game(arena)}" for g in copies if "copy" in g.id)
    assert "not scored" in render_text(arena.board.snapshot())
    arena.assert_standing_up()


def honest_game(arena: Arena) -> str:
    (game,) = arena.board.tables["1"].games
    return game


def test_names_and_ids_from_a_table_cannot_drive_the_terminal_a_spreadsheet_or_the_export(
        arena: Arena, tmp_path: Path) -> None:
    arena.play_honest()
    lines = example_lines()
    lines[0]["players"] = ["=HYPERLINK(\"http://x\",\"y\")", "\x1b]0;owned\x07\x1b[2J", "+1-2\r\n@SUM(A1)"]
    arena.hostile.game("66-names", lines)
    arena.hostile.game("a/b", example_lines())  # a game id that is a path
    arena.hostile.game("nul\x00id", example_lines("irohanihohedo"))
    arena.hostile.flush(arena.hostile.send("journal", journal_message("x" * 300, 1, lines[0], sent=0.0)))
    arena.heard_all()
    text = render_text(arena.board.snapshot())
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert all(columns(line) <= 80 for line in text.splitlines())
    cells = [cell for row in csv.reader(io.StringIO(standings_csv(arena.board))) for cell in row]
    assert any("HYPERLINK" in cell for cell in cells)
    assert not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)
    said: list[str] = []
    written = export(arena.board, tmp_path / "export", say=said.append)
    records = sorted(p.name for p in written if p.parent.name == "records")
    assert records == sorted([f"1-{honest_game(arena)}.jsonl", f"2-{next(iter(arena.board.tables['2'].games))}.jsonl",
                              "66-66-names.jsonl"])
    assert len(said) == 2 and all("not a safe file name" in line for line in said)
    assert "at most 128 characters" in " ".join(arena.board.snapshot()["problems"])
    arena.assert_standing_up()


def test_an_oversized_message_is_refused_by_name(arena: Arena) -> None:
    big = journal_message("66-big", 1, {"format": "x", "pad": "y" * MAX_MESSAGE}, sent=0.0)
    arena.hostile.flush(arena.hostile.send("journal", big))
    arena.heard_all()
    assert "66-big" not in arena.board.tables[HOSTILE].games
    assert f"over the scoreboard's limit of {MAX_MESSAGE} bytes" in " ".join(arena.board.snapshot()["problems"])
    arena.assert_standing_up()
