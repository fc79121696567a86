"""Signals as systemd users expect them: SIGHUP is logged and ignored (config.toml applies at the next
start), SIGTERM stops the device cleanly, and more SIGTERMs while it shuts down still end in exit 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.daemon.loop import EventLoop
from companion.daemon.run import Signals
from companion.daemon.store import LOCK_FILE

ROOT = Path(__file__).resolve().parents[2]


def start_device(tmp_path: Path) -> subprocess.Popen[str]:
    """A headless mock device, once it holds its state directory (its signal handlers are in place)."""
    state = tmp_path / "state"
    child = subprocess.Popen([sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(state)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path)
    deadline = time.monotonic() + 60
    lock = state / LOCK_FILE
    while child.poll() is None and time.monotonic() < deadline:
        if lock.exists() and lock.read_text(encoding="utf-8").strip() == str(child.pid):
            return child
        time.sleep(0.05)
    child.kill()
    raise AssertionError(f"the device did not start: {child.communicate()[1]}")


def test_sighup_is_logged_and_ignored_then_sigterm_stops_cleanly(tmp_path: Path) -> None:
    child = start_device(tmp_path)
    try:
        child.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert child.poll() is None, "SIGHUP ended the device"
    finally:
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert "SIGHUP ignored" in err and "restart" in err


def test_sigterms_during_the_shutdown_still_exit_0(tmp_path: Path) -> None:
    child = start_device(tmp_path)
    deadline = time.monotonic() + 60
    sent = 0
    try:
        while child.poll() is None and time.monotonic() < deadline:  # keep sending until it has exited
            child.send_signal(signal.SIGTERM)
            sent += 1
            time.sleep(0.001)
    except ProcessLookupError:
        pass
    _, err = child.communicate(timeout=60)
    assert sent > 1
    assert child.returncode == 0, err


def test_a_stop_signal_before_the_loop_exists_stops_it_once_attached() -> None:
    loop: EventLoop[object] = EventLoop(lambda event: None)
    before = signal.getsignal(signal.SIGTERM)
    with Signals(hangup_stops=False) as signals:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in this thread, before the next line
        assert signals.requested
        signals.attach(loop)
        loop.run()  # returns at once: the stop was waiting
        os.kill(os.getpid(), signal.SIGTERM)  # again, after the stop: nothing happens
        os.kill(os.getpid(), signal.SIGHUP)  # logged and ignored
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_hangup_of_the_terminal_the_panel_is_drawn_in_stops_the_device() -> None:
    loop: EventLoop[object] = EventLoop(lambda event: None)
    with Signals(hangup_stops=True) as signals:
        signals.attach(loop)
        os.kill(os.getpid(), signal.SIGHUP)
        assert signals.requested
        loop.run()  # returns at once
