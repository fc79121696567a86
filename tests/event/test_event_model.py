"""Without a broker: line streams in any order, the board's flags, the outbox's cursor, the [event] section."""

from __future__ import annotations

import json
import random
import re
import ssl
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.daemon.store import Store
from companion.errors import ConfigError, RecordError
from companion.event.config import event_config
from companion.event.stream import LineStream
from companion.event.wire import JournalMessage
from companion.organiser.board import Board, places
from companion.organiser.scoreboard import render_text
from companion.record import dumps, header_json, read_record
from companion.sim import random_game
from companion.uplink.outbox import Outbox, cursor_path


def journal_of(seed: int, game_id: str = "tezuma") -> list[dict]:
    """A whole random game as journal lines, with an undo in it as the device writes them."""
    game = random_game(game_id, 3 + seed % 2, random.Random(seed))
    lines = [header_json(game.setup)] + [a.to_json() for a in game.actions]
    middle = len(lines) // 2  # the middle action entered, undone, entered again
    return [*lines[:middle], lines[middle], {"type": "undo"}, *lines[middle:]]


JOURNALS = {seed: journal_of(seed) for seed in range(3)}


@given(seed=st.sampled_from(sorted(JOURNALS)), data=st.data())
def test_lines_in_any_order_and_repeated_rebuild_the_replayed_game(seed, data):
    lines = JOURNALS[seed]
    numbered = list(enumerate(lines, start=1))
    repeats = data.draw(st.lists(st.sampled_from(numbered), max_size=30))
    arrival = data.draw(st.permutations(numbered + repeats))
    stream = LineStream()
    for number, line in arrival:
        stream.offer(number, line)
    replayed = read_record([dumps(line) for line in lines]).game
    assert stream.applied == len(lines) and not stream.missing() and stream.failure is None
    assert stream.duplicates == len(repeats)
    assert stream.game.summary() == replayed.summary()


def test_a_stream_the_rules_refuse_is_flagged_with_its_table_and_line_and_the_others_go_on():
    board = Board()
    good, bad = JOURNALS[0], list(JOURNALS[1])
    bad[5] = {**bad[5], "seat": (bad[5].get("seat", 0) + 1) % 3}  # someone plays out of turn
    for number in range(1, len(good) + 1):
        board.journal("1", JournalMessage("g1", number, 0.0, good[number - 1]), now=1.0)
        if number <= len(bad):
            board.journal("2", JournalMessage("g2", number, 0.0, bad[number - 1]), now=1.0)
    views = {v["table"]: v["game"] for v in board.snapshot()["tables"]}
    assert views["2"]["problem"].startswith("table 2, line 6: ")
    assert views["2"]["lines"] == 6
    assert views["1"]["problem"] is None and views["1"]["over"]
    assert [s.games for s in board.standings()] == [1, 1, 1]  # only table 1's game counts
    assert board.resend_due(100.0) == []  # lines after a refused one are not asked for again and again


def test_a_forged_line_number_is_refused_rather_than_waited_for():
    with pytest.raises(RecordError, match="line 1000000000: a line number must be 1-100000"):
        LineStream().offer(10**9, {})


def test_a_line_that_comes_again_with_other_content_is_named():
    stream = LineStream()
    stream.offer(1, JOURNALS[0][0])
    stream.offer(2, JOURNALS[0][1])
    stream.offer(2, JOURNALS[0][2])
    assert stream.conflicts == [2] and stream.applied == 2
    board = Board()
    for number, line in ((1, JOURNALS[0][0]), (2, JOURNALS[0][1]), (2, JOURNALS[0][2])):
        board.journal("1", JournalMessage("g", number, None, line), now=0.0)
    assert "line 2 came again changed (first kept)" in render_text(board.snapshot())


def test_gaps_are_asked_for_again_after_the_grace_period_and_not_before():
    board = Board(gap_grace=1.0)
    board.journal("1", JournalMessage("g", 1, None, JOURNALS[0][0]), now=10.0)
    board.journal("1", JournalMessage("g", 4, None, JOURNALS[0][3]), now=10.0)
    assert board.resend_due(10.5) == []
    assert board.resend_due(11.0) == [("1", "g", 1, True)]  # logged: the first request of the minute
    assert board.resend_due(11.5) == []  # one request per table per grace period
    board.status("1", {"online": True, "game": "h", "games": {"h": 3}}, now=12.0)  # a game it never saw
    assert board.resend_due(13.5) == [("1", "h", 0, False)]  # the game not asked for yet goes first
    assert board.resend_due(14.5) == []  # g was asked for 3.5 s ago: not again before RESEND_RETRY
    assert board.resend_due(16.0) == [("1", "g", 1, False)]
    for number in (2, 3):
        board.journal("1", JournalMessage("g", number, None, JOURNALS[0][number - 1]), now=17.0)
    assert board.resend_due(20.0) == [("1", "h", 0, False)]
    assert board.resend_due(71.0) == [("1", "h", 0, True)]  # logged again a minute later


def test_places_share_ties():
    assert places([3, 3, 1]) == [1, 1, 3]


# --- the outbox ----------------------------------------------------------------------------


def play(store: Store, seed: int, actions: int) -> None:
    game = random_game("tezuma", 3, random.Random(seed))
    session = store.start(game.setup)
    for action in game.actions[:actions]:
        session.push(action)


