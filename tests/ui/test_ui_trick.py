"""The trick screen: what the picker offers, where it starts, and how abilities are declared."""

from __future__ import annotations

from typing import Any

from companion.games.tezuma.rules import Card, Play
from companion.games.tezuma.screens import DraftScreen, QuestionScreen, TrickScreen
from companion.hw.keys import Key
from companion.ui.tricks import ResultScreen, RevokeScreen
from tests.ui.helpers import enter, make_app, new_game, press, texts

# seat: P1 paper-egg, P2 fire-breathing, P3 sword-walking, P4 five-color-sand
PICKS = ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3", "scoring 4",
         "ability paper-egg", "ability fire-breathing", "ability sword-walking", "ability five-color-sand"]
ABILITIES = ["paper-egg", "fire-breathing", "sword-walking", "five-color-sand", "baby-chicks", "pail-dance"]


def table(*plays: str, **options: Any) -> Any:
    game = new_game(abilities=ABILITIES, **options)
    for line in [*PICKS, *plays]:
        game.push_text(line)
    return game


def trick_screen(app: Any) -> TrickScreen:
    screen = app.top
    assert isinstance(screen, TrickScreen)
    return screen


def offered(screen: TrickScreen) -> set[Card]:
    return {card for row in screen.grid.rows for _, card in row}


def test_only_cards_the_table_has_not_seen_are_offered() -> None:
    game = table("B7", "B2", "B6", "B3", "BT")
    screen = trick_screen(make_app(game))
    cards = offered(screen)
    assert not {Card("B", 7), Card("B", 2), Card("B", 6), Card("B", 3)} & cards
    assert Card("B", 0) in cards  # two of the three butterfly trumps are still unseen
    assert len(cards) == 4 * 9 - 4 + 4


def test_a_follower_starts_on_the_lead_suit_trump_and_the_leader_on_a_long_suit() -> None:
    leader = trick_screen(make_app(table()))
    assert leader.grid.value == Card("B", 0)  # every suit is as long: the first one, its trump
    follower = trick_screen(make_app(table("U4")))
    assert follower.grid.value == Card("U", 0)


def test_without_trumps_left_a_follower_starts_on_the_lead_suits_lowest_with_its_highest_one_press_away() -> None:
    game = table("BT", "BT", "BT", "B3", "B5")  # P4 won with B3 and led B5; every butterfly trump is down
    follower = trick_screen(make_app(game))
    assert follower.seat == 0
    assert follower.grid.value == Card("B", 1)  # people duck low or win high
    assert follower.grid.moved(Key.LEFT).value == Card("B", 9)  # LEFT wraps round to the highest


def test_a_seat_that_showed_a_void_starts_on_another_suit() -> None:
    game = table("B7", "U2", "B6", "B3", "B9")  # P2 did not follow butterfly: presumably void
    screen = trick_screen(make_app(game))
    assert screen.seat == 1 and screen.grid.value.suit != "B"


def test_left_and_right_walk_the_whole_suit_and_up_down_jump_between_its_halves() -> None:
    screen = trick_screen(make_app(table()))
    grid, walked = screen.grid, []
    for _ in range(10):
        grid = grid.moved(Key.RIGHT)
        walked.append(str(grid.value))
    assert walked == ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "BT"]
    assert str(screen.grid.moved(Key.UP).value) == "B5"  # from the upper half to the lower one
    assert screen.grid.moved(Key.DOWN).value.suit != "B"  # on to the next suit


def test_the_suits_come_likeliest_first_and_one_the_seat_showed_it_lacks_farthest_from_the_start() -> None:
    screen = trick_screen(make_app(table("B7", "U2", "B6", "B3", "B9")))  # P2 did not follow butterfly
    grid, rows = screen.grid, len(screen.grid.rows)

    def presses_to(suit: str) -> int:  # UP or DOWN presses from the start's row to the suit's nearest row
        return min(min(abs(r - grid.row), rows - abs(r - grid.row))
                   for r, row in enumerate(grid.rows) if row and row[0][1].suit == suit)

    others = {card.suit for row in grid.rows for _, card in row} - {"B"}
    assert screen.seat == 1 and grid.groups[grid.row] == grid.groups[0]  # the start's suit is the first
    assert all(presses_to("B") > presses_to(suit) for suit in others)


def test_hold_ok_plays_the_card_with_the_ability() -> None:
    game = table("W5")
    app = make_app(game)
    app.handle(press(Key.LEFT))
    app.handle(press(Key.LEFT))  # W8
    app.handle(press(Key.OK, long=True))  # P2 holds Fire Breathing: the first card is taken
    screen = trick_screen(app)
    assert screen.first == Card("W", 8) and {c.suit for c in offered(screen)} == {"W"}
    assert Card("W", 8) not in offered(screen) and Card("W", 0) not in offered(screen)
    assert app.render().crop((0, 0, 128, 8)).histogram()[0] < 700  # the lit header names it
    enter(app, [Play(1, (Card("W", 8), Card("W", 2)), "fire-breathing")])
    assert app.session is not None and app.session.game.actions[-1].cards == (Card("W", 8), Card("W", 2))


