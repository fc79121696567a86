"""Zenjidou's shortcuts, pressed on the app: a card typed by its number on the card keypad, a card
fact typed by its place, UP/DOWN stepping a fact by two, the lists and facts starting on the
likeliest value from public information; each entry shown, one held BACK (or held *) undoes it;
whole games by keypad presses match their replays."""

from __future__ import annotations

import random

import pytest

from companion.engine.base import Answer
from companion.games.zenjidou.rules import Card, Play, Rest, Zenjidou
from companion.games.zenjidou.screens import UNTOLD, CardScreen, FactsScreen, ListScreen
from companion.games.zenjidou.table import ZenjidouTable
from companion.hw.keys import Key, KeyEvent
from companion.ui.app import App
from companion.ui.planner import enter_by_keys, presses_for
from tests.ui.helpers import check_golden, make_app
from tests.zenjidou.helpers import new_game, plain_facts, start_round
from tests.zenjidou.test_ui import simulated


def facts_without(*numbers: int) -> dict[str, dict[str, dict[str, int]]]:
    """Every card's facts told but those of ``numbers`` (plain_facts: colour n % 5, no score, no effect)."""
    table = plain_facts()
    for number in numbers:
        del table["card"][str(number)]
    return table


def test_the_card_keypad_types_a_card_by_its_number_at_once_where_no_other_begins_with_it() -> None:
    app = make_app(new_game(3, plain_facts()))
    assert isinstance(app.top, ListScreen)
    app.handle(KeyEvent(Key.N7))
    assert app.session.game.actions[-1] == Rest(7)  # one press: no unseen card 70-79


def test_one_waits_for_hash_or_a_second_digit_while_ten_to_nineteen_are_unseen() -> None:
    app = make_app(new_game(3, plain_facts()))
    app.handle(KeyEvent(Key.N1))
    assert not app.session.game.actions
    assert app.top.options[app.top.index] == Rest(1)  # shown under the cursor before it is entered
    app.handle(KeyEvent(Key.N2))
    assert app.session.game.actions[-1] == Rest(12)
    app = make_app(new_game(3, plain_facts()))
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.HASH))
    assert app.session.game.actions[-1] == Rest(1)


def test_a_card_fact_is_typed_by_its_place_one_press_each_and_one_held_star_undoes_it() -> None:
    app = make_app(new_game(3, facts_without(12)))
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.N2))  # the rest's top card, 12, whose print is unknown
    game = app.session.game
    assert isinstance(app.top, FactsScreen) and app.top.name == "colour"
    app.handle(KeyEvent(Key.N3))
    assert game.actions[-1] == Answer("card:12:colour", 2)
    assert isinstance(app.top, FactsScreen) and app.top.name == "score"  # asked next, the colour shown above
    assert "colour 3" in app.top.label("colour", game.fact(12, "colour"))
    app.handle(KeyEvent(Key.N9))  # the score has six values: 9 is none of them and enters nothing
    assert game.actions[-1] == Answer("card:12:colour", 2)
    app.handle(KeyEvent(Key.STAR, long=True))
    app.handle(KeyEvent(Key.HASH))
    assert game.actions[-1] == Rest(12) and game.fact(12, "colour") is None


def test_a_card_fact_starts_on_the_value_told_most_often() -> None:
    app = make_app(new_game(3, facts_without(12)))
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.N2))  # the rest's top card, 12, whose print is unknown
    screen = app.top
    assert isinstance(screen, FactsScreen)
    # colours n % 5 over the 31 other cards: colour 1 is on seven (1, 6, ..., 31), the others on six
    assert screen.name == "colour" and screen.value == 1
    assert presses_for(app, Answer("card:12:colour", 1)) == [KeyEvent(Key.OK)]


