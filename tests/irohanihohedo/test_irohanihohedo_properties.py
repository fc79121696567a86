"""Irohanihohedo's own invariants over random legal games for 3-6 players, from the simulated table.

The invariants every game keeps (undo, replay, garbage) are in ``tests/engine/test_every_game.py``.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from companion.games.irohanihohedo.rules import Irohanihohedo, colour_scores
from companion.sim import new_random_game, play_out

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
