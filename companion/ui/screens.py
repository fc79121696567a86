"""Screens that do not depend on the game: the base class, menus, confirmations, settings, history.

A screen draws itself on a :class:`~companion.ui.canvas.Canvas` and reacts to keys. A key it
refuses raises a :class:`~companion.errors.CompanionError`; the app flashes the message and
nothing else changes. Screens are stacked by the app: the game screen for the current decision at
the bottom, notices (trick results, revokes, deal scores) and menus above it.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from companion.carddata import printed_cards
from companion.errors import IllegalAction
from companion.keys import ARROWS, DIGITS, JOYSTICK_KEYS, LETTERS, Key, KeyEvent
from companion.registry import SetupRow, player_counts, setup_rows
from companion.settings import CONTRAST_RANGE
from companion.ui.canvas import HEIGHT, ROWS, WIDTH, Canvas

if TYPE_CHECKING:
    import random

    from companion.engine.base import Game, Setup
    from companion.hw.buzzers import BuzzerArbiter
    from companion.session import Session
    from companion.settings import LastSetup, Settings
    from companion.text import Catalog
    from companion.ui.canvas import Typeface
    from companion.ui.keypad import Typing


class Host(Protocol):
    """The app as its screens and game UIs see it (:class:`companion.ui.app.App` is the one): named
    here, not imported, so the app may import the screens without a loop."""

    session: Session | None
    ui: GameUI | None
    settings: Settings
    catalog: Catalog
    face: Typeface
    rng: random.Random
    buzzers: BuzzerArbiter | None
    on_fact: Callable[[str, str, int], None]
    table_facts: Callable[[str], Mapping[str, Any]]

    @property
    def top(self) -> Screen: ...
    @property
    def screens(self) -> tuple[Screen, ...]: ...
    @property
    def lang(self) -> str: ...
    @property
    def languages(self) -> tuple[str, ...]: ...
    @property
    def card_keypad(self) -> bool: ...
    def t(self, key: str, **fields: object) -> str: ...
    def now(self) -> float: ...
    def seat_label(self, seat: int) -> str: ...
    def seat_names(self) -> list[str]: ...
    def game_class(self, game_id: str) -> type[Game[Any]]: ...
    def ui_class(self, game_id: str) -> type[GameUI]: ...
    def game_title(self, game_id: str) -> str: ...
    def open(self, screen: Screen) -> None: ...
    def close(self, screen: Screen) -> None: ...
    def push(self, action: Any) -> None: ...
    def open_menu(self) -> None: ...
    def undo(self) -> None: ...
    def new_game_form(self) -> None: ...
    def start_game(self, setup: Setup) -> None: ...
    def change_settings(self, **changes: Any) -> None: ...


class Screen(ABC):
    """One step of the interaction: what the glass shows and what each key does there."""

    # The key that leaves this screen towards the game screen: the key planner presses it.
    leave_key: ClassVar[Key] = Key.BACK

    def __init__(self, app: Host) -> None:
        self.app = app

    def t(self, key: str, **fields: object) -> str:
        return self.app.t(key, **fields)

    @abstractmethod
    def draw(self, canvas: Canvas) -> None: ...

    def on_key(self, event: KeyEvent) -> None:
        """React to one key; BACK leaves by default."""
        if event.key is Key.BACK:
            self.app.close(self)

    def clone(self, app: Host) -> Screen:
        """A copy of this screen on ``app`` whose keys leave this one as it is: the key planner
        presses keys on copies (:mod:`companion.ui.planner`). The copy shares everything but the
        lists, dicts and sets a key may change in place."""
        copied = copy.copy(self)
        for name, value in vars(self).items():
            if type(value) in (list, dict, set):
                setattr(copied, name, copy.copy(value))
        copied.app = app
        return copied

    def progress(self, action: Any) -> int | None:
        """How much of ``action`` the keys have built up here so far (cards taken one at a time, each
        confirmed), or None where it can no longer end in ``action``: the key planner searches no
        further there, and plans one part at a time (a part built, it plans again from there)."""
        return 0

    def stale(self) -> Collection[str]:
        """Attributes the keys have left out of date (a picker's typed digits once its grid moved
        on): the key planner leaves them out of a copy's state, so equal states are searched once."""
        return ()

    def on_shown(self) -> None:  # noqa: B027 - optional hook; most screens draw what their state says
        """The app drew this screen (it does after every key): a screen whose keys depend on what
        the glass showed sets that here, so the key planner's copies, never drawn, know it too."""

    def typing(self) -> Typing | None:
        """The card picker the card keypad types into here, or None (its keys then act as the
        joystick's: :mod:`companion.ui.keypad`)."""
        return None

    def picks(self) -> bool:
        """Whether this screen is a picker whose first key may close a :meth:`Notice.passable`
        notice above it and act here (a card picker; Tourney's prediction compass too)."""
        return self.typing() is not None

    def typed(self, state: Typing) -> None:  # noqa: B027 - optional hook; most screens type nothing
        """The card keypad moved the picker to ``state``; a screen that offers :meth:`typing` keeps it."""

    def on_keypad(self, event: KeyEvent) -> None:
        """One card-keypad press: it types into the picker, or stands for a joystick key."""
        from companion.ui.keypad import as_joystick, typed  # with the card keypad's first key: most tables have none

        state = self.typing()
        joystick = as_joystick(event, typing=state is not None)
        if joystick is not None:
            self.on_key(joystick)
        elif state is not None:
            state = typed(state, event.key, self.number_of)
            self.typed(state)
            if state.enter:
                self.on_key(KeyEvent(Key.OK))

    def number_of(self, value: Any) -> int | None:
        """The number the card keypad types for a picker's ``value`` (its rank), or None."""
        rank = getattr(value, "rank", None)
        return rank if isinstance(rank, int) else None

    def deadline(self) -> float | None:
        """When this screen changes by itself (an app-clock time, e.g. a countdown), or None."""
        return None

    def tick(self, now: float) -> None:  # noqa: B027 - optional hook; most screens have no deadline
        """The app's clock reached ``now``: a screen with a :meth:`deadline` updates itself."""


