"""The acknowledgement pipe a power-cut bench listens on: one journal size per line on disk."""

import os
import subprocess
import sys
import threading
from contextlib import ExitStack
from pathlib import Path

from companion.daemon.acks import ACK_PIPE_ENV, AckPipe, attach

REPO = Path(__file__).resolve().parents[2]


def listen(fifo: Path, lines: list[str]) -> threading.Thread:
    def read() -> None:
        with open(fifo, encoding="ascii") as pipe:
            lines.extend(line.strip() for line in pipe)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def test_off_unless_the_variable_names_a_pipe():
    assert AckPipe.from_environ(lambda: 0, environ={}) is None
    assert AckPipe.from_environ(lambda: 0, environ={ACK_PIPE_ENV: ""}) is None
    listeners: list = []
    with ExitStack() as cleanup:
        assert attach(lambda: 0, listeners, cleanup, environ={}) is None
    assert listeners == []


def test_each_call_sends_the_journal_size_and_a_gone_reader_stops_it_quietly(tmp_path, caplog):
    fifo = tmp_path / "acks"
    os.mkfifo(fifo)
    read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    sizes = iter([12, 57, 80, 99])
    pipe = AckPipe.from_environ(lambda: next(sizes), environ={ACK_PIPE_ENV: str(fifo)})
    assert pipe is not None
    pipe()
    pipe()
    assert os.read(read_fd, 100) == b"12\n57\n"
    os.close(read_fd)
    pipe()  # the reader is gone: a warning, no exception, and nothing more is tried
    pipe()
    assert [r.message for r in caplog.records].count("acknowledgement pipe closed (Broken pipe); "
                                                     "no more acknowledgements sent") == 1


def test_a_scripted_run_acknowledges_every_journal_line_with_its_size(tmp_path):
    fifo = tmp_path / "acks"
    os.mkfifo(fifo)
    lines: list[str] = []
    reader = listen(fifo, lines)
    state = tmp_path / "state"
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "run", "--mock",
         "--keys", str(REPO / "docs/examples/first-tricks.keys"), "--exit-when-done",
         "--seed", "1", "--state-dir", str(state)],
        env={**os.environ, ACK_PIPE_ENV: str(fifo)}, capture_output=True, text=True, timeout=120, check=False)
    reader.join(timeout=30)
    assert run.returncode == 0, run.stderr
    journal = (state / "current.jsonl").read_bytes()
    ends = [index + 1 for index, byte in enumerate(journal) if byte == ord("\n")]
    assert [int(line) for line in lines] == ends  # the header, then every action or undo line
