"""Irohanihohedo on the device: whole games by key presses, the marker on screen, the shared notices."""

from __future__ import annotations

import dataclasses
import random
from functools import cache
from typing import Any

import pytest

from companion.carddata import facts_for, printed_cards, set_fact
from companion.engine.base import Answer, Game
from companion.games.irohanihohedo.rules import Irohanihohedo, deck_mask
from companion.games.irohanihohedo.screens import (
    DeckScreen,
    IrohanihohedoFinal,
    LowestScreen,
    TrickScreen,
    TricksWonScreen,
)
from companion.hw.keys import Key, KeyEvent
from companion.record import export_lines, read_record
from companion.sim import random_game
from companion.ui.screens import Confirm, SetupForm
from companion.ui.tricks import DealScreen, ResultScreen, RevokeScreen
from tests.ui.helpers import check_golden, choose_game, enter, make_app, press, renamed, texts


@cache
def simulated(players: int) -> Game[Any]:
    return random_game("irohanihohedo", players, random.Random(players))


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_whole_game_by_keys_matches_the_engine_and_its_replay(players: int) -> None:
    played = simulated(players)
    app = make_app(type(played)(played.setup))
    assert app.session is not None
    heard: list[tuple[str, dict[str, Any]]] = []
    app.session.listeners.append(lambda change, data: heard.append((change, data)))
    presses = enter(app, played.actions)
    replayed = read_record(export_lines(app.session.game)).game
    assert app.session.game.summary() == replayed.summary() == played.summary()
    assert any(isinstance(action, Answer) for action in played.actions) == (players < 6)  # the deck question
    assert heard == [("action", action.to_json()) for action in played.actions]
    while len(app.screens) > 1:  # the last deal's table, then the ranking
        app.handle(KeyEvent(app.top.leave_key))
    assert isinstance(app.top, IrohanihohedoFinal)
    per_card = presses / len(played.actions)
    print(f"irohanihohedo, {players} players: {per_card:.2f} presses per card")
    assert per_card <= 3.2  # the likeliest card first: about two arrows and OK (docs/figures.md)


def test_the_setup_form_offers_the_first_dealer_and_starts_the_game() -> None:
    app = make_app()
    choose_game(app, "irohanihohedo")
    form = app.top
    assert isinstance(form, SetupForm) and form.players.value == "6"
    for key in ["DOWN", "LEFT", "LEFT", "LEFT"]:  # 3 players
        app.handle(press(Key[key]))
    for _ in range(4):  # past the names to the dealer
        app.handle(press(Key.DOWN))
    app.handle(press(Key.RIGHT))  # P2 deals
    for _ in range(2):  # past "lowest up" to Start
        app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    assert app.session is not None
    game = app.session.game
    assert game.setup.players == ("Aki", "Ben", "Chie") and game.setup.options["dealer"] == 1
    assert isinstance(app.top, DeckScreen)  # no table told the 3-player numbers yet
    enter(app, texts(game, "skip"))
    assert isinstance(app.top, TrickScreen) and app.top.seat == 2  # the dealer's left neighbour leads


def marker_moved(*, strategic: bool = False) -> Any:
    game = renamed(simulated(4))
    setup = dataclasses.replace(game.setup, options={**game.setup.options, "strategic": strategic})
    app = make_app(type(game)(setup))
    enter(app, texts(app.session.game, "skip", "O7", "G3"))  # type: ignore[union-attr]
    return app


def test_trick_entry_shows_where_the_marker_lies() -> None:
    app = marker_moved()
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.grid.value.suit == "O"  # the lead's colour first
    check_golden(app, "irohanihohedo-trick")
    check_golden(make_app(app.session.game, language="ja"), "irohanihohedo-trick-ja")  # type: ignore[union-attr]


def test_a_finished_trick_and_its_reason_from_the_history() -> None:
    app = marker_moved()
    enter(app, texts(app.session.game, "O12", "G9"))  # type: ignore[union-attr]
    assert isinstance(app.top, ResultScreen)  # a reason longer than the trick screen's panel
    for key in ["OK", "BACK", "DOWN", "OK", "OK"]:  # past it, menu, history, this trick
        app.handle(press(Key[key]))
    assert isinstance(app.top, ResultScreen)
    check_golden(app, "irohanihohedo-result")


def test_the_base_game_shows_tricks_won_never_the_won_cards() -> None:
    """Won cards lie face down: AUX shows each seat's tricks won, and no card, lowest card or score."""
    app = marker_moved()
    game = app.session.game  # type: ignore[union-attr]
    assert not game.strategic
    enter(app, texts(game, "O12", "G9"))
    assert game.state.deal.captured[0]  # P1 won trick 1
    app.handle(press(Key.AUX))
    assert isinstance(app.top, TricksWonScreen) and game.face_up(game.state.deal) is None
    check_golden(app, "irohanihohedo-won")
    app.handle(press(Key.AUX))
    assert isinstance(app.top, TrickScreen)


