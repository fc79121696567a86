"""Zenjidou on the device: whole games by key presses, rounds walked card by card as the cards go
down (K and L with a revoke flagged), I's passes and J's nomination naming the right seats, the
countdown, the quiz buzzers."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from companion.games.zenjidou.rules import HOUSE_TIE_TOP, Guesses, Play, Point
from companion.games.zenjidou.screens import (
    FactsScreen,
    GuessScreen,
    ListScreen,
    OrderScreen,
    PlayedScreen,
    QuizScreen,
    RuleNotice,
    ZDealScreen,
)
from companion.games.zenjidou.table import ZenjidouTable
from companion.hw.buzzers import BuzzerArbiter, GpioBuzzers
from companion.hw.keys import Key, KeyEvent
from companion.sim import new_random_game
from companion.ui.planner import presses_for
from companion.ui.tricks import ResultScreen, RevokeScreen
from tests.ui.helpers import FakeClock, check_golden, enter, make_app, texts


def simulated(rules: str = "BCD", players: int = 3, misplay_rate: float = 0.0):
    rng = random.Random(5)
    game = new_random_game("zenjidou", players, rng)
    table = ZenjidouTable(game, rng, misplay_rate=misplay_rate)
    while not game.is_over():
        table.rules = rules[game.state.deal.index]
        game.push(table.choose(game, rng))
    return game


@pytest.mark.parametrize(("rules", "players"), [("DEF", 2), ("GHI", 4), ("JKL", 6), ("KLA", 3)])
def test_whole_games_of_every_rule_by_keys_match_their_replays_revokes_included(rules: str, players: int) -> None:
    played = simulated(rules, players, misplay_rate=0.2)
    app = make_app(type(played)(played.setup))
    enter(app, played.actions)
    assert app.session.game.summary() == played.summary()
    if set(rules) & set("DFGHIJK"):
        assert played.state.revokes, "the simulated table revoked under a must-follow rule"


def test_a_whole_game_with_b_and_c_rounds_by_keys_matches_its_replay() -> None:
    played = simulated()
    clock = FakeClock()
    app = make_app(type(played)(played.setup), clock=clock)
    heard: list[tuple[str, dict[str, Any]]] = []
    app.session.listeners.append(lambda change, data: heard.append((change, data)))
    presses = enter(app, played.actions)
    assert app.session.game.summary() == played.summary()
    assert heard == [("action", action.to_json()) for action in played.actions]
    print(f"zenjidou whole game: {presses} presses for {len(played.actions)} actions")


def test_a_whole_game_with_buzzers_and_the_countdown_by_mock_presses_matches_its_replay() -> None:
    """Rounds B (quiz by mock GPIO buzzers), C (the 30-second countdown on the app's clock) and D."""
    played = simulated()
    points = [a for a in played.actions if isinstance(a, Point)]
    assert points, "the simulated B round has points to make"
    factory = MockFactory()
    clock = FakeClock()
    arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.05)
    pins = {0: 5, 1: 6, 2: 13}
    buzzers = GpioBuzzers(pins, arbiter, clock=clock, pin_factory=factory)
    try:
        app = make_app(type(played)(played.setup), clock=clock, buzzers=arbiter)
        for action in played.actions:
            if isinstance(action, Point):
                while len(app.screens) > 1:  # the last trick's result
                    app.handle(KeyEvent(app.top.leave_key))
                pin = factory.pin(pins[action.player])
                pin.drive_low()
                pin.drive_high()
                clock.advance(0.1)
                app.tick()
                assert isinstance(app.top, QuizScreen) and app.top.pointer == action.player
            if isinstance(action, Guesses):  # the C round's countdown runs out on the app's clock
                while len(app.screens) > 1:
                    app.handle(KeyEvent(app.top.leave_key))
                assert isinstance(app.top, GuessScreen) and app.top.counting
                clock.advance(30)
                app.tick()
                assert not app.top.counting
            enter(app, [action])
        assert app.session.game.summary() == played.summary()
    finally:
        buzzers.close()


