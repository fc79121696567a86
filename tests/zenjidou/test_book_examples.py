"""The rulebook's worked examples: both trick examples and the scoring example.

The book's pictures fix only a few facts; the rest of each card is chosen to agree with the text:
Example 1 (larger number first): blue 21's "low numbers strong" overrides blue 16's cancel and 7
makes blue trump, so blue 16 wins. Example 2 (played earlier first): the earlier "trump void"
cancels "blue is trump"; "low numbers strong" applies, so red 5 wins.
"""

from companion.engine.tricks import Phrase, Seat, Term
from companion.games.zenjidou.rules import Entry, resolve_effects, strongest
from tests.zenjidou.helpers import BLUE, EFFECT, MARK, RED, new_game, plain_facts, push, start_round, trump

EXAMPLE_1 = {5: {"colour": RED, "score": MARK[1]}, 7: {"colour": RED, "score": MARK[1], "effect": trump(BLUE)},
             16: {"colour": BLUE, "score": MARK[-2], "effect": EFFECT["low_cancel"]},
             21: {"colour": BLUE, "score": MARK[3], "effect": EFFECT["low_strong"]}}
EXAMPLE_2 = {12: {"colour": 2, "effect": EFFECT["trump_void"]}, 9: {"colour": BLUE, "effect": trump(BLUE)},
             5: {"colour": RED}, 30: {"colour": 3, "effect": EFFECT["low_strong"]}}


def test_example_1_blue_16_wins_because_21_overrides_its_cancel() -> None:
    # rest 1 names "larger number first"; four hands (4 players), rule A: cards entered as revealed
    game = new_game(4, plain_facts({**EXAMPLE_1, 1: {"rule": 1}}))
    start_round(game, 1, "A", bottoms=[31, 30, 29, 28])  # P1 (31) starts; clockwise: P1, P2, P3, P4
    push(game, "5", "7", "16", "21")
    result = game.state.deal.tricks[0].result
    assert result.winner == 2  # P3 played 16
    assert result.reason == (
        Phrase("zenjidou.win.trump", {"winner": Seat(2), "card": 16, "order": Term("zenjidou.order", "low"),
                                      "colour": Term("colour", "blue")}),
        Phrase("zenjidou.cancels", {"card": 21, "others": "16", "effect": Term("zenjidou.effect", "low_strong")}),
        Phrase("zenjidou.from.trump", {"card": 7, "colour": Term("colour", "blue")}),
    )


def test_example_2_trump_void_played_first_cancels_blue_trump_and_red_5_wins() -> None:
    game = new_game(4, plain_facts({**EXAMPLE_2, 1: {"rule": 2}}))
    start_round(game, 1, "A", bottoms=[31, 29, 28, 27])
    push(game, "12", "9", "5", "30")
    trick = game.state.deal.tricks[0]
    assert trick.turns[2].cards == (5,) and trick.result.winner == trick.turns[2].seat
    effects = trick.result.effects
    assert effects.low_strong and effects.trump is None
    assert Phrase("zenjidou.cancels", {"card": 12, "others": "9", "effect": Term("zenjidou.effect", "trump_void")}) \
        in trick.result.reason


def test_example_2_in_another_order_changes_the_outcome_as_the_rule_says() -> None:
    """Played earlier first: with blue trump put down before the void, blue trump applies."""
    facts = plain_facts({**EXAMPLE_2, 1: {"rule": 2}})
    game = new_game(4, facts)
    start_round(game, 1, "A", bottoms=[31, 29, 28, 27])
    push(game, "9", "12", "5", "30")
    assert game.state.deal.tricks[0].result.effects.trump == BLUE
    assert game.state.deal.tricks[0].result.winner == game.state.deal.tricks[0].turns[0].seat  # blue 9


def test_scoring_example_seven_plus_marks_and_two_minus_marks_score_five() -> None:
    """Four captured cards with ○ x7 and ● x2 score +5 (here +3, +2, +2 and -2)."""
    facts = plain_facts({10: {"score": MARK[3]}, 11: {"score": MARK[2]}, 12: {"score": MARK[2]},
                         13: {"score": MARK[-2]}, 1: {"rule": 1}, 32: {"colour": 0}, 31: {"colour": 1}})
    game = new_game(4, facts)
    start_round(game, 1, "A", bottoms=[32, 20, 21, 22])
    # P1 leads 32 (the highest number, no effects) each time... 32 is P1's bottom, so enter the others first
    push(game, "31", "10", "11", "12")  # P1 31 wins: highest
    assert game.state.deal.tricks[0].result.winner == 0
    assert sum(game.facts(c).score for c in game.state.deal.captured[0]) == 0 + 3 + 2 + 2
    push(game, "30", "13", "2", "3")
    assert game.state.deal.captured[0][-4:] == [30, 13, 2, 3]
    assert sum(game.facts(c).score for c in game.state.deal.captured[0]) == 5


def test_example_1_resolver_alone() -> None:
    facts = plain_facts(EXAMPLE_1)
    game = new_game(4, facts)
    entries = [Entry(i, i, n, game.facts(n)) for i, n in enumerate([5, 7, 16, 21])]
    effects = resolve_effects(entries, "larger_first")
    assert (effects.low_strong, effects.trump, strongest(effects).number) == (True, BLUE, 16)
    assert [e.number for e in effects.order.overridden] == [16]
