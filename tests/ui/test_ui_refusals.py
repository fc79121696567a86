"""Refusals in the language on screen: the engine's codes through the catalogue."""

import random

import pytest

from companion.errors import IllegalAction
from companion.session import Session
from companion.text import Catalog
from companion.ui import App, Settings
from tests.engine.helpers import game_with, trick
from tests.ui.helpers import FakeClock


def refusals():
    """One coded refusal of each kind the engine gives during play, with the game that gave it."""
    game = game_with("paper-egg", "water-trick", "sword-walking", "five-color-sand")
    trick(game, "B7", "B1", "B2", "five-color-sand")  # P4 wins with its one Sand use and leads next
    found = {}

    def refuse(text):
        with pytest.raises(IllegalAction) as info:
            game.push_text(text)
        found[info.value.code] = info.value

    refuse("B7")  # already played
    refuse("B3 paper-egg")  # P4 does not hold it
    refuse("five-color-sand")  # used up
    trick(game, "B3", "paper-egg", "B4", "B5")  # P1 declares Paper Egg; its card comes last
    refuse("B9 paper-egg")  # a second ability in the trick
    return game, found


def test_english_templates_say_exactly_what_the_engine_says():
    game, found = refusals()
    assert {"already_played", "ability_not_held", "ability_used_up"} <= set(found)
    catalog = Catalog.load()
    names = {a["id"]: a["en"] for a in game.cards["abilities"]}
    for code, err in found.items():
        params = {k: names.get(v, v) if k == "ability" else v for k, v in err.params.items()}
        assert catalog.text("en", f"refusal.{code}", **params) == str(err)


def test_a_japanese_screen_shows_the_refusal_in_japanese():
    game, found = refusals()
    app = App(Session(game), clock=FakeClock(), rng=random.Random(1), settings=Settings(language="ja"))
    message = app.ui.refusal(found["ability_not_held"])
    assert message == "P4は紙卵を持っていません"
    english = App(Session(game), clock=FakeClock(), rng=random.Random(1))
    assert english.ui.refusal(found["ability_not_held"]) == str(found["ability_not_held"])


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_refusal_code_has_a_template(lang):
    catalog = Catalog.load()
    for code in ["game_over", "not_your_turn", "answer_range", "hand_count", "fire_breathing", "trumps_gone",
                 "not_in_deck", "already_played", "beginner", "ability_not_held", "one_ability_per_trick",
                 "ability_used_up", "ability_not_for_lead"]:
        assert catalog.text(lang, f"refusal.{code}", expected="P1", actual="P2", minimum=0, maximum=99, value=100,
                            seat="P1", count=2, suit="B", card="B7", players=3, ability="x")
