"""Zenjidou's own invariants over random games played by the simulated table (random card facts, real piles).

The invariants every game keeps (undo, replay, garbage) are in ``tests/engine/test_every_game.py``.
"""

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from companion.engine.record import read_record
from companion.games.zenjidou import (
    CardFacts,
    Effect,
    EFFECT_KINDS,
    Entry,
    ROUND_RULES,
    resolve_effects,
    strongest,
)
from companion.sim import new_random_game
from companion.sim.zenjidou import ZenjidouTable


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
        assert deal.scores == [m + b for m, b in zip(deal.marks, deal.bonus)]
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

    lines = (Path(__file__).parents[2] / "docs" / "examples" / "zenjidou.jsonl").read_text(encoding="utf-8").splitlines()
    game = read_record(lines).game
    assert game.is_over() and game.summary()["winners"]
    assert [str(deal.rule) for deal in game.state.deals] == ["B", "C", "D"]
    out = io.StringIO()
    write_text(rendered_summary(game), out, seat_label=game.seat_label)
    text = out.getvalue()
    assert text.count("\n  trick ") == 15 and not re.search(r"\{[a-z_]+\}", text) and "Totals:" in text