class Notice(Screen):
    """Something the table should read before play goes on (a trick result, a revoke): OK goes on.

    A notice that is :meth:`passable` also lets the next entry begin on it: an arrow or AUX, or a
    letter or digit of the card keypad, closes it and acts on the card picker beneath, so a table
    that has read it presses nothing extra. It was shown before the next entry was asked all the same.
    """

    leave_key = Key.OK

    def passable(self) -> bool:
        """Whether the next entry may begin on this notice (a revoke or a deal's scores wait for OK)."""
        return False

    def begins_entry(self, event: KeyEvent) -> bool:
        """Whether ``event`` would begin the next entry on a card picker beneath this notice, when
        the notice is :meth:`passable`: an arrow or AUX (the card keypad's held 2 8 4 6 and 0), or a
        letter or digit the card keypad types."""
        if not self.passable():
            return False
        if event.key in JOYSTICK_KEYS:
            meant: KeyEvent | None = event
        else:
            from companion.ui.keypad import as_joystick  # with the card keypad's first key: most tables have none

            meant = as_joystick(event, typing=True)
        if meant is not None:
            return meant.key in ARROWS or meant.key is Key.AUX
        return not event.long and (event.key in DIGITS or event.key in LETTERS)

    def passes(self, event: KeyEvent) -> bool:
        """Whether ``event`` begins the next entry now: this notice lies right above a card picker
        (one above another notice waits for OK: the one beneath was not shown yet)."""
        screens = self.app.screens
        return len(screens) == 2 and screens[1] is self and screens[0].picks() and self.begins_entry(event)

    def on_key(self, event: KeyEvent) -> None:
        if self.passes(event):
            self.app.close(self)
            self.app.top.on_key(event)
        elif event.key in (Key.OK, Key.BACK):
            self.app.close(self)

    def on_keypad(self, event: KeyEvent) -> None:
        if self.passes(event):
            self.app.close(self)
            self.app.top.on_keypad(event)
        else:
            super().on_keypad(event)