def test_the_facts_question_shows_four_rows_and_enters_the_asked_one() -> None:
    game = new_random_game("zenjidou", 3, random.Random(1))
    game.push_text("rest 12")
    told: list[tuple[str, str, int]] = []
    app = make_app(game, on_fact=lambda g, k, v: told.append((g, k, v)))
    assert isinstance(app.top, FactsScreen) and app.top.name == "colour"
    app.handle(KeyEvent(Key.RIGHT))
    app.handle(KeyEvent(Key.OK))
    assert told == [("zenjidou", "card:12:colour", 1)]
    assert isinstance(app.top, FactsScreen) and app.top.name == "score"


def test_the_c_countdown_runs_on_the_apps_clock_and_then_takes_guesses() -> None:
    played = simulated("CCC")
    guesses_at = next(i for i, a in enumerate(played.actions) if a.type == "guesses")
    game = type(played)(played.setup)
    for action in played.actions[:guesses_at]:
        game.push(action)
    clock = FakeClock()
    app = make_app(game, clock=clock)
    screen = app.top
    assert isinstance(screen, GuessScreen) and screen.counting
    assert app.next_deadline() is not None and app.next_deadline() <= clock.now + 1
    clock.advance(10)
    app.tick()
    assert screen.seconds_left() == 20 and screen.counting
    clock.advance(20)
    app.tick()
    assert not screen.counting
    enter(app, [played.actions[guesses_at]])
    assert app.session.game.state.deals[0].guesses == played.actions[guesses_at].guesses


def example_1_app(cards: list[str], rule: str = "A", **app_options: Any):
    from tests.zenjidou.helpers import new_game, plain_facts, push, start_round
    from tests.zenjidou.test_book_examples import EXAMPLE_1

    game = new_game(4, plain_facts({**EXAMPLE_1, 1: {"rule": 1}}))
    start_round(game, 1, rule, bottoms=[31, 30, 29, 28])
    push(game, *cards)
    return make_app(game, **app_options)


def test_golden_effect_summary_after_a_card() -> None:
    app = example_1_app(["5", "7", "16"])
    assert isinstance(app.top, ListScreen)
    check_golden(app, "zenjidou-effects")


def test_golden_trick_reason() -> None:
    app = example_1_app(["5", "7", "16"])
    enter(app, [Play(3, 21)])
    assert isinstance(app.top, ResultScreen)
    check_golden(app, "zenjidou-result")


def test_golden_quiz_tie_then_the_first_pointer_picks_a_card() -> None:
    """P3 and P2 press within the timing resolution: a tie, shown; they point again, P2 alone."""
    clock = FakeClock()
    arbiter = BuzzerArbiter(resolution_s=0.001, settle_s=0.05)
    app = example_1_app(["5", "7", "16", "21"], rule="B", clock=clock, buzzers=arbiter)
    assert isinstance(app.top, QuizScreen)
    arbiter.press(2, at=10.0000, now=clock.now)
    arbiter.press(1, at=10.0004, now=clock.now)
    clock.advance(0.1)
    app.tick()
    assert app.top.tie == (1, 2)
    check_golden(app, "zenjidou-quiz-tie")
    app.handle(KeyEvent(Key.OK))
    arbiter.press(1, at=12.0, now=clock.now)
    clock.advance(0.1)
    app.tick()
    assert app.top.pointer == 1
    check_golden(app, "zenjidou-quiz")


def test_a_tie_for_top_names_the_house_ruling_on_the_round_scores() -> None:
    from tests.zenjidou.helpers import (
        new_game,
        plain_facts,
        play_round,
        push,
        start_round,
    )
    from tests.zenjidou.test_rules import BOTTOMS, HANDS

    game = new_game(3, plain_facts())
    start_round(game, 32, "C", BOTTOMS)
    push(game, "guess 2 3 1")
    play_round(game, HANDS, lambda game, held, lead: held[0])
    *before, last = game.actions
    game = type(game)(game.setup)
    for action in before:
        game.push(action)
    app = make_app(game)
    enter(app, [last])
    assert isinstance(app.top, ResultScreen)  # the last trick, then the round's scores
    app.handle(KeyEvent(Key.OK))
    assert isinstance(app.top, ZDealScreen) and app.session.game.state.deals[0].house == [HOUSE_TIE_TOP]
    check_golden(app, "zenjidou-tie")


