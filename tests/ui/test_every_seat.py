"""Every seat on every screen that lists seats, at the largest player count each game allows: the
names are read from the screen's text model (what the canvas drew), scrolled with the keys a
person presses, not from a golden image."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from companion.engine.base import Game
from companion.hw.keys import Key
from companion.registry import game_class
from companion.sim import random_game
from companion.ui import App
from companion.ui.tricks import DealScreen, FinalScreen
from tests.ui.helpers import enter, make_app, press

NAMES = ("Aki", "Ben", "Chie", "Dai", "Emi", "Fumi")
GAMES = ["tezuma-2015", "tezuma", "irohanihohedo", "tourney", "zenjidou"]


def largest(game_id: str, seed: int = 3) -> Game[Any]:
    """A whole random game at the game's largest player count, its seats given short names."""
    players = game_class(game_id).max_players
    played = random_game(game_id, players, random.Random(seed))
    setup = dataclasses.replace(played.setup, players=NAMES[:players])
    game = type(played)(setup)
    for action in played.actions:
        game.push(action)
    return game


def up_to(game: Game[Any], stop: int) -> Game[Any]:
    """The same game after its first ``stop`` actions."""
    copy = type(game)(game.setup)
    for action in game.actions[:stop]:
        copy.push(action)
    return copy


def names_read(app: App, names: tuple[str, ...]) -> set[str]:
    """The seat names the screen on top shows, over every scroll position UP and DOWN reach."""
    screen, seen = app.top, set()
    for _ in range(len(names)):
        app.handle(press(Key.UP))
    for _ in range(len(names) + 1):
        seen |= {name for name in names if any(name in text for text in app.canvas.texts)}
        app.handle(press(Key.DOWN))
        assert app.top is screen, "DOWN scrolls; it does not leave the screen"
    return seen


def first_deal_scored(game: Game[Any]) -> int:
    """How many actions score the first deal."""
    scratch = type(game)(game.setup)
    for count, action in enumerate(game.actions, start=1):
        scratch.push(action)
        if scratch.state.deals[0].scores is not None:  # type: ignore[attr-defined]
            return count
    raise AssertionError("the first deal was never scored")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_deal_table_and_its_chart_show_every_seat(game_id: str) -> None:
    game = largest(game_id)
    scored = first_deal_scored(game)
    app = make_app(up_to(game, scored - 1))
    enter(app, game.actions[scored - 1 : scored])  # by the keys a person presses
    while not isinstance(app.top, DealScreen):
        app.handle(press(Key.OK))  # past the last trick's result
    players = game.setup.players
    assert names_read(app, players) == set(players)
    app.handle(press(Key.RIGHT))
    assert app.top.chart  # type: ignore[attr-defined]
    assert names_read(app, players) == set(players)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_final_ranking_shows_every_seat(game_id: str) -> None:
    game = largest(game_id)
    app = make_app(game)
    assert isinstance(app.top, FinalScreen)
    assert names_read(app, game.setup.players) == set(game.setup.players)


@pytest.mark.parametrize("game_id", [game_id for game_id in GAMES if game_id != "zenjidou"])
def test_the_trick_screen_shows_every_seat(game_id: str) -> None:
    """Midway through the first deal, each seat has its row: its label (``P1``), and its name but
    where the row shows what the seat is asked about instead (Tourney's reveal shows the seat's card
    in place of its name). Zenjidou's entry screen names only the seat it asks, so it lists none."""
    game = largest(game_id)
    app = make_app(up_to(game, first_deal_scored(game) // 2))
    while len(app.screens) > 1:
        app.handle(press(app.top.leave_key))
    texts = app.canvas.texts
    labels = [app.seat_label(seat) for seat in range(len(game.setup.players))]
    assert [label for label in labels if label not in texts] == []
    named = [name for name in game.setup.players if any(name in text for text in texts)]
    assert len(named) >= len(game.setup.players) - 1


def test_irohanihohedo_tricks_won_show_every_seat() -> None:
    game = largest("irohanihohedo")
    app = make_app(up_to(game, first_deal_scored(game) // 2))
    while len(app.screens) > 1:
        app.handle(press(app.top.leave_key))
    app.handle(press(Key.AUX))
    assert names_read(app, game.setup.players) == set(game.setup.players)


def test_a_scrolled_list_says_more_lies_below_and_above() -> None:
    """The hint row ends in the arrows while seats are off the glass."""
    app = make_app(largest("irohanihohedo"))
    assert app.canvas.texts[-1] == "↓"
    app.handle(press(Key.DOWN))
    assert app.canvas.texts[-1] == "↑↓"
    for _ in range(6):
        app.handle(press(Key.DOWN))
    assert app.canvas.texts[-1] == "↑"


def test_irohanihohedo_s_tie_line_is_read_whole() -> None:
    """The book's tie-break line wraps instead of being cut: every word is on the glass."""
    game = largest("irohanihohedo", seed=36)
    assert len(game.winners()) > 1  # type: ignore[attr-defined]
    app = make_app(game)
    shown = " ".join(app.canvas.texts)
    assert "…" not in shown and "first to spot the evening star!" in shown


def test_with_six_irohanihohedo_players_every_trick_s_reason_is_shown() -> None:
    """The seats fill the trick screen, so no panel row is left for the last reason: each trick's
    result opens its notice, whose text names why the trick went as it did."""
    game = largest("irohanihohedo")
    scored = first_deal_scored(game)
    app = make_app(up_to(game, 0))
    for action in game.actions[:scored]:
        before = finished(app)
        enter(app, [action])
        if finished(app) > before:  # this card finished a trick
            deal = app.session.game.state.deal  # type: ignore[union-attr]
            result = [trick.result for trick in deal.tricks if trick.result is not None][-1]
            shown = " ".join(app.canvas.texts).replace(" ", "")
            assert app.ui.reason(result).replace(" ", "") in shown  # type: ignore[union-attr]


def finished(app: App) -> int:
    """How many tricks of the deal in play are finished."""
    return sum(trick.result is not None for trick in app.session.game.state.deal.tricks)  # type: ignore[union-attr]