class GameUI(ABC):
    """What a game's screens give the app; one subclass per game package, named in its plugin record."""

    def __init__(self, app: Host, session: Session) -> None:
        self.app = app
        self.session = session

    @abstractmethod
    def base(self) -> Screen:
        """The screen for the decision the game waits for (or the final ranking)."""

    @abstractmethod
    def snapshot(self) -> object:
        """Enough of the state to tell afterwards what an action changed."""

    @abstractmethod
    def notices(self, before: object) -> list[Screen]:
        """What the table must be told after an action, first shown first."""

    @abstractmethod
    def history(self) -> list[tuple[str, Callable[[], Screen]]]:
        """One line per finished trick, and how to open its details."""

    @abstractmethod
    def describe(self, action: Any) -> str:
        """An action in words, for the undo confirmation."""

    @abstractmethod
    def where(self) -> str:
        """How far the game has come, for the resume offer."""

    def t(self, key: str, **fields: object) -> str:
        """A text in the language on screen; a game family may word shared texts its own way."""
        return self.app.t(key, **fields)

    def refusal(self, error: IllegalAction) -> str:
        """The engine's refusal in the language on screen: its code through the catalogue, where
        the engine gave one, else the engine's own (English) sentence."""
        if self.app.lang == "en" or error.code is None:
            return str(error)
        return self.t(f"refusal.{error.code}", **self.localized(error.params))

    def localized(self, params: Mapping[str, object]) -> dict[str, object]:
        """Refusal parameters with ids turned into names on screen; games with named ids override."""
        return dict(params)

    @classmethod
    @abstractmethod
    def start(cls, app: Host, game_id: str, names: Sequence[str], choices: Sequence[Choice]) -> None:
        """Make the setup from the form (perhaps after more screens) and hand it to :meth:`App.start_game`."""


class Fields:
    """Equal by the values of ``FIELDS``, shown with them, and (mutable) not hashable: what a dataclass
    gives, without the functions a dataclass writes and compiles at every import (Scroll's and
    Choice's were about 3.5 million instructions of every start)."""

    FIELDS: ClassVar[tuple[str, ...]]

    def field_values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.field_values() == other.field_values()

    __hash__ = None  # type: ignore[assignment]  # equal by value and mutable, as a dataclass without frozen

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({shown})"


class Scroll(Fields):
    """Which entries of a list longer than its rows are on the glass. Every screen that lists seats
    shows them through one, the same way in every game: UP/DOWN bring the others into view, at
    every player count, and ``↑`` ``↓`` at the end of the hint row say more lies above or below.

    >>> scroll = Scroll()
    >>> list(scroll.window(6, 4)), scroll.more()
    ([0, 1, 2, 3], '↓')
    >>> scroll.on_key(Key.DOWN), list(scroll.window(6, 4)), scroll.more()
    (True, [1, 2, 3, 4], '↑↓')
    >>> scroll
    Scroll(first=1, count=6, room=4)
    """

    FIELDS = ("first", "count", "room")

    def __init__(self, first: int = 0, count: int = 0, room: int = 0) -> None:
        self.first, self.count, self.room = first, count, room

    def window(self, count: int, room: int, keep: int | None = None) -> range:
        """The entries shown in ``room`` rows of ``count``; ``keep`` (a cursor) is always among them."""
        self.count, self.room = count, max(1, room)
        if keep is not None:
            self.first = min(max(self.first, keep - self.room + 1), keep)
        self.first = max(0, min(self.first, count - self.room))
        return range(self.first, min(count, self.first + self.room))

    def on_key(self, key: Key) -> bool:
        """UP/DOWN move the window a row when the list is longer than its rows; whether it moved."""
        if key not in (Key.UP, Key.DOWN) or self.count <= self.room:
            return False
        step = 1 if key is Key.DOWN else -1
        first = max(0, min(self.first + step, self.count - self.room))
        moved, self.first = first != self.first, first
        return moved

    def more(self) -> str:
        """``↑`` when entries lie above the window, ``↓`` when some lie below: drawn on the hint row."""
        return ("↑" if self.first > 0 else "") + ("↓" if self.first + self.room < self.count else "")

    def hint(self, canvas: Canvas, row: int, text: str) -> None:
        """``text`` on ``row`` with :meth:`more`'s arrows at its right end."""
        marks = self.more()
        if not marks:
            canvas.text(row, text)
            return
        room = WIDTH - canvas.face.width(marks) - 2
        canvas.text(row, text, width=room)
        canvas.text(row, marks, x=room + 2)


