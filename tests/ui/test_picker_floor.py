"""The four-arrow floor that bench/presses.py prints beside the joystick's figures: its pure parts.

The floor is only worth printing if no picker can beat it: the ideal placement really is the best
one, the device's own grids never reach more cards in a few presses than the floor allows, and the
lead's odds and the hands they come from are the table's. The floor given what the device knows
is a posterior the bench samples: the sampler must agree with exact enumeration. The compass
pickers modelled beside it place their cards within what four arrows reach.
"""

import doctest
import itertools
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bench.presses
from bench.presses import (
    Holder,
    PastTurn,
    compass_moves,
    device_chances,
    figures,
    floor_odds,
    ideal_cost,
    ideal_moves,
    is_lead,
    layout_cost,
    lead_chances,
    posterior_chances,
    range_compass_moves,
    table_game,
)
from companion.engine.tricks import SuitedCard
from companion.sim import random_game
from companion.ui.picker import Grid

weights = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=7).filter(any)


def depth_of(slot: int) -> int:
    """The fewest presses to the ``slot``-th place of an ideal picker: 1 place at 0, 4 at 1, 12 at 2."""
    depth, room, seen = 0, 1, 0
    while slot >= seen + room:
        seen += room
        depth += 1
        room = 4 * 3 ** (depth - 1)
    return depth


@given(weights)
def test_the_ideal_is_the_best_placement_of_the_cards(cards: list[int]) -> None:
    every = min(sum(w * depth_of(slot) for slot, w in enumerate(order)) for order in itertools.permutations(cards))
    assert abs(ideal_cost(cards) - every / sum(cards)) < 1e-9


def test_equally_likely_cards() -> None:
    assert ideal_moves(1) == 0.0
    assert ideal_moves(5) == 0.8  # one under the cursor, four one press away
    assert ideal_moves(17) == (4 + 12 * 2) / 17
    assert ideal_moves(18) == (4 + 12 * 2 + 3) / 18


@st.composite
def grids(draw: st.DrawFn) -> tuple[Grid[int], list[int]]:
    lengths = draw(st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=6))
    groups = sorted(draw(st.lists(st.integers(min_value=0, max_value=3), min_size=len(lengths),
                                  max_size=len(lengths))))
    values = itertools.count()
    grid = Grid.of([[(slot, next(values)) for slot in range(length)] for length in lengths], groups=groups)
    odds = draw(st.lists(st.integers(min_value=0, max_value=5), min_size=sum(lengths),
                         max_size=sum(lengths)).filter(any))
    return grid, odds


@given(grids())
def test_no_start_on_the_devices_grids_beats_the_floor(case: tuple[Grid[int], list[int]]) -> None:
    grid, odds = case
    places = [(r, c) for r in range(len(grid.rows)) for c in range(len(grid.rows[r]))]
    floor = ideal_cost(odds)
    for start in places:
        distance = grid.at_place(start).distances()
        cost = sum(odds[i] * distance[place] for i, place in enumerate(places)) / sum(odds)
        assert cost >= floor - 1e-9


def test_a_lead_is_as_likely_as_the_leaders_share_of_its_suit() -> None:
    offered = {"B": 4, "W": 2, "U": 3}
    chances = lead_chances(offered, {"B": 1, "W": 2})
    led = [chances[suit] for suit, count in offered.items() for _ in range(count)]
    assert led == [0.25] * 4 + [1.0] * 2 + [0.0] * 3
    assert sum(led) == 3  # over the 3 cards held: the chances of all the cards add up to one
    assert ideal_cost(led) < ideal_moves(9)  # told the counts, a picker may do better than on 9 alike


def test_the_floor_is_told_a_follows_suit_and_a_leads_counts() -> None:
    grid = Grid.of([[(1, "B1"), (2, "B2")], [(1, "W1")], [(1, "U1"), (2, "U2"), (3, "U3")]], value="U2")
    assert floor_odds(grid, "U2", None) == {(2, 0): 1.0, (2, 1): 1.0, (2, 2): 1.0}
    led = floor_odds(grid, "U2", ["B1", "U2", "U3"])  # the hand: one of two B, two of three U, no W
    assert led == {(0, 0): 0.5, (0, 1): 0.5, (2, 0): 2 / 3, (2, 1): 2 / 3, (2, 2): 2 / 3}


