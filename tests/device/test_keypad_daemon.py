"""The Pico keypad through the daemon: a fake Pico (the firmware's own core) on a pseudo-terminal."""

import os
import select
import signal
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
keypad_core = pytest.importorskip("keypad_core")

class FakePico:
    """The firmware core answering on the master side of a pty, pressing keys when asked."""

    def __init__(self, master: int, keys: list[str]) -> None:
        self.master = master
        self.now = 0
        self.keys = keys
        self.core = keypad_core.KeypadFirmware(keys, lambda a, b: a - b, self.now)
        self.levels = [False] * len(keys)
        self.hellos = 0  # hello frames sent: one at boot, one per host request

    def scan(self, ms: int) -> None:
        """Run the scan loop for ``ms`` milliseconds of keypad time, answering the host."""
        for _ in range(ms // 2):
            self.now += 2
            host = b""
            while select.select([self.master], [], [], 0)[0]:
                host += os.read(self.master, 1024)
            for line in self.core.step(self.now, self.levels, host.decode("ascii", "replace")):
                self.hellos += line.startswith("$H")
                os.write(self.master, line.encode("ascii"))

    def press(self, key: str) -> None:
        self.levels[self.keys.index(key)] = True
        self.scan(60)
        self.levels[self.keys.index(key)] = False
        self.scan(60)


# the new-game form: UP wraps to Start, OK starts the game; on the card keypad 2 is UP and # is OK
LAYOUTS = {"seven buttons": (keypad_core.KEY_NAMES, ["UP", "OK"]),
           "card keypad": (keypad_core.MATRIX_KEY_NAMES, ["N2", "HASH"])}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_keys_from_the_pico_keypad_drive_the_device(tmp_path, layout):
    names, presses = LAYOUTS[layout]
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    child = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", str(tmp_path), "--keypad", port],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    pico = FakePico(master, list(names))
    try:
        deadline = time.monotonic() + 60
        while pico.hellos < 2 and time.monotonic() < deadline:  # wait for the host's hello request
            pico.scan(20)
            time.sleep(0.05)
        assert pico.hellos >= 2, "the device never asked the keypad for a hello"
        for key in presses:
            pico.press(key)
            time.sleep(0.2)
        journal = tmp_path / "current.jsonl"
        while not journal.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert journal.exists(), "the keypad's keys did not start a game"
    finally:
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
        os.close(master)
        os.close(slave)
    assert child.returncode == 0, err
