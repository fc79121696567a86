"""Irohanihohedo's screens: trick entry with the trump marker in sight, and the lowest cards per colour.

The trick screen is one row per seat (up to six) under a header that says where the trump marker
lies; the card holding it has a ``*``. The seat to play has the picker in its row: the colour, then
the numbers of it not yet played, split into a lower and an upper row when there are more than six.
Only the cards still unseen this deal of the numbers in play are offered. LEFT/RIGHT step through
the colour's numbers, UP/DOWN go to the other row and on to the next colour, every arrow wrapping
around; OK plays. The colours come likeliest first, the next likeliest one UP or DOWN away, and the
cursor starts where the card to come is fewest presses away as far as the table has seen: a colour
already in the trick that the seat is not proved out of, a colour's highest or lowest unseen card;
the only card that can come is offered ready for OK. On the card keypad the letters keep their
colours (A bird, B fan, C butterfly, D umbrella, A A flower) and a digit types the number in the
colour shown. Results, revokes, deal scores and the ranking are the shared trick-game screens.

**The deck question** (3-5 players, before the first game at a player count whose numbers are not
known): one screen of the twelve numbers in two rows, and ``Done`` and ``Skip`` below. The arrows
move the cursor, OK ticks or unticks a number (``*``), OK on ``Done`` enters the ticked numbers
(the engine checks there are exactly 2 x players), OK on ``Skip`` applies the house ruling. The
answer is remembered as the table's card facts, so the next game at that count does not ask. A
partial set told before starts ticked, and the screen says how many numbers are missing.

**Won cards are kept face down** (「ウラ向きの束」): during a deal the device shows no captured
card, no lowest card and no running colour score; scores appear on the deal's table at its end.
AUX shows the tricks each seat has won (the stacks are in sight). Only in the strategic variant,
chosen at set-up ("Lowest up"), does AUX show each seat's lowest captured card per colour, as those
lie face up. The history lists a finished deal's tricks, and of the deal in play only the last
trick, whose cards the table has just seen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from companion.engine.base import Answer
from companion.engine.tricks import SuitedCard, Turn
from companion.games.irohanihohedo.rules import Irohanihohedo, Play, deck_mask, marker_turn, mask_numbers
from companion.keys import Key, KeyEvent
from companion.ui.canvas import ROWS, Canvas
from companion.ui.keypad import Typing
from companion.ui.picker import ARROWS, Grid, likeliest_middle
from companion.ui.screens import Choice, Host, Screen, Scroll
from companion.ui.tricks import (
    CARD_X,
    PANEL_ROWS,
    AnswerScreen,
    FinalScreen,
    TrickScreenBase,
    TrickUI,
    seat_row,
)

CELLS_X = 48
CELL = 12  # pixel width of one number in the picker row (two digits and a margin)


class IrohanihohedoUI(TrickUI[Irohanihohedo]):
    game_type = Irohanihohedo

    def base(self) -> Screen:
        if self.game.decision is None:
            return IrohanihohedoFinal(self.app, self)
        return super().base()

    def panel_rows(self) -> int:
        """The rows under one row per seat (none with 6 players: every trick's result opens its notice)."""
        return min(PANEL_ROWS, ROWS - 1 - self.game.n)

    def colour_mark(self, code: str) -> str:
        """One character: the colour letter in lower case in English (an upper-case O reads as a zero
        in the 8 px font), the first character of the name in Japanese."""
        return code.lower() if self.app.lang == "en" else self.game.colour_name(code, self.app.lang)[0]

    def card_text(self, card: Any) -> str:
        return f"{self.colour_mark(card.suit)}{card.rank}"

    def turn_text(self, turn: Turn[Any]) -> str:
        return f"{turn.seat + 1}:{self.card_text(turn.cards[0])}"

    def history(self) -> list[tuple[str, Callable[[], Screen]]]:
        """Finished deals' tricks, and of the deal in play only its last trick: the cards of earlier
        tricks lie face down in their winners' stacks."""
        deals = self.game.state.deals
        finished = [(d, k) for d, deal in enumerate(deals)
                    for k, trick in enumerate(deal.tricks) if trick.result is not None]
        in_play = [(d, k) for d, k in finished if deals[d].scores is None]
        shown = [(d, k) not in in_play[:-1] for d, k in finished]
        return [entry for entry, keep in zip(super().history(), shown, strict=True) if keep]

    def describe(self, action: Any) -> str:
        if isinstance(action, Answer):
            numbers = mask_numbers(self.game.setup.cards, action.value)
            told = " ".join(map(str, numbers)) or self.app.t("irohanihohedo.deck.skip")
            return self.app.t("irohanihohedo.undo.deck", numbers=told)
        if not isinstance(action, Play):
            raise TypeError(f"{action!r} is not an Irohanihohedo action")
        return self.app.t("undo.play", seat=self.seat_name(action.seat), play=self.card_text(action.card))

    @classmethod
    def start(cls, app: Host, game_id: str, names: Sequence[str], choices: Sequence[Choice]) -> None:
        values = {choice.key: choice.value for choice in choices}
        cls.begin(app, game_id, names, {"dealer": int(values["dealer"]), "strategic": values["strategic"] == "yes"})


@IrohanihohedoUI.enters("play")
class TrickScreen(TrickScreenBase):
    """Enter one seat's card; see the module docstring."""

    game: Irohanihohedo
    ui: IrohanihohedoUI
    half: ClassVar[int] = 6  # numbers per picker row
    keypad_start = True

    def __init__(self, app: Host, ui: IrohanihohedoUI) -> None:
        super().__init__(app, ui)
        self.seat = self.acting_seat()
        self.deal = self.game.state.deal
        self.trick = self.deal.trick
        self.grid = self.card_grid()

    def card_grid(self) -> Grid[SuitedCard]:
        """The unseen cards of the deck, one colour (two rows when it has more than ``half``
        numbers) after the other, the likeliest colour first and the next likeliest one UP or DOWN
        away; the cursor where the card to come is fewest presses away (:meth:`likelihood`)."""
        grid = self.colour_rows(range(len(self.game.colours)))
        weight = self.likelihood(self.seat, grid)
        mass = dict.fromkeys(range(len(self.game.colours)), 0.0) | grid.group_mass(weight)
        return self.likely_start(self.seat, self.colour_rows(likeliest_middle(mass)))

    def colour_rows(self, order: Iterable[int]) -> Grid[SuitedCard]:
        """The unseen cards in the colours of ``order`` (indexes, which are also the rows' groups)."""
        offered = set(self.game.unseen(self.game.deck()))
        colours = list(self.game.colours)
        rows: list[list[tuple[int, SuitedCard]]] = []
        groups: list[int] = []
        for group in order:
            cards = [SuitedCard(colours[group], number) for number in self.game.numbers]
            entries = [(card.rank, card) for card in cards if card in offered]
            split = (len(entries) + 1) // 2 if len(entries) > self.half else len(entries)
            rows += [entries[:split], entries[split:]]
            groups += [group, group]
        return Grid.of(rows, groups=groups)

    # --- keys ----------------------------------------------------------------------------

    def on_key(self, event: KeyEvent) -> None:
        if event.key in ARROWS:
            self.grid = self.grid.moved(event.key)
        elif event.key is Key.OK:
            self.app.push(Play(self.seat, self.grid.value))
        elif event.key is Key.AUX:  # what the table may see of the won cards: see the module docstring
            won = LowestScreen if self.game.strategic else TricksWonScreen
            self.app.open(won(self.app, self.ui))
        elif event.key is Key.BACK:
            self.app.open_menu()

    # --- drawing -------------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        beside = marker_turn(self.trick)
        where = self.game.colour_name(beside.cards[0].suit, self.app.lang) if beside is not None else "-"
        canvas.text(0, self.t("irohanihohedo.header", deal=self.deal.index + 1, deals=self.game.deal_count(),
                              trick=len(self.deal.tricks), marker=where))
        for seat in range(self.game.n):
            self._seat_row(canvas, 1 + seat, seat, beside is not None and beside.seat == seat)
        first_panel_row = 1 + self.game.n
        canvas.lines(first_panel_row, ROWS - first_panel_row, self._panel())

    def _panel(self) -> str:
        finished = [trick for trick in self.deal.tricks if trick.result is not None]
        if finished:
            last = finished[-1]
            return self.t("trick.last", trick=len(finished), reason=self.ui.reason(last.result))  # type: ignore[arg-type]
        if not self.trick.turns:
            reminder = self.t("irohanihohedo.pass", count=self.game.setup.cards.get("pass_left", 2),
                              seat=self.ui.seat_name(self.trick.lead))
            if self.game.numbers_by_house and not self.deal.index and len(self.deal.tricks) == 1:
                numbers = self.game.numbers
                reminder += " " + self.t("irohanihohedo.house.numbers", low=numbers[0], high=numbers[-1])
            return reminder
        return self.t("trick.leads", seat=self.ui.seat_name(self.trick.lead))

    def _seat_row(self, canvas: Canvas, row: int, seat: int, holds_marker: bool) -> None:
        active = seat == self.seat
        seat_row(canvas, self.app, self.game.setup.players, row, seat, active=active)
        if active:
            self._picker(canvas, row)
            return
        card = self.trick.card_of(seat)
        if card is not None:
            canvas.text(row, self.ui.card_text(card) + ("*" if holds_marker else ""), x=CARD_X)

    def _picker(self, canvas: Canvas, row: int) -> None:
        """The colour and the numbers of the cursor's row; a dotted edge says the colour's other
        half is a press of UP or DOWN away."""
        grid = self.grid
        canvas.text(row, self.ui.colour_mark(grid.value.suit), x=CARD_X)
        group = grid.groups[grid.row]
        halves = [r for r in range(len(grid.rows)) if grid.groups[r] == group]
        for offset, (number, _) in enumerate(grid.rows[grid.row]):
            canvas.cell(CELLS_X + offset * CELL, row, CELL, str(number), invert=offset == grid.col)
        if len(halves) > 1:
            lower = grid.row == halves[0]
            canvas.divider(CELLS_X + self.half * CELL + 1 if lower else CELLS_X - 3, row)


@IrohanihohedoUI.enters("answer")
class DeckScreen(AnswerScreen):
    """Which numbers this player count uses: tick them, then Done (or Skip); see the module docstring."""

    game: Irohanihohedo
    ui: IrohanihohedoUI
    CELL: ClassVar[int] = 20  # pixel width of one number's cell
    WORDS: ClassVar[int] = 56  # pixel width of Done and Skip

    def __init__(self, app: Host, ui: IrohanihohedoUI) -> None:
        super().__init__(app, ui)
        self.numbers: list[int] = list(self.game.setup.cards["numbers"])
        self.ticked = frozenset(mask_numbers(self.game.setup.cards, self.question.suggestion))
        self.grid = deck_grid(self.numbers)

    def move(self, arrow: Key) -> None:
        self.grid = self.grid.moved(arrow)

    def confirm(self) -> None:
        self.choose(self.grid.value)

    def typing(self) -> Typing | None:
        """The card keypad types a number to tick or untick it (``0`` is ten, ``1`` waits for ``#``
        or a second digit while 10-12 are printed); the cursor then goes to Done, so ``#`` ends."""
        if self._typing is not None and self._typing.grid is self.grid:
            return self._typing
        return Typing(self.grid)

    def number_of(self, value: Any) -> int | None:
        return value if isinstance(value, int) else None

    def on_keypad(self, event: KeyEvent) -> None:
        ticked = self.ticked
        super().on_keypad(event)
        if self.ticked != ticked:
            self.grid, self._typing = self.grid.at(DONE) or self.grid, None

    def progress(self, action: Any) -> int | None:
        """The numbers ticked as ``action`` ticks them (none counted for Skip): the key planner ticks
        them a number at a time (every set of ticks at once is too many states to search)."""
        if not isinstance(action, Answer) or action.key != self.question.key:
            return None
        if action.value == 0:
            return 0
        wanted = set(mask_numbers(self.game.setup.cards, action.value))
        return sum((number in self.ticked) == (number in wanted) for number in self.numbers)

    def choose(self, value: int | str) -> None:
        if value == SKIP:
            self.answer(0)
        elif value == DONE:
            self.game.check_deck(sorted(self.ticked))  # none ticked is refused: Skip is the skip
            self.answer(deck_mask(self.game.setup.cards, sorted(self.ticked)))
        elif isinstance(value, int):
            self.ticked = self.ticked ^ {value}

    def draw(self, canvas: Canvas) -> None:
        players, deck = self.game.n, self.game.deck_facts
        icons = ", ".join(f"{count}-{self.game.max_players}" if count < self.game.max_players else str(count)
                          for count in range(self.game.min_players, players + 1))
        canvas.title(self.t("irohanihohedo.deck.title", players=players))
        canvas.lines(1, 1, self.t("irohanihohedo.deck.text", icons=icons, wanted=deck.wanted))
        for r, row in enumerate(self.grid.rows):
            for c, (_, value) in enumerate(row):
                at = (r, c) == (self.grid.row, self.grid.col)
                if isinstance(value, int):
                    text = f"{value}*" if value in self.ticked else str(value)
                    canvas.cell(c * self.CELL + 4, 2 + r, self.CELL, text, invert=at)
                else:
                    canvas.cell(c * (self.WORDS + 8) + 4, 2 + r, self.WORDS, self.t(f"irohanihohedo.deck.{value}"),
                                invert=at)
        status = self.t("irohanihohedo.deck.count", count=len(self.ticked), wanted=deck.wanted)
        if len(deck.told) > deck.wanted:  # a table told too many: also never used as the deck
            status += "  " + self.t("irohanihohedo.deck.extra", told=len(deck.told), extra=len(deck.told) - deck.wanted)
        elif deck.told:
            status += "  " + self.t("irohanihohedo.deck.partial", told=len(deck.told), missing=deck.missing)
        canvas.text(ROWS - 2, status)
        canvas.text(ROWS - 1, self.t("irohanihohedo.deck.hint"))


DONE, SKIP = "done", "skip"


def deck_grid(numbers: Sequence[int]) -> Grid[int | str]:
    """The numbers in two rows (one group: LEFT and RIGHT go on from one row to the other, and the
    keypad's digits find every number), then Done and Skip."""
    half = (len(numbers) + 1) // 2
    rows: list[list[tuple[int, int | str]]] = [
        [(i, n) for i, n in enumerate(numbers[:half])],
        [(i, n) for i, n in enumerate(numbers[half:])],
        [(0, DONE), (1, SKIP)],
    ]
    return Grid.of(rows, groups=[0, 0, 1])


class WonScreen(TrickScreenBase):
    """What the table sees of the cards won this deal; OK, BACK or AUX goes back, UP/DOWN scroll the seats."""

    ui: IrohanihohedoUI

    def __init__(self, app: Host, ui: IrohanihohedoUI) -> None:
        super().__init__(app, ui)
        self.scroll = Scroll()

    def on_key(self, event: KeyEvent) -> None:
        if self.scroll.on_key(event.key):
            return
        if event.key in (Key.OK, Key.BACK, Key.AUX):
            self.app.close(self)


class LowestScreen(WonScreen):
    """The strategic variant: each seat's lowest captured card per colour this deal, as they lie face up."""

    def draw(self, canvas: Canvas) -> None:
        deal = self.game.state.deal
        shown = self.game.face_up(deal)
        if shown is None:
            raise ValueError("only the strategic variant shows the lowest cards")
        canvas.title(self.t("irohanihohedo.lowest.title", deal=deal.index + 1))
        for row, seat in enumerate(self.scroll.window(len(shown), ROWS - 1), start=1):
            cards = " ".join(self.ui.card_text(SuitedCard(colour, rank)) for colour, rank in shown[seat].items())
            canvas.text(row, self.app.seat_label(seat), width=14)
            canvas.text(row, cards or "-", x=14)


class TricksWonScreen(WonScreen):
    """The base game: only how many tricks each seat has won (their stacks are in sight), no cards."""

    def draw(self, canvas: Canvas) -> None:
        deal = self.game.state.deal
        canvas.title(self.t("irohanihohedo.won.title", deal=deal.index + 1))
        for row, seat in enumerate(self.scroll.window(len(deal.tricks_won), ROWS - 2), start=1):
            canvas.text(row, self.ui.seat_name(seat), width=80)
            canvas.text(row, str(deal.tricks_won[seat]), x=80, width=20, right=True)
        self.scroll.hint(canvas, ROWS - 1, self.t("irohanihohedo.won.hidden"))


class IrohanihohedoFinal(FinalScreen):
    def tie_line(self, names: str) -> str:
        """The book's tie-break: whoever first spots the evening star (a joke: the win is shared)."""
        return self.t("irohanihohedo.tie", names=names)
