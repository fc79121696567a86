"""Starting a game on the device: the setup form, laying out cards, and the resume offer."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from companion.carddata import printed_cards
from companion.daemon.virtual import VirtualDevice
from companion.engine.base import Game, Setup
from companion.errors import ConfigError, RecordError
from companion.games.tezuma.rules import TezumaGame
from companion.games.tezuma.screens import DraftScreen, LayoutScreen, TrickScreen
from companion.hw.keys import Key, KeyEvent
from companion.registry import game_class, game_ids, player_counts, plugin, setup_rows
from companion.session import Session
from companion.settings import LastSetup, Settings
from companion.ui.screens import Confirm, Menu, ResumeOffer, SetupForm
from tests.ui.helpers import choose_game, make_app, new_game, press


class Daemon:
    """Stands in for the daemon's callbacks: keeps what it was handed."""

    def __init__(self) -> None:
        self.setups: list[Setup] = []
        self.resumed: list[Game[Any]] = []

    def new_game(self, setup: Setup) -> Session:
        self.setups.append(setup)
        return Session(game_class(setup.game)(setup))

    def resume(self, game: Game[Any]) -> Session:
        self.resumed.append(game)
        return Session(game)


def keys(app: Any, *names: str) -> None:
    for name in names:
        app.handle(press(Key[name]))


def start(app: Any) -> None:
    """Down the setup form to its Start row (how many rows the game adds varies) and OK."""
    form = app.top
    assert isinstance(form, SetupForm)
    keys(app, *["DOWN"] * (len(form.rows) - 1 - form.row), "OK")


def test_a_new_game_with_the_books_sets() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    assert isinstance(app.top, SetupForm)
    choose_game(app, "tezuma-2015")
    keys(app, "DOWN", "LEFT")  # 3 players
    keys(app, *["DOWN"] * 6, "OK")  # past the names, beginner and cards to Start
    (setup,) = daemon.setups
    recommended = printed_cards("tezuma-2015")["recommended"]
    assert setup.game == "tezuma-2015" and setup.players == ("Aki", "Ben", "Chie")
    assert setup.options["layouts"][0] == {"scoring": recommended["scoring"]["3"],
                                           "abilities": recommended["abilities"]}
    assert setup.seed == random.Random(0).randrange(2**32)
    assert isinstance(app.top, DraftScreen)


def test_names_come_from_the_list_and_are_never_shared() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    choose_game(app, "tezuma")
    keys(app, "DOWN", "DOWN", "DOWN", "RIGHT")  # P2: Ben -> Chie is P3's -> Dai is P4's -> Emi
    start(app)
    assert daemon.setups[0].players == ("Aki", "Emi", "Chie", "Dai")


def test_a_random_layout_is_drawn_from_the_apps_random_source() -> None:
    setups = []
    for _ in range(2):
        daemon = Daemon()
        app = make_app(on_new_game=daemon.new_game)
        choose_game(app, "tezuma-2015")
        keys(app, *["DOWN"] * 7, "RIGHT", "DOWN", "OK")  # 4 players, cards: random
        setups.append(daemon.setups[0])
    assert setups[0] == setups[1]
    layout = setups[0].options["layouts"][0]
    assert "7" in layout["scoring"] and len(layout["scoring"]) == 5 and len(layout["abilities"]) == 6
    assert layout != {
        "scoring": ["1", "2", "3", "4", "7"],
        "abilities": printed_cards("tezuma-2015")["recommended"]["abilities"],
    }


def test_cards_chosen_on_the_device_and_the_engine_names_a_wrong_count() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    choose_game(app, "tezuma-2015")
    keys(app, *["DOWN"] * 7, "LEFT", "DOWN", "OK")  # 4 players, cards: choose
    layout = app.top
    assert isinstance(layout, LayoutScreen)
    keys(app, "OK", "DOWN", "OK", "DOWN", "OK", "DOWN", "OK", "DOWN", "DOWN", "DOWN", "OK")  # charts 1-4 and 7
    keys(app, *["UP"] * 7)  # wrapping round to the last row
    assert layout.index == len(layout.items) - 1  # Start
    keys(app, "OK")
    assert app.message == "lay out 6 ability cards, not 0" and daemon.setups == []
    keys(app, *["DOWN"] * 8)
    for _ in range(6):
        keys(app, "OK", "DOWN")
    keys(app, *["DOWN"] * 6, "OK")
    (setup,) = daemon.setups
    assert setup.options["layouts"][0]["scoring"] == ["1", "2", "3", "4", "7"]
    assert setup.options["layouts"][0]["abilities"][:2] == ["sword-walking", "paper-egg"]


