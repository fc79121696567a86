"""Zenjidou's own invariants over random games played by the simulated table (random card facts, real piles).

The invariants every game keeps (undo, replay, garbage) are in ``tests/engine/test_every_game.py``.
"""

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from companion.games.zenjidou.rules import (
    EFFECT_KINDS,
    ROUND_RULES,
    CardFacts,
    ChooseRule,
    Effect,
    Entry,
    RoundRule,
    resolve_effects,
    strongest,
)
from companion.games.zenjidou.table import ZenjidouTable
from companion.record import read_record
from companion.sim import new_random_game


def play(players: int, seed: int, rules: str = ROUND_RULES):
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules=rules)
    pushes = 0
    while not game.is_over():
        game.push(table.choose(game, rng))
        pushes += 1
        assert pushes < 1000
    return game


@given(st.sampled_from(ROUND_RULES), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_random_games_under_every_rule_finish_with_every_card_captured(rule: str, players: int, seed: int) -> None:
    game = play(players, seed, rule)
    assert game.is_over() and len(game.state.deals) == 3
    for deal in game.state.deals:
        assert len(deal.tricks) == 5 and all(t.result is not None for t in deal.tricks)
        assert sum(len(c) for c in deal.captured) == 5 * game.n
        assert deal.scores == [m + b for m, b in zip(deal.marks, deal.bonus, strict=True)]
    assert sum(game.totals()) == sum(sum(d.scores) for d in game.state.deals)


effects = st.integers(0, len(EFFECT_KINDS) - 1 + 4)
card = st.builds(lambda colour, effect: CardFacts(colour, 0, Effect.from_index(effect), "smaller_first"),
                 st.integers(0, 4), effects)


@given(st.lists(st.tuples(st.integers(1, 32), card), min_size=2, max_size=6, unique_by=lambda c: c[0]),
       st.sampled_from(["smaller_first", "larger_first"]), st.randoms(use_true_random=False))
def test_resolution_by_number_ignores_the_order_cards_came_in(cards, resolution, rnd) -> None:
    def outcome(order):
        entries = [Entry(i, i, number, facts) for i, (number, facts) in enumerate(order)]
        result = resolve_effects(entries, resolution)
        applied = [g.applied.number if g.applied else None for g in (result.order, result.trump_group)]
        return result.low_strong, result.trump, applied, strongest(result).number

    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert outcome(cards) == outcome(shuffled)


def test_the_example_record_replays_to_the_end_and_reads_as_text() -> None:
    """The shipped record replays to its end; ``companion replay`` (text) puts every reason into English."""
    import io
    from pathlib import Path

    from companion.report import rendered_summary, write_text

    example_path = Path(__file__).parents[2] / "docs" / "examples" / "zenjidou.jsonl"
    lines = example_path.read_text(encoding="utf-8").splitlines()
    game = read_record(lines).game
    assert game.is_over() and game.summary()["winners"]
    assert [str(deal.rule) for deal in game.state.deals] == ["B", "C", "D"]
    out = io.StringIO()
    write_text(rendered_summary(game), out, seat_label=game.seat_label)
    text = out.getvalue()
    assert text.count("\n  trick ") == 15 and not re.search(r"\{[a-z_]+\}", text) and "Totals:" in text


@given(st.sampled_from("DFGHIJK"), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_a_revoke_is_flagged_exactly_when_the_hand_later_shows_the_colour_it_declined(rule, players, seed) -> None:
    """Sound and complete: every flag is a real decline while holding the colour, and every such decline
    whose colour the hand later puts down (or that declines a shown bottom card still held) is flagged."""
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules=rule, misplay_rate=0.3)
    while not game.is_over():
        game.push(table.choose(game, rng))
    flagged = {(r.deal, r.trick, r.seat, r.suit) for r in game.state.revokes}
    real = {(d, t, h, game.colours[c]) for d, t, h, c in table.revokes}
    assert flagged <= real
    for d, t, h, colour in real:
        deal = game.state.deals[d]
        later = [turn.cards[0] for trick in deal.tricks[t + 1:] for turn in trick.turns if turn.seat == h]
        bottom = deal.bottoms.get(h)
        played_so_far = [c for tr in deal.tricks[:t + 1] for c in tr.cards]
        bottom_held = rule != "I" and bottom is not None and bottom not in played_so_far
        shows = any(game.colours[game.facts(card).colour] == colour for card in later)
        shows_bottom = bottom_held and game.colours[game.facts(bottom).colour] == colour
        assert ((d, t, h, colour) in flagged) == (shows or shows_bottom)


@given(st.sampled_from(ROUND_RULES), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_players_who_follow_their_rule_are_never_flagged(rule, players, seed) -> None:
    game = play(players, seed, rule)
    assert game.state.revokes == [] and all(deal.out_of_order == [] for deal in game.state.deals)


@given(st.sampled_from("DEFJ"), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_a_play_against_the_known_top_card_is_flagged_at_once_exactly_when_the_rule_makes_it_certain(
        rule, players, seed) -> None:
    """Round 1, a pile held turned over: every flag is a card put down against the rule, flagged as it
    went down; every such card put down while the hand still held its shown bottom card (its top card)
    is flagged, as out of order or as a revoke, unless it is a follower while the top card does not
    follow (the follower's place in the hidden hand decides)."""
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules=rule, misplay_rate=0.3)
    while not game.is_over():
        before = len(game.state.deals[0].out_of_order)
        game.push(table.choose(game, rng))
        first = game.state.deals[0]
        for o in first.out_of_order[before:]:  # at once: the card just put down (its facts now known)
            trick, _, turn = first.played[-1]
            assert (o.trick, o.hand, o.card) == (trick, turn.seat, turn.cards[0])
    deal = game.state.deals[0]
    flagged = {(o.deal, o.trick, o.hand, o.card) for o in deal.out_of_order if o.variant.startswith("top_")}
    assert flagged <= set(table.misplays)
    revoked = {(r.trick, r.seat) for r in game.state.revokes if r.deal == 0}
    for d, t, hand, card in table.misplays:
        if d != 0 or (rule == "F" and deal.sides[hand] != "top"):
            continue
        top = deal.bottoms[hand]
        earlier = [turn.cards[0] for trick in deal.tricks[:t] for turn in trick.turns if turn.seat == hand]
        if top in earlier:
            continue
        trick = deal.tricks[t]
        lead = game.facts(trick.turns[0].cards[0]).colour
        leading = trick.turns[0].seat == hand
        follows, top_follows = game.facts(card).colour == lead, game.facts(top).colour == lead
        if leading or not follows or top_follows:
            assert (d, t, hand, card) in flagged or (t, hand) in revoked


@given(st.sampled_from(["lowest", "closest"]), st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_an_L_play_out_of_order_is_flagged_exactly_when_a_later_card_proves_it(variant, players, seed) -> None:
    """Every card of a round is put down, so each play the rule did not give is proved by the end of
    the round, and nothing else is flagged."""
    rng = random.Random(seed)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, rules="L", misplay_rate=0.3)
    while not game.is_over():
        decision = game.decision
        if decision.kind == "rule":
            game.push(ChooseRule(RoundRule("L", variant)))
        else:
            game.push(table.choose(game, rng))
    flagged = {(o.deal, o.trick, o.hand, o.card) for deal in game.state.deals for o in deal.out_of_order}
    assert flagged == set(table.misplays)