def test_back_drops_fire_breathings_first_card() -> None:
    app = make_app(table("W5"))
    app.handle(press(Key.LEFT))
    app.handle(press(Key.OK, long=True))
    assert trick_screen(app).first == Card("W", 9)
    app.handle(press(Key.BACK))
    screen = trick_screen(app)
    assert screen.first is None and screen.armed and Card("U", 3) in offered(screen)


def test_aux_arms_the_ability_and_the_engine_refuses_a_trump_for_fire_breathing() -> None:
    app = make_app(table("W5"))
    app.handle(press(Key.AUX))
    assert trick_screen(app).armed
    app.handle(press(Key.AUX))
    assert not trick_screen(app).armed
    app.handle(press(Key.AUX))
    app.handle(press(Key.OK))  # the cursor starts on the water trump
    assert app.message == "Fire Breathing puts down two different number cards of one suit, no trump"
    app.handle(press(Key.LEFT))
    app.handle(press(Key.OK))
    assert trick_screen(app).first == Card("W", 9)


def test_paper_egg_declaration_then_the_deferred_card() -> None:
    game = table("U5")  # P1 holds Paper Egg
    app = make_app(game)
    enter(app, texts(game, "U6", "U7", "U8"))  # trick 1 done: P4 won and leads trick 2
    assert app.session is not None
    enter(app, texts(app.session.game, "W9"))
    app.handle(press(Key.OK, long=True))  # P1, after the lead, declares Paper Egg: no card
    assert app.session.game.actions[-1] == Play(0, (), "paper-egg")
    enter(app, texts(app.session.game, "W1", "W2"))
    screen = trick_screen(app)
    assert screen.seat == 0 and "Paper Egg" in app.session.game.decision.prompt
    assert screen.grid.value.suit == "W"
    enter(app, texts(app.session.game, "W3"))
    assert app.session.game.state.deal.tricks[1].result is not None


def test_five_color_sand_needs_no_card() -> None:
    game = table("B7", "B2", "B6")
    app = make_app(game)
    app.handle(press(Key.AUX))
    assert trick_screen(app).armed
    app.handle(press(Key.OK))
    assert app.session is not None and app.session.game.actions[-1] == Play(3, (), "five-color-sand")


def test_a_house_ruling_is_shown_in_full() -> None:
    game = new_game(abilities=ABILITIES)
    for line in ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3",
                 "scoring 4", "ability baby-chicks", "ability pail-dance", "ability sword-walking",
                 "ability paper-egg", "B5 baby-chicks", "B3 pail-dance", "B7"]:
        game.push_text(line)
    app = make_app(game)
    enter(app, texts(game, "B2"))
    screen = app.top
    assert isinstance(screen, ResultScreen)
    assert screen.trick.result is not None and screen.trick.result.house
    app.handle(press(Key.OK))
    assert isinstance(app.top, TrickScreen) and app.top.seat == 2  # P2's Pail Dance, declared later: P3 leads


def test_a_proved_revoke_is_announced() -> None:
    game = table("B7", "U2", "B6", "B3")  # P2 did not follow butterfly
    app = make_app(game)
    enter(app, texts(game, "R9", "B1"))  # ...and now shows a butterfly
    assert isinstance(app.top, RevokeScreen)
    assert app.top.revoke.seat == 1
    app.handle(press(Key.OK))
    assert isinstance(app.top, TrickScreen)


def test_a_deal_ends_with_the_last_trick_the_question_and_the_scores() -> None:
    game = table()
    deal = [("B9", "B1", "B2", "B3"), ("B8", "B4", "B5", "B6"), ("U9", "U2", "U3", "R1"), ("U8", "U4", "U5", "R2"),
            ("BT", "B7", "BT", "BT"), ("W9", "W1", "W2", "W3"), ("W8", "W4", "W5", "W6"), ("W7", "WT", "WT", "WT"),
            ("U7", "U6", "R3", "U1"), ("UT", "UT", "R4", "UT"), ("R9", "R5", "R6", "R7")]
    for plays in deal:
        for line in plays:
            game.push_text(line)
    facts: list[tuple[str, str, int]] = []
    app = make_app(game, on_fact=lambda *fact: facts.append(fact))
    enter(app, texts(game, "R8", "RT", "RT", "RT"))
    assert isinstance(app.top, ResultScreen)
    app.handle(press(Key.OK))
    assert isinstance(app.top, QuestionScreen) and app.top.question.key == "points:2:8"
    for _ in range(4):
        app.handle(press(Key.UP))
    app.handle(press(Key.OK))
    assert facts == [("tezuma-2015", "points:2:8", 4)]
    while isinstance(app.top, QuestionScreen):
        app.handle(press(Key.OK))
    assert type(app.top).__name__ == "DealScreen"
    app.handle(press(Key.OK))
    assert isinstance(app.top, DraftScreen)