def test_up_and_down_step_a_fact_by_two_wrapping_so_every_value_is_two_presses_away() -> None:
    app = make_app(new_game(3, facts_without(12)))
    for key in (Key.N1, Key.N2, Key.N3):  # rest 12, colour 3: the score is asked
        app.handle(KeyEvent(key))
    for key in (Key.N1,):  # the score: none
        app.handle(KeyEvent(key))
    screen = app.top
    assert isinstance(screen, FactsScreen) and screen.name == "effect" and screen.count == 9
    screen.value = 0
    app.handle(KeyEvent(Key.DOWN))
    assert screen.value == 2
    app.handle(KeyEvent(Key.UP))
    app.handle(KeyEvent(Key.UP))
    assert screen.value == 7  # 0 - 2 wraps to the last but one
    for value in range(9):
        screen.value = 0
        assert len(presses_for(app, Answer("card:12:effect", value))) <= 3  # two arrows at most, then OK


def test_l_closest_starts_on_the_unseen_card_nearest_the_last_one_put_down() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "L closest", [31, 32, 29])
    game.push(Play(game.decision.seat, 10))  # by hand: a card far from the shown bottoms
    app = make_app(game)
    screen = app.top
    assert isinstance(screen, ListScreen)
    under = screen.options[screen.index]
    assert under.card in (9, 11)
    assert presses_for(app, Play(game.decision.seat, under.card)) == [KeyEvent(Key.OK)]


def test_a_hand_that_must_follow_starts_nearer_the_lead_colour_than_the_first_card() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "K", [31, 32, 29])
    lead = 10  # colour 0: the unseen followers are 5, 15, 20, 25
    game.push(Play(game.decision.seat, lead))
    app = make_app(game)
    seat = game.decision.seat
    followers = [Play(seat, card) for card in (5, 15, 20, 25)]
    from_start = sum(len(presses_for(app, action)) for action in followers)
    app.top.index = 0
    from_first = sum(len(presses_for(app, action)) for action in followers)
    assert from_start < from_first


def test_cards_are_offered_in_rows_by_colour_and_every_arrow_wraps() -> None:
    app = make_app(new_game(3, plain_facts()))  # colour n % 5: colour 0 is 5, 10, ..., 30
    screen = app.top
    assert isinstance(screen, CardScreen) and len(screen.options) == 32
    game = app.session.game
    grid = screen.grid
    assert all(len({game.fact(card, "colour") for _, card in row}) == 1 for row in grid.rows)
    screen.grid = grid.at(Card(5)) or grid  # colour 0's six cards fill one row
    for _ in range(6):
        app.handle(KeyEvent(Key.RIGHT))
    assert screen.grid.value == 5  # round the row and back
    app.handle(KeyEvent(Key.LEFT))
    assert screen.grid.value == 30  # LEFT from the first wraps to the last of the colour
    app.handle(KeyEvent(Key.RIGHT))
    app.handle(KeyEvent(Key.DOWN))
    assert game.fact(screen.grid.value, "colour") != 0  # the next colour's row
    for _ in range(len(screen.grid.rows) - 1):
        app.handle(KeyEvent(Key.DOWN))
    assert screen.grid.value == 5  # DOWN through every row and round to the same place
    app.handle(KeyEvent(Key.OK))
    assert game.actions[-1] == Rest(5)


def test_cards_whose_colour_is_not_told_share_rows_of_their_own() -> None:
    app = make_app(new_game(3, facts_without(12, 13)))
    screen = app.top
    assert isinstance(screen, CardScreen)
    untold = [row for row, group in zip(screen.grid.rows, screen.grid.groups, strict=True) if group == UNTOLD]
    assert [card for row in untold for _, card in row] == [12, 13]
    assert screen.group_of(Rest(12)) == UNTOLD and screen.group_of(Rest(14)) == 14 % 5


def test_a_follower_starts_in_the_lead_colour_every_follower_two_arrows_away_at_most() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "K", [31, 32, 29])
    game.push(Play(game.decision.seat, 10))  # colour 0: the unseen followers are 5, 15, 20, 25
    app = make_app(game)
    screen = app.top
    assert isinstance(screen, CardScreen) and game.fact(screen.grid.value, "colour") == 0
    seat = game.decision.seat
    assert all(len(presses_for(app, Play(seat, card))) <= 3 for card in (5, 15, 20, 25))  # <= 2 arrows, OK


