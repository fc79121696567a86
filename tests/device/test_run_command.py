"""``companion run --mock`` as a process: a key script, SIGTERM, and systemd's notify protocol."""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from PIL import Image

from companion.record import GameBuilder, read_record
from tests.engine.helpers import english

DEMO = Path(__file__).resolve().parents[2] / "docs" / "examples" / "first-tricks.keys"


def companion(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "companion.cli", "run", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def test_the_shipped_key_script_plays_two_tricks_and_exits(tmp_path):
    frame = tmp_path / "last.png"
    child = companion("--mock", "--state-dir", str(tmp_path), "--keys", str(DEMO), "--exit-when-done",
                      "--seed", "1", "--save-frame", str(frame))
    _out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    game = read_record((tmp_path / "current.jsonl").read_text(encoding="utf-8").splitlines(), GameBuilder()).game
    assert len(game.actions) == 20 and english(game, game.state.deal.tricks[1].result) == "P3: Five-Color Sand"
    assert "display bytes" in err
    with Image.open(frame) as saved:  # as README's pictures: each panel pixel 4x4
        assert saved.size == (512, 256)
    small = tmp_path / "small.png"
    child = companion("--mock", "--state-dir", str(tmp_path / "again"), "--keys", str(DEMO), "--exit-when-done",
                      "--seed", "1", "--save-frame", str(small), "--save-frame-scale", "1")
    assert child.communicate(timeout=120)[0] is not None and child.returncode == 0
    with Image.open(small) as saved, Image.open(frame) as big:
        assert saved.size == (128, 64)
        assert saved.convert("L").resize((512, 256), Image.Resampling.NEAREST).tobytes() == big.convert("L").tobytes()


def test_sigterm_stops_cleanly_and_tells_systemd(tmp_path):
    address = str(tmp_path / "notify.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    listener.settimeout(60)
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": ""}
    child = companion("--mock", "--state-dir", str(tmp_path), env=env)
    try:
        messages = []
        while not any("WATCHDOG=1" in m for m in messages):
            messages.append(listener.recv(4096).decode())
        assert any("READY=1" in m for m in messages)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 0
        listener.settimeout(5)
        tail = []
        try:
            while True:
                tail.append(listener.recv(4096).decode())
        except TimeoutError:
            pass
        assert any("STOPPING=1" in m for m in tail)
    finally:
        child.kill()
        child.communicate(timeout=10)
        listener.close()


def test_the_board_comes_from_config_toml(tmp_path):
    import pytest

    from companion.config import load_config
    from companion.errors import ConfigError

    environ = {"CONFIGURATION_DIRECTORY": str(tmp_path)}
    assert load_config(environ=environ).get("board") is None
    (tmp_path / "config.toml").write_text('board = "waveshare-oled-1.3-hat"\n')
    assert load_config(environ=environ).get("board") == "waveshare-oled-1.3-hat"
    (tmp_path / "config.toml").write_text("board = [1]\n")
    with pytest.raises(ConfigError, match="board: expected text"):
        load_config(environ=environ)
    (tmp_path / "config.toml").write_text("board = \n")
    with pytest.raises(ConfigError, match=r"config\.toml"):
        load_config(environ=environ)


def test_a_damaged_journal_is_set_aside_and_the_device_starts(tmp_path):
    from companion.daemon.virtual import VirtualDevice

    (tmp_path / "current.jsonl").write_text('{"format":"tabletop-companion-record"}\nnot json\n{"type":"undo"}\n')
    dev = VirtualDevice(tmp_path)
    try:
        assert dev.game is None and any("kept as" in m for m in dev.device.startup_messages)
        assert not (tmp_path / "current.jsonl").exists()
        assert [p.name.startswith("damaged-") for p in (tmp_path / "games").iterdir()] == [True]
    finally:
        dev.close()
