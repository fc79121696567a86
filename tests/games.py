"""Every game the cross-game tests run over: the product's games and the tests' own Plain Tricks.

Plain Tricks is a package of the same shape as a product game (tests/plain_tricks/), registered
only while a test that asks for it runs: a module marks itself with
``pytestmark = pytest.mark.usefixtures("with_the_test_game")`` (tests/conftest.py) and takes its
list of games from :func:`every_simulated_game`.
"""

from __future__ import annotations

from typing import Any

from companion.engine.tricks import TrickGame
from companion.registry import extra_package
from companion.sim import simulated_game_ids

TEST_GAME_PACKAGE = "tests.plain_tricks"


def every_simulated_game() -> list[str]:
    """Every game id with a simulated table, the test game's included, sorted."""
    with extra_package(TEST_GAME_PACKAGE):
        return simulated_game_ids()


ACTION_DISPATCH = frozenset({"check", "apply", "parse", "generate_legal_actions"})


def own_action_dispatch(cls: type[TrickGame[Any]]) -> set[str]:
    """Which of the layer's action dispatch methods ``cls`` (or a class between it and the layer)
    gives itself: none for a game whose actions are GameActions that check, apply, list and read
    themselves (companion/engine/actions.py)."""
    own = set().union(*(vars(k) for k in cls.__mro__ if issubclass(k, TrickGame) and k is not TrickGame))
    return own & ACTION_DISPATCH
