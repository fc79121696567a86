"""Any sequence of key presses: the app never crashes, and the game only ever holds legal actions."""

import random

from hypothesis import given
from hypothesis import strategies as st

from companion.hw.keys import Key, KeyEvent
from companion.sim import new_random_game, play_out
from tests.ui.helpers import press_all

# OK and the arrows most often, so random presses get far into screens rather than bouncing off them
key_names = st.sampled_from([Key.OK] * 4 + [Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT] * 2 + [Key.BACK, Key.AUX])
presses = st.lists(st.builds(KeyEvent, key_names, st.sampled_from([False] * 9 + [True])), min_size=40, max_size=300)


@given(st.sampled_from(["tezuma", "tezuma-2015"]), st.integers(0, 2**16), st.integers(0, 200), presses)
def test_random_presses_never_crash_and_every_action_is_legal(game_id, seed, prefix, events):
    rng = random.Random(seed)
    game = new_random_game(game_id, rng.choice([3, 4]), rng)
    play_out(game, rng, max_actions=prefix)
    press_all(game, rng, events)
