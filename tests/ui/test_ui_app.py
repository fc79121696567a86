"""The app's contract with the daemon: timers, waking, refusals, undo, menus and settings."""

from __future__ import annotations

from typing import Any

import pytest

from companion.errors import ConfigError
from companion.games.tezuma.rules import Draft, Play
from companion.games.tezuma.screens import DraftScreen, TrickScreen
from companion.hw.keys import Key
from companion.registry import extra_package
from companion.ui import App, Settings
from companion.ui.planner import presses_for
from companion.ui.screens import Confirm, HistoryScreen, Menu, SettingsScreen
from companion.ui.tricks import ResultScreen
from tests.games import TEST_GAME_PACKAGE
from tests.plain_tricks.rules import PlainTricks
from tests.ui.helpers import FakeClock, enter, make_app, new_game, press, texts

PICKS = ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3", "scoring 4",
         "ability paper-egg", "ability horse-swallowing", "ability butterfly-dance", "ability five-color-sand"]


def drafted(**options: Any) -> Any:
    game = new_game(**options)
    for line in PICKS if not options.get("beginner") else PICKS[:8]:
        game.push_text(line)
    return game


def lit_share(app: App, first_row: int, rows: int) -> float:
    band = app.render().crop((0, first_row * 8, 128, (first_row + rows) * 8))
    return 1 - band.histogram()[0] / (band.width * band.height)


# --- display timers ------------------------------------------------------------------------

def test_dims_after_two_minutes_and_blanks_after_ten() -> None:
    clock = FakeClock()
    app = make_app(new_game(), clock=clock)
    start = clock.now
    assert (app.display_state, app.next_deadline()) == ("on", start + 120)
    clock.advance(119.9)
    app.tick()
    assert app.display_state == "on"
    version = app.version
    clock.advance(0.1)
    app.tick()
    assert (app.display_state, app.next_deadline()) == ("dim", start + 600)
    assert app.version > version  # the daemon must lower the contrast
    clock.advance(480)
    app.tick()
    assert (app.display_state, app.next_deadline()) == ("off", None)


@pytest.mark.parametrize("idle", [130.0, 700.0])
def test_the_waking_press_does_nothing_else(idle: float) -> None:
    clock = FakeClock()
    app = make_app(new_game(), clock=clock)
    before = app.render().tobytes()
    clock.advance(idle)  # no tick: a press may arrive before the daemon's timer fired
    app.handle(press(Key.OK))
    assert app.display_state == "on"
    assert app.session is not None and app.session.game.actions == []
    assert app.render().tobytes() == before
    assert app.next_deadline() == clock.now + 120
    app.handle(press(Key.OK))
    assert len(app.session.game.actions) == 1


def test_the_planner_adds_the_waking_press() -> None:
    clock = FakeClock()
    app = make_app(new_game(), clock=clock)
    clock.advance(200)
    app.tick()
    enter(app, [Draft(0, "penalty", "U")])
    assert app.session is not None and app.session.game.actions == [Draft(0, "penalty", "U")]


# --- refusals -----------------------------------------------------------------------------

def test_a_refused_key_flashes_the_engine_reason_and_changes_nothing() -> None:
    clock = FakeClock()
    app = make_app(drafted(), clock=clock)
    assert app.session is not None
    heard: list[str] = []
    app.session.listeners.append(lambda change, data: heard.append(change))
    before_version = app.version
    app.handle(press(Key.OK, long=True))  # P1 leads and holds Paper Egg, which the lead may not use
    assert app.message == "Paper Egg cannot be used by the lead player"
    assert app.session.game.actions[-1] == Draft(3, "ability", "five-color-sand") and heard == []
    assert app.version > before_version
    assert lit_share(app, 5, 3) > 0.5  # the inverted banner
    assert app.next_deadline() == clock.now + 1.0
    clock.advance(1.0)
    app.tick()
    assert app.message is not None and lit_share(app, 5, 3) < 0.5  # still readable, no longer flashing
    app.handle(press(Key.OK))  # the next key clears it and acts
    assert app.message is None and heard == ["action"]


def test_a_seat_without_an_ability_cannot_arm_one() -> None:
    app = make_app(drafted(beginner=True))
    app.handle(press(Key.AUX))
    assert app.message == "P1 holds no ability"
    assert isinstance(app.top, TrickScreen) and not app.top.armed


def test_no_action_can_be_undone_at_the_start() -> None:
    app = make_app(new_game())
    app.handle(press(Key.BACK, long=True))
    assert app.message == "nothing to undo" and isinstance(app.top, DraftScreen)


def test_a_key_that_changes_nothing_leaves_the_version_alone() -> None:
    app = make_app(drafted())
    app.handle(press(Key.BACK))  # the menu, where LEFT means nothing
    version = app.version
    app.handle(press(Key.LEFT))
    assert app.version == version
    app.handle(press(Key.DOWN))
    assert app.version == version + 1


# --- undo ---------------------------------------------------------------------------------

