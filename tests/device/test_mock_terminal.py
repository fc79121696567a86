"""``companion run --mock`` as a new user meets it: in a terminal, and without the emulator extra."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import socket
import struct
import subprocess
import sys
import termios
import time
import tomllib
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.hw.display import check_emulator_available
from companion.hw.terminal import KEY_LEGEND

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "docs" / "examples" / "first-tricks.keys"
LEAVE = b"\x1b[?25h\x1b[?1049l"


def run_in_pty(args: list[str], size: tuple[int, int], tmp_path: Path, *, timeout: float = 180,
               resize_to: tuple[int, int] | None = None) -> tuple[int, bytes]:
    """Run ``companion run`` on a pseudo-terminal of ``size`` (columns, lines); returns code and output.

    Each step waits for the program's own word, never for time to pass (``timeout`` only bounds a hung
    run, generously: a loaded machine once needed more than a minute): once it says READY=1 (its
    loop now handles signals), resize if asked and wait for the redrawn legend, then Ctrl-C.
    """
    notify = tmp_path / "notify.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(notify))
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the command
        os.chdir(ROOT)
        os.environ["NOTIFY_SOCKET"] = str(notify)
        os.execv(sys.executable, [sys.executable, "-m", "companion", "run", *args])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    output = bytearray()
    deadline = time.monotonic() + timeout
    step, resized_at = "start", 0
    try:
        while time.monotonic() < deadline:
            readable, _, _ = select.select([fd, listener], [], [], 1.0)
            if listener in readable and b"READY=1" in listener.recv(4096):
                step = "ready"
            if fd in readable:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the child closed the terminal: it has ended
                    break
                if not chunk:
                    break
                output += chunk
            if step == "ready" and resize_to is not None:
                resized_at = len(output)
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", resize_to[1], resize_to[0], 0, 0))
                os.kill(pid, signal.SIGWINCH)
                step = "resized"
            if step == "ready" or (step == "resized" and KEY_LEGEND[-1].encode() in output[resized_at:]):
                os.write(fd, b"\x03")
                step = "stopping"
        else:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
        listener.close()
    return os.waitstatus_to_exitcode(status), bytes(output)


def test_at_80x24_the_screen_is_braille_with_a_legend_and_messages_follow_the_restored_terminal(
        tmp_path: Path) -> None:
    absent_port = str(tmp_path / "no-such-tty")  # the keypad's reader says so while the screen is up
    code, output = run_in_pty(["--state-dir", str(tmp_path / "state"), "--mock", "--keypad", absent_port],
                              (80, 24), tmp_path)
    assert code == 0, output
    shown, _, after = output.rpartition(LEAVE)
    assert "⠀" in shown.decode(errors="replace") and KEY_LEGEND[0] in shown.decode(errors="replace")
    assert b"keypad" not in shown  # held back: it would have been drawn over and wiped
    assert f"keypad on {absent_port} unavailable".encode() in after and b"frames shown" in after
    assert b"\x1b[" not in after  # printed on the normal screen, after it


def test_a_small_terminal_is_told_and_a_resize_redraws(tmp_path: Path) -> None:
    code, output = run_in_pty(["--state-dir", str(tmp_path / "state"), "--mock"], (40, 12), tmp_path,
                              resize_to=(80, 24))
    assert code == 0, output
    text = output.decode(errors="replace")  # Ctrl-C flushes the pty's output queue, maybe mid-character
    assert "terminal 40x12 is too small" in text
    assert KEY_LEGEND[0] in text.partition("too small")[2]  # drawn whole once the window grew


def test_mock_mode_needs_neither_pygame_nor_luma_emulator(tmp_path: Path) -> None:
    blocked = ("import sys; sys.modules['pygame'] = sys.modules['luma.emulator'] = None;"
               "from companion.cli import main; sys.exit(main(sys.argv[1:]))")
    child = subprocess.run(
        [sys.executable, "-c", blocked, "run", "--mock", "--state-dir", str(tmp_path), "--keys", str(DEMO),
         "--exit-when-done", "--seed", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL)
    assert child.returncode == 0, child.stderr
    assert "frames" in child.stderr


def test_the_default_install_leaves_the_emulators_to_an_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(dep.startswith(("luma.emulator", "pygame")) for dep in project["dependencies"])
    assert any(dep.startswith("luma.emulator") for dep in project["optional-dependencies"]["emulator"])


def test_an_emulator_without_the_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "luma.emulator" else real_find_spec(name, *a))
    with pytest.raises(ConfigError, match=r"--display capture .*pip install 'tabletop-companion\[emulator\]'"):
        check_emulator_available("capture")
    check_emulator_available("sh1106")  # a real driver needs no extra
    check_emulator_available(None)


def test_keys_pressed_while_the_terminal_is_too_small_are_ignored(tmp_path: Path) -> None:
    """A resume offer was once accepted blind: OK pressed while the note hid the panel."""
    import io

    from companion.daemon.virtual import VirtualDevice
    from companion.hw.keys import Key, KeyEvent
    from companion.hw.terminal import TerminalScreen

    device = VirtualDevice(tmp_path)
    try:
        size = [40, 12]
        out = io.StringIO()
        screen = TerminalScreen(device.display.bus.panel, out, lambda: (size[0], size[1]))
        post = screen.while_shown(device.device.post)
        before = device.app.top.game.value
        post(KeyEvent(Key.RIGHT))
        device.device.loop.run_until_idle()
        assert device.app.top.game.value == before
        screen.draw()
        assert "keys are ignored until then" in out.getvalue()
        size[:] = [80, 24]  # the window grew: the panel shows, keys act
        post(KeyEvent(Key.RIGHT))
        device.device.loop.run_until_idle()
        assert device.app.top.game.value != before
    finally:
        device.close()
