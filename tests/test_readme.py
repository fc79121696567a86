"""README.md stays true: its key table is what mock mode's keyboard does, its first-game walk what the device does."""

from __future__ import annotations

import io
import re
from pathlib import Path

from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import decode_keys, parse_script
from companion.keys import CARD_KEYPAD_ROWS
from companion.ui.screens import ResumeOffer

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
NAMED = {"arrow keys": [b"\x1b[A", b"\x1b[B", b"\x1b[D", b"\x1b[C"],
         "Shift+arrow": [b"\x1b[1;2A", b"\x1b[1;2B", b"\x1b[1;2D", b"\x1b[1;2C"],
         "Enter": [b"\r"], "Backspace": [b"\x7f"], "Esc": [b"\x1b"], "Space": [b" "]}


def key_table() -> list[list[str]]:
    section = README.split("## Keys in mock mode", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]  # without the header


def typed(cell: str) -> list[bytes]:
    """Every keystroke a cell names: `letters` in backticks and the named keys above."""
    keystrokes = [letter.encode() for letter in re.findall(r"`(.)`", cell)]
    for name, sequences in NAMED.items():
        if re.search(rf"(?<![+\w]){re.escape(name)}", cell):
            keystrokes += sequences
    return keystrokes


def test_the_key_table_is_what_the_keyboard_does() -> None:
    table = key_table()
    assert [row[0] for row in table] == ["UP / DOWN / LEFT / RIGHT", "OK", "BACK", "AUX"]
    checked = 0
    for device_keys, plain, long in table:
        keys = [Key.parse(name) for name in device_keys.split(" / ")]
        for column, is_long in ((plain, False), (long, True)):
            strokes = typed(column)
            assert strokes, column
            for index, stroke in enumerate(strokes):
                expected = keys[index % len(keys)] if len(keys) > 1 else keys[0]
                assert decode_keys(stroke) == [KeyEvent(expected, long=is_long)], (column, stroke)
                checked += 1
    assert checked >= 25


def test_the_terminal_size_the_readme_names_is_the_one_the_screen_needs() -> None:
    from companion.hw.panel import PanelModel
    from companion.hw.terminal import TerminalScreen

    screen = TerminalScreen(PanelModel("ssd1306"), io.StringIO(), lambda: (80, 24))
    assert f"at least {screen.min_columns}x{screen.min_lines}, e.g. the usual 80x24" in README


def test_the_card_keypad_table_is_what_the_keyboard_does() -> None:
    section = README.split("## The card keypad", 1)[1].split("\n## ", 1)[0]
    table = section.split("In mock mode the keyboard", 1)[1]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ")][1:]
    checked = set()
    for device_keys, plain in rows:
        keys = [Key.parse(name) for name in device_keys.split(" / ")]
        strokes = typed(plain)
        assert len(strokes) == len(keys), plain
        for key, stroke in zip(keys, strokes, strict=True):
            assert decode_keys(stroke) == [KeyEvent(key)]
            assert decode_keys(b"\x1b" + stroke) == [KeyEvent(key, long=True)]  # Alt+key: held
            checked.add(key)
    assert checked == set(CARD_KEYPAD_ROWS[0] + CARD_KEYPAD_ROWS[1] + CARD_KEYPAD_ROWS[2] + CARD_KEYPAD_ROWS[3])


def test_the_first_game_walk_does_what_it_says(tmp_path: Path) -> None:
    """README's first-game walk, as its key script on a whole virtual device: UP and OK start the
    game the form opens on (Irohanihohedo, 6 players), one OK per seat enters a trick, held BACK and
    OK undo the last card; started again, the device offers to resume the game."""
    walk = README.split("## Your first game in mock mode", 1)[1].split("\n## ", 1)[0]
    script = re.search(r"--keys (\S+\.keys)", walk)
    assert script is not None
    steps = parse_script((Path(__file__).parents[1] / script[1]).read_text(encoding="utf-8"), script[1])
    device = VirtualDevice(tmp_path)
    try:
        for step in steps:
            assert isinstance(step, KeyEvent)
            device.press(step)
            if len(device.pressed) == 2:  # UP, OK: the game started
                assert device.game.game_id == "irohanihohedo" and len(device.game.setup.players) == 6
            if len(device.pressed) == 8:  # an OK per seat: the first trick is whole
                assert device.game.state.deal.tricks[0].result is not None
        assert len(device.game.actions) == 5 and device.game.state.deal.tricks[0].result is None  # last card undone
    finally:
        device.close()
    again = VirtualDevice(tmp_path)
    try:
        assert isinstance(again.app.top, ResumeOffer)
    finally:
        again.close()


def test_the_bench_commands_run_as_printed() -> None:
    """Each names the virtualenv's python (a bare `python` failed unless the venv was activated)
    and a script of bench/ that starts: its --help exits 0 from the checkout."""
    import subprocess
    import sys

    root = Path(__file__).parents[1]
    block = README.split("<!-- bench-commands -->", 1)[1].split("<!-- /bench-commands -->", 1)[0]
    commands = [line.split() for line in block.strip().strip("`").strip().splitlines()]
    assert commands and all(command[0] == ".venv/bin/python" and len(command) >= 2 for command in commands)
    assert sorted(command[1] for command in commands) == sorted(f"bench/{path.name}"
                                                                for path in (root / "bench").glob("*.py"))
    for _, script, *_arguments in commands:
        child = subprocess.run([sys.executable, script, "--help"], cwd=root, capture_output=True, text=True,
                               timeout=120, stdin=subprocess.DEVNULL)
        assert child.returncode == 0, (script, child.stderr)


def test_every_doc_says_what_the_code_does_of_press_release_and_row_height() -> None:
    """hardware/README.md said every button acts on release and spoke of 12 px rows, while the
    README and docs/screens.md said arrows act on press and rows are 8 px."""
    from companion.keys import ARROWS
    from companion.ui.canvas import ROW

    root = Path(__file__).parents[1]
    device_keys = [Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT, Key.OK, Key.BACK, Key.AUX]
    on_release = [key.name for key in device_keys if key not in ARROWS]
    assert on_release == ["OK", "BACK", "AUX"] and ROW == 9
    for name in ("README.md", "docs/screens.md", "hardware/README.md"):
        text = " ".join((root / name).read_text(encoding="utf-8").split())
        assert "OK, BACK and AUX" in text and re.search(r"arrows? acts? as soon as", text), name
        assert "12 px" not in text and "only OK and BACK" not in text, name
