"""Tezuma's own invariants over random legal games: every card of the deck is captured or still held.

The invariants every game keeps (undo, replay, garbage) are in ``test_every_game.py``.
"""

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from companion.sim import new_random_game, play_out, table_model

games = st.sampled_from(["tezuma", "tezuma-2015"])
players = st.sampled_from([3, 4])
seeds = st.integers(0, 2**32 - 1)
rates = st.sampled_from([0.0, 0.3, 0.8])


def deal_end_checks(table, deals_checked):
    """After each deal, every card of the deck was captured once or is still in a hand."""

    def on_action(game, action):
        for deal in game.state.deals:
            if deal.scores is None or deal.index in deals_checked:
                continue
            deals_checked.add(deal.index)
            assert len(deal.tricks) == game.tricks_per_deal
            assert all(t.result is not None for t in deal.tricks)
            assert min(deal.scores) >= 0
            assert sum(deal.tricks_won) == game.tricks_per_deal
            if deal.index == table.dealt_for:
                left = [c for hand in table.hands for c in hand]
                captured = [c for seat in deal.captured for c in seat]
                assert Counter(captured) + Counter(left) == Counter(table.deck(game))
                assert sum(deal.hand) == len(left)

    return on_action


@given(games, players, seeds, rates)
def test_random_legal_games_end_and_conserve_cards(game_id, n, seed, rate):
    rng = random.Random(seed)
    game = new_random_game(game_id, n, rng)
    table = table_model(game, rng, rate)
    checked: set[int] = set()
    # check conservation at the moment each deal is scored, before the next deal's hands are dealt
    checker = deal_end_checks(table, checked)
    play_out(game, rng, ability_rate=rate, table=table, on_action=checker)
    assert game.is_over()
    assert len(game.state.deals) == n and checked == set(range(n))
    assert game.totals() == [sum(d.scores[s] for d in game.state.deals) for s in range(n)]
    assert game.state.revokes == []  # a table that follows suit never revokes
