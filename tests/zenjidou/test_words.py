"""One word for one thing: the book calls Zenjidou's five tricks a ラウンド (round), so its screens, its
score table, the resume offer and the replay say round in both languages, never deal; and with 2
players the score table shows each player's total, both hands added up."""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest

from companion.games.zenjidou.screens import ZDealScreen
from companion.games.zenjidou.table import ZenjidouTable
from companion.keys import Key, KeyEvent
from companion.report import Wording, rendered_summary, write_text
from companion.sim import new_random_game
from companion.ui.canvas import Canvas
from companion.ui.planner import presses_for
from companion.ui.tricks import DealScreen, ResultScreen, RevokeScreen
from tests.ui.helpers import check_golden, make_app
from tests.zenjidou.helpers import MARK, new_game, plain_facts, play_round, start_round

DEAL = {"en": re.compile(r"\bdeal\b", re.IGNORECASE), "ja": re.compile("ディール")}
ROUND = {"en": "round", "ja": "ラウンド"}


class Recording:
    """A typeface that remembers every text drawn with it, row by row: the screen's text model."""

    def __init__(self, face: Any) -> None:
        self.face = face
        self.drawn: list[tuple[int, str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.face, name)

    def draw(self, image: Any, x: int, row: int, text: str, colour: int) -> None:
        self.drawn.append((row, text))
        self.face.draw(image, x, row, text, colour)


def drawn(app: Any, screen: Any) -> list[tuple[int, str]]:
    """What ``screen`` draws, row by row."""
    face = Recording(app.face)
    screen.draw(Canvas(face))
    return face.drawn


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_whole_game_by_keys_says_round_on_every_screen_and_never_deal(lang: str) -> None:
    rng = random.Random(5)
    game = new_random_game("zenjidou", 3, rng)
    table = ZenjidouTable(game, rng, rules="DK", misplay_rate=0.3)  # revokes, out of order: every notice
    app = make_app(game, language=lang)
    face = Recording(app.face)
    app.face = face
    shown: set[type] = set()
    offers = []
    while not game.is_over():
        if isinstance(app.top, DealScreen):
            app.handle(KeyEvent(Key.RIGHT))  # the chart too
        shown.update(type(screen) for screen in app.screens)
        offers.append(app.ui.where())
        for event in presses_for(app, table.choose(game, rng)):
            app.handle(event)
            shown.update(type(screen) for screen in app.screens)
    assert {ResultScreen, RevokeScreen, ZDealScreen} <= shown
    texts = [text for _, text in face.drawn] + offers
    assert not [text for text in texts if DEAL[lang].search(text)]
    assert any(ROUND[lang] in text.lower() for text in texts if "{" not in text)
    assert offers[0] == {"en": "Resume round 1 (set-up)?", "ja": "第1ラウンドの準備から再開?"}[lang]
    assert offers[-1] == {"en": "Resume round 3 trick 5?", "ja": "第3ラウンド 5トリックから再開?"}[lang]
    assert not [text for text in texts if re.search(r"trick 0\b|T0\b|\b0トリック", text)]  # a set-up is named so


def test_the_replay_says_round_in_both_languages() -> None:
    rng = random.Random(5)
    game = new_random_game("zenjidou", 3, rng)
    table = ZenjidouTable(game, rng, rules="DK", misplay_rate=0.3)
    while not game.is_over():
        game.push(table.choose(game, rng))
    out = io.StringIO()
    write_text(rendered_summary(game), out, wording=Wording.for_game(game))
    text = out.getvalue()
    assert "REVOKE:" in text and not DEAL["en"].search(text)
    assert [line.split(" (")[0] for line in text.splitlines() if line.startswith("Round")] == [
        "Round 1", "Round 2", "Round 3"]
    assert Wording.for_game(game, lang="ja").deal_title(2) == "第2ラウンド"
    assert not DEAL["ja"].search(str(rendered_summary(game, "ja")["revokes"]))


def two_player_round_app(lang: str = "en") -> Any:
    """A 2-player round D entered by keys, the round's scores on screen: the four hands score 2, 2, 4, 0."""
    facts = plain_facts({n: {"score": MARK[1 if n % 3 else -1]} for n in range(1, 33)})
    game = new_game(2, facts)
    hands = [[31, 4, 9, 14, 19], [20, 6, 26, 11, 1], [5, 10, 15, 27, 22], [2, 3, 7, 8, 12]]
    scratch = game.copy()
    start_round(scratch, 32, "D", [hand[0] for hand in hands])
    play_round(scratch, hands)
    app = make_app(game, language=lang)
    for action in scratch.actions:
        for event in presses_for(app, action):
            app.handle(event)
    while not isinstance(app.top, ZDealScreen):
        app.handle(KeyEvent(app.top.leave_key))
    return app


def test_two_players_score_table_shows_one_row_per_player_with_both_hands_and_the_total() -> None:
    app = two_player_round_app()
    game = app.session.game
    assert game.state.deals[0].scores == [2, 2, 4, 0] and game.totals() == [6, 2]
    rows = drawn(app, app.top)
    assert rows[0] == (0, "Round 1 scores")
    by_row = {row: [text for r, text in rows if r == row] for row in range(2, 7)}
    tricks = [game.state.deals[0].tricks_won[hand] + game.state.deals[0].tricks_won[hand + 2] for hand in (0, 1)]
    assert by_row[2] == ["P1 Aki", str(tricks[0]), "6", "6", "6"]  # both hands: tricks, marks, round, total
    assert by_row[3] == ["P2 Ben", str(tricks[1]), "2", "2", "2"]
    assert by_row[4] == by_row[5] == []  # no hand rows
    check_golden(app, "zenjidou-deal-2p")
    app.handle(KeyEvent(Key.RIGHT))
    chart = drawn(app, app.top)
    assert chart[0] == (0, "Totals after round 1")
    assert [text for _, text in chart[1:] if text in ("6", "2")] == ["6", "2"]
