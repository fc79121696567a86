"""Any key presses on Zenjidou's screens: no crash, and only legal, replayable actions entered."""

import random

from hypothesis import given
from hypothesis import strategies as st

from companion.engine.record import export_lines, read_record
from companion.hw.buzzers import BuzzerArbiter
from companion.hw.keys import Key, KeyEvent
from companion.session import Session
from companion.sim import new_random_game
from companion.sim.zenjidou import ZenjidouTable
from companion.ui import App
from tests.ui.helpers import FakeClock

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
    clock = FakeClock()
    arbiter = BuzzerArbiter(settle_s=0.05)
    app = App(Session(game), clock=clock, rng=rng, buzzers=arbiter)
    for index, event in enumerate(events):
        if index < len(buzzes) and buzzes[index] < players:
            arbiter.press(buzzes[index], at=clock.now + index * 0.001, now=clock.now)
        app.handle(event)
        clock.advance(0.3)
        app.tick()
        assert app.render().size == (128, 64)
    if app.session is not None:
        entered = app.session.game
        assert read_record(export_lines(entered)).game.summary() == entered.summary()
