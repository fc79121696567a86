"""A flooding Pico keypad through the daemon: the device keeps its pace and still stops on SIGTERM."""

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
keypad_core = pytest.importorskip("keypad_core")

KEYS = ["UP", "DOWN", "LEFT", "RIGHT", "OK", "BACK", "AUX"]


def test_a_keypad_flooding_valid_key_frames_is_held_to_a_hand_and_sigterm_still_stops_the_device(tmp_path):
    """The old failure: a flood of valid key frames queued without bound behind the loop, so
    SIGTERM waited behind it (systemd killed the device). Now the presses are held to a hand's
    pace, the drops are reported, and the stop is obeyed while the flood goes on. The 30 s
    limit only catches a hang; nothing here depends on how fast the machine is."""
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    log = tmp_path / "stderr.log"
    keys = [keypad_core.frame(f"K {seq} {KEYS[seq % len(KEYS)]} P").encode() for seq in range(256)]
    flood = b"".join(keys)
    # SIGTERM is the service's stop once it has told systemd it is ready; before that (a loaded
    # machine can take seconds to draw the first frame) the default action ends it, as systemd expects.
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(60)
    env = {**os.environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock")}
    with log.open("w") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", str(tmp_path / "state"),
             "--keypad", os.ttyname(slave)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)
    try:
        deadline = time.monotonic() + 60
        heard, answered = b"", False
        while "dropped" not in log.read_text() and time.monotonic() < deadline and child.poll() is None:
            if select.select([master], [], [], 0.01)[0]:
                heard += os.read(master, 1024)
            if not answered and b"\n" in heard:  # the hello request: answer it, then flood
                token = heard.split(b"?", 1)[1].split(b"\n", 1)[0].strip().decode()
                os.write(master, keypad_core.frame(f"H 255 2 {token}").encode())
                answered = True
            if answered and select.select([], [master], [], 0.01)[1]:
                with contextlib.suppress(BlockingIOError):  # the pty is full: the reader keeps its pace
                    os.write(master, flood)
        assert answered, "the device never asked the keypad for a hello"
        while b"READY=1" not in notify.recv(4096):  # queued already, or comes once the first frame is up
            pass
        child.send_signal(signal.SIGTERM)
        for _ in range(20):  # the flood goes on while the device stops
            if select.select([], [master], [], 0.01)[1]:
                with contextlib.suppress(BlockingIOError):
                    os.write(master, flood)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        os.close(master)
        os.close(slave)
    err_text = log.read_text()
    assert child.returncode == 0, err_text
    assert "dropped" in err_text and "key press(es) arriving faster than a hand presses" in err_text