def test_the_setup_form_starts_a_zenjidou_game_with_the_tables_facts() -> None:
    from companion.ui.screens import SetupForm
    from tests.ui.helpers import choose_game, press

    app = make_app(table_facts=lambda game_id: {"card": {"12": {"colour": 1}}} if game_id == "zenjidou" else {})
    choose_game(app, "zenjidou")
    form = app.top
    assert isinstance(form, SetupForm)
    app.handle(press(Key.DOWN))
    while form.players.value != "2":
        app.handle(press(Key.LEFT))
    for _ in range(3):  # past the two names to Start
        app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    game = app.session.game
    assert game.game_id == "zenjidou" and game.players == 2 and game.n == 4
    assert game.fact(12, "colour") == 1 and isinstance(app.top, ListScreen)


def test_two_players_round_scores_table_and_chart_name_each_hand() -> None:
    from tests.zenjidou.helpers import new_game, plain_facts, play_round, start_round

    game = new_game(2, plain_facts())
    hands = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22], [2, 3, 7, 8, 12]]
    start_round(game, 32, "D", [hand[0] for hand in hands])
    play_round(game, hands)
    app = make_app(game)
    ui = app.ui
    assert [ui.short_name(hand) for hand in range(4)] == ["Aki", "Ben", "Aki'", "Ben'"]
    screen = ZDealScreen(app, ui, 0)
    app.open(screen)
    app.handle(KeyEvent(Key.RIGHT))  # the chart
    assert screen.chart and app.render().size == (128, 64)


def test_a_buzz_while_the_last_card_is_being_entered_counts() -> None:
    """Players point as the last card is turned; the operator enters it a moment later."""
    clock = FakeClock()
    arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.05)
    app = example_1_app(["5", "7", "16"], rule="B", clock=clock, buzzers=arbiter)
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "play"
    arbiter.press(2, at=50.0, now=clock.now)
    clock.advance(2.0)
    enter(app, [Play(3, 21)])
    assert isinstance(app.top, QuizScreen) and app.top.pointer == 2


def test_golden_card_facts_on_one_screen() -> None:
    """Card 12's colour and score told, its effect being asked ("blue trump"), its rule still open."""
    game = new_random_game("zenjidou", 3, random.Random(1))
    game.push_text("rest 12")
    game.push_text("1")  # red
    game.push_text("3")  # +3
    app = make_app(game)
    for _ in range(4):  # none, low numbers strong, its cancel, trump void, blue trump
        app.handle(KeyEvent(Key.RIGHT))
    assert isinstance(app.top, FactsScreen) and app.top.name == "effect" and app.top.value == 4
    check_golden(app, "zenjidou-facts")



def test_tricks_that_play_themselves_are_announced_on_one_screen_trick_by_trick() -> None:
    """Under A the shown bottom cards are the piles' last: entering trick 4's last card plays trick 5."""
    from tests.zenjidou.helpers import new_game, plain_facts, push, start_round

    game = new_game(3, plain_facts())
    start_round(game, 32, "A", bottoms=[19, 1, 22])
    push(game, "31", "5", "20", "4", "10", "6", "9", "15", "26", "14", "27")
    app = make_app(game)
    enter(app, [Play(game.decision.seat, 11)])
    screen = app.top
    assert isinstance(screen, PlayedScreen) and (screen.deal, screen.index) == (0, 3)
    app.handle(KeyEvent(Key.RIGHT))
    assert screen.index == 4 and screen.trick is game.state.deals[0].tricks[4]
    app.handle(KeyEvent(Key.OK))
    assert isinstance(app.top, ZDealScreen)


# --- a round walked card by card, as the cards go down -------------------------------------------

