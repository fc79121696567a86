"""The scoreboard's own life: its state directory, a broker it cannot reach, its options, Ctrl-C."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.cli import main as companion
from companion.event.config import Topics, parse_broker
from companion.event.link import Message
from companion.event.mosquitto import free_port
from companion.organiser.board import Board
from companion.organiser.scoreboard import Scoreboard, render_text
from companion.organiser.state import MAX_GAME_LINES, BoardState
from companion.organiser.text import columns
from tests.event.conftest import (
    EVENT,
    SETTLE,
    AnyBroker,
    MockTable,
    assert_board_equals_replays,
    clock_of,
    has_every_line,
    listening,
    settle,
    start_scoreboard,
    transport_of,
)

ROOT = Path(__file__).resolve().parents[2]


def resuming_scoreboard(broker: AnyBroker, state: Path, client_id: str) -> tuple[Scoreboard, list[tuple[str, bytes]]]:
    """A scoreboard resuming from ``state``; the list collects every resend request it publishes."""
    board = Board(gap_grace=0.3)
    saved = BoardState(state)
    saved.load(board)
    scoreboard = Scoreboard(parse_broker(broker.url), Topics("companion", EVENT), board, client_id=client_id,
                            check_every=0.05, state=saved, clock=clock_of(broker), transport=transport_of(broker))
    requests: list[tuple[str, bytes]] = []
    publish = scoreboard.link.publish

    def spy(message: Message, wait: float | None = None) -> int | None:
        requests.append((message.topic, message.payload))
        return publish(message, wait)

    scoreboard.link.publish = spy  # type: ignore[method-assign]
    scoreboard.start()
    listening(scoreboard)
    return scoreboard, requests


def test_a_restarted_scoreboard_resumes_from_its_state_and_asks_only_for_what_it_lacks(tmp_path, broker):
    table = MockTable(tmp_path, "1", broker, seed=3)
    state = tmp_path / "scoreboard-state"
    try:
        first, _ = resuming_scoreboard(broker, state, "first")
        table.new_game("tezuma")
        table.play(20)
        settle(first.board, has_every_line(first.board, [table]), "the first 21 lines")
        first.close()  # saves what it has
        saved = sorted(state.glob("1/*.jsonl"))
        assert len(saved) == 1 and len(saved[0].read_bytes().splitlines()) == 21
        table.play(10)  # while no scoreboard runs
        # a new client id: the broker kept nothing for it, so only the state and the tables can help
        second, requests = resuming_scoreboard(broker, state, "second")
        try:
            assert second.board.tables["1"].games[saved[0].stem].stream.applied >= 21
            settle(second.board, has_every_line(second.board, [table]), "the ten lines played while it was away")
            assert_board_equals_replays(second.board, [table])
            asked = [payload for topic, payload in requests if topic.endswith("/resend")]
            assert asked and all(b'"after":21' in payload for payload in asked)  # never from the start
        finally:
            second.close()
    finally:
        table.close()


def test_the_terminal_and_the_board_say_when_the_broker_cannot_be_reached(tmp_path, start_memory_broker):
    broker = start_memory_broker(persistence=False)
    scoreboard = start_scoreboard(broker, Board(), check_every=0.05)
    try:
        assert scoreboard.board.snapshot()["broker_down_since"] is None
        assert "cannot reach the broker" not in render_text(scoreboard.board.snapshot())
        broker.kill()
        settle(scoreboard.board, lambda: scoreboard.board.broker_down_since is not None, "the broker's loss")
        assert "cannot reach the broker (since " in render_text(scoreboard.board.snapshot())
        broker.start()
        settle(scoreboard.board, lambda: scoreboard.board.broker_down_since is None, "the broker again")
    finally:
        scoreboard.close()


def run_scoreboard(*options: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = companion(["scoreboard", "--broker", "mqtt://127.0.0.1:1", "--event", EVENT, "--quiet", *options])
    return status, err.getvalue()


def test_export_http_and_state_are_checked_before_anything_starts(tmp_path):
    in_the_way = tmp_path / "file"
    in_the_way.write_text("x")
    state = ["--state", str(tmp_path / "state")]
    cases = {
        "a file in the way": (["--export", str(in_the_way), *state], "a file is in the way"),
        "an unwritable folder": (["--export", "/proc/companion-export", *state], "cannot write there"),
        "an unwritable state": (["--state", str(in_the_way / "state")], "cannot write there"),
        "a bad --http": (["--http", "localhost", *state], "--http must be HOST:PORT"),
    }
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cases["a port in use"] = (["--http", f"127.0.0.1:{taken.getsockname()[1]}", *state], "cannot serve there")
        for what, (options, said) in cases.items():
            status, err = run_scoreboard(*options)
            assert status == 2, what
            assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (what, err)


def test_without_paho_mqtt_the_scoreboard_says_how_to_install_it(tmp_path, monkeypatch):
    """The link imports paho-mqtt only when a scoreboard is made: its absence is still said at start."""
    for name in [name for name in sys.modules if name.split(".")[0] == "paho" or name == "companion.event.mqtt"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "paho", None)  # what an import sees when it is not installed
    status, err = run_scoreboard("--state", str(tmp_path / "state"), "--http", "off")
    assert status == 2 and "needs paho-mqtt" in err and "pip install 'tabletop-companion[event]'" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


EXAMPLE = ROOT / "docs" / "examples" / "tezuma.jsonl"  # a finished game's record


def test_a_large_state_folder_is_read_within_bounds_and_what_is_set_aside_is_named(tmp_path):
    state = tmp_path / "state"
    (state / "7").mkdir(parents=True)
    (state / "7" / "7-huge.jsonl").write_bytes(b"{}\n" * (16_000_000 // 3))  # 16 MB of tiny lines
    (state / "7" / "7-many.jsonl").write_bytes(b"{}\n" * (MAX_GAME_LINES + 1))  # small, but too many lines
    (state / "7" / "7-good.jsonl").write_bytes(EXAMPLE.read_bytes())
    board = Board()
    loaded = BoardState(state).load(board)
    assert loaded.games == 1 and list(board.tables["7"].games) == ["7-good"]
    assert board.tables["7"].games["7-good"].stream.game.is_over()
    assert sorted(loaded.set_aside) == ["7/7-huge.jsonl: 16.0 MB, over 2 MiB",
                                        f"7/7-many.jsonl: more than {MAX_GAME_LINES} lines"]
    assert sorted(p.name for p in (state / "7").iterdir()) == [
        "7-good.jsonl", "7-huge.jsonl.set-aside", "7-many.jsonl.set-aside"]  # not read again at the next start
    assert "2 files set aside" in loaded.summary()
    assert BoardState(state).load(Board()).set_aside == []


def test_a_stop_while_the_state_folder_is_read_ends_the_load(tmp_path):
    """Ctrl-C at start: the command's stop flag ends the load between two files."""
    state = tmp_path / "state"
    for table in range(1, 6):
        (state / str(table)).mkdir(parents=True)
        (state / str(table) / f"{table}-a.jsonl").write_bytes(EXAMPLE.read_bytes())
    stop = threading.Event()

    class StoppedBoard(Board):
        def restore(self, *args, **kwargs) -> None:
            super().restore(*args, **kwargs)
            stop.set()  # as the signal handler does, while the first game is read

    loaded = BoardState(state).load(StoppedBoard(), stop)
    assert loaded.stopped and loaded.games == 1
    assert "1 games resumed before the stop" in loaded.summary()