class ListScreen(Screen):
    """A title and a scrolling list; UP/DOWN move (wrapping), OK picks."""

    def __init__(self, app: Host, title: str, items: Sequence[str]) -> None:
        super().__init__(app)
        self.title = title
        self.items = list(items)
        self.index = 0

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        room = ROWS - 1
        top = min(max(0, self.index - room + 1), max(0, len(self.items) - room))
        for offset, item in enumerate(self.items[top : top + room]):
            chosen = top + offset == self.index
            canvas.text(1 + offset, ("> " if chosen else "  ") + item, invert=chosen)

    def on_key(self, event: KeyEvent) -> None:
        if event.key in (Key.UP, Key.DOWN) and self.items:
            self.index = (self.index + (1 if event.key is Key.DOWN else -1)) % len(self.items)
        elif event.key is Key.OK and self.items:
            self.pick(self.index)
        else:
            super().on_key(event)

    @abstractmethod
    def pick(self, index: int) -> None: ...


MenuEntries = Callable[[], Sequence[tuple[str, Callable[[], None]]]]


class Menu(ListScreen):
    """Named actions, each a callable run when picked.

    The title and entries are asked for afresh on every draw, in the language on screen: a
    language changed in Settings shows at once when BACK returns here.
    """

    def __init__(self, app: Host, title: Callable[[], str], entries: MenuEntries) -> None:
        self._title, self._entries = title, entries
        super().__init__(app, title(), [])
        self.actions: list[Callable[[], None]] = []
        self._relabel()

    def _relabel(self) -> None:
        entries = self._entries()
        self.title = self._title()
        self.items = [label for label, _ in entries]
        self.actions = [action for _, action in entries]

    def draw(self, canvas: Canvas) -> None:
        self._relabel()
        super().draw(canvas)

    def pick(self, index: int) -> None:
        self.actions[index]()


class Confirm(Screen):
    """A question that OK answers yes and BACK answers no."""

    def __init__(self, app: Host, title: str, text: str, on_yes: Callable[[], None]) -> None:
        super().__init__(app)
        self.title, self.text, self.on_yes = title, text, on_yes

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title)
        canvas.lines(1, ROWS - 2, self.text)
        canvas.text(ROWS - 1, self.t("hint.yes_no"))

    def on_key(self, event: KeyEvent) -> None:
        if event.key is Key.OK:
            self.app.close(self)
            self.on_yes()
        else:
            super().on_key(event)


class HistoryScreen(ListScreen):
    """Every finished trick of the game, newest last; OK shows one in full."""

    def __init__(self, app: Host, entries: Sequence[tuple[str, Callable[[], Screen]]]) -> None:
        title = app.t("history.title") if entries else app.t("history.empty")
        super().__init__(app, title, [line for line, _ in entries])
        self.details = [open_detail for _, open_detail in entries]
        self.index = max(0, len(entries) - 1)

    def pick(self, index: int) -> None:
        self.app.open(self.details[index]())


class SettingsScreen(Screen):
    """Contrast and language; every change is applied at once and handed to the app to persist."""

    CONTRAST_STEP = 32

    def __init__(self, app: Host) -> None:
        super().__init__(app)
        self.row = 0

    def draw(self, canvas: Canvas) -> None:
        settings = self.app.settings
        canvas.title(self.t("settings.title"))
        labels = [self.t("settings.contrast"), self.t("settings.language")]
        for index, label in enumerate(labels):
            chosen = index == self.row
            canvas.text(2 + index, ("> " if chosen else "  ") + label, invert=chosen)
        low, high = CONTRAST_RANGE
        canvas.gauge(64, 2, 56, (settings.contrast - low) / (high - low))
        canvas.text(3, self.app.catalog.text(settings.language, "language.name"), x=64)
        canvas.text(ROWS - 1, self.t("hint.settings"))

    def on_key(self, event: KeyEvent) -> None:
        if event.key in (Key.UP, Key.DOWN):
            self.row = 1 - self.row
        elif event.key in (Key.LEFT, Key.RIGHT):
            step = 1 if event.key is Key.RIGHT else -1
            if self.row == 0:
                self.app.change_settings(contrast=self.app.settings.contrast + step * self.CONTRAST_STEP)
            else:
                languages = self.app.languages
                index = (languages.index(self.app.settings.language) + step) % len(languages)
                self.app.change_settings(language=languages[index])
        else:
            super().on_key(event)