def test_a_layout_costs_at_least_the_floor_and_a_single_row_its_middle() -> None:
    row = Grid.of([[(n, n) for n in range(9)]])
    odds = {(0, n): 1.0 for n in range(9)}
    assert layout_cost(row, odds) == (2 * 1 + 2 * 2 + 2 * 3 + 2 * 4) / 9  # LEFT/RIGHT wrap round
    assert layout_cost(row, odds) > ideal_cost(odds.values())


def test_the_bench_measures_the_games_the_table_plays_and_sees_each_players_hand() -> None:
    game, watch = table_game("tezuma", 4, random.Random(3))
    held = watch.held
    assert game.actions == random_game("tezuma", 4, random.Random(3)).actions
    assert len(held) == len(game.actions)
    plays = [(action, hand) for action, hand in zip(game.actions, held, strict=True) if getattr(action, "cards", ())]
    assert plays and all(set(action.cards) <= set(hand) for action, hand in plays)


def test_a_lead_is_the_first_card_of_its_trick() -> None:
    game = random_game("irohanihohedo", 3, random.Random(5))
    replay = type(game)(game.setup)
    for action in game.actions:
        before = is_lead(replay)
        replay.push(action)
        if hasattr(action, "card"):
            assert before == (len(replay.state.deal.tricks[-1].turns) == 1)


def test_the_benchs_own_examples_hold() -> None:  # bench/ is outside the doctest paths
    assert doctest.testmod(bench.presses).failed == 0


def exact_chances(pool: list[SuitedCard], holders: list[Holder], past: list[PastTurn],
                  hand: PastTurn) -> dict[SuitedCard, float]:
    """posterior_chances by enumeration: every way of dealing the hidden cards to the holders, alike
    but for what they refuse, weighed by the chance of the turns seen."""
    chances: dict[SuitedCard, float] = {}
    total = 0.0
    for order in set(itertools.permutations(pool)):
        dealt, start = [], 0
        for holder in holders:
            dealt.append(order[start:start + holder.size])
            start += holder.size
        if any(card.suit in holder.refuses or (holder.only is not None and card.suit not in holder.only)
               for holder, cards in zip(holders, dealt, strict=True) for card in cards):
            continue
        weight = 1.0
        for turn in past:
            held = {*turn.known, *(card for k in turn.holders for card in dealt[k])}
            following = [card for card in held if card.suit in turn.owed]
            weight *= 0.0 if following and turn.suit not in turn.owed else 1 / len(following or held)
        held = {*hand.known, *(card for k in hand.holders for card in dealt[k])}
        allowed = [card for card in held if card.suit in hand.owed] or list(held)
        total += weight
        for card in allowed:
            chances[card] = chances.get(card, 0.0) + weight / len(allowed)
    return {card: chance / total for card, chance in chances.items()}


def test_the_chances_given_what_the_device_knows_are_the_exact_posterior() -> None:
    """Two seats and an undealt card, seats that declined suits, a card that left a hand unseen
    (revealed as a W), turns that weigh the ways unequally: the sampler agrees with enumeration
    (without its weighing back to alike it is off by 0.013 here)."""
    cards = [SuitedCard(suit, rank) for suit, rank in
             (("W", 1), ("W", 2), ("W", 3), ("W", 4), ("B", 1), ("B", 2), ("R", 1), ("R", 2))]
    holders = [Holder(3, frozenset({"R"})), Holder(2, frozenset({"B"})), Holder(2), Holder(1, only=frozenset({"W"}))]
    past = [
        PastTurn((0,), (SuitedCard("B", 5),), frozenset(), "B", True),  # seat 0 led B5 from 4 cards
        PastTurn((1, 3), (SuitedCard("R", 7),), frozenset({"B"}), "R", True),  # seat 1 declined B, then held a W
        PastTurn((0,), (SuitedCard("B", 9),), frozenset({"R"}), "B", True),  # seat 0 declined R
        PastTurn((0,), (SuitedCard("W", 9),), frozenset({"W"}), "W", True),  # seat 0 followed W from its Ws
        PastTurn((1,), (), frozenset(), "W", False),  # an ability's turn: not weighed
    ]
    hand = PastTurn((1,), (), frozenset({"W"}), "", True)
    exact = exact_chances(cards, holders, past, hand)
    sampled, effective = posterior_chances(cards, holders, past, hand, 50_000, random.Random(1))
    assert set(sampled) == set(exact) and len(exact) >= 3
    assert max(abs(sampled[card] - exact[card]) for card in exact) < 0.007
    assert len({round(chance, 2) for chance in exact.values()}) > 1  # not every card alike
    assert effective > 10_000


