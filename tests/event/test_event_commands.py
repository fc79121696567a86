"""The commands as processes: ``companion run`` with and without ``[event]``, ``companion scoreboard``
and its exports."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from companion.event.mosquitto import free_port
from companion.organiser.board import standings
from companion.organiser.names import standing_key
from companion.report import rendered_summary
from tests.event.conftest import EVENT, ON_MOSQUITTO, SETTLE, replay_json, settle

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "docs" / "examples" / "first-tricks.keys"


def run_device(state: Path, config_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CONFIGURATION_DIRECTORY": str(config_dir)}
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", str(state), "--keys", str(DEMO),
         "--exit-when-done", "--seed", "1"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT,
    )


@ON_MOSQUITTO  # the device is a process: it reaches a real broker only
def test_companion_run_with_an_event_section_publishes_its_journal(tmp_path, broker, scoreboard):
    config = tmp_path / "etc"
    config.mkdir()
    (config / "config.toml").write_text(f'[event]\nbroker = "{broker.url}"\nevent = "{EVENT}"\ntable = "5"\n')
    done = run_device(tmp_path / "state", config)
    assert done.returncode == 0, done.stderr
    board = scoreboard.board
    lines = len((tmp_path / "state" / "current.jsonl").read_bytes().splitlines())
    settle(board, lambda: "5" in board.tables and board.applied == lines and not board.tables["5"].online,
           "the device's 21 lines and its offline status")
    (game,) = board.tables["5"].games.values()
    assert rendered_summary(game.stream.game) == replay_json(tmp_path / "state" / "current.jsonl")


def test_without_an_event_section_the_device_loads_no_network_code(tmp_path):
    """What ``companion run`` does with config.toml, in a fresh interpreter: no publisher, no paho."""
    probe = (
        "import sys\n"
        "from companion.config import load_config\n"
        "from companion.daemon.store import Store\n"
        "from companion.uplink.start import start_event_mode\n"
        "store = Store(__import__('pathlib').Path(sys.argv[1]))\n"
        "print(start_event_mode(load_config().sections, store), store.on_journalled,"
        " 'paho.mqtt.client' in sys.modules)\n"
    )
    config = tmp_path / "etc"
    config.mkdir()
    (config / "config.toml").write_text('board = "adafruit-oled-bonnet"\n')
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "state")], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={**os.environ, "CONFIGURATION_DIRECTORY": str(config)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "[]", "False"]


@ON_MOSQUITTO  # the scoreboard is a process: it reaches a real broker only
def test_the_scoreboard_command_serves_shows_and_exports(tmp_path, broker, tables):
    port = free_port()
    export = tmp_path / "export"
    command = [sys.executable, "-m", "companion.cli", "scoreboard", "--broker", broker.url, "--event", EVENT,
               "--http", f"127.0.0.1:{port}", "--export", str(export), "--rank-points", "5,3,1,0",
               "--state", str(tmp_path / "scoreboard-state")]
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        playing = tables(2)
        for table in playing:
            table.new_game("tezuma")
            table.play()
        # the scoreboard is another process: watch its page until it shows both games finished
        deadline = time.monotonic() + SETTLE
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/board.json", timeout=5) as response:
                    snapshot = json.load(response)
                if sum(1 for t in snapshot["tables"] if t["game"] and t["game"]["over"]) == 2:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the scoreboard process never showed both finished games"
            time.sleep(0.1)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=10)
    assert child.returncode == 0, err
    assert "standings" in out and "finished" in out, out + err
    played = [(t.table, replay_json(p)) for t in playing for p in t.journals()]
    replays = [r for _, r in played]
    # the tables' default names (Aki, Ben, ...) are each a seat at one table: "Aki (table 1)"
    expected = standings([([standing_key(n, table, None) for n in r["players"]], r["totals"]) for table, r in played],
                         (5, 3, 1, 0))
    with open(export / "standings.csv", encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert [(r["player"], int(r["rank_points"]), int(r["score"])) for r in rows] == [
        (s.shown, s.rank_points, s.score) for s in expected
    ]
    assert any(r["player"].endswith("(table 2)") for r in rows)
    records = sorted((export / "records").glob("*.jsonl"))
    assert len(records) == 2
    assert sorted(map(str, (replay_json(p) for p in records))) == sorted(map(str, replays))
