"""The card keypad and the pickers' shortcuts, pressed on the app.

Whole games entered on the 4x4 card keypad end where the engine ends with the same actions, and
the journal hears the same actions as from the joystick. Each shortcut is pressed on a real
screen: a digit enters a card of the suit shown, a letter changes suit, a number another suit
alone has needs no letter, ``#``/``*`` are OK/BACK, the arrows wrap, the likeliest card comes
first and the only card left is offered ready for OK, a trick's result is passed by the next
entry's first key, a deal's scores wait for ``#``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine.base import Answer, Game
from companion.engine.tricks import SuitedCard
from companion.games.tourney.rules import Play as TourneyPlay
from companion.games.tourney.screens import PlacesScreen
from companion.keys import DIGITS, LETTERS, Key, KeyEvent
from companion.registry import game_class
from companion.sim import random_game, table_random
from companion.ui.app import App
from companion.ui.keypad import Typing, keys_to_type, typed
from companion.ui.picker import Grid
from companion.ui.planner import enter_by_keys, presses_for
from companion.ui.tricks import DealScreen
from tests.ui.helpers import make_app, new_game

GAMES = [("irohanihohedo", 3), ("irohanihohedo", 6), ("tezuma", 4), ("tezuma-2015", 3), ("tourney", 3),
         ("tourney", 4), ("zenjidou", 2)]


@cache
def played(game_id: str, players: int, table: str = "people") -> Game[Any]:
    return random_game(game_id, players, table_random(table, 3), ability_rate=0.5)


def journal(game: Game[Any], layout: str) -> tuple[list[Any], App]:
    """Enter ``game``'s actions by the planner's keys on ``layout``; what the session heard."""
    app = make_app(type(game)(game.setup))
    assert app.session is not None
    heard: list[Any] = []
    app.session.listeners.append(lambda change, data: heard.append((change, data)))
    for action in game.actions:
        enter_by_keys(app, action, layout)
        assert app.session.game.actions[-1] == action
    return heard, app


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_a_whole_game_on_the_card_keypad_journals_what_the_joystick_does(game_id: str, players: int) -> None:
    game = played(game_id, players)
    by_keypad, app = journal(game, "keypad")
    by_joystick, _ = journal(game, "joystick")
    assert by_keypad == by_joystick == [("action", action.to_json()) for action in game.actions]
    direct = game_class(game_id)(game.setup)
    for action in game.actions:
        direct.push(action)
    assert app.session is not None and app.session.game.summary() == direct.summary()


def tourney_follow(wanted: Callable[[Grid[SuitedCard]], bool] = lambda grid: True) -> tuple[App, Any]:
    """A 4-player Tourney app whose next entry is a follower's play whose picker is ``wanted``, and that play
    (the first such in simulated games of seeds 3, 4, ...)."""
    for seed in range(3, 40):
        game = random_game("tourney", 4, table_random("random", seed), ability_rate=0.5)
        replay = type(game)(game.setup)
        for action in game.actions:
            if isinstance(action, TourneyPlay) and replay.trick.turns and replay.decision.kind == "play":
                app = make_app(replay)
                if wanted(app.top.grid):
                    return app, action
            replay.push(action)
    raise AssertionError("no follower's play of that kind in the simulated games")


def test_a_digit_enters_a_card_of_the_suit_shown_in_one_press() -> None:
    app, action = tourney_follow()
    grid = app.top.grid
    lead = app.top.trick.lead_suit
    assert grid.value.suit == lead  # a follower starts on the lead suit
    card = next(value for row in grid.rows for _, value in row
                if value.suit == lead and value.rank < 10 and value.rank != 1)
    app.handle(KeyEvent(Key[f"N{card.rank}"]))
    assert app.session is not None and app.session.game.actions[-1] == TourneyPlay(action.seat, card)


def lead_suit_numbers(grid: Grid[SuitedCard]) -> set[int]:
    """The numbers offered in the group the cursor starts in (a follower's: the lead suit)."""
    return {grid.at_place(place).value.rank for place in grid.places(grid.groups[grid.row])}


def test_one_waits_for_a_second_digit_or_hash_while_ten_to_fourteen_are_unseen() -> None:
    def one_and_ten_up_unseen(grid: Grid[SuitedCard]) -> bool:
        numbers = lead_suit_numbers(grid)
        return 1 in numbers and bool(numbers & {10, 11, 12, 13, 14})

    app, _ = tourney_follow(one_and_ten_up_unseen)
    grid: Grid[SuitedCard] = app.top.grid
    suit = grid.value.suit
    before = session_length(app)
    app.handle(KeyEvent(Key.N1))
    assert session_length(app) == before and app.top.grid.value == SuitedCard(suit, 1)
    app.handle(KeyEvent(Key.HASH))
    assert app.session is not None and app.session.game.actions[-1].card == SuitedCard(suit, 1)


def session_length(app: App) -> int:
    assert app.session is not None
    return len(app.session.game.actions)


def irohanihohedo_trick() -> Game[Any]:
    """A 3-player Irohanihohedo game at its first card: the deck question skipped (every number offered)."""
    game = new_game("irohanihohedo", 3, dealer=0)
    game.push(Answer("numbers:3", 0))
    return game


def test_letters_choose_the_suit_and_a_letter_again_steps_on_four() -> None:
    game = irohanihohedo_trick()
    app = make_app(game)
    colours = list(game.colours)
    assert len(colours) == 5
    app.handle(KeyEvent(Key.B))
    assert app.top.grid.value.suit == colours[1]
    app.handle(KeyEvent(Key.A))
    assert app.top.grid.value.suit == colours[0]
    app.handle(KeyEvent(Key.A))  # the fifth colour shares A
    assert app.top.grid.value.suit == colours[4]
    app.handle(KeyEvent(Key.N7))
    assert app.session is not None and app.session.game.actions[-1].card == SuitedCard(colours[4], 7)


def test_a_number_only_another_suit_has_needs_no_letter() -> None:
    grid = Grid.of([[(n, SuitedCard("W", n)) for n in (2, 3)], [(n, SuitedCard("F", n)) for n in (5, 9)]],
                   groups=[0, 1])
    keys = keys_to_type(Typing(grid), SuitedCard("F", 9), lambda card: card.rank)
    assert keys == [KeyEvent(Key.N9)]
    assert keys_to_type(Typing(grid), SuitedCard("F", 5), lambda card: card.rank) == [KeyEvent(Key.N5)]


def test_hash_star_and_held_zero_are_ok_back_and_aux_on_every_screen() -> None:
    app = make_app(irohanihohedo_trick())
    base = app.top
    app.handle(KeyEvent(Key.N0, long=True))  # AUX: the lowest cards per colour
    assert app.top is not base
    app.handle(KeyEvent(Key.STAR))
    assert app.top is base
    app.handle(KeyEvent(Key.STAR))  # BACK on the trick screen: the menu
    menu = app.top
    assert menu is not base
    app.handle(KeyEvent(Key.N8))  # a menu does not type: 8 is DOWN, # is OK
    assert menu.index == 1  # type: ignore[attr-defined]


def test_held_star_offers_undo_as_held_back_does() -> None:
    app = make_app(irohanihohedo_trick())
    app.handle(KeyEvent(Key.N5))
    assert session_length(app) == 2  # the skipped deck question, then the card
    app.handle(KeyEvent(Key.STAR, long=True))
    app.handle(KeyEvent(Key.HASH))
    assert session_length(app) == 1


def test_every_arrow_wraps_around() -> None:
    app = make_app(new_game("tourney", 4, dealer=0))
    grid: Grid[SuitedCard] = app.top.grid
    group = grid.places(grid.groups[grid.row])
    first = app.top.grid.at_place(group[0])
    app.top.grid = first
    app.handle(KeyEvent(Key.LEFT))
    assert (app.top.grid.row, app.top.grid.col) == group[-1]  # past the lowest: the suit's highest
    app.top.grid = first.at_place((0, 0))
    app.handle(KeyEvent(Key.UP))
    assert app.top.grid.row == len(grid.rows) - 1  # above the first row: the last


def test_the_likeliest_card_comes_first_for_a_follower() -> None:
    app, action = tourney_follow()
    screen = app.top
    lead = screen.trick.lead_suit
    start = screen.likely_start(action.seat, screen.grid)
    assert start.value.suit == lead
    in_lead = [value.rank for row, group in zip(start.rows, start.groups, strict=False) for _, value in row
               if value.suit == lead]
    assert start.value.rank in (min(in_lead), max(in_lead))  # people win high or duck low


def test_a_seat_proved_void_is_not_started_on_the_lead_suit() -> None:
    app, action = tourney_follow()
    screen = app.top
    lead = screen.trick.lead_suit
    screen.game.state.deal.watch.declined[action.seat].append((lead, 0))
    try:
        assert screen.likely_start(action.seat, screen.grid).value.suit != lead
    finally:
        screen.game.state.deal.watch.declined[action.seat].pop()


def test_the_only_card_left_is_offered_ready_for_ok() -> None:
    only = Grid.of([[(7, SuitedCard("W", 7))]])
    assert only.best_start(lambda card: 1.0).value == SuitedCard("W", 7)
    app, action = tourney_follow()
    screen = app.top
    screen.grid = screen.likely_start(action.seat, Grid.of([[(action.card.rank, action.card)]]))
    assert presses_for(app, action) == [KeyEvent(Key.OK)]
    assert presses_for(app, action, "keypad") == [KeyEvent(Key.HASH)]
    app.handle(KeyEvent(Key.HASH))
    assert app.session is not None and app.session.game.actions[-1] == action


def test_the_keypad_takes_fewer_presses_than_the_joystick_on_a_whole_game() -> None:
    game = played("irohanihohedo", 6)  # every entry a card: no deck question at 6 players
    counts = {}
    for layout in ("joystick", "keypad"):
        app = make_app(type(game)(game.setup))
        counts[layout] = sum(enter_by_keys(app, action, layout) for action in game.actions)
    # the joystick starts on the likeliest card too, and the deck question costs the same on both
    assert counts["keypad"] < counts["joystick"] * 0.65  # 551 against 920 when written


def test_a_table_of_people_plays_its_extremes_more_often_than_a_random_one() -> None:
    rng = table_random("people", 1)
    cards = [SuitedCard("W", n) for n in range(1, 11)]
    extremes = sum(rng.choice(cards).rank in (1, 10) for _ in range(2000))
    assert 0.5 < extremes / 2000 < 0.7  # 0.5 + 0.5 * 2/10
    assert random.Random(1).choice(cards) in cards


def test_tezumas_draft_takes_a_letter_for_the_row_and_a_digit_for_the_place_in_it() -> None:
    from companion.games.tezuma.rules import Draft
    from companion.games.tezuma.screens import DraftScreen, laid_out

    app = make_app(new_game("tezuma-2015", 4))
    screen = app.top
    assert isinstance(screen, DraftScreen)
    scoring = laid_out(screen.game, screen.deal, "scoring")
    app.handle(KeyEvent(Key.B))  # the scoring row
    app.handle(KeyEvent(Key.N2))  # its second card
    assert app.session is not None and app.session.game.actions[-1] == Draft(screen.seat, "scoring", scoring[1])


def test_tezumas_trump_is_typed_as_zero() -> None:
    from companion.games.tezuma.rules import Card, Play
    from tests.ui.test_ui_trick import table

    app = make_app(table())  # the leader's picker, every trump unseen
    seat = app.top.seat
    app.handle(KeyEvent(Key.C))  # the third suit
    suit = app.top.grid.value.suit
    app.handle(KeyEvent(Key.N0))
    assert app.session is not None and app.session.game.actions[-1] == Play(seat, (Card(suit, 0),))


@st.composite
def numbered_grids(draw: st.DrawFn) -> Grid[SuitedCard]:
    """A picker of up to six suits, each some of the numbers 0-32 (two rows when long), cursor anywhere."""
    suits = "WFSCOG"[: draw(st.integers(1, 6))]
    rows: list[list[tuple[int, SuitedCard]]] = []
    groups: list[int] = []
    for group, suit in enumerate(suits):
        numbers = sorted(draw(st.sets(st.integers(0, 32), min_size=1, max_size=14)))
        half = (len(numbers) + 1) // 2
        rows += [[(n, SuitedCard(suit, n)) for n in numbers[:half]], [(n, SuitedCard(suit, n)) for n in numbers[half:]]]
        groups += [group, group]
    grid = Grid.of(rows, groups=groups)
    places = [(r, c) for r in range(len(grid.rows)) for c in range(len(grid.rows[r]))]
    return grid.at_place(draw(st.sampled_from(places)))


@given(numbered_grids(), st.data())
def test_the_keys_planned_for_any_card_type_exactly_that_card(grid: Grid[SuitedCard], data: st.DataObject) -> None:
    target = data.draw(st.sampled_from([value for row in grid.rows for _, value in row]))
    keys = keys_to_type(Typing(grid), target, lambda card: card.rank)
    assert keys is not None and len(keys) <= 2 + len(str(target.rank)) + 1  # letters, digits, #
    state = Typing(grid)
    for index, event in enumerate(keys):
        if event.key is Key.HASH:
            assert index == len(keys) - 1 and not state.enter
            break
        state = typed(state, event.key, lambda card: card.rank)
        assert not state.enter or index == len(keys) - 1, "a card would be entered before the last key"
    assert state.grid.value == target


@given(numbered_grids(), st.lists(st.sampled_from([*LETTERS, *DIGITS]), max_size=8))
def test_typing_any_keys_keeps_the_cursor_on_an_offered_card(grid: Grid[SuitedCard], keys: list[Key]) -> None:
    state = Typing(grid)
    offered = {value for row in grid.rows for _, value in row}
    for key in keys:
        state = typed(state, key, lambda card: card.rank)
        assert state.grid.value in offered
        assert not state.enter or str(state.grid.value.rank) == state.digits


def tourney_after(notice: type[Any], players: int = 4) -> tuple[App, Any]:
    """A Tourney app with ``notice`` alone above the trick screen, and the game's next action."""
    game = random_game("tourney", players, table_random("random", 3), ability_rate=0.5)
    app = make_app(type(game)(game.setup))
    for index, action in enumerate(game.actions):
        enter_by_keys(app, action, "keypad")
        if len(app.screens) == 2 and isinstance(app.top, notice):
            return app, game.actions[index + 1]
    raise AssertionError(f"no {notice.__name__} alone above the trick screen")


@pytest.mark.parametrize("players", [3, 4])
def test_the_next_card_is_typed_over_a_trick_result(players: int) -> None:
    """The result was shown; the next entry's first key closes it and counts: no OK to leave it."""
    app, action = tourney_after(PlacesScreen, players)
    keys = presses_for(app, action, "keypad")
    assert keys[0].key not in (Key.HASH, Key.OK)  # no press only to leave the notice
    before = session_length(app)
    app.handle(keys[0])
    assert len(app.screens) == 1 or session_length(app) == before + 1  # closed, or the card went in at once
    for event in keys[1:]:
        app.handle(event)
    assert app.session is not None and app.session.game.actions[-1] == action


def test_an_arrow_on_a_trick_result_moves_the_picker_beneath() -> None:
    app, _ = tourney_after(PlacesScreen)
    beneath = app.screens[0]
    start = beneath.grid  # type: ignore[attr-defined]
    app.handle(KeyEvent(Key.RIGHT))
    assert app.screens == (beneath,) and beneath.grid == start.moved(Key.RIGHT)  # type: ignore[attr-defined]


def test_a_deal_s_scores_wait_for_ok() -> None:
    """A deal's table is not passed by typing: its digits and letters do nothing, ``#`` goes on."""
    game = random_game("tourney", 4, table_random("random", 3), ability_rate=0.5)
    app = make_app(type(game)(game.setup))
    for action in game.actions:
        enter_by_keys(app, action, "keypad")
        if any(isinstance(screen, DealScreen) for screen in app.screens):
            break
    else:
        raise AssertionError("no deal ended")
    while not isinstance(app.top, DealScreen):
        app.handle(KeyEvent(Key.HASH))  # the last trick's result first
    screens = app.screens
    for key in (Key.N3, Key.A, Key.N1):
        app.handle(KeyEvent(key))
        assert app.screens == screens
    app.handle(KeyEvent(Key.HASH))
    assert app.screens == screens[:-1]


def test_a_two_card_play_with_an_ability_is_typed_whole() -> None:
    """Tezuma's two-card plays with an ability (people table, seed 1: two-card fire-breathing plays)
    are planned whole on the keypad, not a card at a time (that would start over without end)."""
    game = random_game("tezuma", 4, table_random("people", 1))
    by_keypad, _ = journal(game, "keypad")
    assert by_keypad == [("action", action.to_json()) for action in game.actions]


def test_a_notice_above_another_takes_hash_and_the_one_beneath_is_passed() -> None:
    """A deal's last trick: its places lie above the deal's scores, so typing does not pass them (the
    scores beneath were not shown yet): ``#`` closes the places, and the scores wait for their own."""
    game = random_game("tourney", 4, table_random("random", 3), ability_rate=0.5)
    app = make_app(type(game)(game.setup))
    for action in game.actions:
        enter_by_keys(app, action, "keypad")
        screens = app.screens
        if len(screens) == 3 and isinstance(screens[1], DealScreen) and isinstance(screens[2], PlacesScreen):
            break
    else:
        raise AssertionError("no deal ended")
    for key in (Key.N3, Key.A):
        app.handle(KeyEvent(key))
        assert app.screens == screens  # not passed: the places lie above another notice
    app.handle(KeyEvent(Key.HASH))
    assert app.screens == screens[:2]
    app.handle(KeyEvent(Key.N3))
    assert app.screens == screens[:2]  # the deal's scores wait for OK
    app.handle(KeyEvent(Key.HASH))
    assert app.screens == screens[:1]
