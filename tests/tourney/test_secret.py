"""A prediction is secret until the reveal (rulings.md, Tourney): key presses through a trick, every
frame's text read back, with a player leading, with the NPC leading, with the NPC last and with the
NPC straight after the lead; then the reveal.

A frame's text model is every string the screen on top draws, with where and whether inverted (a
highlight), read through the typeface the canvas draws with: what the table can read, not only the
pixels of a golden image.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from companion.carddata import printed_cards
from companion.engine.tricks import SuitedCard
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney
from companion.games.tourney.screens import COMPASS_MARKS, SUIT_KEYS, DownScreen, TrickScreen
from companion.hw.keys import Key, KeyEvent
from companion.record import export_lines
from companion.ui.canvas import Canvas
from companion.ui.planner import enter_by_keys
from companion.ui.screens import Confirm
from companion.uplink.publisher import game_status
from tests.ui.helpers import make_app, texts

ROW = "W3 W12 F2 F11 S5 C7 C1"


@dataclass(frozen=True)
class Drawn:
    row: int
    x: int
    text: str
    inverted: bool


class RecordingFace:
    """The app's typeface, noting every string drawn (dark on lit: inverted)."""

    def __init__(self, face: Any) -> None:
        self.face, self.drawn = face, []  # type: list[Drawn]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.face, name)

    def draw(self, image: Any, x: int, row: int, text: str, fill: int) -> None:
        self.drawn.append(Drawn(row, x, text, fill == 0))
        self.face.draw(image, x, row, text, fill)


def frame(app: Any, screen: Any = None) -> list[Drawn]:
    """The text model of the frame on screen now: every string the top screen (or ``screen``) draws."""
    face = RecordingFace(app.face)
    (screen or app.top).draw(Canvas(face))
    return face.drawn


def prediction_marks(app: Any) -> set[str]:
    """What would name or mark a prediction on a frame: a compass cell (a suit after its arrow or its
    suit key), the reveal's mode word, the undo text of a prediction, the ``?`` of a seat predicting."""
    game = app.session.game
    marks = {app.ui.suit_mark(suit) for suit in game.suits}
    compass = {key + mark for key in [*COMPASS_MARKS, *(k.value for k in SUIT_KEYS)] for mark in marks}
    return compass | {app.t("tourney.mode.predict"), "?"}


def undo_text(app: Any) -> str:
    """What hold-BACK's confirmation says now (then BACK leaves it, nothing undone)."""
    if not app.session.game.actions:
        return ""
    app.handle(KeyEvent(Key.BACK, long=True))
    confirm = app.top
    assert isinstance(confirm, Confirm)
    text = " ".join(drawn.text for drawn in frame(app))
    app.handle(KeyEvent(Key.BACK))
    assert not isinstance(app.top, Confirm)
    return text


class Watch:
    """Checks every frame after every key press until the trick's last card is down."""

    def __init__(self, app: Any, *, entered_early: bool = False) -> None:
        self.app, self.frames = app, 0
        self.game: Tourney = app.session.game
        self.entered_early = entered_early  # a journal from before: predictions already in, face down

    def __call__(self, _: KeyEvent) -> None:
        self.check()

    def check(self) -> None:
        trick = self.game.trick
        if len(trick.turns) == self.game.places:
            return  # the reveal: the predictions lie face up
        self.frames += 1
        marks = prediction_marks(self.app)
        for drawn in frame(self.app):
            assert drawn.text not in marks, f"{drawn} names or marks a prediction before the reveal"
        assert self.entered_early or not any(trick.predictions)  # the device asked for none
        undo = undo_text(self.app)
        last = self.game.actions[-1] if self.game.actions else None
        if isinstance(last, Predict) and trick.predictions[last.seat] == last:  # face down still
            assert self.app.ui.prediction_text(last) not in undo.split(), f"{undo!r} names a face-down prediction"

    def enter(self, *actions: Any, layout: str = "joystick") -> None:
        self.check()
        for action in actions:
            enter_by_keys(self.app, action, layout, self)


def reveal(app: Any, suits: str) -> None:
    """The reveal: the compass of the first seat open, inverted on a suit; then each prediction."""
    screen = app.top
    assert isinstance(screen, TrickScreen) and screen.predicting()
    shown = frame(app, screen)
    assert any(drawn.inverted and drawn.text in prediction_marks(app) for drawn in shown)
    game = app.session.game
    for suit in suits:
        enter_by_keys(app, Predict(game.decision.seat, suit))
    assert game.state.deal.tricks[-1 if game.trick.turns else -2].result is not None


def test_a_player_leading_no_frame_names_a_prediction_before_the_last_card_then_the_reveal() -> None:
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=printed_cards("tourney")))
    app = make_app(game)
    watch = Watch(app)
    watch.enter(*texts(game, "C9", "W2", "C13", "C4"))
    assert watch.frames >= 8
    reveal(app, "SWCF")
    result = game.state.deals[0].tricks[0].result
    assert result is not None and result.hits == (False, True, True, False)