K_TRICKS = [  # 4 players, facts plain (colour n % 5: 1, 6, 11, 16, 21, 26, 31 red): hand 0 leads
    ["31", "24", "23", "26"],  # red led: hands 1 and 2 put down no red
    ["4", "13", "6", "21"],  # red 31 won; hand 2 shows red 6: its decline in trick 1 was a revoke
]


def walk(app: Any, actions: list[Any]) -> list[list[Any]]:
    """Enter each action by its planned presses; the notices each one raised."""
    raised = []
    for action in actions:
        for event in presses_for(app, action):
            app.handle(event)
        raised.append(list(app.screens[1:]))
    return raised


def kinds(raised: list[Any]) -> list[type]:
    return [type(screen) for screen in raised]


def round_app(rule: str, players: int = 4, bottoms: tuple[int, ...] = (31, 20, 5, 2)):
    from tests.zenjidou.helpers import new_game, plain_facts

    game = new_game(players, plain_facts())
    return make_app(game), texts(game, "rest 32", *(f"bottom {b}" for b in bottoms[:game.n]), f"rule {rule}")


def test_a_K_round_by_keys_enters_each_card_as_it_goes_down_and_flags_the_revoke() -> None:
    app, setup = round_app("K")
    walk(app, setup)
    game = app.session.game
    first = texts(game, *K_TRICKS[0])
    assert all(isinstance(a, Play) for a in first) and [a.hand for a in first] == [0, 1, 2, 3]
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "play"
    raised = walk(app, first)
    assert RevokeScreen not in kinds(raised[-1]) and game.state.revokes == []  # nothing certain yet
    raised = walk(app, texts(game, *K_TRICKS[1]))
    assert [RevokeScreen in kinds(r) for r in raised] == [False, False, True, False]  # as hand 2's red 6 goes down
    screen = next(s for s in raised[2] if isinstance(s, RevokeScreen))
    assert screen.revoke.seat == 2 and app.ui.revoke_text(screen.revoke).startswith("P3 did not follow red in trick 1")
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "play"  # the table decides; play goes on
    assert ZDealScreen in kinds(finish_round(app)[-1]) and game.state.deals[0].scores is not None


def finish_round(app: Any) -> list[list[Any]]:
    """Put down the rest of the round by keys, each time the lowest card the device would accept."""
    game = app.session.game
    raised = []
    while game.state.deals[0].scores is None:
        raised += walk(app, [next(iter(game.legal_actions))])
    return raised


def test_an_L_draw_round_by_keys_names_who_draws_and_the_device_draws_nothing() -> None:
    app, setup = round_app("L draw")
    walk(app, setup)
    game = app.session.game
    screen = app.top
    assert isinstance(screen, ListScreen) and screen.decision.seat == 0
    assert screen.note() == "P2 draws it at random"  # P1's left neighbour
    assert game.need().auto is None
    walk(app, texts(game, "31"))
    assert app.top.note() == "P3 draws it at random"
    raised = walk(app, texts(game, "24", "23", "26", "4", "13", "6"))
    raised += finish_round(app)
    assert not any(RevokeScreen in kinds(r) for r in raised) and game.state.revokes == []  # no colour is owed
    assert ZDealScreen in kinds(raised[-1]) and len(game.state.deals[0].tricks) == 5


def test_an_L_lowest_round_by_keys_flags_a_play_a_later_card_proves_was_not_the_lowest() -> None:
    app, setup = round_app("L lowest")  # shown bottoms 31, 20, 5, 2: each below every play above it
    walk(app, setup)
    game = app.session.game
    raised = walk(app, texts(game, "14", "3", "4", "1"))  # hand 0's 14 wins
    assert not any(OrderScreen in kinds(r) for r in raised)
    raised = walk(app, texts(game, "6"))  # hand 0 leads 6: it held 6 when it put down 14
    screen = next(s for s in raised[0] if isinstance(s, OrderScreen))
    text = app.ui.formatter.phrase(game.order_phrase(screen.broken))
    assert text == "P1 put down 14 in trick 1 while holding the lower 6 (shown in trick 2): L plays the lowest card"
    check_golden(screen_image(app, screen), "zenjidou-out-of-order")
    assert round_scored(app)