def test_a_new_game_gets_a_new_id_and_the_last_one_is_found_in_games_by_inode(tmp_path):
    store = Store(tmp_path)
    play(store, 1, 5)
    outbox = Outbox(tmp_path, "cup", "7")
    outbox.refresh()
    first = outbox.current.id
    assert [line for _, line, _ in outbox.take(3)] == [1, 2, 3]
    for line in (1, 2, 3):
        outbox.acked(first, line)
    play(store, 2, 2)  # the unfinished game moves to games/, a new journal starts
    outbox.refresh()
    assert outbox.current.id != first and outbox.games[0].path.parent.name == "games"
    assert [(g, n) for g, n, _ in outbox.take(100)] == [(first, 4), (first, 5), (first, 6)] + [
        (outbox.current.id, n) for n in (1, 2, 3)
    ]
    outbox.save()
    store.close()
    again = Outbox(tmp_path, "cup", "7")  # after a restart: the same ids, the same cursor
    assert [(g.id, g.acked) for g in again.games] == [(first, 3), (outbox.current.id, 0)]
    assert again.published() == {first: 6, outbox.current.id: 3}
    assert json.loads(cursor_path(tmp_path, "cup").read_text())["table"] == "7"


def test_a_resend_request_rewinds_only_a_known_game(tmp_path):
    store = Store(tmp_path)
    play(store, 1, 3)
    outbox = Outbox(tmp_path, "cup", "7")
    outbox.refresh()
    game = outbox.current.id
    assert len(outbox.take(100)) == 4
    assert outbox.take(100) == []
    assert not outbox.resend("someone-else", 0)
    assert outbox.resend(game, 2)
    assert [n for _, n, _ in outbox.take(100)] == [3, 4]
    store.close()


# --- the [event] section -------------------------------------------------------------------

BASE = {"broker": "mqtt://10.0.0.2", "event": "cup", "table": 12}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"table": "a/b"}, "table must be"),
        ({"event": "#"}, "event must be"),
        ({"broker": "mqtt://host:99999"}, "bad port"),
        ({"broker": "mqtt://[::1"}, "broker must be"),  # urlsplit raised ValueError: a traceback
        ({"ca_file": "/etc/ca.pem"}, "only used with an mqtts://"),
        ({"password_file": "/etc/pw"}, "needs a username"),
        ({"passwd": "x"}, "unknown settings passwd"),
    ],
)
def test_a_bad_event_section_says_what_is_wrong(change, message):
    with pytest.raises(ConfigError, match=message):
        event_config({"event": {**BASE, **change}})


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file"),
    ("1: Aki, Ben\n", "not a CA certificate (PEM)"),
    ("/dev/zero", "not a regular file"),
])
def test_a_ca_file_that_cannot_be_loaded_is_said_at_start(tmp_path: Path, content: str | None, says: str):
    """paho's tls_set loaded it once the device or the scoreboard ran: an ssl.SSLError traceback."""
    ca = tmp_path / "ca.pem"
    if content == "/dev/zero":
        ca.symlink_to("/dev/zero")
    elif content is not None:
        ca.write_text(content)
    config = event_config({"event": {**BASE, "broker": "mqtts://10.0.0.2", "ca_file": str(ca)}})
    assert config is not None
    with pytest.raises(ConfigError, match=f"ca_file {ca}: {re.escape(says)}"):
        config.broker.check_ca_file()


def test_a_ca_file_that_loads_passes(tmp_path: Path):
    system = ssl.get_default_verify_paths().cafile
    if system is None or not Path(system).is_file():
        pytest.skip("this system has no CA bundle file to load")
    config = event_config({"event": {**BASE, "broker": "mqtts://10.0.0.2", "ca_file": system}})
    assert config is not None
    config.broker.check_ca_file()


def test_a_good_event_section(tmp_path: Path):
    password = tmp_path / "pw"
    password.write_text("s3cret\n")
    config = event_config({"event": {**BASE, "username": "12", "password_file": str(password)}})
    assert (config.host, config.port, config.table, config.broker.password()) == ("10.0.0.2", 1883, "12", "s3cret")
    assert event_config({}) is None
    with pytest.raises(ConfigError, match="must be a table"):
        event_config({"event": "mqtt://x"})


def test_bytes_past_the_last_fsynced_append_wait(tmp_path):
    """A line written but not yet fsynced could still be lost to a power cut: it is not published yet."""
    store = Store(tmp_path)
    play(store, 1, 2)
    journal = tmp_path / "current.jsonl"
    synced = journal.stat()
    with open(journal, "ab") as writing:  # what the disk holds mid-append
        writing.write(b'{"type":"undo"}\n')
    outbox = Outbox(tmp_path, "cup", "7")
    assert outbox.refresh((synced.st_ino, synced.st_size))
    assert [n for _, n, _ in outbox.take(100)] == [1, 2, 3]
    assert outbox.refresh((synced.st_ino, journal.stat().st_size))  # the append returned: now it goes
    assert [n for _, n, _ in outbox.take(100)] == [4]
    store.close()


@pytest.mark.parametrize("payload", [b"[" * 100_000, b'{"game": "g", "line": NaN}', b"\xff\xfe", b"[1, 2]",
                                     b'{"line": ' + b"9" * 5000 + b"}"])
def test_a_malformed_message_is_refused_by_name_never_a_crash(payload: bytes) -> None:
    from companion.errors import RecordError
    from companion.event.wire import decode_journal, decode_resend, decode_status

    for decode in (decode_journal, decode_status, decode_resend):
        with pytest.raises(RecordError, match="message"):
            decode(payload)
