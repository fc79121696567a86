"""Two devices on one state directory: the first holds it for its whole life, the second refuses in
one line before touching anything, and nothing the first accepted is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.daemon.store import LOCK_FILE, StateDirInUse, Store
from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent

from .test_device import play_through_keys, start_game

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_device_is_refused_even_with_no_game_current(tmp_path: Path) -> None:
    first = VirtualDevice(tmp_path)
    try:
        assert not (tmp_path / "current.jsonl").exists()  # the journal's own lock guards nothing yet
        with pytest.raises(StateDirInUse) as refused:
            Store(tmp_path)
        message = str(refused.value)
        assert "\n" not in message and f"process {os.getpid()}" in message and "in use" in message
        start_game(first, "tezuma")
        play_through_keys(first, seed=4, max_actions=12)
        accepted = list(first.game.actions)
        with pytest.raises(StateDirInUse):
            Store(tmp_path)
        assert not (tmp_path / "games").exists()  # the refused one moved nothing away
    finally:
        first.close()
    again = VirtualDevice(tmp_path)  # the first has stopped: the directory is free, its game offered
    try:
        assert type(again.app.top).__name__ == "ResumeOffer"
        again.press(KeyEvent(Key.OK))
        assert list(again.game.actions) == accepted
    finally:
        again.close()


def held(path: Path) -> bool:
    """Whether a process holds the state directory's lock file (it has written its id into it)."""
    return path.exists() and path.read_text(encoding="utf-8").strip().isdigit()


def test_a_second_run_exits_2_in_one_line_while_the_first_serves(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(state)]
    first = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while not held(state / LOCK_FILE) and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held(state / LOCK_FILE), "the first device did not start"
        second = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                                cwd=tmp_path, timeout=60)
        assert second.returncode == 2
        assert second.stderr.splitlines() == [
            f"companion: state directory {state} is in use by another running device (process {first.pid}):"
            " stop that one first, or give this one its own --state-dir"]
    finally:
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
