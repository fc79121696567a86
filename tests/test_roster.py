"""The roster: ``companion players`` and its refusals, and the device's setup form offering it first."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.daemon.virtual import VirtualDevice
from companion.errors import ConfigError
from companion.hw.keys import Key, KeyEvent
from companion.names import name_key
from companion.roster import MAX_NAME_CELLS, ROSTER_FILE, Roster, check_name


def players(capsys, state, *argv):
    code = main(["players", "--state-dir", str(state), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_remove_in_any_script(capsys, tmp_path):
    for name in ("Alice", "山田花子", "Zoë"):
        code, out, err = players(capsys, tmp_path, "add", name)
        assert (code, out) == (0, f"added: {name}\n") and f"roster file {tmp_path / ROSTER_FILE}" in err
    assert players(capsys, tmp_path, "list")[:2] == (0, "Alice\n山田花子\nZoë\n")
    assert players(capsys, tmp_path, "remove", "ALICE")[:2] == (0, "removed: Alice\n")
    assert players(capsys, tmp_path, "list")[1] == "山田花子\nZoë\n"


@pytest.mark.parametrize(("name", "why"), [
    ("", "cannot be empty"),
    ("  \u200b ", "cannot be empty"),
    ("x" * (MAX_NAME_CELLS + 1), f"at most {MAX_NAME_CELLS} half-width"),
    ("長" * (MAX_NAME_CELLS // 2 + 1), f"or {MAX_NAME_CELLS // 2} full-width"),
    ("Al\x1b[2Jice", "control or invisible character (U+001B)"),
    ("Al\u202eice", "control or invisible character (U+202E)"),
    ("\uff21\uff2c\uff29\uff23\uff25", "the same name as 'Alice' once normalised"),
    ("alice", "the same name as 'Alice' once normalised"),
    ("\u0410li\u0441e", "the same name as 'Alice' once normalised"),  # Cyrillic A and es: a look-alike
    ("Alice", "already in the roster"),
])
def test_refusals_are_one_line_and_change_nothing(capsys, tmp_path, name, why):
    assert players(capsys, tmp_path, "add", "Alice")[0] == 0
    before = (tmp_path / ROSTER_FILE).read_bytes()
    code, out, err = players(capsys, tmp_path, "add", name)
    last = err.splitlines()[-1]
    assert code == 2 and out == "" and why in last and last.startswith("companion: ")
    assert (tmp_path / ROSTER_FILE).read_bytes() == before


def test_removing_a_name_not_there_and_a_damaged_roster_are_refused(capsys, tmp_path):
    code, _, err = players(capsys, tmp_path, "remove", "Nobody")
    assert code == 2 and "'Nobody' is not in the roster" in err
    (tmp_path / ROSTER_FILE).write_text('{"players": [{"name": "A\\u0007", "used": 0}]}', encoding="utf-8")
    code, _, err = players(capsys, tmp_path, "list")
    assert code == 2 and "not a roster" in err
    assert players(capsys, tmp_path, "add", "Bob")[0] == 2  # never replaced: the file stays for a person to see
    assert "A\\u0007" in (tmp_path / ROSTER_FILE).read_text(encoding="utf-8")


def test_a_game_started_puts_its_players_first(tmp_path):
    roster = Roster(tmp_path)
    for name in ("Alice", "Bob", "Carol", "Dan", "Eve"):
        roster.add(name)
    roster.used(["Dan", "Bob"])
    assert roster.names() == ["Dan", "Bob", "Alice", "Carol", "Eve"]
    roster.used(["Eve", "Unknown"])
    assert roster.names() == ["Eve", "Dan", "Bob", "Alice", "Carol"]
    assert json.loads((tmp_path / ROSTER_FILE).read_text(encoding="utf-8"))["players"][0]["name"] == "Eve"


@given(st.text(max_size=20))
def test_a_name_accepted_is_printable_and_compares_as_typed(name):
    try:
        checked = check_name(name)
    except ConfigError:
        return
    assert checked == checked.strip() and name_key(checked) == name_key(name)  # the spaces it lost meant nothing
    assert all(c.isprintable() or unicodedata.category(c) == "Zs" for c in checked)


def test_the_setup_form_offers_the_roster_first_and_a_started_game_reorders_it(tmp_path):
    roster = Roster(tmp_path)
    for name in ("Alice", "Bob", "山田花子"):
        roster.add(name)
    device = VirtualDevice(tmp_path)
    try:
        form = device.app.top
        offered = form.names[0].options
        assert offered[:3] == ["Alice", "Bob", "山田花子"] and offered[3:6] == ["Aki", "Ben", "Chie"]
        assert [choice.value for choice in form.names][:4] == ["Alice", "Bob", "山田花子", "Aki"]
        while form.game.value != "tezuma":
            device.press(KeyEvent(Key.RIGHT))
        device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.LEFT))  # 3 players: a seat fewer
        device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.RIGHT))  # seat 2: the next name not taken (Aki)
        while device.app.top.rows[device.app.top.row] is not None:
            device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.OK))
        assert device.game.setup.players == ("Alice", "Aki", "山田花子")
        assert roster.names() == ["Alice", "山田花子", "Bob"]
    finally:
        device.close()


def test_seated_names_arriving_fill_an_untouched_form_and_keep_a_chosen_name(tmp_path):
    Roster(tmp_path).add("Zoë")
    device = VirtualDevice(tmp_path)
    try:
        app = device.app
        form = app.top
        seat_1 = form.names[0]
        app.offer_seated_names(["Alice", "Bob", "Carol", "Dan"])
        assert form.names[0] is seat_1 and [c.value for c in form.names[:5]] == ["Alice", "Bob", "Carol", "Dan", "Zoë"]
        device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.DOWN))
        device.press(KeyEvent(Key.LEFT))  # seat 1: the last name on offer, chosen here
        chosen = seat_1.value
        app.offer_seated_names(["Eve", "Fay", "Gus", "Hal"])
        assert seat_1.value == chosen and seat_1.options[:4] == ["Eve", "Fay", "Gus", "Hal"]
        app.offer_seated_names([])  # the list taken back: the roster, then the built-in names
        assert seat_1.options[:3] == ["Zoë", "Aki", "Ben"]
    finally:
        device.close()