def test_an_L_lowest_play_above_a_shown_bottom_card_still_held_is_flagged_as_it_goes_down() -> None:
    app, setup = round_app("L lowest")
    walk(app, setup)
    game = app.session.game
    raised = walk(app, texts(game, "14", "3", "30"))  # hand 2 holds its shown 5
    assert [OrderScreen in kinds(r) for r in raised] == [False, False, True]
    screen = next(s for s in raised[2] if isinstance(s, OrderScreen))
    text = app.ui.formatter.phrase(game.order_phrase(screen.broken))
    assert text == "P3 put down 30 in trick 1 while holding the lower 5 (shown at set-up): L plays the lowest card"
    walk(app, texts(game, "1", "5"))  # 30 wins; hand 2 leads its 5, which proves nothing new
    assert [(o.trick, o.hand, o.held, o.shown_in) for o in game.state.deals[0].out_of_order] == [(0, 2, 5, None)]


def order_text(app: Any, raised: list[Any]) -> str:
    """The text of the one out-of-order notice among ``raised``."""
    [screen] = [s for s in raised if isinstance(s, OrderScreen)]
    return app.ui.formatter.phrase(app.session.game.order_phrase(screen.broken))


def test_a_D_round_1_play_against_the_known_top_card_is_flagged_as_it_goes_down() -> None:
    app, setup = round_app("D")  # hand 0 leads red 31 by itself; hand 1's top card is its shown 20 (blue)
    walk(app, setup)
    game = app.session.game
    raised = walk(app, texts(game, "7"))  # not red, not 20: D gives the top card or a red follower
    assert order_text(app, raised[0]) == ("P2 put down 7 in trick 1, neither red nor the top card 20 (shown at"
                                          " set-up): D plays one of them")
    screen = next(s for s in raised[0] if isinstance(s, OrderScreen))
    check_golden(screen_image(app, screen), "zenjidou-top-order")
    app.handle(KeyEvent(screen.leave_key))
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "play"  # the table decides; play goes on


def test_an_E_round_1_play_against_the_known_top_card_is_flagged_as_it_goes_down() -> None:
    app, setup = round_app("E")
    walk(app, setup)
    game = app.session.game
    raised = walk(app, texts(game, "6", "7"))  # 31 led; hand 1 may follow with red 6; hand 2 holds 5 on top
    assert OrderScreen not in kinds(raised[0])
    assert order_text(app, raised[1]) == ("P3 put down 7 in trick 1, neither red nor the top card 5 (shown at"
                                          " set-up): E plays one of them")
    assert game.state.revokes == []  # E owes no colour: only the order is broken


def screen_image(app: Any, screen: Any) -> Any:
    """The app showing ``screen`` alone, as it shows on top of the game screen."""
    while app.top is not screen:
        app.handle(KeyEvent(app.top.leave_key))
    return app


def round_scored(app: Any) -> bool:
    finish_round(app)
    return app.session.game.state.deals[0].scores is not None


def test_rule_I_tells_each_player_to_pass_to_the_right_neighbour_by_seat() -> None:
    app, setup = round_app("I")
    raised = walk(app, setup)
    assert kinds(raised[-1]) == [RuleNotice]
    assert app.ui.passes_text() == "P1>P4 P2>P1 P3>P2 P4>P3"
    check_golden(app, "zenjidou-pass")
    app.handle(KeyEvent(Key.OK))
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "play"
    game = app.session.game
    assert Play(0, 20) in game.legal_actions and Play(0, 5) not in game.legal_actions  # P2's bottom came to P1


def test_rule_J_offers_the_winner_or_the_left_neighbour_by_seat() -> None:
    app, setup = round_app("J")
    walk(app, setup)
    game = app.session.game
    walk(app, texts(game, "24", "23", "30"))  # hand 0 led its shown 31 by itself and wins
    screen = app.top
    while not isinstance(screen, ListScreen):
        app.handle(KeyEvent(screen.leave_key))
        screen = app.top
    assert screen.decision.kind == "lead" and [app.ui.option_text(o) for o in screen.options] == [
        "P1 leads (the winner)", "P2 leads (left neighbour)"]
    enter(app, texts(game, "lead left"))
    assert game.state.deal.tricks[1].lead == 1


