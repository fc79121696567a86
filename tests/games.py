"""Every game the cross-game tests run over: the product's games and the tests' own Plain Tricks.

Plain Tricks is a package of the same shape as a product game (tests/plain_tricks/), registered
only while a test that asks for it runs: a module marks itself with
``pytestmark = pytest.mark.usefixtures("with_the_test_game")`` (tests/conftest.py) and takes its
list of games from :func:`every_simulated_game`.
"""

from __future__ import annotations

from companion.registry import extra_package
from companion.sim import simulated_game_ids

TEST_GAME_PACKAGE = "tests.plain_tricks"


def every_simulated_game() -> list[str]:
    """Every game id with a simulated table, the test game's included, sorted."""
    with extra_package(TEST_GAME_PACKAGE):
        return simulated_game_ids()