def test_l_lowest_offers_the_lowest_unseen_card_ready_for_ok() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "L lowest", [31, 32, 29])
    app = make_app(game)
    seat = game.decision.seat
    assert presses_for(app, Play(seat, 1)) == [KeyEvent(Key.OK)]
    app.handle(KeyEvent(Key.OK))
    assert app.session.game.actions[-1] == Play(seat, 1)


def test_on_the_card_keypad_a_follower_starts_on_a_likely_card_no_digit_enters_alone_so_hash_does() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "K", [31, 32, 29])
    app = make_app(game)
    leader = game.decision.seat
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.N0))  # the lead, 10 (colour 0): the unseen followers are 5, 15, 20, 25
    assert game.actions[-1] == Play(leader, 10)
    screen = app.top
    assert isinstance(screen, CardScreen)
    seat, under = game.decision.seat, screen.grid.value
    assert under in (15, 20, 25)  # of the lead colour, and two digits to type (5 is one press anyway)
    assert presses_for(app, Play(seat, under), "keypad") == [KeyEvent(Key.HASH)]
    app.handle(KeyEvent(Key.HASH))
    assert game.actions[-1] == Play(seat, under)
    assert str(under) in screen.ui.trick_text(game.state.deal.open_trick.turns)  # shown before the next is asked
    app.handle(KeyEvent(Key.STAR, long=True))
    app.handle(KeyEvent(Key.HASH))
    assert game.actions[-1] == Play(leader, 10)


def test_three_enters_at_once_when_thirty_to_thirty_two_are_seen_or_held_elsewhere() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "A", [31, 32, 29])  # A: the shown bottoms play themselves, no hand offers them
    app = make_app(game)
    seat = game.decision.seat
    assert not any(str(action.card).startswith("3") and action.card != 3 for action in app.top.options)
    app.handle(KeyEvent(Key.N3))
    assert game.actions[-1] == Play(seat, 3)


@pytest.mark.parametrize("layout", ["joystick", "keypad"])
def test_a_hand_starts_on_its_own_shown_bottom_card_which_it_surely_holds(layout: str) -> None:
    game = new_game(3, plain_facts())
    game.push_text("rest 30")
    for card in (31, 32, 29):
        game.push_text(f"bottom {card}")
    app = make_app(game)
    enter_by_keys(app, game.parse("rule K"), layout)  # the hand's screen opens after a key of ``layout``
    seat = game.decision.seat
    held = game.state.deal.bottoms[seat]
    screen = app.top
    assert isinstance(screen, CardScreen) and screen.grid.value == held
    ok = KeyEvent(Key.HASH if layout == "keypad" else Key.OK)
    assert presses_for(app, Play(seat, held), layout) == [ok]


@pytest.mark.parametrize(("rules", "players"), [("DEF", 2), ("JKL", 4), ("ABC", 3)])
def test_whole_games_by_card_keypad_presses_match_their_replays(rules: str, players: int) -> None:
    played = simulated(rules, players, misplay_rate=0.2)
    app = make_app(type(played)(played.setup))
    presses = sum(enter_by_keys(app, action, "keypad") for action in played.actions)
    assert app.session.game.summary() == played.summary()
    assert presses < 1.6 * len(played.actions)


def test_a_simulated_tables_facts_are_all_typed_one_press_each_on_the_card_keypad() -> None:
    rng = random.Random(3)
    game = new_game(4)
    table = ZenjidouTable(game, rng)
    app = make_app(type(game)(game.setup))
    while not game.is_over() and len(game.actions) < 60:
        action = table.choose(game, rng)
        game.push(action)
        presses = enter_by_keys(app, action, "keypad")
        if isinstance(action, Answer):
            assert presses == 1, action
    assert app.session.game.summary() == game.summary()


