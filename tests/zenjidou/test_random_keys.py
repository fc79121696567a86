"""Any key presses on Zenjidou's screens: no crash, and only legal, replayable actions entered."""

import random

from hypothesis import given
from hypothesis import strategies as st

from companion.games.zenjidou.table import ZenjidouTable
from companion.hw.buzzers import BuzzerArbiter
from companion.hw.keys import Key, KeyEvent
from companion.sim import new_random_game
from tests.ui.helpers import press_all

key_names = st.sampled_from([Key.OK] * 4 + [Key.UP, Key.DOWN, Key.LEFT, Key.RIGHT] * 2 + [Key.BACK, Key.AUX])
presses = st.lists(st.builds(KeyEvent, key_names, st.sampled_from([False] * 9 + [True])), min_size=40, max_size=300)


@given(st.sampled_from("ABCDEFGHIJKL"), st.integers(2, 6), st.integers(0, 2**16), st.integers(0, 120), presses,
       st.lists(st.integers(0, 5), max_size=6))
def test_random_presses_and_buzzers_never_crash_and_every_action_is_legal(rule, players, seed, prefix, events, buzzes):
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules=rule)
    for _ in range(prefix):
        if game.is_over():
            break
        game.push(table.choose(game, rng))
    press_all(game, rng, events, buzzers=BuzzerArbiter(settle_s=0.05),
              buzzes={index: player for index, player in enumerate(buzzes) if player < players})
