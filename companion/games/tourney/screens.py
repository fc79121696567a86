"""Tourney's screens: the NPC's row, trick entry in the book's order, the reveal, places and hits.

**A prediction is secret until the reveal** (rulings.md). The table puts its predictions down face
down before the plays, as the book says, but the device asks for none then: no screen, notice, undo
text or history line names or marks one before the trick's last card is in. A player's playing card
after the lead says the predictions are down, so they need no entry when they go down.

**Trick entry** is one row per hand (four: with three players the NPC's row shows the card the
device put down for it). A row shows its playing card once down. The row being entered (``>``)
has the card picker: the suit, then its numbers in two halves (1-7, 8-14), a dot where a card was
already seen this deal; LEFT/RIGHT step through the suit, UP/DOWN go to the other half and on to
the next suit (the suits likeliest first, the next likeliest one UP or DOWN away), OK enters. A
suit none of whose cards can still be in a hand (all played, revealed or in the NPC's row: the
engine's :meth:`~companion.games.tourney.rules.Tourney.open_suits`) is not offered.
The cursor starts where the card is likeliest from what the table has seen (a follower's lead suit,
a suit's highest or lowest; the only card left ready for OK).

**The reveal.** After the trick's last card (the NPC's included) the predictions lie face up and
the device asks each, from the lead round (the row marked ``?``; AUX moves to the next seat still
open, holding it to the one before). A prediction is its suit alone, so the row is a compass of the
open suits, each drawn after the arrow that chooses it (on the card keypad, its suit key, which
enters it at once); the cursor starts on the likely suit, so a right guess is OK alone and any other
suit one arrow and OK. BACK takes the last prediction back while the reveal is open. Predictions
already entered at the reveal show beside their cards: they are face up.

**The NPC** (three players): at each deal's start its seven face-up cards are entered with the same
picker, suit by suit as the screen lists them (strongest first), front card first within each suit
(OK adds, BACK takes the last back). Its card is shown at its turn in the play phase, on the trick
screen where the next entry begins: the card to put down for it highlighted, and why the NPC plays
it. When it leads, at once; when its turn comes straight after a player's lead, only after one
press saying the predictions are down (:class:`DownScreen`), so nobody predicts having seen it;
later in the trick, as soon as the card before it is entered. No press enters its card, and none is
needed to read it. A new 3-player game first names the house ruling that seats the NPC.

**After each trick** a result screen lists places 1-4 with each hand's card and prediction and
whether it hit, and with three players reminds the table to turn an NPC prediction card (which
changes nothing). Revokes, deal scores and the ranking are the shared trick-game screens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.engine.tricks import Deal, SuitedCard, Term, Turn
from companion.errors import IllegalAction
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney, TourneyResult, TourneyTrick
from companion.keys import LETTERS, Key, KeyEvent
from companion.ui.canvas import ROWS, Canvas
from companion.ui.keypad import Typing
from companion.ui.picker import ARROWS, Grid, likeliest_middle
from companion.ui.screens import Choice, Host, Notice, Screen
from companion.ui.tricks import ResultScreen, TrickScreenBase, TrickUI

NAME_X, CARD_X, CELLS_X = 16, 40, 50
CELL = 10  # pixel width of one number in the picker row
SUIT_CELL = 22  # pixel width of one suit of a prediction's compass: its key and its mark
COMPASS = (Key.UP, Key.RIGHT, Key.DOWN, Key.LEFT)  # the arrow that chooses each suit, strongest first
COMPASS_MARKS = "↑→↓←"  # drawn before each suit, so the table sees which arrow gives which suit
HALF = 7  # numbers per picker row: 1-7 and 8-14
SUIT_KEYS = LETTERS  # the card keypad's A B C D: the game's first to fourth suit
PREDICTION_X = CARD_X + 22  # a prediction entered at the reveal, beside its seat's card


def suit_key(event: KeyEvent) -> int | None:
    """The suit (0 the strongest) a keypad's suit key chooses, or None for any other key. The one
    place the Tourney screen reads suit keys; a keypad's digits go to the shared card typing
    (:mod:`companion.ui.keypad`), so another keypad needs only its suit keys named here."""
    return SUIT_KEYS.index(event.key) if event.key in SUIT_KEYS and not event.long else None


@dataclass(frozen=True)
class Entry:
    """What the trick screen's active row enters: a seat's prediction or its playing card."""

    kind: type[Predict] | type[Play]
    seat: int


class TourneyUI(TrickUI[Tourney]):
    game_type = Tourney

    # --- words ---------------------------------------------------------------------------------

    def label(self, seat: int) -> str:
        return self.app.t("tourney.seat.npc") if seat == self.game.npc else super().label(seat)

    def seat_name(self, seat: int) -> str:
        return self.label(seat) if seat == self.game.npc else super().seat_name(seat)

    def suit_mark(self, code: str) -> str:
        """One character: the suit letter in English, the first character of its name in Japanese
        (ワ, フ, シ, ク)."""
        name = self.game.term_name(Term("suit", code), self.app.lang)
        return code if self.app.lang == "en" or not name else name[0]

    def card_text(self, card: Any) -> str:
        return f"{self.suit_mark(card.suit)}{card.rank}"

    def turn_text(self, turn: Turn[Any]) -> str:
        seat = "N" if turn.seat == self.game.npc else str(turn.seat + 1)
        return f"{seat}:{self.card_text(turn.cards[0])}"

    def prediction_text(self, prediction: Predict) -> str:
        """A prediction as its suit's mark (with its number where a record named the card)."""
        return self.suit_mark(prediction.suit) if prediction.card is None else self.card_text(prediction.card)

    def describe(self, action: Any) -> str:
        if isinstance(action, NpcRow):
            return self.app.t("tourney.undo.npc", cards=" ".join(self.card_text(card) for card in action.cards))
        if isinstance(action, PredictionsDown):
            return self.app.t("tourney.undo.down")
        if isinstance(action, Predict) and self.face_down(action):
            return self.app.t("tourney.undo.predict_hidden", seat=self.seat_name(action.seat))
        if isinstance(action, Predict):
            return self.app.t("tourney.undo.predict", seat=self.seat_name(action.seat),
                              card=self.prediction_text(action))
        if isinstance(action, Play):
            return self.app.t("undo.play", seat=self.seat_name(action.seat), play=self.card_text(action.card))
        raise TypeError(f"{action!r} is not a Tourney action")

    def face_down(self, prediction: Predict) -> bool:
        """Whether ``prediction`` (the last action) still lies face down: it is in the open trick and
        a playing card is still to come (a journal from when the device asked before the plays)."""
        trick = self.game.trick
        return trick.predictions[prediction.seat] == prediction and len(trick.turns) < self.game.places

    def refusal(self, error: IllegalAction) -> str:
        """Tourney's own refusal codes are ``tourney.<name>``, their templates ``tourney.refusal.<name>``."""
        if self.app.lang != "en" and error.code is not None and error.code.startswith("tourney."):
            return self.app.t(error.code.replace("tourney.", "tourney.refusal.", 1), **self.localized(error.params))
        return super().refusal(error)

    # --- notices -------------------------------------------------------------------------------

    def result_screen(self, deal: int, trick: int) -> Screen:
        return PlacesScreen(self.app, self, deal, trick)

    def needs_result_screen(self, deal: Deal[Any], index: int) -> bool:
        """Every trick: its places and hits are the point of the game."""
        return deal.tricks[index].result is not None

    def deal_columns(self, deal: Deal[Any]) -> list[tuple[str, list[int]]]:
        hits, _ = self.game.deal_points(deal)  # type: ignore[arg-type]
        return [("deal.tricks", list(deal.tricks_won[: self.game.n])), ("tourney.deal.hits", hits),
                ("deal.score", list(deal.scores or []))]

    # --- setup -------------------------------------------------------------------------------

    @classmethod
    def start(cls, app: Host, game_id: str, names: Sequence[str], choices: Sequence[Choice]) -> None:
        """Start the game; with three players, first name the house ruling that seats the NPC."""
        values = {choice.key: choice.value for choice in choices}
        cls.begin(app, game_id, names, {"dealer": int(values["dealer"])})
        if len(names) < Tourney.max_players:
            app.open(NpcSeatNotice(app))


