"""Shared pieces for the UI tests: a fake clock, apps over known games, key-driven play, goldens."""

from __future__ import annotations

import dataclasses
import os
import random
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from companion.carddata import printed_cards
from companion.engine.base import Game
from companion.hw.buzzers import BuzzerArbiter
from companion.hw.keys import Key, KeyEvent
from companion.record import export_lines, read_record
from companion.registry import game_class
from companion.session import Session
from companion.ui import App, Settings
from companion.ui.planner import presses_for
from companion.ui.screens import SetupForm
from tests.ui.margins import margin_faults

NAMES = ("Aki", "Ben", "Chie", "Dai")
GOLDEN = Path(__file__).parent / "golden"
DOCS_IMG = Path(__file__).parents[2] / "docs" / "img"


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def press(key: Key, long: bool = False) -> KeyEvent:
    return KeyEvent(key, long)


def new_game(game_id: str = "tezuma-2015", players: int = 4, **options: Any) -> Game[Any]:
    cls = game_class(game_id)
    return cls(cls.new_setup(NAMES[:players], options=options, seed=7, cards=printed_cards(game_id)))


def renamed(game: Game[Any]) -> Game[Any]:
    """The same game (setup and log) with the short seat names the screens are laid out for."""
    setup = dataclasses.replace(game.setup, players=NAMES[: len(game.setup.players)])
    copy = type(game)(setup)
    for action in game.actions:
        copy.push(action)
    return copy


def make_app(game: Game[Any] | None = None, *, clock: FakeClock | None = None, language: str = "en",
             **kwargs: Any) -> App:
    session = Session(game) if game is not None else None
    kwargs.setdefault("settings", Settings(language=language))
    return App(session, clock=clock or FakeClock(), rng=random.Random(0), **kwargs)


def press_all(game: Game[Any], rng: random.Random, events: Iterable[KeyEvent], *,
              buzzers: BuzzerArbiter | None = None, buzzes: Mapping[int, int] | None = None) -> None:
    """Press ``events`` on an app over ``game``, 0.3 s apart: every frame draws, and whatever the
    presses entered, the record replays to the same game. ``buzzes`` maps a press's index to the
    player whose buzzer sounds just before it."""
    clock = FakeClock()
    app = App(Session(game), clock=clock, rng=rng, buzzers=buzzers)
    for index, event in enumerate(events):
        if buzzers is not None and buzzes and index in buzzes:
            buzzers.press(buzzes[index], at=clock.now + index * 0.001, now=clock.now)
        app.handle(event)
        clock.advance(0.3)
        app.tick()
        assert app.render().size == (128, 64)
    if app.session is not None:
        entered = app.session.game
        assert read_record(export_lines(entered)).game.summary() == entered.summary()


def enter(app: App, actions: Iterable[Any]) -> int:
    """Enter each action by the planner's keys alone; returns the number of presses."""
    count = 0
    for action in actions:
        keys = presses_for(app, action)
        for event in keys:
            app.handle(event)
        count += len(keys)
    return count


def texts(game: Game[Any], *lines: str) -> list[Any]:
    """Actions from the game's notation, parsed against a scratch copy as it advances."""
    scratch = game.copy()
    actions = []
    for line in lines:
        actions.append(scratch.push_text(line))
    return actions


def changed_pages(before: Image.Image, after: Image.Image) -> int:
    """How many 8-pixel display pages differ: what a page-diffing display writer would send."""
    rows = before.width // 8
    old, new = before.tobytes(), after.tobytes()
    return sum(old[page * 8 * rows : (page + 1) * 8 * rows] != new[page * 8 * rows : (page + 1) * 8 * rows]
               for page in range(before.height // 8))


def check_golden(app: App, name: str, *, docs: bool = False) -> None:
    """Compare what ``app`` shows with ``golden/<name>.png`` pixel for pixel; ``UPDATE_GOLDEN=1``
    rewrites it (and its 4x copy in docs/img, when ``docs`` or when one is there). The same screen, in each language,
    must keep every glyph off the edges of its lit bands (:mod:`tests.ui.margins`)."""
    image = app.render()
    shown = app.settings.language
    for language in app.languages:
        app.change_settings(language=language)
        faults = margin_faults(app.canvas)
        assert not faults, f"{name} in {language}: {faults[0]}"
    app.change_settings(language=shown)
    assert app.render().tobytes() == image.tobytes()
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        image.save(path)
        if docs or (DOCS_IMG / f"{name}.png").exists():
            image.convert("L").resize((image.width * 4, image.height * 4), Image.Resampling.NEAREST).save(
                DOCS_IMG / f"{name}.png")
        return
    if not path.exists():
        pytest.fail(f"no golden image {path.name}: run UPDATE_GOLDEN=1 pytest tests/ui to create it")
    with Image.open(path) as stored:
        expected = stored.convert("1")
    if expected.size != image.size or expected.tobytes() != image.tobytes():
        actual = path.with_name(f"{name}.actual.png")
        image.save(actual)
        pytest.fail(f"{name} differs from its golden image; see {actual} (UPDATE_GOLDEN=1 accepts it)")


def choose_game(app: App, game_id: str) -> None:
    """RIGHT on the setup form's first row until it shows ``game_id`` (the list grows with every game)."""
    form = app.top
    assert isinstance(form, SetupForm) and form.row == 0
    for _ in form.game_ids:
        if form.game.value == game_id:
            return
        app.handle(press(Key.RIGHT))
    raise AssertionError(f"{game_id} is not offered")