def test_two_players_name_the_alternating_hands_house_ruling_at_set_up() -> None:
    from tests.zenjidou.helpers import new_game, plain_facts

    game = new_game(2, plain_facts())
    game.push_text("rest 32")
    app = make_app(game)
    assert isinstance(app.top, ListScreen) and app.top.decision.kind == "bottom"
    assert app.top.note() == "House: hands go P1 P2 P1' P2'"


def test_F_names_the_bottom_house_ruling_when_a_hand_plays_from_the_bottom() -> None:
    app, setup = round_app("F", players=3)
    walk(app, setup)
    game = app.session.game
    walk(app, texts(game, "side top"))
    assert app.top.note() == ""
    app.handle(KeyEvent(Key.RIGHT))
    assert app.top.note() == "House: bottom-most follower"  # while "from the bottom" is chosen
    app.handle(KeyEvent(Key.OK))
    walk(app, texts(game, "side top"))  # hand 0 leads its top card, the shown 31, by itself
    assert app.top.decision.seat == 1 and app.top.note() == "House: bottom-most follower"


def test_golden_rule_I_notice_in_japanese() -> None:
    from tests.zenjidou.helpers import new_game, plain_facts

    game = new_game(4, plain_facts())
    app = make_app(game, language="ja")
    walk(app, texts(game, "rest 32", "bottom 31", "bottom 20", "bottom 5", "bottom 2", "rule I"))
    assert isinstance(app.top, RuleNotice)
    check_golden(app, "zenjidou-pass-ja")


def test_six_players_guesses_keep_every_player_in_reach_of_the_cursor() -> None:
    """Rule C with 6 players: the guesses list more players than the rows hold; DOWN moves the
    cursor through all six, each on the glass as it comes, the hint's arrows saying more lie off it."""
    played = simulated("CCC", players=6)
    guesses_at = next(i for i, a in enumerate(played.actions) if a.type == "guesses")
    app = make_app(up_to(played, guesses_at))
    screen = app.top
    assert isinstance(screen, GuessScreen)
    app.handle(KeyEvent(Key.OK))  # end the countdown
    seen = set()
    for player in range(6):
        assert screen.row == player
        shown = app.canvas.texts
        seen |= {text.split()[0][1:] for text in shown if text.startswith(">P")}  # the cursor's row
        assert shown[-1] in ("↓", "↑", "↑↓")
        app.handle(KeyEvent(Key.DOWN))
    assert seen == {f"P{n}" for n in range(1, 7)}


def up_to(game: Any, stop: int) -> Any:
    copy = type(game)(game.setup)
    for action in game.actions[:stop]:
        copy.push(action)
    return copy


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_out_of_order_notice_fits_its_five_rows_in_both_languages(lang: str) -> None:
    """The longest case of each: two-digit cards, an unnamed colour (`colour 3`) as the lead colour."""
    from companion.ui.canvas import WIDTH
    from tests.zenjidou.helpers import new_game, plain_facts, push, start_round

    flagged = []
    for rule, bottoms, plays in (("J", [12, 27, 13, 14], ["22", "17", "32", "lead self", "18"]),
                                 ("E", [31, 20, 15, 2], ["11", "28"]),
                                 ("L lowest", [31, 20, 15, 2], ["14", "26"]),
                                 ("L closest", [31, 20, 15, 2], ["13"])):
        game = new_game(4, plain_facts(rule="smaller_first"))
        start_round(game, 1, rule, bottoms)
        push(game, *plays)
        flagged += [(game, broken) for broken in game.state.deals[0].out_of_order]
    assert {broken.variant for _, broken in flagged} == {"top_follower", "top_lead", "top_neither", "lowest",
                                                          "closest"}
    for game, broken in flagged:
        app = make_app(game, language=lang)
        assert len(app.face.wrap(app.ui.formatter.phrase(game.order_phrase(broken)), WIDTH)) <= 5
