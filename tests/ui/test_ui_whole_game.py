"""Whole games entered through key presses alone end exactly where the engine ends with the same actions.

The action lists come from the simulated table (real hands, following suit), with abilities laid out
so that Paper Egg, Fire Breathing and Five-Color Sand are used, and score cards whose print was
lost, so the table is asked. The same games give the interaction figures the bench measures.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from companion.engine.base import Answer, Game
from companion.games.tezuma.rules import Play
from companion.hw.keys import KeyEvent
from companion.registry import game_class
from companion.sim import random_game
from companion.ui.planner import presses_for
from companion.ui.tricks import FinalScreen
from tests.ui.helpers import changed_pages, make_app

LAID_OUT = {
    ("tezuma-2015", 4): [
        "paper-egg",
        "fire-breathing",
        "five-color-sand",
        "baby-chicks",
        "pail-dance",
        "sword-walking",
    ],
    ("tezuma-2015", 3): [
        "paper-egg",
        "fire-breathing",
        "five-color-sand",
        "water-trick",
        "butterfly-dance",
        "linking-rings",
    ],
    ("tezuma", 4): ["paper-egg", "fire-breathing", "five-color-sand", "cup-and-ball", "many-umbrellas"],
    ("tezuma", 3): ["paper-egg", "fire-breathing", "five-color-sand", "horse-swallowing"],
}
CASES = sorted(LAID_OUT)


@cache
def simulated(game_id: str, players: int) -> Game[Any]:
    return random_game(game_id, players, random.Random(0), ability_rate=0.5,
                       options={"abilities": LAID_OUT[game_id, players]})


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_whole_game_by_keys_matches_the_engine(game_id: str, players: int) -> None:
    played = simulated(game_id, players)
    used = {a.ability for a in played.actions if isinstance(a, Play)}
    assert {"paper-egg", "fire-breathing", "five-color-sand"} <= used
    assert any(isinstance(a, Answer) for a in played.actions)

    facts: list[tuple[str, str, int]] = []
    app = make_app(type(played)(played.setup), on_fact=lambda *fact: facts.append(fact))
    assert app.session is not None
    heard: list[tuple[str, dict[str, Any]]] = []
    app.session.listeners.append(lambda change, data: heard.append((change, data)))
    for action in played.actions:
        for event in presses_for(app, action):
            app.handle(event)
        assert app.session.game.actions[-1] == action

    direct = game_class(game_id)(played.setup)
    for action in played.actions:
        direct.push(action)
    assert app.session.game.summary() == direct.summary()
    assert heard == [("action", action.to_json()) for action in played.actions]
    assert facts == [(game_id, a.key, a.value) for a in played.actions if isinstance(a, Answer)]
    while len(app.screens) > 1:  # the last deal's table, then the ranking
        app.handle(KeyEvent(app.top.leave_key))
    assert isinstance(app.top, FinalScreen)


def test_entering_cards_takes_few_presses_and_little_redrawing() -> None:
    """The bench's two goals: <= 2.5 presses per card entered, <= 40% of a frame sent per press."""
    presses = cards = pages = card_presses = 0
    for game_id, players in CASES:
        played = simulated(game_id, players)
        app = make_app(type(played)(played.setup))
        picture = app.render()
        for action in played.actions:
            keys = presses_for(app, action)
            for event in keys:
                app.handle(event)
                after = app.render()
                pages += changed_pages(picture, after)
                picture = after
            presses += len(keys)
            if isinstance(action, Play):
                card_presses += len(keys)
                cards += len(action.cards)
    per_card = card_presses / cards
    frame_share = pages * 128 / presses / 1024
    print(f"presses per card {per_card:.3f}; display bytes per press {frame_share:.1%} of a frame")
    assert per_card <= 2.5
    # a 9-pixel row spans two 8-pixel display pages (the rows give every glyph its margins:
    # docs/screens.md), so a press that changes one row sends two pages; 8-pixel rows sent 24%
    assert frame_share <= 0.40