def test_undo_is_a_long_back_and_a_confirmation_naming_the_action() -> None:
    game = drafted()
    app = make_app(game)
    enter(app, texts(game, "B7"))
    assert app.session is not None
    heard: list[str] = []
    app.session.listeners.append(lambda change, data: heard.append(change))

    app.handle(press(Key.BACK, long=True))
    assert isinstance(app.top, Confirm) and app.top.text == "P1 Aki played B7"
    app.handle(press(Key.BACK))  # keep it
    assert isinstance(app.top, TrickScreen) and len(app.session.game.actions) == 13 and heard == []

    app.handle(press(Key.BACK, long=True))
    app.handle(press(Key.OK))
    assert len(app.session.game.actions) == 12 and heard == ["undo"]
    assert isinstance(app.top, TrickScreen) and app.top.seat == 0


def test_undo_of_a_draft_and_of_an_answer_reads_well() -> None:
    game = new_game()
    app = make_app(game)
    enter(app, [Draft(0, "scoring", "3")])
    app.handle(press(Key.BACK, long=True))
    assert isinstance(app.top, Confirm) and app.top.text == "P1 Aki took chart #3 (score chart)"


# --- menus --------------------------------------------------------------------------------

def test_back_opens_the_menu_and_the_history_shows_every_finished_trick() -> None:
    game = drafted()
    app = make_app(game)
    enter(app, texts(game, "B7", "B2", "B6", "B3", "U5", "U8 horse-swallowing", "U2", "UT"))
    app.handle(press(Key.BACK))
    assert isinstance(app.top, Menu)
    app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    history = app.top
    assert isinstance(history, HistoryScreen)
    assert history.items == ["1-1 1:B7 2:B2 3:B6 4:B3 >P1", "1-2 1:U5 2:U8* 3:U2 4:UT >P2"]
    app.handle(press(Key.UP))
    app.handle(press(Key.OK))
    assert isinstance(app.top, ResultScreen) and app.top.index == 0
    app.handle(press(Key.BACK))
    app.handle(press(Key.BACK))
    assert isinstance(app.top, Menu)
    app.handle(press(Key.UP))
    app.handle(press(Key.OK))  # "Back to the game"
    assert isinstance(app.top, TrickScreen)


def test_the_planner_leaves_menus_before_entering_an_action() -> None:
    game = drafted()
    app = make_app(game)
    app.handle(press(Key.BACK))
    app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    assert isinstance(app.top, HistoryScreen)
    keys = presses_for(app, Play(0, texts(game, "W4")[0].cards))
    assert [k.key for k in keys[:2]] == [Key.BACK, Key.BACK]
    enter(app, texts(game, "W4"))
    assert app.session is not None and str(app.session.game.actions[-1].cards[0]) == "W4"


def test_settings_change_at_once_and_go_to_the_daemon() -> None:
    saved: list[Settings] = []
    app = make_app(new_game(), on_settings=saved.append)
    app.handle(press(Key.BACK))
    for _ in range(3):
        app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    assert isinstance(app.top, SettingsScreen)
    app.handle(press(Key.LEFT))  # contrast down a step
    app.handle(press(Key.DOWN))
    app.handle(press(Key.RIGHT))  # language: the next one
    assert saved == [Settings("en", 175), Settings("ja", 175)]
    assert app.t("menu.title") == ("メニュー" if app.face.japanese else "Menu")


def test_back_from_settings_shows_the_menu_in_the_new_language() -> None:
    """The menu kept the labels of the language it was opened in."""
    app = make_app(new_game())
    app.handle(press(Key.BACK))
    menu = app.top
    assert isinstance(menu, Menu) and menu.title == "Menu"
    english = app.render().tobytes()
    for _ in range(3):
        app.handle(press(Key.DOWN))
    app.handle(press(Key.OK))
    app.handle(press(Key.DOWN))
    app.handle(press(Key.RIGHT))  # language: Japanese
    assert app.settings.language == "ja" and app.face.japanese
    app.handle(press(Key.BACK))
    assert app.top is menu
    assert menu.title == "メニュー" and menu.items[3] == app.t("menu.settings") != "Settings"
    assert menu.index == 3  # still on the row that was chosen
    assert app.render().tobytes() != english


def test_contrast_stays_within_the_panel_range() -> None:
    app = make_app(new_game())
    app.change_settings(contrast=1000)
    assert app.settings.contrast == 255
    app.change_settings(contrast=-5)
    assert app.settings.contrast == 15


def test_settings_from_the_daemon_are_checked() -> None:
    assert Settings.from_json({"language": "ja", "contrast": 100}) == Settings("ja", 100)
    with pytest.raises(ConfigError, match="language must be en or ja"):
        Settings.from_json({"language": "fr"})


def test_a_session_for_a_game_without_screens_is_a_clear_error() -> None:
    """Plain Tricks, the tests' own game, is registered with rules and a table but no screens."""
    with extra_package(TEST_GAME_PACKAGE), pytest.raises(ConfigError, match="no screens for 'plain-tricks'"):
        make_app(PlainTricks(PlainTricks.new_setup(["A", "B"], cards={})))
