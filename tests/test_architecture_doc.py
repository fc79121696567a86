"""docs/architecture.md stays true to the code: its layer table is the dependency test's LAYERS, and
its contract lists are what engine/tricks.py makes abstract, final and overridable."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.engine.tricks import TrickGame
from companion.registry import game_class
from tests.games import every_simulated_game
from tests.test_dependencies import LAYERS

DOC = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
NAME = re.compile(r"`([^`]+)`")

pytestmark = pytest.mark.usefixtures("with_the_test_game")


def module_pattern(short: str) -> str:
    """The LAYERS pattern of a name as the table writes it: ``games/<m>/rules`` is ``companion.games.{game}.rules``."""
    if short == "companion":
        return short
    return "companion." + short.replace("/", ".").replace("<m>", "{game}")


def documented_layers() -> list[tuple[int, list[str]]]:
    rows = re.findall(r"^\| (\d+) \| [^|]+ \| (.+) \|$", DOC, flags=re.MULTILINE)
    return [(int(number), [module_pattern(name) for name in NAME.findall(modules)]) for number, modules in rows]


def documented_list(label: str) -> set[str]:
    """The names of the contract list item that starts ``- <label>:``, across its wrapped lines."""
    match = re.search(rf"^- {re.escape(label)}:(.*?)(?=^- |^$)", DOC, flags=re.MULTILINE | re.DOTALL)
    assert match is not None, f"docs/architecture.md has no list '- {label}:'"
    return set(NAME.findall(match.group(1)))


HOOK_LISTS = ("Action hooks", "Trick hooks", "Setup and card-data hooks", "Replay hooks")


def test_the_layer_table_is_the_dependency_tests_layers() -> None:
    documented = documented_layers()
    assert [number for number, _ in documented] == list(range(len(LAYERS), 0, -1))
    assert {number: sorted(patterns) for number, patterns in documented} == {
        number: sorted(patterns) for number, patterns in enumerate(LAYERS, start=1)
    }


def test_a_game_must_give_exactly_the_abstract_methods() -> None:
    assert documented_list("A game must give") == set(TrickGame.__abstractmethods__)


def test_the_fold_is_final() -> None:
    fold = documented_list("The fold, final")
    assert fold == {"start_deal", "open_trick", "finish_trick", "close_deal", "totals"}
    assert [name for name in sorted(fold) if not getattr(getattr(TrickGame, name), "__final__", False)] == []


def test_every_hook_is_the_layers_and_open() -> None:
    hooks = set().union(*(documented_list(label) for label in HOOK_LISTS))
    missing = sorted(name for name in hooks if not hasattr(TrickGame, name))
    closed = sorted(name for name in hooks if getattr(getattr(TrickGame, name, None), "__final__", False)
                    or name in TrickGame.__abstractmethods__)
    assert (missing, closed) == ([], [])


@pytest.mark.parametrize("game_id", every_simulated_game())
def test_a_game_overrides_only_what_the_contract_lists(game_id: str) -> None:
    listed = documented_list("A game must give").union(*(documented_list(label) for label in HOOK_LISTS))
    cls = game_class(game_id)
    own = set().union(*(vars(k) for k in cls.__mro__ if issubclass(k, TrickGame) and k is not TrickGame))
    layer = {name for name in dir(TrickGame) if not name.startswith("_")}
    assert sorted((own & layer) - listed) == []


# The games whose actions are GameActions all through: the layer's check, apply, parse and
# generate_legal_actions serve them unchanged (docs/architecture.md names them).
ON_THE_LAYERS_ACTIONS = ("plain-tricks", "tezuma", "tezuma-2015", "irohanihohedo", "tourney", "zenjidou")


@pytest.mark.parametrize("game_id", ON_THE_LAYERS_ACTIONS)
def test_a_game_of_game_actions_takes_check_apply_parse_and_listing_from_the_layer(game_id: str) -> None:
    cls = game_class(game_id)
    own = set().union(*(vars(k) for k in cls.__mro__ if issubclass(k, TrickGame) and k is not TrickGame))
    assert sorted(own & {"check", "apply", "parse", "generate_legal_actions"}) == []
