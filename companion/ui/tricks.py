"""Screens every trick-taking game shares: a trick's result, a revoke, a deal's scores, the ranking.

A game's UI subclasses :class:`TrickUI` and gives only what is its own: the screen for each kind of
decision, how a card reads, and the columns of its deal table. Notices (results, revokes, deal
scores), the history, the undo text and the resume line come from here, and every reason is the
engine's :class:`~companion.engine.tricks.Phrase` codes put into the language on screen by one
:class:`~companion.text.Formatter`, English included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, cast

from companion.carddata import printed_cards
from companion.engine.base import Answer, Decision, Question
from companion.engine.tricks import Deal, Revoke, Trick, TrickGame, TrickResult, Turn
from companion.keys import Key, KeyEvent
from companion.text import Formatter
from companion.ui.canvas import ROWS, WIDTH, Canvas
from companion.ui.keypad import Typing, letters_to
from companion.ui.picker import ARROWS, Grid
from companion.ui.screens import GameUI, Host, Notice, Screen, Scroll

PANEL_ROWS = 2  # rows the trick screen keeps for the last trick's reason
NAME_X, CARD_X = 16, 36  # a seat row: marker and label, then the name, then the seat's cards
OK = KeyEvent(Key.OK)

GameT = TypeVar("GameT", bound=TrickGame[Any])
ScreenT = TypeVar("ScreenT", bound=Callable[..., Screen])


@dataclass(frozen=True)
class Snapshot:
    """What an action may change that the table must be told about."""

    open_trick: tuple[int, int] | None
    revokes: int
    scored: int


class TrickUI(GameUI, Generic[GameT]):
    """The common part of a trick-taking game's screens; a subclass names its ``game_type``, marks
    the screen for each kind of decision with :meth:`enters`, and gives card text."""

    game_type: ClassVar[type[TrickGame[Any]]]  # the game class these screens draw
    # decision kind -> the screen that enters it; each subclass has its own (see enters)
    screens: ClassVar[dict[str, Callable[[Host, Any], Screen]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.screens = dict(cls.screens)

    @classmethod
    def enters(cls, *kinds: str) -> Callable[[ScreenT], ScreenT]:
        """Class decorator: the decorated screen enters the decisions of these ``kinds``."""

        def register(screen: ScreenT) -> ScreenT:
            cls.screens.update(dict.fromkeys(kinds, screen))
            return screen

        return register

    @property
    def game(self) -> GameT:
        game = self.session.game
        if not isinstance(game, self.game_type):
            raise TypeError(f"{type(self).__name__} draws {self.game_type.__name__}, not {type(game).__name__}")
        return cast(GameT, game)

    # --- words -----------------------------------------------------------------------------

    @property
    def formatter(self) -> Formatter:
        return Formatter.for_game(self.app.catalog, self.app.lang, self.game)

    def t(self, key: str, **fields: object) -> str:
        """A shared text in the game's own words where its catalogue fragment has them (a deal is
        Zenjidou's round): :meth:`~companion.text.Catalog.worded` with the game's ``wording``."""
        return self.app.t(self.app.catalog.worded(key, self.game.wording), **fields)

    def label(self, seat: int) -> str:
        """A seat's label alone (``P1``): the history's winner; games whose seats are not players override."""
        return self.app.seat_label(seat)

    def seat_name(self, seat: int) -> str:
        return f"{self.app.seat_label(seat)} {self.game.setup.players[seat]}"

    def short_name(self, seat: int) -> str:
        """A seat's name alone (the score chart's rows); games whose seats are not players override."""
        return self.game.setup.players[seat]

    def reason(self, result: TrickResult, *, house: bool = True) -> str:
        """Why the trick went as it did; without the house ruling when the screen names it apart."""
        phrases = result.reason if house else [phrase for phrase in result.reason if phrase.code != result.house]
        return self.formatter.reason(phrases)

    def house_ruling(self, result: TrickResult) -> str:
        """The house ruling that decided ``result`` (empty when none did)."""
        return self.formatter.reason([phrase for phrase in result.reason if phrase.code == result.house])

    def card_text(self, card: Any) -> str:
        """A card in a few characters; games with their own marks override."""
        return str(card)

    def turn_text(self, turn: Turn[Any]) -> str:
        """One seat's part of a trick for the history line: ``2:O7``."""
        return f"{turn.seat + 1}:{'+'.join(self.card_text(c) for c in turn.cards) or '-'}"

    def plays_text(self, trick: Trick[Any]) -> str:
        """A trick's plays on one line (the history, the result screen); games with more marks override."""
        return " ".join(self.turn_text(turn) for turn in trick.turns)

    def revoke_text(self, revoke: Revoke) -> str:
        return self.formatter.phrase(self.game.revoke_phrase(revoke))

    # --- the app's questions ------------------------------------------------------------------

    def base(self) -> Screen:
        decision = self.game.decision
        if decision is None:
            return FinalScreen(self.app, self)
        return self.screens[decision.kind](self.app, self)

    def snapshot(self) -> Snapshot:
        state = self.game.state
        decision = self.game.decision
        open_trick = None
        if decision is not None and state.deal.tricks and state.deal.trick.result is None:
            open_trick = (len(state.deals) - 1, len(state.deal.tricks) - 1)
        return Snapshot(open_trick, len(state.revokes), sum(d.scores is not None for d in state.deals))

    def notices(self, before: object) -> list[Screen]:
        if not isinstance(before, Snapshot):
            raise TypeError("notices() takes the snapshot taken before the action")
        state = self.game.state
        shown: list[Screen] = []
        if before.open_trick is not None:
            deal_index, trick_index = before.open_trick
            trick = state.deals[deal_index].tricks[trick_index]
            if trick.result is not None and self.needs_result_screen(state.deals[deal_index], trick_index):
                shown.append(self.result_screen(deal_index, trick_index))
        shown += [RevokeScreen(self.app, self, revoke) for revoke in state.revokes[before.revokes:]]
        scored = [index for index, deal in enumerate(state.deals) if deal.scores is not None]
        shown += [self.deal_screen(index) for index in scored[before.scored:]]
        return shown

    def result_screen(self, deal: int, trick: int) -> Screen:
        """One finished trick in full, as the notices and the history open it; games may show more."""
        return ResultScreen(self.app, self, deal, trick)

    def deal_screen(self, deal: int) -> Screen:
        """A deal's scores, as the notices open it; games may show more."""
        return DealScreen(self.app, self, deal)

    def needs_result_screen(self, deal: Deal[Any], index: int) -> bool:
        """The trick screen's panel shows most results; a full screen is needed for a house ruling,
        a reason too long for the panel, and a deal's last trick (the next screen is not a trick)."""
        trick = deal.tricks[index]
        if trick.result is None:
            return False
        last = index == self.game.tricks_in_deal(deal) - 1
        panel = self.app.t("trick.last", trick=index + 1, reason=self.reason(trick.result))
        return bool(trick.result.house) or last or len(self.app.face.wrap(panel, WIDTH)) > self.panel_rows()

    def panel_rows(self) -> int:
        """Rows the trick screen keeps under its seats for the last trick's reason."""
        return PANEL_ROWS

    def history(self) -> list[tuple[str, Callable[[], Screen]]]:
        entries: list[tuple[str, Callable[[], Screen]]] = []
        for d, deal in enumerate(self.game.state.deals):
            for k, trick in enumerate(deal.tricks):
                if trick.result is None:
                    continue
                line = f"{d + 1}-{k + 1} {self.plays_text(trick)} >{self.label(trick.result.winner)}"
                entries.append((line, functools.partial(self.result_screen, d, k)))
        return entries

    def where(self) -> str:
        deal = self.game.state.deal
        return self.t("resume.trick", deal=deal.index + 1, trick=len(deal.tricks))

    # --- the deal table ----------------------------------------------------------------------

    deal_name_margin: ClassVar[int] = 14  # pixels between a seat's name and the first column's edge

    def deal_columns(self, deal: Deal[Any]) -> list[tuple[str, list[int]]]:
        """The deal table's columns before the total: (heading key, one value per seat)."""
        return [("deal.tricks", list(deal.tricks_won)), ("deal.score", list(deal.scores or []))]

    def deal_column_edges(self, count: int) -> list[int]:
        """Right edges of the deal table's ``count`` columns (the total last)."""
        spacing = min(24, (WIDTH - 56) // count)  # names keep the left 56 pixels
        return [WIDTH - 1 - spacing * (count - 1 - i) for i in range(count)]

    # --- setup -------------------------------------------------------------------------------

    @classmethod
    def begin(cls, app: Host, game_id: str, names: Sequence[str], options: Mapping[str, Any]) -> None:
        """Make the setup with the app's random source and the table's facts, and start the game."""
        game_class = app.game_class(game_id)
        setup = game_class.new_setup(names, options=options, seed=app.rng.randrange(2**32),
                                     cards=printed_cards(game_id), table_facts=app.table_facts(game_id))
        app.start_game(setup)


class TrickScreenBase(Screen):
    """A screen of a trick game with its UI at hand.

    A screen that picks a card keeps its picker in ``grid`` and enters the card under the cursor on
    OK; the card keypad then types into it (:mod:`companion.ui.keypad`) when its cards have numbers.
    """

    grid: Grid[Any]  # only on screens that pick a card

    def __init__(self, app: Host, ui: TrickUI[Any]) -> None:
        super().__init__(app)
        self.ui = ui
        self.game = ui.game
        self._typing: Typing | None = None

    # whether the card keypad gets its own start (:meth:`typing_start`); Tezuma's picker keeps the
    # arrows' start on both inputs (measured: the keypad's start there was level overall, 1.42-1.53)
    keypad_start: ClassVar[bool] = False

    def likelihood(self, seat: int, grid: Grid[Any]) -> Callable[[Any], float]:
        """How likely each card of ``grid`` (the cards still unseen) is to come from ``seat``: the
        game's own odds (``card_odds``), which are the engine's, never the screen's."""
        odds: Mapping[Any, float] = self.game.card_odds(seat, [card for row in grid.rows for _, card in row])
        return odds.__getitem__

    def likely_start(self, seat: int, grid: Grid[Any], weight: Callable[[Any], float] | None = None) -> Grid[Any]:
        """``grid`` with the cursor where the card ``seat`` puts down is fewest presses away, as
        far as the table knows (``weight``, by default :meth:`likelihood`), on the input last used:
        the arrows' (:meth:`Grid.best_start`) or, where the game asks for it (``keypad_start``), the
        card keypad's (:meth:`typing_start`); the only card left is offered ready for OK."""
        weight = weight or self.likelihood(seat, grid)
        if self.app.card_keypad and self.keypad_start:
            return self.typing_start(grid, weight)
        return grid.best_start(weight)

    def typing_start(self, grid: Grid[Any], weight: Callable[[Any], float]) -> Grid[Any]:
        """``grid`` with the cursor where the card keypad expects the fewest presses, as far as the
        table knows (``weight``: how likely each card is): in the suit from which the letters expected
        are fewest (the card keypad's digits type into the suit shown; mostly the likeliest suit, but
        showing one of two suits that share a letter saves the second press to the other), on the
        likeliest of its cards a digit alone would not enter (two digits, or a number another begins
        with), which ``#`` then enters in one press; without such a card, on its likeliest card. The
        only card left is ready for OK."""
        mass = grid.group_mass(weight)

        def letters(shown: int) -> float:  # the letter presses expected from the suit shown
            at = grid.at_place(grid.places(shown)[0])
            return sum(weight * len(letters_to(at, group)) for group, weight in mass.items())

        suit = min(mass, key=lambda group: (letters(group), -mass[group], grid.groups.index(group)))
        places = grid.places(suit)
        numbers = [str(self.number_of(grid.at_place(place).value)) for place in places]

        def slow(number: str) -> bool:
            return len(number) > 1 or any(other != number and other.startswith(number) for other in numbers)

        value_at = [grid.at_place(place).value for place in places]
        best = max(range(len(places)), key=lambda i: (slow(numbers[i]), weight(value_at[i]), -i))
        return grid.at_place(places[best])

    def typing(self) -> Typing | None:
        grid = getattr(self, "grid", None)
        if self._typing is not None and self._typing.grid is grid:
            return self._typing  # the digits typed so far still stand (into a grid that was numbered)
        if not isinstance(grid, Grid) or any(self.number_of(value) is None for row in grid.rows for _, value in row):
            return None
        return Typing(grid)

    def typed(self, state: Typing) -> None:
        self.grid, self._typing = state.grid, state

    def stale(self) -> Collection[str]:
        """The digits typed are stale once the picker has moved on without them."""
        return ("_typing",) if self._typing is not None and self.typing() is not self._typing else ()

    def acting_seat(self) -> int:
        """The seat the game waits for: a screen that enters a seat's action is opened only then."""
        decision: Decision | None = self.game.decision
        if decision is None:
            raise ValueError(f"{type(self).__name__} needs a seat to act, and the game is over")
        return decision.seat

    def asked(self) -> Question:
        """The question the game waits on: an answer screen is opened only then."""
        decision: Decision | None = self.game.decision
        if decision is None or decision.question is None:
            raise ValueError(f"{type(self).__name__} needs a question to answer")
        return decision.question


class AnswerScreen(TrickScreenBase):
    """A card fact the print lost: the game's question, answered with the arrows and OK; the answer
    goes into the log and into the table's remembered facts. Subclasses give the value's keys."""

    def __init__(self, app: Host, ui: TrickUI[Any]) -> None:
        super().__init__(app, ui)
        self.question = self.asked()

    def answer(self, value: int) -> None:
        answer = Answer(self.question.key, value)
        self.app.push(answer)
        for key, fact in self.game.answer_facts(self.game.setup.cards, answer):
            self.app.on_fact(self.game.game_id, key, fact)

    def on_key(self, event: KeyEvent) -> None:
        if event.key in ARROWS:
            self.move(event.key)
        elif event.key is Key.OK:
            self.confirm()
        elif event.key is Key.BACK:
            self.app.open_menu()

    def move(self, arrow: Key) -> None:
        """An arrow changes the value shown."""
        raise NotImplementedError

    def confirm(self) -> None:
        """OK acts on the value shown (answers, or ticks what the cursor is on)."""
        raise NotImplementedError


def seat_row(canvas: Canvas, app: Host, players: Sequence[str], row: int, seat: int, *, active: bool) -> None:
    """The left of a trick screen's seat row: ``>`` on the seat to act, its label and name."""
    if active:
        canvas.text(row, ">")
    canvas.text(row, app.seat_label(seat), x=4, width=NAME_X - 4)
    canvas.text(row, players[seat], x=NAME_X, width=CARD_X - NAME_X - 2)


class ResultScreen(Notice):
    """One finished trick in full: who played what, who won and why, and any house ruling."""

    def __init__(self, app: Host, ui: TrickUI[Any], deal: int, trick: int) -> None:
        super().__init__(app)
        self.ui, self.deal, self.index = ui, deal, trick
        self.trick: Trick[Any] = ui.game.state.deals[deal].tricks[trick]

    def passable(self) -> bool:
        """The next card may be typed over a result; a house ruling waits for OK (rulings.md)."""
        return self.trick.result is not None and not self.trick.result.house

    def draw(self, canvas: Canvas) -> None:
        result = self.trick.result
        if result is None:
            raise ValueError("a result screen needs a finished trick")
        canvas.title(self.ui.t("result.title", deal=self.deal + 1, trick=self.index + 1,
                               seat=self.ui.seat_name(result.winner)))
        canvas.text(1, self.ui.plays_text(self.trick))
        self.details(canvas, result)

    def details(self, canvas: Canvas, result: TrickResult) -> None:
        """The reason under the cards; a house ruling (its words begin by naming it one) lit as an
        inverted block of its own under the reason, so both fit whole in Japanese too."""
        if result.house:
            canvas.lines(2, ROWS - 4, self.ui.reason(result, house=False))
            canvas.lines(ROWS - 2, 2, self.ui.house_ruling(result), invert=True)
        else:
            canvas.lines(2, ROWS - 2, self.ui.reason(result))


class RevokeScreen(Notice):
    """A revoke the table's cards proved: the device names it, the table decides what to do."""

    def __init__(self, app: Host, ui: TrickUI[Any], revoke: Revoke) -> None:
        super().__init__(app)
        self.ui, self.revoke = ui, revoke

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("revoke.title"))
        canvas.lines(1, 5, self.ui.revoke_text(self.revoke))
        canvas.text(ROWS - 1, self.t("revoke.hint"))