class ResumeOffer(Screen):
    """An unfinished game found at start-up: OK resumes it, BACK starts a new one."""

    def __init__(self, app: Host, title: str, lines: Sequence[str], on_resume: Callable[[], None]) -> None:
        super().__init__(app)
        self.title, self.lines, self.on_resume = title, list(lines), on_resume

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("resume.title"))
        canvas.text(1, self.title)
        row = 2
        for line in self.lines:
            canvas.lines(row, 2, line)
            row += len(canvas.face.wrap(line, WIDTH)[:2])
        canvas.text(ROWS - 1, self.t("hint.resume"))

    def on_key(self, event: KeyEvent) -> None:
        if event.key is Key.OK:
            self.on_resume()
        elif event.key is Key.BACK:
            self.app.new_game_form()


class QrScreen(Screen):
    """The table page's address as a QR code a phone's camera opens (left), and as text (right).

    Modules are 2x2 pixels when the code fits the panel's height that way, else 1x1; the lit margin
    is two modules. Error correction is the strongest that keeps the smallest version (at least L), so
    every ``http://<IPv4>:<port>/`` is version 2 (25 modules, 58 pixels with the margin).
    """

    QUIET = 2  # modules of lit margin: the panel's dark edge is no quiet zone

    def __init__(self, app: Host, url: str) -> None:
        super().__init__(app)
        import segno  # only when a page is served and its screen opened

        self.url = url
        self.modules = [list(line) for line in segno.make_qr(url, error="l", boost_error=True).matrix]

    def draw(self, canvas: Canvas) -> None:
        span = len(self.modules) + 2 * self.QUIET
        scale = 2 if span * 2 <= HEIGHT else 1
        size = span * scale
        top = (HEIGHT - size) // 2
        width = canvas.matrix(0, top, self.modules, scale, self.QUIET)
        text_x = width + 3
        room = WIDTH - text_x
        canvas.text(0, self.t("qr.title"), x=text_x, width=room)
        host, colon, port = self.url.removeprefix("http://").rpartition(":")  # the port on a line of its own
        lines = [*canvas.face.wrap(host, room), colon + port] if colon else canvas.face.wrap(port, room)
        for row, line in enumerate(lines[: ROWS - 2], start=1):
            canvas.text(row, line, x=text_x, width=room)
        canvas.text(ROWS - 1, self.t("qr.hint"), x=text_x, width=room)


class Choice(Fields):
    """One row of the setup form: a label and options cycled with LEFT/RIGHT."""

    FIELDS = ("key", "label", "options", "labels", "index")

    def __init__(self, key: str, label: str, options: list[str], labels: list[str], index: int = 0) -> None:
        self.key, self.label, self.options, self.labels, self.index = key, label, options, labels, index

    @property
    def value(self) -> str:
        return self.options[self.index]


def yes_no(app: Host, key: str, label_key: str) -> Choice:
    """A no/yes row of the setup form."""
    return Choice(key, app.t(label_key), ["no", "yes"], [app.t("no"), app.t("yes")])


def setup_choice(app: Host, game_id: str, row: SetupRow, players: int) -> Choice:
    """The setup form's row for one of the game's own rows (:class:`~companion.registry.SetupRow`)."""
    if row.kind == "seat":
        seats = [str(seat) for seat in range(players)]
        return Choice(row.key, app.t(row.label), seats, [app.seat_label(seat) for seat in range(players)])
    if row.kind == "yes_no":
        return yes_no(app, row.key, row.label)
    modes = (["recommended"] if "recommended" in printed_cards(game_id) else []) + ["random", "choose"]
    return Choice(row.key, app.t(row.label), modes, [app.t(f"setup.cards.{mode}") for mode in modes])


