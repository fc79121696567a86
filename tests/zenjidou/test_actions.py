"""Zenjidou's action kinds and round rules, each known in one place (the ACTIONS and PLAY_RULES
tables), and its typed cards. Each kind checks, applies, lists and reads itself: the game takes
check, apply, parse and generate_legal_actions from the trick layer (tests/test_architecture_doc.py)."""

import random

import pytest

from companion.engine.base import Answer
from companion.errors import IllegalAction
from companion.games.zenjidou.rules import (
    ACTIONS,
    FACE_DOWN,
    MUST_FOLLOW,
    PLAY_RULES,
    VERBS,
    Card,
    RoundRule,
    ZAction,
    Zenjidou,
)
from companion.record import export_lines, read_record
from companion.sim import random_game
from tests.zenjidou.helpers import new_game, plain_facts, push


def test_every_action_kind_is_in_the_one_table() -> None:
    assert set(ACTIONS) == set(ZAction.__subclasses__())
    assert set(VERBS.values()) == set(ACTIONS)
    assert list(Zenjidou.action_types.values()) == [Answer, *ACTIONS]  # the order the device offers them


def test_the_rules_offered_are_the_books_a_to_l() -> None:
    assert [str(rule) for rule in PLAY_RULES] == [*"ABCDEFGHIJK", "L draw", "L lowest", "L closest"]
    assert frozenset("DFGHIJK") == MUST_FOLLOW and frozenset("AB") == FACE_DOWN
    assert [str(rule) for rule, how in PLAY_RULES.items() if how.quiz] == ["B"]


def test_a_rule_the_book_has_not_is_refused_before_it_reaches_the_record() -> None:
    """'rule A foo' used to be taken and written, and the record then could not be read back."""
    game = new_game(3, plain_facts())
    push(game, "rest 7", "bottom 1", "bottom 2", "bottom 3")
    for text in ("rule A foo", "rule A closest", "rule L", "rule M"):
        with pytest.raises(IllegalAction, match="is not a round rule"):
            game.push_text(text)
    game.push_text("rule L closest")
    assert game.state.deal.how is PLAY_RULES[RoundRule("L", "closest")]


def test_cards_are_typed_in_the_game_and_numbers_in_the_record() -> None:
    game = random_game("zenjidou", 4, random.Random(5))
    replayed = read_record(export_lines(game)).game
    cards = [card for deal in replayed.state.deals for card in deal.shown_cards()]
    assert cards and all(type(card) is Card for card in cards)
    assert all(type(card) is Card for card in replayed.state.deals[0].seen)
    plays = [action.to_json() for action in replayed.actions if action.type == "play"]
    assert plays and all(type(line["card"]) is int for line in plays)