def test_the_npc_leading_its_card_shows_at_once_and_no_frame_names_a_prediction() -> None:
    game = three_players(dealer=0)
    # the NPC wins trick 3 (see test_rules: the NPC takes a place, wins, then leads) and leads trick 4
    for text in ("S9", "S10", "S2", "C", "C", "C", "C13", "down", "W1", "C14", "F", "F", "F",
                 "S1", "S3", "S4", "F", "F", "F"):
        game.push_text(text)
    assert game.trick.lead == 3 and game.trick.card_of(3) == SuitedCard("W", 12)  # at once, as the lead
    app = make_app(game)
    assert any("W12" in drawn.text and drawn.inverted for drawn in frame(app))  # shown for P1's entry
    watch = Watch(app)
    watch.enter(*texts(game, "W13", "W14", "W4"), layout="keypad")
    reveal(app, "WSC")


def test_the_npc_last_its_card_shows_on_the_reveal() -> None:
    game = three_players(dealer=2)  # P1 leads: P2, P3, then the NPC last
    app = make_app(game)
    watch = Watch(app)
    watch.enter(*texts(game, "F5", "F6", "F7"))
    assert game.trick.card_of(3) == SuitedCard("F", 2)
    assert isinstance(app.top, TrickScreen) and app.top.predicting()  # the reveal, the NPC's card on it
    reveal(app, "CSW")


def test_the_npc_straight_after_the_lead_waits_for_one_press_before_its_card_shows() -> None:
    game = three_players(dealer=1)  # P3 leads: the NPC's turn comes next
    app = make_app(game)
    watch = Watch(app)
    watch.enter(*texts(game, "S9"))
    assert isinstance(app.top, DownScreen) and game.trick.card_of(3) is None
    assert not any("S5" in drawn.text for drawn in frame(app))  # the NPC's card (its front Shamrock) not yet
    watch.enter(PredictionsDown())
    assert game.trick.card_of(3) == SuitedCard("S", 5)
    assert any("S5" in drawn.text and drawn.inverted for drawn in frame(app))  # shown only now
    watch.enter(*texts(game, "S10", "S11"))
    reveal(app, "CCC")


def test_a_journal_from_before_resumed_mid_trick_names_no_prediction_entered_early() -> None:
    """A journal written while the device asked the predictions first: resumed before the trick's last
    card, no frame and no undo text names the predictions already in."""
    game = Tourney(Tourney.new_setup(["Aki", "Ben", "Chie", "Dai"], cards=printed_cards("tourney")))
    for text in ("C9", "P2?S", "P3?W"):
        game.push_text(text)
    app = make_app(game)
    assert isinstance(app.top, TrickScreen) and app.top.entry == app.top.entries()[0]
    assert not app.top.predicting()
    text = undo_text(app)
    assert "Chie" in text and "W" not in text.replace("Chie", "") and "prediction" in text
    watch = Watch(app, entered_early=True)
    for drawn in frame(app):
        assert drawn.text not in {"S", "W", "*"}, f"{drawn} shows a prediction entered early"
    watch.enter(*texts(game, "W2", "C13", "C4"))
    reveal(app, "CF")


def three_players(dealer: int) -> Tourney:
    setup = Tourney.new_setup(["Aki", "Ben", "Chie"], options={"dealer": dealer}, cards=printed_cards("tourney"))
    game = Tourney(setup)
    game.push(NpcRow(tuple(SuitedCard.parse(card) for card in ROW.split())))
    return game


def test_plays_are_the_only_entries_before_the_reveal() -> None:
    """What the engine asks for between the lead and the last card is never a prediction."""
    game = three_players(dealer=1)
    kinds = []
    for text in ("S9", "down", "S10", "S11"):
        kinds.append(game.decision.kind)
        game.push_text(text)
    assert kinds == ["lead", "down", "play", "play"] and game.decision.kind == "predict"
    assert isinstance(game.actions[-1], Play)


def test_event_lines_name_no_prediction_before_the_reveal() -> None:
    """What event mode sends for a Tourney game: its journal lines as they are written, and a status
    of where the game stands (publisher.game_status). Before the trick's last card neither holds a
    prediction, nor the NPC's card before the predictions are down; at the reveal the lines do."""
    game = three_players(dealer=1)  # P3 leads: the NPC's turn comes straight after
    for text in ("S9", "down", "S10", "S11"):
        status = json.dumps(game_status(game))
        lines = export_lines(game)
        assert not any('"predict"' in line for line in lines) and "predict" not in status
        if text == "down":
            assert game.trick.card_of(3) is None  # nor the NPC's card, which follows from the lines
        game.push_text(text)
    game.push_text("C")
    assert any('"predict"' in line for line in export_lines(game))  # at the reveal