def test_cards_that_left_hands_unseen_are_weighed_back_to_alike() -> None:
    """Two cards that left hands unseen, one revealed as a W or a B and one as a W, and a seat that
    followed B with one of them in its hand: what the first takes changes what the second can, and
    the sampler still agrees with enumeration (without weighing that back it is off by 0.015)."""
    cards = [SuitedCard(suit, rank) for suit, rank in
             (("W", 1), ("W", 2), ("B", 1), ("B", 2), ("B", 3), ("R", 1), ("R", 2), ("R", 3))]
    holders = [Holder(3), Holder(2), Holder(1), Holder(1, only=frozenset({"W", "B"})), Holder(1, only=frozenset({"W"}))]
    past = [PastTurn((1, 3), (SuitedCard("B", 9),), frozenset({"B"}), "B", True)]
    hand = PastTurn((1,), (), frozenset(), "", True)
    exact = exact_chances(cards, holders, past, hand)
    sampled, _ = posterior_chances(cards, holders, past, hand, 50_000, random.Random(1))
    assert set(sampled) == set(exact)
    assert max(abs(sampled[card] - exact[card]) for card in exact) < 0.007


@pytest.mark.parametrize(("game_id", "players"), [("tourney", 3), ("tezuma", 4), ("irohanihohedo", 6)])
def test_the_floor_given_what_the_device_knows_plays_the_bench_games(game_id: str, players: int) -> None:
    """On games of the simulated table (Tourney's predictions leave hands unseen, Tezuma's Fire
    Breathing hands cards back), each card's chances given what the device knows put some on the
    card put down (the way the table really dealt is never ruled out) and add up to one."""
    game, watch = table_game(game_id, players, random.Random(2))
    cards = {i: list(action.cards) if hasattr(action, "cards") else [action.card]
             for i, action in enumerate(game.actions)
             if type(action).__name__ == "Play" and not getattr(action, "ability", None)}  # a plain play
    plays = [i for i, played in cards.items() if len(played) == 1]
    assert len(plays) > 40
    for index in plays[5::7]:
        chances, effective = device_chances(game.actions, watch, index, 200, random.Random(index))
        assert chances[cards[index][0]] > 0 and abs(sum(chances.values()) - 1) < 1e-9 and effective > 1


def test_the_compass_reaches_four_cards_in_one_press_and_twelve_in_two() -> None:
    weights = list(range(20, 0, -1))
    assert [compass_moves(weights, card) for card in range(18)] == [0] + [1] * 4 + [2] * 12 + [3]


@given(st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40))
def test_a_compass_of_ranges_reaches_every_card_and_no_more_per_press_than_the_ideal(weights: list[int]) -> None:
    depths = Counter(range_compass_moves(weights, card) for card in range(len(weights)))
    assert depths[0] == 1 and sum(depths.values()) == len(weights)
    assert all(depths[depth] <= 4 * 3 ** (depth - 1) for depth in depths if depth)
    assert sum(w * compass_moves(weights, card) for card, w in enumerate(weights)) <= sum(
        w * range_compass_moves(weights, card) for card, w in enumerate(weights))  # odds alone place best


def test_the_numeric_keypad_line_of_a_second_game_enters_the_first_by_the_same_plan() -> None:
    """``--facts-known`` on the numeric keypad: the first game is entered by the card keypad's plan
    (what the numeric keypad types), not refused as an input the planner does not know."""
    line = figures("zenjidou", 2, "numpad", "people", 1, 1, facts_known=True)
    assert line.startswith("zenjidou 2p numpad people, facts known")