def test_a_beginner_game_lays_out_no_abilities() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    choose_game(app, "tezuma-2015")
    keys(app, *["DOWN"] * 6, "RIGHT", "DOWN", "DOWN", "OK")  # 4 players, beginner
    (setup,) = daemon.setups
    assert setup.game == "tezuma-2015" and setup.options["beginner"] is True
    assert all(layout["abilities"] == [] for layout in setup.options["layouts"])


def test_the_beginner_variant_is_offered_for_the_2015_edition_only() -> None:
    app = make_app()
    form = app.top
    choose_game(app, "tezuma")
    assert isinstance(form, SetupForm) and "beginner" not in [choice.key for choice in form.extra]
    keys(app, "RIGHT")
    assert form.game.value == "tezuma-2015" and "beginner" in [choice.key for choice in form.extra]


@pytest.mark.parametrize("game_id", ["tezuma", "tezuma-2015"])
def test_the_form_offers_the_variants_the_editions_rules_play(game_id: str) -> None:
    """The plugin record lists each edition's rows for the form; the rules hold the variants."""
    game = game_class(game_id)
    assert isinstance(game, type) and issubclass(game, TezumaGame)
    offered = {row.key for row in setup_rows(game_id)}
    assert ("beginner" in offered, "redraw_each_deal" in offered) == (game.beginner_variant, game.redraw_variant)


def test_the_forms_player_counts_are_the_rules() -> None:
    """The form counts the players from the plugin records; loading a game checks its rules agree."""
    for game_id in game_ids():
        cls = game_class(game_id)
        assert player_counts(game_id) == range(cls.min_players, cls.max_players + 1)


def test_a_record_whose_player_counts_the_rules_contradict_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(plugin("tourney").players, "tourney", (3, 5))  # type: ignore[index]  # a dict
    with pytest.raises(TypeError, match="Tourney plays 3-4 players; its PLUGIN says 3-5"):
        game_class("tourney")


def test_a_journal_that_cannot_be_opened_is_flashed_and_the_form_stays() -> None:
    def broken(setup: Setup) -> Session:
        raise RecordError("journal: disk full")

    app = make_app(on_new_game=broken)
    choose_game(app, "tezuma")
    start(app)
    assert app.message == "journal: disk full" and isinstance(app.top, SetupForm)


def test_the_resume_offer_says_where_the_game_stopped() -> None:
    game = new_game()
    for line in ["penalty R", "penalty B", "penalty U", "penalty W", "scoring 1", "scoring 2", "scoring 3",
                 "scoring 4", "ability paper-egg", "ability horse-swallowing", "ability butterfly-dance",
                 "ability five-color-sand", "B7", "B2", "B6", "B3", "U5"]:
        game.push_text(line)
    daemon = Daemon()
    app = make_app(resume_offer=game, on_resume=daemon.resume)
    offer = app.top
    assert isinstance(offer, ResumeOffer) and offer.lines == ["Aki, Ben, Chie, Dai", "Resume deal 1 trick 2?"]
    keys(app, "OK")
    assert daemon.resumed == [game] and isinstance(app.top, TrickScreen) and app.top.seat == 1


def test_declining_the_resume_offer_opens_the_setup_form() -> None:
    app = make_app(resume_offer=new_game())
    keys(app, "BACK")
    assert isinstance(app.top, SetupForm)


def test_a_new_game_from_the_menu_asks_first_and_back_returns_to_the_game() -> None:
    game = new_game()
    app = make_app(game)
    keys(app, "BACK", "UP", "OK")  # the menu's last entry: New game
    assert isinstance(app.top, Confirm)
    keys(app, "OK")
    assert isinstance(app.top, SetupForm)
    keys(app, "BACK")
    assert isinstance(app.top, DraftScreen)


def test_the_menu_without_a_game_offers_the_settings() -> None:
    app = make_app()
    keys(app, "BACK")
    assert isinstance(app.top, Menu) and app.top.items == ["Settings"]


def test_the_later_editions_new_cards_each_round_variant_is_offered() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    form = app.top
    choose_game(app, "tezuma")
    assert isinstance(form, SetupForm)
    keys(app, *["DOWN"] * 6, "RIGHT")  # past the names to "New cards": yes
    assert form.rows[form.row] is not None and form.rows[form.row].key == "redraw_each_deal"
    start(app)
    (setup,) = daemon.setups
    layouts = setup.options["layouts"]
    assert setup.game == "tezuma" and setup.options["redraw_each_deal"] is True
    assert len({tuple(layout["abilities"]) for layout in layouts}) > 1  # drawn again for later deals


