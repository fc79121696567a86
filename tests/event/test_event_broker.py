"""Mock devices play through a broker; the scoreboard must equal ``companion replay`` of every journal.

Faults: the broker killed and restarted (persistence on and off), a device offline for a while, and
repeated deliveries, through the broker in the test's process; a device process killed with SIGKILL
mid-publish, through a real mosquitto. After each: nothing lost, nothing counted twice, standings
equal to the replays.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from companion.event.config import EventConfig, parse_broker
from companion.event.link import Message
from companion.event.wire import resend_message
from companion.uplink.outbox import cursor_path
from companion.uplink.publisher import Publisher
from tests.event.conftest import (
    EVENT,
    MockTable,
    assert_board_equals_replays,
    has_every_line,
    settle,
    start_scoreboard,
    wait_for,
)


def test_many_tables_play_interleaved_and_the_scoreboard_equals_every_replay(tables, scoreboard):
    board = scoreboard.board
    playing = tables(6)
    for number, table in enumerate(playing):
        table.new_game("tezuma" if number % 2 else "tezuma-2015")
    while any(not t.device.game.is_over() for t in playing):  # round robin: all tables at once
        for table in playing:
            table.play(5)
    playing[0].new_game("tezuma")  # a second game at one table is a new game id
    playing[0].play(20)
    settle(board, has_every_line(board, playing), "every journal line")
    assert_board_equals_replays(board, playing)
    assert len(board.tables["1"].games) == 2
    # every table's seats have the device's default names (Aki, Ben, ...): a seat each, never merged
    assert {(s.table, s.games) for s in board.standings()} == {(t.table, 1) for t in playing}
    assert len(board.standings()) == 6 * 4
    assert all(t.publisher.status.mark == "" for t in playing)
    snapshot = board.snapshot()
    assert [v["table"] for v in snapshot["tables"]] == ["1", "2", "3", "4", "5", "6"]
    assert all(v["online"] for v in snapshot["tables"])
    assert board.tables["1"].current == playing[0].publisher.outbox.current.id


@pytest.mark.parametrize("persistence", [True, False], ids=["persistence-on", "persistence-off"])
def test_the_broker_killed_and_restarted_loses_nothing(start_memory_broker, tmp_path, persistence):
    """The worst order: the scoreboard away (the broker queues for it), then the broker killed -9.

    Without persistence the queue dies with the broker; with it, the last second may. Either way the
    tables' retained status lists their games' line counts, and the scoreboard asks for what it lacks.
    """
    broker = start_memory_broker(persistence=persistence)
    scoreboard = start_scoreboard(broker)  # a fresh board, the event's persistent session
    playing = [MockTable(tmp_path, str(n), broker, seed=n) for n in range(1, 5)]
    try:
        for table in playing:
            table.new_game("tezuma")
            table.play(25)
        settle(scoreboard.board, has_every_line(scoreboard.board, playing), "the first lines")
        scoreboard.close()  # the organiser's laptop sleeps; its session stays on the broker
        for table in playing:
            table.play(15)
        broker.kill()
        for table in playing:  # the tables play on while the broker is gone
            table.play(15)
        # the mark and the backlog change on the publisher's thread, one after the other: wait for both
        wait_for(lambda: all(t.publisher.status.mark == "!" and t.publisher.status.backlog > 0 for t in playing),
                 "every device showing '!' with the lines played meanwhile waiting")
        broker.start()
        scoreboard = start_scoreboard(broker)
        for table in playing:
            table.play()
        board = scoreboard.board
        settle(board, has_every_line(board, playing), "every journal line after the restart")
        assert_board_equals_replays(board, playing)
        assert board.applied == sum(len(p.read_bytes().splitlines()) for t in playing for p in t.journals())
        assert scoreboard.resends >= len(playing)  # at least the lines from before it came back
        wait_for(lambda: all(t.publisher.status.mark == "" for t in playing), "every device back online")
    finally:
        for table in playing:
            table.close()
        scoreboard.close()


def test_a_device_offline_for_a_while_catches_up_when_back(tables, scoreboard):
    board = scoreboard.board
    away, stays = tables(2)
    for table in (away, stays):
        table.new_game("tezuma-2015")
        table.play(10)
    settle(board, has_every_line(board, [away, stays]), "the first lines")
    away.disconnect()  # says "offline" on the way out
    settle(board, lambda: not board.tables[away.table].online, "table 1 offline")
    away.play(40)
    stays.play(40)
    settle(board, has_every_line(board, [stays]), "the other table's lines")
    (game,) = board.tables[away.table].games.values()
    assert game.stream.applied == 11  # the header and ten actions: nothing since it went
    away.connect()
    away.play()
    stays.play()
    settle(board, has_every_line(board, [away, stays]), "every line once the device is back")
    assert board.tables[away.table].online
    assert_board_equals_replays(board, [away, stays])


DEVICE_PROCESS = textwrap.dedent(
    """
    import random, sys
    from pathlib import Path
    from companion.daemon.store import Store
    from companion.event.config import EventConfig, parse_broker
    from companion.uplink.publisher import Publisher
    from companion.sim import new_random_game, table_model

    state, url = Path(sys.argv[1]), sys.argv[2]
    store = Store(state)
    recovered = store.recover()
    publisher = Publisher(EventConfig(parse_broker(url), "cup", "9"), state, client_id="table-9").start()
    store.on_journalled.append(publisher.wake)
    rng = random.Random(9)
    game = new_random_game("tezuma", 4, rng)
    session = store.start(game.setup)
    model = table_model(session.game, rng)
    print("started", flush=True)
    while not session.game.is_over():
        action = model.choose(session.game, rng)
        session.push(action)
        model.after(session.game, action)
    print("over", flush=True)
    sys.stdin.read()  # until killed
    """
)


def test_a_device_killed_mid_publish_resumes_from_its_cursor(tmp_path, mosquitto):
    """A real process killed, through a real mosquitto: the reconnect and the outbox's cursor."""
    broker, scoreboard = mosquitto, start_scoreboard(mosquitto)
    state = tmp_path / "table-9"
    child = subprocess.Popen(
        [sys.executable, "-c", DEVICE_PROCESS, str(state), broker.url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    try:
        assert child.stdout.readline() == b"started\n"
        board = scoreboard.board
        settle(board, lambda: "9" in board.tables and board.applied > 20, "the first lines of table 9")
        child.send_signal(signal.SIGKILL)  # mid-game or just after: the journal keeps going out either way
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    journal = state / "current.jsonl"
    lines = len(journal.read_bytes().splitlines())
    restarted = Publisher(EventConfig(parse_broker(broker.url), EVENT, "9"), state, client_id="table-9").start()
    try:
        settle(
            board,
            lambda: (
                board.tables["9"].games and max(g.stream.applied for g in board.tables["9"].games.values()) == lines
            ),
            "every line of the killed device",
        )
        assert cursor_path(state, EVENT).exists()
        game = next(iter(board.tables["9"].games.values()))
        assert game.stream.applied == lines and game.stream.failure is None
        assert board.applied == lines  # duplicates (re-sent lines) were dropped, none counted twice
    finally:
        restarted.close()
        scoreboard.close()


def test_repeated_deliveries_are_dropped_and_the_standings_do_not_move(tables, scoreboard):
    board = scoreboard.board
    playing = tables(2)
    for table in playing:
        table.new_game("tezuma")
        table.play()
    settle(board, has_every_line(board, playing), "every line")
    before = board.standings()
    applied = board.applied
    for table in playing:  # the scoreboard asks for every line again, as after losing its session
        game_id = board.tables[table.table].current
        scoreboard.link.publish(Message(scoreboard.topics.table(table.table, "resend"), resend_message(game_id, 0)))
    settle(board, lambda: board.duplicates >= applied, "every line a second time")
    assert board.applied == applied
    assert board.standings() == before
    assert_board_equals_replays(board, playing)
