"""The link's mark on the device's screen: it appears, changes and goes away.

Through the broker in the test's process, and ``companion run`` with no broker at its address.

The publisher's thread only posts the change; the device's loop draws it (a mock device's loop runs
when the test lets it), so every check below reads what reached the panel over the recording bus.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageChops

from companion.event.mosquitto import free_port
from companion.ui.canvas import ROW, WIDTH
from companion.uplink.publisher import WINDOW
from tests.event.conftest import EVENT, MockTable, journal_lines, wait_for
from tests.ui.helpers import make_app

ROOT = Path(__file__).resolve().parents[2]
CORNER = (WIDTH - 6, 0, WIDTH, ROW)


def drawn_mark(mark: str) -> bytes:
    """The corner as the app draws ``mark``: the same on every screen (a dark cell, the mark lit)."""
    app = make_app()
    app.show_status_mark(mark)
    return app.render().crop(CORNER).tobytes()


class Panel:
    """Every frame a mock table's panel received: the mark the app drew and the panel's corner."""

    def __init__(self, table: MockTable) -> None:
        self.table = table
        self.frames: list[tuple[str, bytes]] = []
        display = table.device.display
        display.watchers.append(lambda: self.frames.append(
            (table.device.app.status_mark, display.bus.panel.image().crop(CORNER).tobytes())))

    def marks(self) -> list[str]:
        """The marks shown, one entry per change."""
        shown: list[str] = []
        for mark, _ in self.frames:
            if not shown or shown[-1] != mark:
                shown.append(mark)
        return shown

    def wait_for(self, mark: str) -> None:
        """Let the device's loop run until the panel shows ``mark`` ('' = no mark)."""

        def shown() -> bool:
            self.table.device.device.loop.run_until_idle()
            return bool(self.frames and self.frames[-1][0] == mark)

        wait_for(shown, f"the mark {mark!r} on the panel (it showed {self.marks()})")


def test_no_broker_then_catching_up_then_all_well_then_the_broker_killed(tmp_path, start_memory_broker):
    broker = start_memory_broker()
    broker.kill()  # nothing there yet
    table = MockTable(tmp_path, "7", broker)
    panel = Panel(table)
    try:
        panel.wait_for("!")
        table.new_game("tezuma")
        table.play()  # the whole game offline: play never waits for the network
        assert journal_lines(table.journals()[-1]) > WINDOW  # enough to be behind once the broker is there
        broker.start()
        panel.wait_for("")
        assert panel.marks() == ["!", "~", ""]  # no broker; the broker there, lines still going; all sent
        broker.kill()
        panel.wait_for("!")
        broker.start()
        panel.wait_for("")
        assert all(corner == drawn_mark(mark) for mark, corner in panel.frames if mark)  # on the glass
        publisher = table.publisher
        assert publisher is not None  # no mark while up to a window of lines is in flight: then none is
        wait_for(lambda: publisher.status.backlog == 0, "every line acknowledged")
    finally:
        table.close()


def test_a_refused_password_shows_x_and_play_goes_on(tmp_path, start_memory_broker):
    (tmp_path / "wrong.pw").write_text("not the password\n")
    broker = start_memory_broker(accounts={"7": "the right one"})
    table = MockTable(tmp_path, "7", broker, username="7", password_file=str(tmp_path / "wrong.pw"))
    panel = Panel(table)
    try:
        panel.wait_for("x")
        table.new_game("tezuma")
        assert table.play(10) == 10
        table.device.device.loop.run_until_idle()
        assert table.device.app.status_mark == "x" and panel.frames[-1][1] == drawn_mark("x")
    finally:
        table.close()


# The publisher's first word is posted as its thread starts, before the keys are opened; the wait
# leaves it far more time than it needs to be drawn before the script ends the run.
SCRIPT = "wait 0.3\npress RIGHT\npress DOWN\n"


def run_device(tmp_path: Path, name: str, event: str) -> Image.Image:
    """``companion run --mock`` playing a short key script; the last frame it showed."""
    config = tmp_path / name
    config.mkdir()
    (config / "config.toml").write_text(event)
    (tmp_path / "s.keys").write_text(SCRIPT)
    frame = tmp_path / f"{name}.png"
    done = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--mock", "--state-dir", str(tmp_path / f"{name}-state"),
         "--keys", str(tmp_path / "s.keys"), "--exit-when-done", "--seed", "1", "--save-frame", str(frame),
         "--save-frame-scale", "1"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "CONFIGURATION_DIRECTORY": str(config)})
    assert done.returncode == 0, done.stderr
    with Image.open(frame) as image:
        return image.convert("L")


def test_companion_run_draws_the_mark_when_the_broker_is_not_there(tmp_path):
    """The command wires the publisher to the screen: with no broker at the [event] address the keys
    play to the same end, with '!' in the corner and nothing else different."""
    plain = run_device(tmp_path, "plain", "")
    absent = f'[event]\nbroker = "mqtt://127.0.0.1:{free_port()}"\nevent = "{EVENT}"\ntable = "5"\n'
    marked = run_device(tmp_path, "no-broker", absent)
    box = ImageChops.difference(plain, marked).getbbox()
    assert box is not None and box[0] >= CORNER[0] and box[3] <= ROW, box
    assert marked.convert("1").crop(CORNER).tobytes() == drawn_mark("!")