def test_a_command_line_mistake_names_the_option_given(tmp_path):
    """Not worded as a config-file error: the organiser typed an option, not an ``[event]`` key."""
    pw = tmp_path / "pw"
    pw.write_text("secret\n")
    cases = {
        "--broker must be mqtt://HOST[:PORT]": ["--broker", "localhost"],
        "--broker has a bad port": ["--broker", "mqtt://127.0.0.1:99999"],
        "--event must be 1-64 letters": ["--event", "autumn/cup"],
        "--prefix must be 1-64 letters": ["--prefix", "a+b"],
        "--ca-file is only used with an mqtts:// broker": ["--ca-file", str(pw)],
        "--password-file needs a username (--username)": ["--password-file", str(pw)],
        "--username must be a non-empty string": ["--username", ""],
        f"--ca-file {tmp_path / 'none.pem'}: no such file": ["--broker", "mqtts://127.0.0.1", "--ca-file",
                                                               str(tmp_path / "none.pem")],
    }
    for said, options in cases.items():
        status, err = run_scoreboard("--state", str(tmp_path / "state"), *options)
        assert status == 2 and said in err and "[event]" not in err, (options, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


@pytest.mark.parametrize("when", ["as it starts", "while it cannot reach the broker", "twice, then during the export"])
def test_ctrl_c_at_any_moment_ends_it_without_a_traceback(tmp_path, when):
    command = [sys.executable, "-m", "companion.cli", "scoreboard", "--broker", f"mqtt://127.0.0.1:{free_port()}",
               "--event", EVENT, "--http", f"127.0.0.1:{free_port()}", "--state", str(tmp_path / "state"),
               "--export", str(tmp_path / "export")]
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    shown: list[str] = []
    ready = threading.Event()

    def read_errors() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            lines.append(line)
            if line.startswith("scoreboard state:" if when == "as it starts" else "scoreboard page:"):
                ready.set()

    def read_output() -> None:
        assert child.stdout is not None
        shown.extend(child.stdout)

    readers = [threading.Thread(target=read, daemon=True) for read in (read_errors, read_output)]
    for reader in readers:
        reader.start()
    try:
        assert ready.wait(SETTLE), "".join(lines)
        if when == "while it cannot reach the broker":
            time.sleep(2.5)  # a redraw or two of the terminal view happen first (not a speed bound)
        child.send_signal(signal.SIGINT)
        if when.startswith("twice"):
            child.send_signal(signal.SIGINT)
        child.wait(SETTLE)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        for reader in readers:
            reader.join(10)
    err, out = "".join(lines), "".join(shown)
    assert child.returncode == 0, err
    assert "Traceback" not in err + out
    assert "wrote " in err  # the export is written whenever the stop came
    if when == "while it cannot reach the broker":
        assert "cannot reach the broker (since " in out
        assert all(columns(line) <= 80 for line in out.splitlines())