def lead_ten_by_keypad() -> tuple[Zenjidou, App, int]:
    """Rule K, the lead 10 (colour 0) typed on the card keypad: the unseen followers are 5, 15, 20, 25."""
    game = new_game(3, plain_facts())
    start_round(game, 30, "K", [31, 32, 29])
    app = make_app(game)
    leader = game.decision.seat
    app.handle(KeyEvent(Key.N1))
    app.handle(KeyEvent(Key.N0))
    assert game.actions[-1] == Play(leader, 10)
    return game, app, leader


def test_the_letters_stand_for_the_next_likeliest_cards_a_digit_alone_would_not_enter() -> None:
    _, app, _ = lead_ten_by_keypad()
    screen = app.top
    assert isinstance(screen, CardScreen)
    letters = screen.letter_cards()
    assert list(letters) == [Key.A, Key.B, Key.C, Key.D]
    followers = {15, 20, 25} - {screen.grid.value}  # the cursor's follower is # alone
    assert followers <= set(letters.values())  # the lead colour's other two-digit cards come first
    assert screen.grid.value not in letters.values() and 5 not in letters.values()  # 5: one press anyway
    assert list(letters.values()) == sorted(letters.values())
    drawn = " ".join(f"{letter.name}{card}" for letter, card in letters.items())
    assert screen.hint().startswith(drawn)  # e.g. "A15 B25 C11 D12": what each letter gives, on the glass


def test_a_letter_enters_the_card_drawn_beside_it_at_once_the_trick_shows_it_and_held_star_undoes_it() -> None:
    game, app, leader = lead_ten_by_keypad()
    screen = app.top
    assert isinstance(screen, CardScreen)
    seat = game.decision.seat
    letter, card = next((key, card) for key, card in screen.letter_cards().items() if card in (15, 20, 25))
    app.handle(KeyEvent(letter))
    assert game.actions[-1] == Play(seat, card)
    assert f":{card}" in screen.ui.trick_text(game.state.deal.open_trick.turns)  # shown before the next is asked
    app.handle(KeyEvent(Key.STAR, long=True))
    app.handle(KeyEvent(Key.HASH))
    assert game.actions[-1] == Play(leader, 10) and game.decision.seat == seat


def test_the_letters_are_drawn_only_on_the_card_keypad_and_enter_only_once_drawn() -> None:
    game = new_game(3, plain_facts())
    start_round(game, 30, "K", [31, 32, 29])
    app = make_app(game)
    enter_by_keys(app, Play(game.decision.seat, 10), "joystick")
    screen = app.top
    assert isinstance(screen, CardScreen)
    seat = game.decision.seat
    assert screen.hint() == app.t("zenjidou.hint.cards", count=len(screen.options))  # no letters on the joystick
    entered = len(game.actions)
    app.handle(KeyEvent(Key.A))  # the letters were not on the glass: this press only draws them
    assert len(game.actions) == entered
    card = screen.letter_cards()[Key.A]
    assert screen.hint().startswith(f"A{card} ")
    app.handle(KeyEvent(Key.A))
    assert game.actions[-1] == Play(seat, card)


def test_the_planner_presses_a_letter_where_it_is_the_fewest_presses() -> None:
    game, app, _ = lead_ten_by_keypad()
    screen = app.top
    assert isinstance(screen, CardScreen)
    seat = game.decision.seat
    for letter, card in screen.letter_cards().items():
        assert presses_for(app, Play(seat, card), "keypad") == [KeyEvent(letter)]
    assert presses_for(app, Play(seat, screen.grid.value), "keypad") == [KeyEvent(Key.HASH)]
    assert presses_for(app, Play(seat, 5), "keypad") == [KeyEvent(Key.N5)]  # a digit alone: no letter needed
    lettered = set(screen.letter_cards().values()) | {screen.grid.value}
    other = next(option.card for option in screen.options if option.card >= 10 and option.card not in lettered)
    assert len(presses_for(app, Play(seat, other), "keypad")) == 2  # two digits, as before


def test_golden_the_card_keypad_draws_each_letters_card_in_the_hint_row() -> None:
    _, app, _ = lead_ten_by_keypad()
    check_golden(app, "zenjidou-letters")