class DealScreen(Notice):
    """A deal's scores as a table (the game's columns, then the total), or LEFT/RIGHT for a bar
    chart of the totals; UP/DOWN scroll the seats when they outnumber the rows."""

    def __init__(self, app: Host, ui: TrickUI[Any], deal: int) -> None:
        super().__init__(app)
        self.ui, self.index = ui, deal
        self.chart = False
        self.scroll = Scroll()

    def on_key(self, event: KeyEvent) -> None:
        if event.key in (Key.LEFT, Key.RIGHT):
            self.chart = not self.chart
        elif not self.scroll.on_key(event.key):
            super().on_key(event)

    def totals(self) -> list[int]:
        """Totals as they stood after this deal, one per row of the table and the chart."""
        deals = self.ui.game.state.deals[: self.index + 1]
        return [sum(deal.scores[seat] for deal in deals if deal.scores) for seat in range(self.ui.game.n)]

    def draw(self, canvas: Canvas) -> None:
        (self._chart if self.chart else self._table)(canvas)
        self.scroll.hint(canvas, canvas.rows - 1, self.t("hint.deal"))

    def _table(self, canvas: Canvas) -> None:
        game = self.ui.game
        deal = game.state.deals[self.index]
        totals = self.totals()
        columns = [*self.ui.deal_columns(deal), ("deal.total", totals)]
        edges = self.ui.deal_column_edges(len(columns))
        canvas.title(self.ui.t("deal.title", deal=self.index + 1))
        canvas.columns(1, [(x, self.ui.t(head)) for x, (head, _) in zip(edges, columns, strict=True)])
        for row, seat in enumerate(self.scroll.window(len(totals), canvas.rows - 3), start=2):
            canvas.text(row, self.ui.seat_name(seat), width=edges[0] - self.ui.deal_name_margin)
            canvas.columns(row, [(x, str(values[seat])) for x, (_, values) in zip(edges, columns, strict=True)])

    def _chart(self, canvas: Canvas) -> None:
        canvas.title(self.ui.t("chart.title", deal=self.index + 1))
        totals = self.totals()
        longest = WIDTH - 40 - 16
        top = max(max(totals), 1)
        for row, seat in enumerate(self.scroll.window(len(totals), canvas.rows - 2), start=1):
            canvas.text(row, self.ui.short_name(seat), width=36)
            canvas.bar(38, row, longest * max(totals[seat], 0) // top)
            canvas.text(row, str(totals[seat]), x=WIDTH - 14, width=14, right=True)


class FinalScreen(TrickScreenBase):
    """The game is over: ranking by total, ties sharing a place (UP/DOWN scroll it when the seats
    outnumber the rows); the winners' line wraps; OK starts a new game."""

    def __init__(self, app: Host, ui: TrickUI[Any]) -> None:
        super().__init__(app, ui)
        self.scroll = Scroll()

    WINNER_ROWS: ClassVar[int] = 2  # the most rows the winners' line may take

    def on_key(self, event: KeyEvent) -> None:
        if self.scroll.on_key(event.key):
            return
        if event.key is Key.OK:
            self.app.new_game_form()
        elif event.key is Key.BACK:
            self.app.open_menu()

    def draw(self, canvas: Canvas) -> None:
        totals = self.game.totals()
        winners = self.game.winners()
        canvas.title(self.t("final.title"))
        who = ", ".join(self.game.setup.players[seat] for seat in winners)
        line = self.tie_line(who) if len(winners) > 1 else self.t("final.winner", names=who)
        line_rows = min(self.WINNER_ROWS, len(canvas.face.wrap(line, WIDTH)))
        places = ranking(totals)
        for row, index in enumerate(self.scroll.window(len(places), canvas.rows - 2 - line_rows), start=1):
            place, seat = places[index]
            canvas.text(row, f"{place}. {self.ui.seat_name(seat)}", width=80)
            canvas.text(row, str(totals[seat]), x=80, width=20, right=True)
            if seat in winners:
                canvas.text(row, self.t("final.win"), x=104)
        canvas.lines(canvas.rows - 1 - line_rows, line_rows, line)
        self.scroll.hint(canvas, canvas.rows - 1, self.t("hint.final"))

    def tie_line(self, names: str) -> str:
        """What the screen says when the top total is shared; a game's book may add its own line."""
        return self.t("final.winners", names=names)


def ranking(totals: Sequence[int]) -> list[tuple[int, int]]:
    """(place, seat) from the highest total down; equal totals share a place, the next place skips.

    >>> ranking([10, 12, 12, 3])
    [(1, 1), (1, 2), (3, 0), (4, 3)]
    """
    order = sorted(range(len(totals)), key=lambda seat: (-totals[seat], seat))
    return [(1 + sum(other > totals[seat] for other in totals), seat) for seat in order]
