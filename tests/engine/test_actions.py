"""Record lines derived from action fields (companion/engine/actions.py): every game's actions go
through them unchanged, and a value of the wrong type is a RecordError naming the action and key."""

import dataclasses
import random

import pytest

from companion.engine.actions import RecordAction
from companion.errors import RecordError
from companion.registry import game_class
from companion.sim import random_game
from tests.games import every_simulated_game

pytestmark = pytest.mark.usefixtures("with_the_test_game")
GAMES = every_simulated_game()


def recorded_actions(game_id: str) -> list[RecordAction]:
    """The derived-codec actions of a few random games (every kind a game has shows up in them)."""
    actions = []
    for seed in range(3):
        game = random_game(game_id, min(4, game_class(game_id).max_players), random.Random(seed))
        actions += [action for action in game.actions if isinstance(action, RecordAction)]
    return actions


@pytest.mark.parametrize("game_id", GAMES)
def test_every_action_reads_back_as_it_was_written(game_id: str) -> None:
    actions = recorded_actions(game_id)
    assert actions, f"{game_id} has no action with a derived codec"
    cls = game_class(game_id)
    for action in actions:
        line = action.to_json()
        assert next(iter(line)) == "type"
        assert cls.action_from_json(line) == action


@pytest.mark.parametrize("game_id", GAMES)
def test_a_value_of_the_wrong_type_names_the_action_and_the_key(game_id: str) -> None:
    cls = game_class(game_id)
    for action in {type(a): a for a in recorded_actions(game_id)}.values():
        line = action.to_json()
        for key in [key for key in line if key != "type"]:
            for wrong in ({"a": 1}, 1.5, True if not isinstance(line[key], bool) else 0):
                with pytest.raises(RecordError, match=f"a {action.type}.*'{key}'"):
                    cls.action_from_json({**line, key: wrong})


def test_a_missing_key_takes_the_field_default_or_is_refused() -> None:
    play = game_class("tezuma").action_types["play"]
    assert play.from_json({"type": "play", "seat": 1}) == play(1)  # cards () and no ability
    with pytest.raises(RecordError, match="a play needs an integer 'seat'"):
        play.from_json({"type": "play", "cards": []})


def test_a_card_of_a_list_keeps_its_own_message() -> None:
    play = game_class("tezuma").action_types["play"]
    with pytest.raises(RecordError, match="'B0' is not a card: the rank is 1-9 or T"):
        play.from_json({"type": "play", "seat": 0, "cards": ["B7", "B0"]})
    with pytest.raises(RecordError, match="a play needs a list of card codes 'cards'"):
        play.from_json({"type": "play", "seat": 0, "cards": ["B7", 7]})


def test_an_optional_field_left_at_none_is_left_out_of_the_line() -> None:
    play = game_class("tezuma").action_types["play"]
    assert "ability" not in play(0).to_json()
    assert play(0, (), "paper-egg").to_json()["ability"] == "paper-egg"


def test_every_field_is_one_the_codec_knows() -> None:
    """Deriving fails loudly (TypeError) for an annotation it cannot write, so check them all now."""
    for game_id in GAMES:
        for kind in game_class(game_id).action_types.values():
            if isinstance(kind, type) and issubclass(kind, RecordAction):
                assert [c.name for c in kind.codecs()] == [f.name for f in dataclasses.fields(kind)]
