"""Tourney's own invariants over random games from the simulated table (real hands, following suit).

The invariants every game keeps (undo, replay, garbage) are in ``tests/engine/test_every_game.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney, TourneyDeal
from companion.games.tourney.table import TourneyTable
from companion.sim import new_random_game, play_out, table_model

players = st.sampled_from([3, 4])
seeds = st.integers(0, 2**32 - 1)
early_rates = st.sampled_from([0.0, 0.5, 1.0])  # how often a prediction is entered before the plays (old records)


def start(n: int, seed: int, rate: float) -> tuple[Tourney, TourneyTable, random.Random]:
    rng = random.Random(seed)
    game = new_random_game("tourney", n, rng)
    assert isinstance(game, Tourney)
    table = table_model(game, rng, 0.5)
    assert isinstance(table, TourneyTable)
    table.early_rate = rate  # predictions entered before the plays: records from before, still accepted
    return game, table, rng


@given(players, seeds, early_rates)
def test_random_legal_games_end_and_conserve_cards(n: int, seed: int, rate: float) -> None:
    game, table, rng = start(n, seed, rate)
    checked: set[int] = set()

    def at_deal_end(game: Any, action: Any) -> None:
        for deal in game.state.deals:
            if deal.scores is None or deal.index in checked:
                continue
            checked.add(deal.index)
            assert isinstance(deal, TourneyDeal)
            assert sum(deal.tricks_won) == 7 and all(t.result is not None for t in deal.tricks)
            # every card: captured by a trick's winner, on a board as a prediction (known to the device
            # by its suit alone), or unseen by the device; so every suit's 14 cards are accounted for
            captured = [card for seat in deal.captured for card in seat]
            predicted = list(deal.predictions())
            unseen = [card for hand in table.hands for card in hand] + table.npc_pile
            known = Counter(captured) + Counter(unseen)
            assert set(known.values()) == {1} and set(known) <= set(game.deck())
            suits = Counter(card.suit for card in known) + Counter(prediction.suit for prediction in predicted)
            assert suits == Counter(card.suit for card in game.deck())
            assert all(prediction.card is None for prediction in predicted)  # the table enters suits only
            assert not any(table.hands) and deal.npc_left == []
            assert len(predicted) == 7 * n and len(captured) == 28

    play_out(game, rng, ability_rate=rate, table=table, on_action=at_deal_end)
    assert game.is_over() and checked == set(range(n))
    assert len(game.totals()) == n
    assert game.totals() == [sum(deal.scores[seat] for deal in game.state.deals) for seat in range(n)]
    assert game.state.revokes == []  # a table that follows suit never revokes


def front_card(row: list[str], played: list[str], lead_suit: str | None) -> str:
    """The book's NPC rules, written out independently of the engine, over card codes."""
    left = [card for card in row if card not in played]
    suits = [suit for suit in "WFSC" if any(card[0] == suit for card in left)]
    suit = lead_suit if lead_suit in suits else suits[0]
    return next(card for card in left if card[0] == suit)


@given(seeds, early_rates)
def test_the_npcs_plays_follow_from_its_row_order(seed: int, rate: float) -> None:
    game, table, rng = start(3, seed, rate)
    play_out(game, rng, ability_rate=rate, table=table)
    for summary in game.summary()["deals"]:
        row, played = summary["npc_row"], []
        assert len(row) == 7
        for trick in summary["tricks"]:
            cards = trick["cards"]
            npc = next(entry["card"] for entry in cards if entry["seat"] == 3)
            lead_suit = None if cards[0]["seat"] == 3 else cards[0]["card"][0]
            assert npc == front_card(row, played, lead_suit)
            assert trick["reason"][1]["code"].startswith("tourney.npc.") and trick["hits"][3] is None
            played.append(npc)
    assert not any(isinstance(action, (Play, Predict)) and action.seat == 3 for action in game.actions)


@given(players, seeds, st.randoms(use_true_random=False))
def test_any_entry_order_of_a_tricks_predictions_folds_to_the_same_state(
    n: int, seed: int, shuffler: random.Random
) -> None:
    """Move each trick's predictions anywhere after its first logged card (as the records written
    before the reveal did, or in between): state and summary stay."""
    game, table, rng = start(n, seed, 0.0)
    play_out(game, rng, ability_rate=0.0, table=table)
    reordered = [action for group in groups_by_trick(game) for action in shuffled(group, shuffler)]
    def entries(actions: list[Any]) -> Counter[str]:
        return Counter(repr(action) for action in actions if not isinstance(action, PredictionsDown))

    assert entries(reordered) == entries(game.actions)
    other = Tourney(game.setup)
    for action in reordered:
        other.push(action)
    assert repr(other.state) == repr(game.state)
    assert other.summary() == game.summary()


def groups_by_trick(game: Tourney) -> list[list[Any]]:
    """The log cut where each action belongs: the NPC's row, then each trick's cards."""
    scratch = Tourney(game.setup)
    groups: dict[tuple[int, int], list[Any]] = {}
    for action in game.actions:
        deal = scratch.state.deal
        key = (deal.index, 0 if isinstance(action, NpcRow) else len(deal.tricks))
        groups.setdefault(key, []).append(action)
        scratch.push(action)
    return list(groups.values())


def shuffled(group: list[Any], shuffler: random.Random) -> list[Any]:
    """The plays in their order, the first one first; the predictions anywhere after it. The word
    that the predictions are down stays before the plays after it, and is left out where every
    prediction now comes before it (then the last of them let the NPC play, as in records from before)."""
    plays = [action for action in group if not isinstance(action, Predict)]
    merged = plays[1:]
    predictions = [action for action in group if isinstance(action, Predict)]
    for prediction in predictions:
        merged.insert(shuffler.randint(0, len(merged)), prediction)
    if PredictionsDown() in merged and all(merged.index(p) < merged.index(PredictionsDown()) for p in predictions):
        merged.remove(PredictionsDown())
    return plays[:1] + merged
