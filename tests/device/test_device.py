"""The whole device on fake buses: a game entered only through mock button presses."""

import json
import random

import pytest

from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.record import GameBuilder, read_record
from companion.sim import table_model

OK, UP, RIGHT = KeyEvent(Key.OK), KeyEvent(Key.UP), KeyEvent(Key.RIGHT)


def start_game(dev: VirtualDevice, game_id: str) -> None:
    """On the new-game form: pick the game on the first row, jump to Start (UP wraps), OK."""
    for _ in range(len(dev.app.top.game_ids)):
        if dev.app.top.game.value == game_id:
            break
        dev.press(RIGHT)
    dev.press(UP)
    dev.press(OK)
    assert dev.game is not None and dev.game.game_id == game_id


def play_through_keys(dev: VirtualDevice, seed: int, max_actions: int | None = None) -> None:
    rng = random.Random(seed)
    game = dev.game
    table = table_model(game, rng, 0.4)
    count = 0
    while not game.is_over() and (max_actions is None or count < max_actions):
        action = table.choose(game, rng)
        dev.enter(action)
        assert game.actions[-1] == action
        table.after(game, action)
        count += 1


@pytest.fixture
def dev(tmp_path):
    """A virtual device on a fresh state directory, closed after the test."""
    device = VirtualDevice(tmp_path)
    yield device
    device.close()


def journal_game(state):
    lines = (state / "current.jsonl").read_text(encoding="utf-8").splitlines()
    builder = read_record(lines, GameBuilder())
    assert builder.failure is None
    return builder.game


@pytest.mark.parametrize("game_id", ["tezuma-2015", "tezuma"])
def test_a_whole_game_through_mock_buttons_matches_the_replay_of_its_journal(dev, tmp_path, game_id):
    start_game(dev, game_id)
    play_through_keys(dev, seed=3)
    live = dev.game
    assert live.is_over() and len(live.state.deals) == 4
    replayed = journal_game(tmp_path)
    assert replayed.summary() == live.summary()
    assert replayed.totals() == live.totals()
    cards = sum(1 for a in live.actions if a.type == "play")
    assert dev.presses / cards < 4  # the bench reports the exact figure
    # every answer the table gave is remembered for the next game, apart from the printed data
    facts = json.loads((tmp_path / "card-facts.json").read_text())[game_id]
    answers = [a for a in live.actions if a.type == "answer"]
    assert answers and all(
        facts["points"][a.key.split(":")[1]][a.key.split(":")[2]] == a.value for a in answers
    )


def test_restart_resumes_at_the_exact_action(tmp_path):
    dev = VirtualDevice(tmp_path)
    start_game(dev, "tezuma")
    play_through_keys(dev, seed=5, max_actions=40)
    before = dev.game.summary(), list(dev.game.actions)
    dev.close()  # a pulled plug: nothing is flushed on purpose beyond what each action did

    again = VirtualDevice(tmp_path)
    try:
        assert type(again.app.top).__name__ == "ResumeOffer"
        again.press(OK)
        assert (again.game.summary(), list(again.game.actions)) == before
    finally:
        again.close()


def test_a_torn_last_line_is_dropped_with_a_message_not_a_crash(tmp_path):
    dev = VirtualDevice(tmp_path)
    start_game(dev, "tezuma-2015")
    play_through_keys(dev, seed=7, max_actions=20)
    actions = list(dev.game.actions)
    dev.close()
    journal = tmp_path / "current.jsonl"
    with journal.open("ab") as f:
        f.write(b'{"type":"play","seat":1,"car')  # the plug was pulled mid-write
    again = VirtualDevice(tmp_path)
    try:
        assert any("torn" in m for m in again.device.startup_messages)
        again.press(OK)
        assert list(again.game.actions) == actions
        assert journal.read_bytes().endswith(b"}\n")
    finally:
        again.close()


def test_undo_by_long_back_is_journalled(dev, tmp_path):
    start_game(dev, "tezuma")
    play_through_keys(dev, seed=9, max_actions=15)
    actions = list(dev.game.actions)
    dev.press(KeyEvent(Key.BACK, long=True))
    dev.press(OK)  # confirm
    assert list(dev.game.actions) == actions[:-1]
    lines = (tmp_path / "current.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["type"] == "undo"
    assert journal_game(tmp_path).actions == actions[:-1]


def test_idle_dims_then_blanks_and_the_waking_press_does_nothing_else(dev, tmp_path):
    start_game(dev, "tezuma")
    panel = dev.display.bus.panel
    dev.wait(121)
    assert dev.app.display_state == "dim" and panel.contrast == 1
    dev.wait(480)
    assert dev.app.display_state == "off" and not panel.display_on
    actions = len(dev.game.actions)
    screen = dev.app.top
    dev.press(OK)
    assert dev.app.display_state == "on" and panel.display_on
    assert len(dev.game.actions) == actions and dev.app.top is screen


def test_the_panel_shows_what_the_app_drew(dev, tmp_path):
    start_game(dev, "tezuma")
    play_through_keys(dev, seed=2, max_actions=10)
    assert dev.display.bus.panel.image().tobytes() == dev.app.render().convert("1").tobytes()
