"""The whole device (the daemon's loop, journal and display on fake buses) running a Zenjidou game
with GPIO quiz buzzers on mock pins: the journal replays to the game on the table."""

import random

from companion.daemon.virtual import VirtualDevice
from companion.games.zenjidou.rules import Guesses, Point
from companion.games.zenjidou.screens import GuessScreen, QuizScreen
from companion.games.zenjidou.table import ZenjidouTable
from companion.hw.keys import Key, KeyEvent
from companion.record import GameBuilder, read_record

PINS = {0: 16, 1: 20, 2: 21}  # free on the OLED bonnet


def test_a_game_with_buzzers_and_a_countdown_on_the_device_matches_its_journal(tmp_path) -> None:
    dev = VirtualDevice(tmp_path, buzzer_pins=PINS)
    try:
        for _ in range(len(dev.app.top.game_ids)):  # the new-game form: Zenjidou, 3 players, Start
            if dev.app.top.game.value == "zenjidou":
                break
            dev.press(KeyEvent(Key.RIGHT))
        dev.press(KeyEvent(Key.DOWN))
        while dev.app.top.players.value != "3":
            dev.press(KeyEvent(Key.LEFT))
        dev.press(KeyEvent(Key.UP))
        dev.press(KeyEvent(Key.UP))  # from the first row, UP wraps to Start
        dev.press(KeyEvent(Key.OK))
        game = dev.game
        rng = random.Random(4)
        table = ZenjidouTable(game, rng)
        while not game.is_over():
            table.rules = "BCD"[game.state.deal.index]
            action = table.choose(game, rng)
            if isinstance(action, (Point, Guesses)):
                while len(dev.app.screens) > 1:
                    dev.press(KeyEvent(dev.app.top.leave_key))
            if isinstance(action, Point):
                dev.buzz(action.player)
                dev.wait(0.2)  # the arbiter's settle time passes; the loop's timer asks for the verdict
                assert isinstance(dev.app.top, QuizScreen) and dev.app.top.pointer == action.player
            if isinstance(action, Guesses):
                assert isinstance(dev.app.top, GuessScreen) and dev.app.top.counting
                dev.wait(30)  # the countdown runs out on the device's own timers
                assert not dev.app.top.counting
            dev.enter(action)
            assert game.actions[-1] == action
        lines = (tmp_path / "current.jsonl").read_text(encoding="utf-8").splitlines()
        journal = read_record(lines, GameBuilder())
        assert journal.failure is None and journal.game.summary() == game.summary()
        assert any(isinstance(a, Point) for a in game.actions)
    finally:
        dev.close()
