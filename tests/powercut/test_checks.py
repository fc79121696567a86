"""The power-cut bench's checks on state directories built here, whole and damaged the ways a
pulled plug or a broken disk would leave them."""

import shutil
from pathlib import Path

import pytest

from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import parse_script
from companion.hw.numpad import NumpadDecoder
from tests.device.killing import SEED, plan_game
from tests.powercut.checks import (
    Expected,
    check_state,
    lost_lines,
    numbered_lines,
    numpad_script,
    plan_script,
    resumes_exactly,
    torn_instants,
)

GAME = "zenjidou"
ACTIONS = 12


@pytest.fixture(scope="module")
def planned() -> list:
    return plan_game(GAME, 1)


@pytest.fixture(scope="module")
def played(tmp_path_factory, planned) -> Path:
    """A state directory whose running game holds the plan's first actions."""
    state = tmp_path_factory.mktemp("played") / "state"
    dev = VirtualDevice(state, seed=SEED)
    try:
        for event in parse_script(plan_script(state, GAME, planned[:ACTIONS], resume=False)):
            dev.press(event)
    finally:
        dev.close()
    return state


@pytest.fixture
def state(played, tmp_path) -> Path:
    copy = tmp_path / "state"
    shutil.copytree(played, copy)
    return copy


def journal(state: Path) -> bytes:
    return (state / "current.jsonl").read_bytes()


def test_a_whole_journal_keeps_what_was_acknowledged_and_resumes_exactly(state, planned):
    verdict = check_state(state, Expected((), journal(state), (tuple(planned),)))
    assert verdict.lost == [] and verdict.unreadable == []
    assert verdict.resumed, verdict.why_not_resumed


def test_a_torn_line_after_the_acknowledged_ones_loses_nothing(state, planned):
    acknowledged = journal(state)
    with open(state / "current.jsonl", "ab") as file:
        file.write(b'{"kind":"pl')
    verdict = check_state(state, Expected((), acknowledged, (tuple(planned),)))
    assert verdict.lost == [] and verdict.resumed, verdict.why_not_resumed


def test_an_acknowledged_line_missing_is_lost_and_not_resumed(state, planned):
    acknowledged = journal(state)
    (state / "current.jsonl").write_bytes(acknowledged[: acknowledged.rstrip(b"\n").rfind(b"\n") + 1])
    expected = Expected((), acknowledged, (tuple(planned),))
    assert lost_lines(state, expected) == [f"running game: {ACTIONS + 1} lines acknowledged, the first {ACTIONS} found"]
    assert resumes_exactly(state, expected) == "fewer actions than acknowledged"


def test_a_journal_that_strays_from_the_plan_is_not_an_exact_resume(state, planned):
    strays = resumes_exactly(state, Expected((), b"", (tuple(planned[1:]),)))
    assert strays == f"resumed {ACTIONS} actions that stray from the plan"


def test_finished_games_count_where_the_device_keeps_them(state):
    finished = journal(state)
    assert lost_lines(state, Expected((finished,))) == []
    (state / "games").mkdir()
    (state / "current.jsonl").rename(state / "games" / "game-1.jsonl")
    assert lost_lines(state, Expected((finished,))) == []
    assert lost_lines(state, Expected((finished + b"{}\n",))) == [f"finished game 1 ({ACTIONS + 2} lines) is missing"]


def test_no_journal_at_all_is_a_fresh_start_offering_nothing(tmp_path):
    (tmp_path / "state").mkdir()
    assert resumes_exactly(tmp_path / "state", Expected()) == ""


def test_a_state_file_that_is_not_whole_json_is_named(state):
    (state / "settings.json").write_bytes(b'{"language": "j')
    (state / "event-demo.json").write_bytes(b"{}")
    verdict = check_state(state, Expected((), b"", ()))
    assert verdict.unreadable == ["settings.json"]
    assert verdict.state_files["event-demo.json"] == b"{}"
    assert verdict.state_files["card-facts.json"] is not None  # the table's answers, whole


@pytest.mark.parametrize(("history", "torn"), [
    ([None, b"1", b"1", b"2"], []),
    ([b"1", b"1", b"2", b"3", b"3"], []),
    ([b"1", b"2", b"1"], [2]),
    ([b"1", None, b"1"], [1]),
    ([b"1", b"2", None], [2]),
])
def test_a_state_file_never_vanishes_nor_steps_back(history, torn):
    assert torn_instants(history) == torn


def test_the_next_game_declines_the_running_one_and_a_resume_carries_on(state, planned):
    (state / "card-facts.json").unlink()  # else the new game would not ask what the plan answers
    fresh = parse_script(plan_script(state, GAME, planned[:3], resume=False))
    assert fresh[0] == KeyEvent(Key.BACK)  # the running game's offer declined: a new game starts
    resumed = parse_script(plan_script(state, GAME, planned[:ACTIONS + 2], resume=True, pace=0.5))
    assert resumed[0] == KeyEvent(Key.OK) and resumed[1] == 0.5


def test_the_menu_rewrites_the_settings_in_mid_game_and_the_game_goes_on_as_planned(tmp_path, planned):
    """Every few actions the script turns the contrast through the menu: settings.json is written
    between actions, one way only (no version comes back), and the game is still the plan."""
    state = tmp_path / "state"
    script = parse_script(plan_script(state, GAME, planned[:40], resume=False, settings_every=5))
    assert KeyEvent(Key.LEFT) in script
    dev = VirtualDevice(state, seed=SEED)
    versions: list[bytes | None] = []
    try:
        for event in script:
            dev.press(event)
            versions.append((state / "settings.json").read_bytes() if (state / "settings.json").exists() else None)
        assert list(dev.game.actions) == list(planned[:40])
    finally:
        dev.close()
    assert len({version for version in versions if version}) > 3  # the game's start, then the menu's turns
    assert torn_instants(versions) == []


def test_the_numeric_keypads_script_types_the_planned_game_through_its_decoder(tmp_path, planned):
    """What the VM's virtual keypad types (key codes, held or not), decoded as the device decodes a
    real keypad's events, enters the planned game on a fresh device."""
    script = numpad_script(GAME, planned[:ACTIONS])
    decoder, now = NumpadDecoder(), 0.0
    dev = VirtualDevice(tmp_path / "state", seed=SEED)
    try:
        for line in script.splitlines():
            code, held = (int(word) for word in line.split())
            now += 5.0
            events = decoder.feed(code, 1, now) + decoder.advance(now + (2.0 if held else 0.0))
            for event in events + decoder.feed(code, 0, now + (2.1 if held else 0.1)):
                dev.device.post(event)
                dev.device.loop.run_until_idle()
        assert list(dev.game.actions) == list(planned[:ACTIONS])
    finally:
        dev.close()
    assert " 1\n" in script  # the setup form's arrows are held digits


def test_numbered_lines_count_up_to_the_first_the_disk_did_not_keep():
    lines = [b"%08d\n" % number for number in range(6)]
    assert numbered_lines(b"".join(lines)) == 6
    assert numbered_lines(b"".join(lines[:2]) + b"\0" * 9 + b"".join(lines[3:])) == 2  # a dropped block
    assert numbered_lines(b"".join(lines[:4]) + b"0000") == 4  # a torn last line is not counted
    assert numbered_lines(b"") == 0