def card_grid(game: Tourney, near: SuitedCard | None, order: Sequence[int] | None = None) -> Grid[SuitedCard]:
    """Every card not seen this deal of a suit that can still be in a hand (the engine's
    ``open_suits``), a suit a group in two halves, the suits in ``order`` (indexes, strongest first
    when not told); the cursor in the suit of ``near`` (when offered) at the number closest to ``near``'s."""
    seen, open_suits = game.deal.seen, game.open_suits()
    rows: list[list[tuple[int, SuitedCard]]] = []
    groups: list[int] = []
    for group in range(len(game.suits)) if order is None else order:
        code = game.suits[group]
        if code not in open_suits:
            continue
        entries = [(n, SuitedCard(code, n)) for n in game.numbers if SuitedCard(code, n) not in seen]
        rows += [[e for e in entries if e[0] <= HALF], [e for e in entries if e[0] > HALF]]
        groups += [group, group]
    grid = Grid.of(rows, groups=groups)
    offered = list(dict.fromkeys(grid.groups))
    wanted = game.suits.index(near.suit) if near is not None else offered[0]
    group = wanted if wanted in offered else offered[0]
    return grid.nearest(group, near.rank if near else HALF)


def draw_picker(canvas: Canvas, ui: TourneyUI, grid: Grid[SuitedCard], row: int) -> None:
    """The suit mark, then the cursor's half of the suit: numbers offered, dots for cards seen."""
    canvas.text(row, ui.suit_mark(grid.value.suit), x=CARD_X)
    offered = {slot for slot, _ in grid.rows[grid.row]}
    first = 1 if grid.slot <= HALF else HALF + 1
    for offset in range(HALF):
        number = first + offset
        x = CELLS_X + offset * CELL
        if number in offered:
            canvas.cell(x, row, CELL, str(number), invert=number == grid.slot)
        else:
            canvas.dot(x + CELL // 2 - 1, row)


def row_grid(game: Tourney, chosen: Sequence[SuitedCard]) -> Grid[SuitedCard]:
    """The NPC row's picker: the unseen cards but those chosen, near the last chosen (rows lie by suit)."""
    near = chosen[-1] if chosen else None
    grid = card_grid(game, near)
    rows = [tuple(entry for entry in row if entry[1] not in chosen) for row in grid.rows]
    kept = Grid.of(rows, groups=grid.groups)
    groups = list(dict.fromkeys(kept.groups))
    group = game.suits.index(near.suit) if near is not None else groups[0]
    return kept.nearest(group if group in groups else groups[0], near.rank if near is not None else HALF)


def last_card(game: Tourney) -> SuitedCard | None:
    """The card entered last this deal (a play, a prediction or the NPC's row), to start near."""
    seen = list(game.deal.seen)
    return seen[-1] if seen else None


class TourneyScreen(TrickScreenBase):
    """A Tourney screen, its game and UI typed."""

    game: Tourney
    ui: TourneyUI
    keypad_start = True


@TourneyUI.enters("lead", "play", "predict")
class TrickScreen(TourneyScreen):
    """Enter the lead's card, the playing cards and, at the reveal, the predictions; see the module
    docstring.

    A card is picked from the card grid (``grid``); a prediction is its suit alone (``suit``), a
    compass: each arrow goes straight to its suit (:data:`COMPASS`), each suit key of a keypad too
    (:func:`suit_key`), so every suit but the one the cursor starts on is one press and OK away.
    """

    def __init__(self, app: Host, ui: TourneyUI) -> None:
        super().__init__(app, ui)
        seat = self.acting_seat()
        self.trick: TourneyTrick = self.game.trick
        kind = Predict if self.revealing() else Play
        self.entry = Entry(kind, seat)
        self._grids: dict[Entry, Grid[SuitedCard]] = {}  # each entry's start, worked out once (grid_for)
        if kind is Predict:
            self.suit = self.likely_suit(seat)
        else:
            self.grid = self.grid_for(self.entry)

    def revealing(self) -> bool:
        """Every playing card of the trick is down: the predictions lie face up, and only now are asked."""
        return len(self.trick.turns) == self.game.places

    def entries(self) -> list[Entry]:
        """What may be entered now, in the order AUX steps through them: the next playing card, or at
        the reveal every prediction still open, from the lead round."""
        if not self.revealing():
            return [Entry(Play, self.game.next_player())]
        return [Entry(Predict, seat) for seat in self.game.missing_predictions(self.trick)]

    def predicting(self) -> bool:
        return self.entry.kind is Predict

    def grid_for(self, entry: Entry) -> Grid[SuitedCard]:
        """The unseen cards, the cursor where the card ``entry`` puts down is fewest presses away as
        far as the table knows: a follower's lead suit, a suit's highest and lowest, none of a suit the
        seat proved it lacks, fewer of a suit revealed by suit alone (the engine's ``card_odds``); the
        only card left ready for OK. Worked out once per entry: AUX back to it starts it afresh there."""
        if entry not in self._grids:
            grid = card_grid(self.game, last_card(self.game))
            mass = grid.group_mass(self.likelihood(entry.seat, grid))
            self._grids[entry] = self.likely_start(entry.seat, card_grid(self.game, last_card(self.game),
                                                                         likeliest_middle(mass)))
        return self._grids[entry]

    def likely_suit(self, seat: int) -> str:
        """The suit a prediction of ``seat`` most likely has, from what the table has seen: the open
        suit with most cards that can still be out of sight (a suit's cards not yet played, revealed or
        in the NPC's row; none of a suit the seat proved it lacks); the stronger suit on a tie."""
        odds = self.game.suit_odds(seat)
        return max(odds, key=lambda suit: (odds[suit], -self.game.suits.index(suit)))

    def next_entry(self, entry: Entry, step: int = 1) -> Entry:
        entries = self.entries()
        return entries[(entries.index(entry) + step) % len(entries)] if entry in entries else entries[0]

    def show(self, entry: Entry) -> None:
        """Make ``entry`` the one being entered, its cursor on the likeliest value."""
        self.entry = entry
        if entry.kind is Predict:
            self.suit = self.likely_suit(entry.seat)
        else:
            self.grid = self.grid_for(entry)

    def choose_suit(self, index: int) -> None:
        """The compass's cursor to the game's suit ``index``; a suit no hand can still hold is not offered."""
        suit = self.game.suits[index]
        if suit in self.game.open_suits():
            self.suit = suit

    # --- keys ----------------------------------------------------------------------------

    def on_key(self, event: KeyEvent) -> None:
        if event.key in ARROWS:
            if self.predicting():
                self.choose_suit(COMPASS.index(event.key))
            else:
                self.grid = self.grid.moved(event.key)
        elif event.key is Key.OK:
            seat = self.entry.seat
            self.app.push(Predict(seat, self.suit) if self.predicting() else Play(seat, self.grid.value))
        elif event.key is Key.AUX:  # held: back to the previous open entry
            self.show(self.next_entry(self.entry, -1 if event.long else 1))
        elif event.key is Key.BACK:
            self.take_back_or_menu()

    def on_keypad(self, event: KeyEvent) -> None:
        """A suit key enters a prediction of its suit at once: it names the whole entry, as a digit
        naming a card alone does (BACK takes it back); a suit no hand can still hold is not offered.
        Every other key as on any picker."""
        suit = suit_key(event)
        if self.predicting() and suit is not None:
            if self.game.suits[suit] in self.game.open_suits():
                self.app.push(Predict(self.entry.seat, self.game.suits[suit]))
        else:
            super().on_keypad(event)

    def take_back_or_menu(self) -> None:
        """BACK at the reveal takes back the last prediction entered, and that seat's prediction is
        asked again; otherwise BACK opens the menu."""
        last = self.game.actions[-1] if self.game.actions else None
        if not (self.predicting() and isinstance(last, Predict) and self.trick.predictions[last.seat] is last):
            self.app.open_menu()
            return
        self.app.undo()
        screen = self.app.screens[0]
        if isinstance(screen, TrickScreen) and Entry(Predict, last.seat) in screen.entries():
            screen.show(Entry(Predict, last.seat))

    def typing(self) -> Typing | None:
        """The card keypad types into the card grid; a prediction's suit is a suit key (:meth:`on_keypad`)."""
        return None if self.predicting() else super().typing()

    def picks(self) -> bool:
        return self.predicting() or super().picks()

    # --- drawing -------------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        deal = self.game.deal
        canvas.text(0, self.t("tourney.header", deal=deal.index + 1, deals=self.game.deal_count(),
                              trick=len(deal.tricks), mode=self._mode(self.entry)))
        for seat in range(self.game.places):
            self._seat_row(canvas, 1 + seat, seat)
        finished = [trick for trick in deal.tricks if trick.result is not None]
        if self._npc_put_down(canvas):
            pass  # the NPC's card and why take the rows of the last trick and the lead's card
        elif finished:
            reason = self.ui.formatter.phrase(finished[-1].result.reason[0])  # type: ignore[union-attr]
            canvas.text(5, self.t("trick.last", trick=len(finished), reason=reason))
        following = self.next_entry(self.entry)
        if self._npc_card():
            pass  # its card and why are on the last rows
        elif following != self.entry:  # where AUX goes: another seat's prediction, at the reveal
            canvas.text(ROWS - 1, self.t("tourney.hint.aux", seat=self.ui.label(following.seat),
                                         mode=self._mode(following)))
        else:  # the lead's card, on the last row (the AUX hint takes it while predictions are open)
            lead, led = self.ui.seat_name(self.trick.lead), self.trick.card_of(self.trick.lead)
            canvas.text(ROWS - 1, self.t("tourney.led", seat=lead, card=self.ui.card_text(led)) if led is not None
                        else self.t("trick.leads", seat=lead))

    def _npc_card(self) -> SuitedCard | None:
        """The NPC's card when it is the last one put down (its turn just came), else None."""
        turns = self.trick.turns
        return turns[-1].cards[0] if turns and turns[-1].seat == self.game.npc else None

    def _npc_put_down(self, canvas: Canvas) -> bool:
        """At the NPC's turn, the card to put down for it, highlighted, and why the NPC plays it (the
        rows of the last trick's reason and the lead's card): shown on the screen where the next entry
        begins, so the table reads it with no press of its own."""
        card, why = self._npc_card(), self.trick.npc_reason
        if card is None or why is None:
            return False
        canvas.text(5, self.t("tourney.announce.text", card=self.ui.card_text(card)), invert=True)
        canvas.text(6, self.t(why.code.replace("tourney.npc.", "tourney.npc.why.", 1)))
        return True

    def _compass(self, canvas: Canvas, row: int) -> None:
        """The four suits, each after the key that chooses it (its arrow, or on the card keypad its
        suit key), the cursor's inverted; a dot for a suit no hand can still hold (not offered)."""
        keys = [key.value for key in SUIT_KEYS] if self.app.card_keypad else list(COMPASS_MARKS)
        offered = self.game.open_suits()
        for index, suit in enumerate(self.game.suits):
            x = CARD_X + index * SUIT_CELL
            if suit in offered:
                canvas.cell(x, row, SUIT_CELL, keys[index] + self.ui.suit_mark(suit), invert=suit == self.suit)
            else:
                canvas.dot(x + SUIT_CELL // 2 - 1, row)

    def _mode(self, entry: Entry) -> str:
        mode = "lead" if not self.trick.turns else "predict" if entry.kind is Predict else "play"
        return self.t(f"tourney.mode.{mode}")

    def _seat_row(self, canvas: Canvas, row: int, seat: int) -> None:
        """A hand's row: its label, name and playing card; the picker on the row being entered; at
        the reveal the compass on the row predicting (its card before it) and each prediction entered."""
        entering = seat == self.entry.seat
        card = self.trick.card_of(seat)
        if entering:
            canvas.text(row, "?" if self.predicting() else ">")
        canvas.text(row, self.ui.label(seat), x=4, width=NAME_X - 4)
        if entering and self.predicting():
            canvas.text(row, self.ui.card_text(card), x=NAME_X)
            self._compass(canvas, row)
            return
        if seat != self.game.npc:
            canvas.text(row, self.game.setup.players[seat], x=NAME_X, width=CARD_X - NAME_X - 2)
        if entering:
            draw_picker(canvas, self.ui, self.grid, row)
            return
        if card is not None:
            canvas.text(row, self.ui.card_text(card), x=CARD_X)
        prediction = self.trick.predictions[seat]
        if self.revealing() and prediction is not None:  # face up now
            canvas.text(row, self.ui.prediction_text(prediction), x=PREDICTION_X)


@TourneyUI.enters("down")
class DownScreen(TourneyScreen):
    """The NPC's turn comes straight after a player's lead: the table says, with one OK, that every
    prediction lies face down, and only then the device shows the NPC's card (nobody may predict
    having seen it)."""

    def on_key(self, event: KeyEvent) -> None:
        if event.key is Key.OK:
            self.app.push(PredictionsDown())
        elif event.key is Key.BACK:
            self.app.open_menu()

    def draw(self, canvas: Canvas) -> None:
        trick = self.game.trick
        canvas.title(self.t("tourney.down.title", deal=self.game.deal.index + 1, trick=len(self.game.deal.tricks)))
        led = trick.card_of(trick.lead)
        canvas.text(1, self.t("tourney.led", seat=self.ui.seat_name(trick.lead), card=self.ui.card_text(led)))
        canvas.lines(2, ROWS - 3, self.t("tourney.down.text"))
        canvas.text(ROWS - 1, self.t("tourney.down.hint"))


@TourneyUI.enters("npc")
class NpcRowScreen(TourneyScreen):
    """The NPC's face-up cards, as they lie: OK adds the cursor's card, BACK takes the last back."""

    # one action, entered as its cards: each typed, shown and confirmed by its own OK (bench/presses.py)
    confirms_each_card: ClassVar[bool] = True

    def __init__(self, app: Host, ui: TourneyUI) -> None:
        super().__init__(app, ui)
        self.chosen: list[SuitedCard] = []
        self.grid = row_grid(self.game, self.chosen)

    def on_key(self, event: KeyEvent) -> None:
        if event.key in ARROWS:
            self.grid = self.grid.moved(event.key)
        elif event.key is Key.OK:
            self.chosen.append(self.grid.value)
            if len(self.chosen) == self.game.npc_cards:
                try:
                    self.app.push(NpcRow(tuple(self.chosen)))  # the next screen replaces this one
                except IllegalAction:
                    self.chosen.pop()  # keep the six entered: only the last press is refused
                    raise
                return
            self.grid = row_grid(self.game, self.chosen)
        elif event.key is Key.BACK:
            if self.chosen:
                self.chosen.pop()
                self.grid = row_grid(self.game, self.chosen)
            else:
                self.app.open_menu()

    def progress(self, action: Any) -> int | None:
        """The cards taken so far, where they begin the row ``action`` is."""
        if not isinstance(action, NpcRow) or action.cards[: len(self.chosen)] != tuple(self.chosen):
            return None
        return len(self.chosen)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("tourney.npc.title", deal=self.game.deal.index + 1, count=len(self.chosen),
                            total=self.game.npc_cards))
        by_suit = {suit: [c for c in self.chosen if c.suit == suit] for suit in self.game.suits}
        for row, (suit, cards) in enumerate(by_suit.items(), start=1):
            canvas.text(row, self.ui.suit_mark(suit), x=4)
            canvas.text(row, " ".join(str(card.rank) for card in cards), x=16)
        canvas.text(5, ">", x=CARD_X - 8)
        draw_picker(canvas, self.ui, self.grid, 5)
        canvas.lines(6, 2, self.t("tourney.npc.hint"))


class NpcSeatNotice(Notice):
    """A new 3-player game: the house ruling (rulings.md) that seats the NPC, before its row is entered."""

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("tourney.house.title"))
        canvas.text(1, self.t("result.house"), invert=True)
        canvas.lines(2, ROWS - 3, self.t("tourney.house.npc_seat"))
        canvas.text(ROWS - 1, self.t("tourney.house.hint"))