def test_the_strategic_variant_shows_the_lowest_cards_per_colour() -> None:
    app = marker_moved(strategic=True)
    game = app.session.game  # type: ignore[union-attr]
    enter(app, texts(game, "O12", "G9"))
    app.handle(press(Key.AUX))
    assert isinstance(app.top, LowestScreen)
    assert game.face_up(game.state.deal) == [{"G": 3, "O": 7}, {}, {}, {}]  # P1 took O7 G3 O12 G9
    check_golden(app, "irohanihohedo-lowest")
    app.handle(press(Key.AUX))
    assert isinstance(app.top, TrickScreen)


def test_the_history_keeps_a_deal_s_earlier_tricks_face_down() -> None:
    """Of the deal in play only the last trick is listed; a finished deal's tricks all are."""
    played = renamed(simulated(4))
    app = make_app(type(played)(played.setup))
    enter(app, played.actions[:13])  # the deck question, three tricks of deal 1
    assert [line.split()[0] for line, _ in app.ui.history()] == ["1-3"]  # type: ignore[union-attr]
    enter(app, played.actions[13:41])  # deal 1 is over, one trick of deal 2
    assert [line.split()[0] for line, _ in app.ui.history()] == [f"1-{k}" for k in range(1, 10)] + ["2-1"]  # type: ignore[union-attr]


def test_a_revoke_is_shown_when_proved() -> None:
    game = simulated(3)
    app = make_app(type(game)(game.setup))
    enter(app, texts(app.session.game, "skip", "O7", "G3", "O2"))  # type: ignore[union-attr]
    enter(app, texts(app.session.game, "O9"))  # type: ignore[union-attr]  # P3 leads a bird it owed in trick 1
    assert isinstance(app.top, RevokeScreen)
    assert app.session.game.state.revokes[0].seat == 2  # type: ignore[union-attr]


def test_deal_scores_after_the_ninth_trick() -> None:
    played = renamed(simulated(4))
    app = make_app(type(played)(played.setup))
    enter(app, played.actions[:37])  # the deck question, then nine tricks
    assert [type(screen) for screen in app.screens[1:]] == [DealScreen, ResultScreen]
    app.handle(press(Key.OK))  # the last trick's result first
    assert isinstance(app.top, DealScreen)
    check_golden(app, "irohanihohedo-deal")
    app.handle(press(Key.RIGHT))
    check_golden(app, "irohanihohedo-chart")


def test_the_house_ruling_on_the_deck_is_named_until_a_table_tells_the_numbers() -> None:
    game = renamed(simulated(3))
    app = make_app(type(game)(game.setup))
    assert isinstance(app.top, DeckScreen)
    enter(app, texts(app.session.game, "skip"))  # type: ignore[union-attr]
    screen = app.top
    assert isinstance(screen, TrickScreen)
    assert "HOUSE: any number 1-12 is accepted" in screen._panel()
    told = {"numbers": {"3": {str(n): 1 for n in range(1, 7)}}}
    known = type(game)(dataclasses.replace(game.setup, table_facts=told))
    screen = make_app(known).top
    assert isinstance(screen, TrickScreen) and "HOUSE" not in screen._panel()
    assert screen._panel().startswith("Pass 2 cards left, then P2 Ben leads.")


def four_player_deck_question(table_facts: dict[str, Any] | None = None) -> tuple[Any, list[tuple[str, str, int]]]:
    remembered: list[tuple[str, str, int]] = []
    game = Irohanihohedo(Irohanihohedo.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=printed_cards("irohanihohedo"),
                                                 table_facts=table_facts))
    app = make_app(game, on_fact=lambda game_id, key, value: remembered.append((game_id, key, value)))
    return app, remembered


def test_the_deck_question_at_four_players_is_answered_on_one_screen_and_remembered() -> None:
    app, remembered = four_player_deck_question()
    screen = app.top
    assert isinstance(screen, DeckScreen) and screen.question.key == "numbers:4"
    check_golden(app, "irohanihohedo-deck")
    for key in ["OK", "RIGHT", "OK", "RIGHT", "OK"]:  # tick 1, 2, 3
        app.handle(press(Key[key]))
    assert screen.ticked == {1, 2, 3}
    app.handle(press(Key.OK))  # untick 3
    for key in ["DOWN", "DOWN", "LEFT", "OK"]:  # Done with two ticked: refused, nothing changes
        app.handle(press(Key[key]))
    assert app.message == "4 players use 8 numbers: tick 8, not 2 (or skip)"
    assert app.top is screen and not app.session.game.actions  # type: ignore[union-attr]
    answer = Answer("numbers:4", deck_mask(printed_cards("irohanihohedo"), [1, 2, 3, 4, 6, 7, 9, 10]))
    presses = enter(app, [answer])
    game = app.session.game  # type: ignore[union-attr]
    assert game.actions == [answer] and game.numbers == [1, 2, 3, 4, 6, 7, 9, 10]
    assert isinstance(app.top, TrickScreen) and "HOUSE" not in app.top._panel()
    assert remembered == [("irohanihohedo", f"numbers:4:{n}", int(n in game.numbers)) for n in range(1, 13)]
    print(f"irohanihohedo deck question, 4 players: {presses} presses after two ticks")
    assert len(app.top.grid.rows) == 10  # type: ignore[attr-defined]  # five colours, two rows each of 1-4, 6-10
    facts: dict[str, Any] = {}
    for game_id, key, value in remembered:
        set_fact(facts, game_id, key, value)
    again, asked = four_player_deck_question(facts_for(facts, "irohanihohedo"))  # the next 4-player game
    assert isinstance(again.top, TrickScreen) and again.session.game.numbers == game.numbers and not asked  # type: ignore[union-attr]


