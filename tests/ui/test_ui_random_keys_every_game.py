"""Any presses of either input on every game: no exception escapes ``App.handle``, ``tick`` or
``render``, and what the presses entered replays to the same game.

tests/ui/test_ui_random_keys.py (Tezuma), tests/tourney and tests/zenjidou press the joystick on
their own games; here every registered game, Irohanihohedo included, also gets the card keypad's
sixteen keys (digits, letters, ``*`` and ``#``, short and held) mixed with the joystick's seven,
and the setup form gets them before any game exists. Random revokes entered this way once left an
Irohanihohedo seat with no colour it could still hold, and its card picker divided by zero.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.keys import CARD_KEYPAD_ROWS, JOYSTICK_KEYS, Key, KeyEvent
from companion.registry import game_class, game_ids
from companion.sim import new_random_game, play_out
from companion.ui import App, Settings
from tests.ui.helpers import FakeClock, press_all

KEYPAD_KEYS = [key for row in CARD_KEYPAD_ROWS for key in row]
# confirming keys most often, so random presses get past each screen rather than bouncing off it
any_key = st.sampled_from([*JOYSTICK_KEYS, Key.OK, Key.OK, *KEYPAD_KEYS, Key.HASH, Key.HASH])
presses = st.lists(st.builds(KeyEvent, any_key, st.sampled_from([False] * 9 + [True])), min_size=30, max_size=200)
EXAMPLES = 12  # per game: with the joystick-only tests of each game, a few seconds in all


@pytest.mark.parametrize("game_id", game_ids())
def test_any_presses_of_either_input_never_crash_and_what_they_enter_replays(game_id: str) -> None:
    @settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, 2**16), st.integers(0, 200), presses)
    def check(seed: int, prefix: int, events: list[KeyEvent]) -> None:
        rng = random.Random(seed)
        cls = game_class(game_id)
        game = new_random_game(game_id, rng.randint(cls.min_players, cls.max_players), rng)
        play_out(game, rng, max_actions=prefix)
        press_all(game, rng, events)  # draws every frame; checks the record replays to the game

    check()


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16), st.sampled_from(["en", "ja"]), presses)
def test_any_presses_from_the_setup_form_never_crash(seed: int, language: str, events: list[KeyEvent]) -> None:
    clock = FakeClock()
    app = App(None, clock=clock, rng=random.Random(seed), settings=Settings(language=language))
    for event in events:
        app.handle(event)
        clock.advance(0.3)
        app.tick()
        assert app.render().size == (128, 64)
