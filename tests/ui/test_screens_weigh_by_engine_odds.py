"""The screens weigh cards by the engine's odds only (``TrickGame.card_odds`` and a game's own odds):
no screen module reads what a seat declined or owes, what can still be in a hand, or a belief about
players, to start a picker somewhere. Checked on the source, so a screen that restates a rule or a
belief fails here even where its start happens to agree with the engine's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCREEN_MODULES = sorted([*(ROOT / "companion" / "ui").glob("*.py"),
                         *(ROOT / "companion" / "games").glob("*/screens.py")])

# What the engine weighs cards by: a seat's declined suits (``deal.watch``), what it owes
# (``must_follow``), how many of a suit can still be in a hand (Tourney's ``room``), who may hold a
# shown bottom card (Zenjidou), and the belief about players with the weights drawn from it.
# The rules' questions are caught where a screen calls them (a screen may have a ``room`` of its own:
# a scroll's rows).
RULE_READS = frozenset({"watch", "declined", "bottoms"})
RULE_CALLS = frozenset({"must_follow", "room", "may_hold_bottom"})
BELIEFS = frozenset({"EXTREME_RATE", "EXTREME_WEIGHT", "FOLLOW_WEIGHT", "ORDER_WEIGHT", "extreme_cards",
                     "PeopleRandom"})


def odds_reads(source: str) -> list[str]:
    """The rule reads and beliefs a module's source names: attributes, names, imports, assignments."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in RULE_READS | BELIEFS:
            found.append(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RULE_CALLS:
            found.append(node.func.attr)
        elif isinstance(node, ast.Name) and node.id in BELIEFS:
            found.append(node.id)
        elif isinstance(node, ast.ImportFrom):
            found += [alias.name for alias in node.names if alias.name in BELIEFS]
    return found


@pytest.mark.parametrize("path", SCREEN_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_screen_module_weighs_cards_itself(path: Path) -> None:
    assert odds_reads(path.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_screen_that_weighs_cards_itself() -> None:
    """The screens' weighing before the engine had odds: each of these reads is caught (and a scroll's
    own ``room``, which is no rule, is not)."""
    weighed_on_screen = '''
from companion.sim import PeopleRandom
FOLLOW_WEIGHT = 8.0
class Screen:
    EXTREME_WEIGHT = 2.0
    def likelihood(self, seat):
        void = {suit for suit, _ in self.game.state.deal.watch.declined[seat]}
        owed = self.game.must_follow(self.trick) - void
        return {suit: self.game.room(suit) for suit in owed}
class Scroll:
    def rows(self, room):
        self.room = room
'''
    assert sorted(odds_reads(weighed_on_screen)) == sorted(
        ["PeopleRandom", "FOLLOW_WEIGHT", "EXTREME_WEIGHT", "watch", "declined", "must_follow", "room"])


def test_every_screen_module_is_checked() -> None:
    names = {str(path.relative_to(ROOT)) for path in SCREEN_MODULES}
    assert {"companion/ui/tricks.py", "companion/games/zenjidou/screens.py",
            "companion/games/tourney/screens.py", "companion/games/irohanihohedo/screens.py",
            "companion/games/tezuma/screens.py"} <= names