class PlacesScreen(ResultScreen):
    """A finished trick: places 1-4, each with its hand, card, prediction and whether it hit."""

    ui: TourneyUI
    COLUMNS: ClassVar[tuple[int, ...]] = (0, 8, 52, 72, 100)  # place, hand, card, prediction, hit

    def draw(self, canvas: Canvas) -> None:
        ui = self.ui
        result = self.trick.result
        if not isinstance(result, TourneyResult) or not isinstance(self.trick, TourneyTrick):
            raise ValueError("a places screen needs a finished Tourney trick")
        canvas.title(self.t("result.title", deal=self.deal + 1, trick=self.index + 1, seat=ui.seat_name(result.winner)))
        place, hand, card, guess, hit = self.COLUMNS
        headings = (("tourney.result.card", card), ("tourney.result.prediction", guess), ("tourney.result.hit", hit))
        for key, x in headings:
            canvas.text(1, self.t(key), x=x)
        by_place = sorted(range(len(result.places)), key=lambda seat: result.places[seat])
        for row, seat in enumerate(by_place, start=2):
            canvas.text(row, str(result.places[seat]), x=place)
            canvas.text(row, ui.seat_name(seat), x=hand, width=card - hand - 2)
            canvas.text(row, ui.card_text(self.trick.card_of(seat)), x=card)
            predicted = self.trick.predictions[seat]
            canvas.text(row, ui.prediction_text(predicted) if predicted is not None else "-", x=guess)
            if result.hits[seat] is not None:
                canvas.text(row, self.t("tourney.result.yes" if result.hits[seat] else "tourney.result.no"), x=hit)
        if ui.game.npc is not None:
            canvas.lines(6, 2, self.t("tourney.reminder", turned=self.index + 1, total=ui.game.npc_cards))
        else:
            canvas.lines(6, 2, ui.reason(result))