def test_the_2015_form_has_no_new_cards_row() -> None:
    app = make_app()
    choose_game(app, "tezuma-2015")
    form = app.top
    assert isinstance(form, SetupForm) and "redraw_each_deal" not in [choice.key for choice in form.extra]


def test_new_cards_each_round_keeps_the_first_deals_cards_chosen_on_the_device() -> None:
    daemon = Daemon()
    app = make_app(on_new_game=daemon.new_game)
    choose_game(app, "tezuma")
    keys(app, *["DOWN"] * 6, "RIGHT", "DOWN", "LEFT", "DOWN", "OK")  # new cards: yes; cards: choose
    layout = app.top
    assert isinstance(layout, LayoutScreen)
    for _ in range(5):  # the first five bid cards, then the first five abilities
        keys(app, "OK", "DOWN")
    while layout.options[layout.index][0] != "ability":
        keys(app, "DOWN")
    for _ in range(5):
        keys(app, "OK", "DOWN")
    keys(app, *["DOWN"] * (len(layout.items) - 1 - layout.index), "OK")  # Start
    (setup,) = daemon.setups
    first = setup.options["layouts"][0]
    assert setup.options["redraw_each_deal"] is True and len(first["scoring"]) == 5 and len(first["abilities"]) == 5
    assert first["abilities"] == [option[1] for option in layout.options if option[0] == "ability"][:5]


def test_the_form_remembers_the_last_game_players_and_names_across_a_restart(tmp_path: Path) -> None:
    """The device started again (the same state directory) opens the form on the last game, its
    player count and names; Start is one press (UP) from where the form opens."""
    device = VirtualDevice(tmp_path)
    try:
        form = device.app.top
        assert isinstance(form, SetupForm) and form.row == 0
        assert "Start" in " ".join(device.app.canvas.texts)  # on the glass from the start
        while form.game.value != "tourney":
            device.press(KeyEvent(Key.RIGHT))
        for key in ["DOWN", "LEFT", "DOWN", "DOWN", "RIGHT", "UP", "UP", "UP"]:  # 3 players; P2: Ben -> Dai
            device.press(KeyEvent(Key[key]))
        device.press(KeyEvent(Key.UP))  # the first row to Start
        assert form.rows[form.row] is None
        device.press(KeyEvent(Key.OK))
        assert device.game.setup.game == "tourney" and device.game.setup.players == ("Aki", "Dai", "Chie")
    finally:
        device.close()
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved["last_setup"] == {"game": "tourney", "players": 3, "names": ["Aki", "Dai", "Chie"]}

    again = VirtualDevice(tmp_path)
    try:
        assert isinstance(again.app.top, ResumeOffer)
        again.press(KeyEvent(Key.BACK))  # a new game instead
        form = again.app.top
        assert isinstance(form, SetupForm) and form.row == 0
        assert (form.game.value, form.players.value) == ("tourney", "3")
        assert [choice.value for choice in form.names] == ["Aki", "Dai", "Chie"]
        again.press(KeyEvent(Key.UP))
        again.press(KeyEvent(Key.OK))
        assert again.game.setup.game == "tourney" and again.game.setup.players == ("Aki", "Dai", "Chie")
    finally:
        again.close()


def test_a_remembered_setup_the_form_cannot_offer_falls_back_to_its_defaults() -> None:
    """A game no longer offered opens the form on its default; names of another language are replaced."""
    gone = make_app(settings=Settings(last_setup=LastSetup("no-such-game", 3, ("Aki", "Ben", "Chie"))))
    form = gone.top
    assert isinstance(form, SetupForm) and form.game.index == 0
    other = make_app(settings=Settings(last_setup=LastSetup("tezuma", 3, ("Aki", "あき", "Aki"))))
    form = other.top
    assert isinstance(form, SetupForm) and form.players.value == "3"
    names = [choice.value for choice in form.names]
    assert names[0] == "Aki" and len(set(names)) == 3


def test_settings_keep_the_last_setup_and_refuse_a_bad_one() -> None:
    settings = Settings(language="ja", last_setup=LastSetup("zenjidou", 2, ("Aki", "Ben")))
    assert Settings.from_json(settings.to_json()) == settings
    assert Settings.from_json({"language": "en"}).last_setup is None
    for bad in ({"game": "", "players": 3, "names": []}, {"game": "tezuma", "players": True, "names": []},
                {"game": "tezuma", "players": 3, "names": "Aki"}, ["tezuma"]):
        with pytest.raises(ConfigError, match="last_setup"):
            Settings.from_json({"last_setup": bad})