class SetupForm(Screen):
    """A new game: which game, how many players, their names, then the game's own options; Start.

    It opens on the game last started (``last``: its game, player count and names, as the settings
    remember them), else on the first game at its largest count. The Start row stays on the glass
    at the bottom while the rows above it scroll, and UP from the first row reaches it: one press.
    """

    def __init__(self, app: Host, game_ids: Sequence[str], last: LastSetup | None = None) -> None:
        super().__init__(app)
        self.game_ids = list(game_ids)
        self.game = Choice("game", self.t("setup.game"), self.game_ids, [app.game_title(g) for g in self.game_ids])
        self.players = Choice("players", self.t("setup.players"), [], [])
        self.names: list[Choice] = []
        self.extra: list[Choice] = []
        self.row = 0
        self.named = False  # whether a seat's name was chosen here (then new names on offer keep it)
        self.scroll = Scroll()
        if last is not None and last.game in self.game_ids:
            self.game.index = self.game_ids.index(last.game)
            self.players.options = self.players.labels = [str(last.players)]
            pool = app.seat_names()
            known = list(dict.fromkeys(name for name in last.names if name in pool))
            self.names = [Choice(f"seat{seat}", "", pool, pool, pool.index(name)) for seat, name in enumerate(known)]
        self._rebuild()

    def offer_names(self) -> None:
        """The names on offer changed (an event's seating arrived): the seats take the first of them,
        unless a name was already chosen here."""
        before = self.names
        if not self.named:
            self.names = []
        self._rebuild()
        for old, new in zip(before, self.names, strict=False):  # the same rows, so a cursor on one stays
            old.options, old.labels, old.index = new.options, new.labels, new.index
        self.names[: len(before)] = before[: len(self.names)]

    def _rebuild(self) -> None:
        """Refill the rows that depend on the game and the player count, keeping what still applies."""
        counts = [str(n) for n in player_counts(self.game.value)]
        wanted = self.players.value if self.players.options else counts[-1]
        self.players.options = self.players.labels = counts
        self.players.index = counts.index(wanted) if wanted in counts else len(counts) - 1
        pool = self.app.seat_names()
        names = [choice.value for choice in self.names]
        while len(names) < int(self.players.value):
            names.append(next(n for n in pool if n not in names))
        self.names = [
            Choice(f"seat{seat}", self.app.seat_label(seat), pool, pool, pool.index(name) if name in pool else 0)
            for seat, name in enumerate(names[: int(self.players.value)])
        ]
        self.extra = [setup_choice(self.app, self.game.value, row, int(self.players.value))
                      for row in setup_rows(self.game.value)]

    @property
    def rows(self) -> list[Choice | None]:
        """The form's rows; None is the Start row."""
        return [self.game, self.players, *self.names, *self.extra, None]

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.t("setup.title"))
        rows = self.rows
        start = len(rows) - 1
        above = self.scroll.window(start, canvas.rows - 2, keep=min(self.row, start - 1))
        for screen_row, index in enumerate([*above, start], start=1):
            choice, chosen = rows[index], index == self.row
            label = self.t("setup.start") if choice is None else choice.label
            canvas.text(screen_row, ("> " if chosen else "  ") + label, width=56, invert=chosen)
            if choice is not None:
                value = choice.labels[choice.index]
                canvas.text(screen_row, f"< {value} >" if chosen else f"  {value}", x=56)
            elif self.scroll.more():
                canvas.text(screen_row, self.scroll.more(), x=56)

    def on_key(self, event: KeyEvent) -> None:
        rows = self.rows
        choice = rows[self.row]
        if event.key in (Key.UP, Key.DOWN):
            self.row = (self.row + (1 if event.key is Key.DOWN else -1)) % len(rows)
        elif event.key in (Key.LEFT, Key.RIGHT) and choice is not None:
            self._cycle(choice, 1 if event.key is Key.RIGHT else -1)
        elif event.key is Key.OK and choice is None:
            cls = self.app.ui_class(self.game.value)
            cls.start(self.app, self.game.value, [c.value for c in self.names], self.extra)
        elif event.key is Key.BACK:
            if self.app.session is not None:
                self.app.close(self)  # back to the game in progress
            else:
                self.app.open_menu()

    def _cycle(self, choice: Choice, step: int) -> None:
        self.named = self.named or choice in self.names
        taken = {c.value for c in self.names if c is not choice}
        for _ in choice.options:
            choice.index = (choice.index + step) % len(choice.options)
            if choice not in self.names or choice.value not in taken:
                break
        if choice in (self.game, self.players):
            self._rebuild()
            self.row = min(self.row, len(self.rows) - 1)

