"""Invariants over random legal Irohanihohedo games for 3-6 players, from the simulated table."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from companion.engine.record import export_lines, read_record
from companion.errors import CompanionError
from companion.games.irohanihohedo import Irohanihohedo, colour_scores
from companion.sim import new_random_game, play_out, table_model

players = st.integers(3, 6)
seeds = st.integers(0, 2**32 - 1)


@given(players, seeds)
def test_random_legal_games_end_and_conserve_cards(n: int, seed: int) -> None:
    rng = random.Random(seed)
    game = new_random_game("irohanihohedo", n, rng)
    assert isinstance(game, Irohanihohedo)
    play_out(game, rng)
    assert game.is_over() and len(game.state.deals) == n
    for deal in game.state.deals:
        captured = [card for seat in deal.captured for card in seat]
        shown = list(deal.shown_cards())
        assert len(deal.tricks) == 9 and sum(deal.tricks_won) == 9
        assert Counter(captured) == Counter(shown) and len(set(shown)) == len(shown) == 9 * n
        assert deal.scores == [colour_scores(cards) for cards in deal.captured]
    assert game.totals() == [sum(d.scores[s] for d in game.state.deals) for s in range(n)]
    assert game.state.revokes == []  # a table that follows whenever it can never revokes


@given(players, seeds, st.integers(1, 250))
def test_pop_undoes_push(n: int, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    game = new_random_game("irohanihohedo", n, rng)
    table = table_model(game, rng)
    for _ in range(steps):
        if game.is_over():
            break
        before = repr(game.state), game.decision, list(game.actions)
        action = table.choose(game, rng)
        game.push(action)
        assert game.peek() == action and game.pop() == action
        assert (repr(game.state), game.decision, list(game.actions)) == before
        game.push(action)
        table.after(game, action)


@given(players, seeds, st.integers(0, 300))
def test_replaying_the_written_record_gives_the_live_state(n: int, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    game = new_random_game("irohanihohedo", n, rng)
    play_out(game, rng, max_actions=steps)
    replayed = read_record(export_lines(game)).game
    assert repr(replayed.state) == repr(game.state)
    assert replayed.summary() == game.summary()


@given(players, seeds, st.integers(0, 100), st.text(max_size=6))
def test_garbage_is_refused_without_changing_anything(n: int, seed: int, steps: int, garbage: str) -> None:
    rng = random.Random(seed)
    game = new_random_game("irohanihohedo", n, rng)
    play_out(game, rng, max_actions=steps)
    before = repr(game.state), list(game.actions)
    try:
        game.push_text(garbage)
    except CompanionError:
        assert (repr(game.state), list(game.actions)) == before
    else:
        assert game.actions[:-1] == before[1]  # a well-formed unseen card is a legal play
