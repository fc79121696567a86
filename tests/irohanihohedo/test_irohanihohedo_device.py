"""Irohanihohedo on the virtual device: the deck question at four players through mock buttons, its
answer kept in the card-fact store, and the next game at that count not asked again."""

from __future__ import annotations

import json
from pathlib import Path

from companion.carddata import printed_cards
from companion.daemon.virtual import VirtualDevice
from companion.engine.base import Answer
from companion.games.irohanihohedo.rules import deck_mask
from companion.games.irohanihohedo.screens import DeckScreen, TrickScreen
from companion.hw.keys import Key, KeyEvent

OK, UP, DOWN, LEFT, RIGHT = (KeyEvent(key) for key in (Key.OK, Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT))
FOUR = [1, 2, 3, 4, 6, 7, 9, 10]


def start_four_player_game(dev: VirtualDevice) -> None:
    """On the new-game form: Irohanihohedo, down to the player count, LEFT to 4 (the form opens on
    the last game's count: 6 on a first start, 4 after a 4-player game), then Start."""
    form = dev.app.top
    for _ in range(len(form.game_ids)):
        if form.game.value == "irohanihohedo":
            break
        dev.press(RIGHT)
    dev.press(DOWN)
    while form.players.value != "4":
        dev.press(LEFT)
    for event in (UP, UP, OK):  # UP from the players row wraps to Start
        dev.press(event)
    assert dev.game is not None and dev.game.game_id == "irohanihohedo" and dev.game.n == 4


def test_the_deck_question_is_asked_once_per_player_count_and_remembered(tmp_path: Path) -> None:
    dev = VirtualDevice(tmp_path)
    try:
        start_four_player_game(dev)
        assert isinstance(dev.app.top, DeckScreen)
        answer = Answer("numbers:4", deck_mask(printed_cards("irohanihohedo"), FOUR))
        dev.enter(answer)
        assert dev.game.actions == [answer] and dev.game.numbers == FOUR
        facts = json.loads((tmp_path / "card-facts.json").read_text())["irohanihohedo"]["numbers"]["4"]
        assert facts == {str(n): int(n in FOUR) for n in range(1, 13)}
        dev.app.new_game_form()
        start_four_player_game(dev)
        assert isinstance(dev.app.top, TrickScreen) and dev.game.numbers == FOUR and not dev.game.actions
        assert dev.game.setup.table_facts["numbers"]["4"] == facts  # the record carries what it was told
    finally:
        dev.close()
