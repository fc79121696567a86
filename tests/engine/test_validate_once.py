"""Card data found valid is checked once per game, whatever builds the game: a replay builds one
game per record, and the shape check was most of that (Game.validate_cards_once)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest

from companion.carddata import printed_cards
from companion.engine import base
from companion.errors import CardDataError
from companion.registry import game_class

GAME_IDS = ["irohanihohedo", "tezuma", "tezuma-2015", "tourney", "zenjidou"]
PRINTED = {game_id: printed_cards(game_id) for game_id in GAME_IDS}  # loading checks them too: before counting


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of a game's full check, by game id, with an empty list of data found valid."""
    monkeypatch.setattr(base, "VALID_CARD_DATA", set())
    calls: list[str] = []
    for game_id in GAME_IDS:
        cls = game_class(game_id)
        full = cls.validate_cards

        def counted(cards: Any, full: Any = full, game_id: str = game_id) -> None:
            calls.append(game_id)
            full(cards)

        monkeypatch.setattr(cls, "validate_cards", counted)
    return calls


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_printed_data_is_checked_once_for_many_games(checks: list[str], game_id: str) -> None:
    cls, cards = game_class(game_id), PRINTED[game_id]
    for _ in range(3):
        cls.validate_cards_once(copy.deepcopy(cards))
    assert checks == [game_id]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_bad_data_is_refused_every_time(checks: list[str], game_id: str) -> None:
    cls = game_class(game_id)
    for _ in range(2):
        with pytest.raises(CardDataError):
            cls.validate_cards_once({"game": game_id})
    assert checks == [game_id, game_id]


def test_a_value_equal_by_eq_but_not_json_alike_is_checked_again(checks: list[str]) -> None:
    cards = PRINTED["tourney"]
    game_class("tourney").validate_cards_once(cards)
    changed = copy.deepcopy(cards)
    key = next(key for key, value in changed.items() if base.is_int(value))
    changed[key] = float(changed[key])  # == the int, yet not the same JSON
    with contextlib.suppress(CardDataError):  # whether a float passes is the game's check, asked again
        game_class("tourney").validate_cards_once(changed)
    assert checks == ["tourney", "tourney"]


def test_the_list_of_valid_data_stays_small(checks: list[str]) -> None:
    cards = PRINTED["tourney"]
    for extra in range(base.VALID_CARD_DATA_KEPT + 5):
        game_class("tourney").validate_cards_once({**cards, "note": str(extra)})
    assert len(base.VALID_CARD_DATA) == base.VALID_CARD_DATA_KEPT