def test_done_with_nothing_ticked_is_refused_not_taken_for_skip() -> None:
    """Only Skip skips: Done with no number ticked is refused with the engine's reason."""
    app, remembered = four_player_deck_question()
    screen = app.top
    for key in ["UP", "OK"]:  # Done (UP wraps to the last row), nothing ticked
        app.handle(press(Key[key]))
    assert app.message == "4 players use 8 numbers: tick 8, not 0 (or skip)"
    assert app.top is screen and not app.session.game.actions and remembered == []  # type: ignore[union-attr]


def test_the_deck_question_may_be_skipped_and_then_the_house_ruling_is_named() -> None:
    app, remembered = four_player_deck_question()
    for key in ["UP", "RIGHT", "OK"]:  # Skip
        app.handle(press(Key[key]))
    game = app.session.game  # type: ignore[union-attr]
    assert game.actions == [Answer("numbers:4", 0)] and game.numbers_by_house and remembered == []
    assert isinstance(app.top, TrickScreen)
    assert "HOUSE: any number 1-12 is accepted" in app.top._panel()


def test_the_deck_answer_can_be_undone_and_reads_well() -> None:
    """Undo after the deck question names the numbers told (or the skip) and reopens the question."""
    for numbers, text in (([1, 2, 3, 4, 6, 7, 9, 10], "the deck: 1 2 3 4 6 7 9 10"), ([], "the deck: Skip: house")):
        app, _ = four_player_deck_question()
        enter(app, [Answer("numbers:4", deck_mask(printed_cards("irohanihohedo"), numbers))])
        app.handle(press(Key.BACK, long=True))
        assert isinstance(app.top, Confirm) and app.top.text == text
        app.handle(press(Key.OK))
        assert not app.session.game.actions and isinstance(app.top, DeckScreen)  # type: ignore[union-attr]


def test_a_partial_set_told_before_starts_ticked_and_says_how_many_are_missing() -> None:
    app, _ = four_player_deck_question({"numbers": {"4": {"1": 1, "2": 1, "3": 1, "5": 1, "8": 1}}})
    screen = app.top
    assert isinstance(screen, DeckScreen) and screen.ticked == {1, 2, 3, 5, 8}
    check_golden(app, "irohanihohedo-deck-partial")
    enter(app, texts(app.session.game, "1 2 3 5 8 10 11 12"))  # type: ignore[union-attr]
    assert app.session.game.numbers == [1, 2, 3, 5, 8, 10, 11, 12]  # type: ignore[union-attr]


def test_too_many_numbers_told_are_not_the_deck_either() -> None:
    app, _ = four_player_deck_question({"numbers": {"4": {str(n): 1 for n in range(1, 10)}}})
    screen = app.top
    assert isinstance(screen, DeckScreen) and len(screen.ticked) == 9
    assert app.session.game.numbers_by_house  # type: ignore[union-attr]
    enter(app, texts(app.session.game, "1 2 3 4 5 6 7 8"))  # type: ignore[union-attr]
    assert app.session.game.numbers == list(range(1, 9))  # type: ignore[union-attr]



REVOKED_EVERY_UNSEEN_COLOUR = """
O8 O5 O1 O2 O4 O12 | R3 R5 R9 R4 R1 R12 | Y3 O3 Y2 Y1 Y12 Y5 | B2 B5 B3 Y10 B7 B1
G2 R2 G11 Y4 O11 Y8 | B8 Y11 B6 G3 G1 O6 | O9 O10 R10 G5 B10 R7 | R6 R11 G4 B4 G12 G10
Y9 G7 G8 O7 B12
"""


def test_a_seat_that_declined_every_colour_still_unseen_gets_its_card_picker() -> None:
    """Random keys entered eight tricks of revokes after which every card P1 was not proved out of
    was seen: the picker's likelihood divided C(0, 1) by C(0, 1), and the press that entered the
    card before P1's turn raised ZeroDivisionError out of App.handle."""
    game = Irohanihohedo(Irohanihohedo.new_setup("ABCDEF", options={"dealer": 0}, seed=1,
                                                  cards=printed_cards("irohanihohedo")))
    for card in REVOKED_EVERY_UNSEEN_COLOUR.replace("|", " ").split():
        game.push(game.action_from_json({"type": "play", "seat": game.decision.actor, "card": card}))
    app = make_app(game)
    assert isinstance(app.top, TrickScreen) and app.top.seat == 0
    assert app.render().size == (128, 64)
    app.handle(press(Key.OK))
    assert app.session is not None and app.session.game.actions[-1].seat == 0
