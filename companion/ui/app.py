"""The device's user interface as a state machine: key events in, a 128x64 one-bit picture out.

Pure apart from drawing with Pillow: no threads, no sleeping, no clock of its own. The daemon

* feeds every :class:`~companion.keys.KeyEvent` to :meth:`App.handle`;
* calls :meth:`App.tick` once :meth:`App.next_deadline` (a ``clock()`` value) has passed (dimming,
  blanking, a refusal's flash, or the top screen's own deadline, such as a countdown's next second);
* redraws with :meth:`App.render` whenever :attr:`App.version` changed, and maps
  :attr:`App.display_state` ("on", "dim", "off") to the panel's contrast or to hiding it;
* hands it event mode's link mark with :meth:`App.show_status_mark` (on the loop thread), drawn in
  the top right corner of every screen; without event mode the mark stays empty and nothing is drawn;
* persists what the callbacks hand it: a new game's :class:`~companion.engine.base.Setup`
  (``on_new_game`` returns the journalled :class:`~companion.session.Session`), card facts the
  table told (``on_fact``) and :class:`Settings` (``on_settings``).

Every change to the game goes through the session, so the journal hears exactly what the engine
accepted. A key the rules refuse flashes the engine's reason and changes nothing.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PIL import Image

from companion.errors import CompanionError, ConfigError, IllegalAction
from companion.keys import JOYSTICK_KEYS, Key, KeyEvent
from companion.names import name_key
from companion.registry import game_class, game_ids, game_title, plugin
from companion.session import Session
from companion.settings import CONTRAST_RANGE, LastSetup, Settings
from companion.text import Catalog, load_seat_names
from companion.ui.canvas import ROWS, WIDTH, Canvas, Typeface
from companion.ui.screens import (
    Confirm,
    GameUI,
    HistoryScreen,
    Menu,
    QrScreen,
    ResumeOffer,
    Screen,
    SettingsScreen,
    SetupForm,
)

if TYPE_CHECKING:
    from companion.engine.base import (  # the engine loads with the first game played, not with the setup form
        Game,
        Setup,
    )
    from companion.hw.buzzers import BuzzerArbiter

DIM_AFTER_S = 120.0
OFF_AFTER_S = 600.0
FLASH_S = 1.0
DISPLAY_STATES = ("on", "dim", "off")

log = logging.getLogger(__name__)


def _ignore(*_: object) -> None:
    """The default for callbacks the daemon may leave out (tests, demos)."""


class App:
    """The screens, the timers and the session they drive. See the module docstring for the contract."""

    def __init__(
        self,
        session: Session | None = None,
        *,
        clock: Callable[[], float],
        rng: random.Random,
        settings: Settings = Settings(),
        catalog: Catalog | None = None,
        typeface: Typeface | None = None,
        on_new_game: Callable[[Setup], Session] = lambda setup: Session(game_class(setup.game)(setup)),
        resume_offer: Game[Any] | None = None,
        on_resume: Callable[[Game[Any]], Session] = Session,
        on_fact: Callable[[str, str, int], None] = _ignore,
        on_settings: Callable[[Settings], None] = _ignore,
        table_facts: Callable[[str], Mapping[str, Any]] = lambda game_id: {},
        player_names: Callable[[], Sequence[str]] = tuple,
        page_url: str | None = None,
        dim_after: float = DIM_AFTER_S,
        off_after: float = OFF_AFTER_S,
        buzzers: BuzzerArbiter | None = None,
    ) -> None:
        self._clock = clock
        self.buzzers = buzzers  # quiz buzzers (one per seat), for games that ask who pointed first
        self.rng = rng
        self.settings = settings
        self.catalog = catalog or Catalog.load()
        self.face = typeface or Typeface.find()
        self._seat_names = load_seat_names()
        self._player_names = player_names  # the roster, most recently used first
        self.page_url = page_url  # the table page's address when the device serves it (run --web)
        self._seated: list[str] = []  # the names an event seats at this table, once it said them
        self._on_new_game = on_new_game
        self._on_resume = on_resume
        self.on_fact = on_fact
        self._on_settings = on_settings
        self.table_facts = table_facts
        self.dim_after, self.off_after = dim_after, off_after

        self.session: Session | None = None
        self.ui: GameUI | None = None
        self._stack: list[Screen] = []
        self._display = "on"
        self._last_input = clock()
        self._message: str | None = None
        self._flashing_until: float | None = None
        self._version = 0
        self._card_keypad = False
        self._status_mark = ""
        self._image: Image.Image | None = None
        self._canvas: Canvas | None = None
        if session is not None:
            self._attach(session)
        elif resume_offer is not None:
            self._offer_resume(resume_offer)
        else:
            self.new_game_form()
        self._refresh()

    # --- the daemon's side ---------------------------------------------------------------

    def handle(self, event: KeyEvent) -> None:
        """One key press. A press that wakes a dim or blank display does nothing else."""
        now = self._clock()
        self._settle(now)
        self._last_input = now
        self._card_keypad = event.key not in JOYSTICK_KEYS
        if self._display != "on":
            self._display = "on"
            self._version += 1
            return
        self._message, self._flashing_until = None, None
        try:
            if event.key in (Key.BACK, Key.STAR) and event.long and self.session is not None:
                self.offer_undo()
            elif event.key in JOYSTICK_KEYS:
                self.top.on_key(event)
            else:
                self.top.on_keypad(event)
        except IllegalAction as err:
            self._message = self.ui.refusal(err) if self.ui is not None else str(err)
            self._flashing_until = now + FLASH_S
        except CompanionError as err:
            self._message, self._flashing_until = str(err), now + FLASH_S
        self._refresh()

    def tick(self) -> None:
        """Apply whatever timers have come due by ``clock()``; cheap to call early."""
        self._settle(self._clock())

    def next_deadline(self) -> float | None:
        """When :meth:`tick` has something to do next (a ``clock()`` value), or None."""
        deadlines = []
        if self._flashing_until is not None:
            deadlines.append(self._flashing_until)
        if self._display == "on":
            deadlines.append(self._last_input + self.dim_after)
        if self._display != "off":
            deadlines.append(self._last_input + self.off_after)
        screen_deadline = self.top.deadline()
        if screen_deadline is not None:
            deadlines.append(screen_deadline)
        return min(deadlines, default=None)

    def now(self) -> float:
        """The app's clock, for screens that count time (they have no clock of their own)."""
        return self._clock()

    @property
    def card_keypad(self) -> bool:
        """Whether the last key came from the card keypad: a picker then starts where typing needs
        the fewest presses, else where the arrows do (the two differ a little)."""
        return self._card_keypad

    @property
    def display_state(self) -> str:
        """"on", "dim" (idle for ``dim_after`` s) or "off" (idle for ``off_after`` s)."""
        return self._display

    @property
    def version(self) -> int:
        """Grows whenever the picture or the display state changed: redraw when it differs."""
        return self._version

    @property
    def message(self) -> str | None:
        """The reason the last key was refused, shown until the next key (None when all is well)."""
        return self._message

    def show_message(self, text: str) -> None:
        """Show ``text`` like a refusal (flashing, then until the next key): for problems found
        outside the UI, such as a storage failure or what start-up recovery set aside."""
        self._message, self._flashing_until = text, self._clock() + FLASH_S
        self._refresh()

    @property
    def status_mark(self) -> str:
        """Event mode's link mark drawn in the corner ('' draws nothing): see docs/screens.md."""
        return self._status_mark

    def show_status_mark(self, mark: str) -> None:
        """Draw ``mark`` (a character or two) in the top right corner of every screen from now on.

        The daemon calls it on the loop thread when event mode's link changes ('' all well, '~'
        behind, '!' no broker, 'x' refused); a change that alters the picture bumps the version.
        """
        self._status_mark = mark
        self._refresh()

    def render(self) -> Image.Image:
        """The current picture, mode "1", 128x64."""
        assert self._image is not None  # drawn in __init__ and after every change
        return self._image.copy()

    @property
    def canvas(self) -> Canvas:
        """The current picture's canvas: its text model says what is on the glass, and where
        (``Canvas.drawn``, ``Canvas.bands``)."""
        assert self._canvas is not None  # drawn in __init__ and after every change
        return self._canvas

    # --- what screens use ----------------------------------------------------------------

    @property
    def top(self) -> Screen:
        return self._stack[-1]

    @property
    def screens(self) -> tuple[Screen, ...]:
        """The screen stack, bottom (the game screen) first."""
        return tuple(self._stack)

    @property
    def lang(self) -> str:
        """The language shown: the setting, unless the font cannot draw it."""
        return self.settings.language if self.face.japanese else "en"

    @property
    def languages(self) -> tuple[str, ...]:
        return self.catalog.languages

    def t(self, key: str, **fields: object) -> str:
        return self.catalog.text(self.lang, key, **fields)

    def seat_label(self, seat: int) -> str:
        return self.t("seat.label", n=seat + 1)

    def seat_names(self) -> list[str]:
        """The names the setup form offers: the event's seated names, the roster's, then the built-in
        ones (a seat, not a person), each once as :func:`~companion.names.name_key` compares them."""
        extra = [*self._seated, *self._player_names()]
        if not extra:  # the built-in names alone: nothing to compare (the comparison's table loads on first use)
            return list(self._seat_names[self.lang])
        offered: dict[str, str] = {}
        for name in [*extra, *self._seat_names[self.lang]]:
            offered.setdefault(name_key(name), name)
        return list(offered.values())

    def offer_seated_names(self, names: Sequence[str]) -> None:
        """An event seats ``names`` at this table: offered first from now on (an open setup form at once)."""
        self._seated = list(names)
        if self._stack and isinstance(self.top, SetupForm):
            self.top.offer_names()
            self._refresh()

    def game_class(self, game_id: str) -> type[Game[Any]]:
        return game_class(game_id)

    def ui_class(self, game_id: str) -> type[GameUI]:
        screens = plugin(game_id).screens
        if screens is None:
            raise ConfigError(f"the device has no screens for {game_id!r} yet")
        cls = plugin(game_id).load(screens)
        if not (isinstance(cls, type) and issubclass(cls, GameUI)):
            raise ConfigError(f"the screens of {game_id!r} are not a GameUI: {cls!r}")
        return cls

    def game_title(self, game_id: str) -> str:
        return game_title(game_id)

    def open(self, screen: Screen) -> None:
        self._stack.append(screen)

    def close(self, screen: Screen) -> None:
        """Remove ``screen``; the game screen at the bottom is never removed this way."""
        if len(self._stack) > 1 and screen in self._stack:
            self._stack.remove(screen)

    def push(self, action: Any) -> None:
        """Enter ``action`` through the session; refused actions raise and change nothing."""
        session, ui = self._game_parts()
        before = ui.snapshot()
        session.push(action)
        notices = ui.notices(before)
        self._stack = [ui.base(), *reversed(notices)]

    def offer_undo(self) -> None:
        session, ui = self._game_parts()
        if not session.game.actions:
            raise IllegalAction(self.t("undo.nothing"))
        text = ui.describe(session.game.peek())
        self._stack = [s for s in self._stack if not isinstance(s, Confirm)]
        self.open(Confirm(self, self.t("undo.title"), text, self.undo))

    def open_menu(self) -> None:
        ui = self.ui

        def entries() -> list[tuple[str, Callable[[], None]]]:
            """In the language on screen when drawn."""
            listed: list[tuple[str, Callable[[], None]]] = []
            if ui is not None:
                listed += [
                    (self.t("menu.continue"), lambda: self.close(self.top)),
                    (self.t("menu.history"), lambda: self.open(HistoryScreen(self, ui.history()))),
                    (self.t("menu.undo"), self.offer_undo),
                ]
            listed.append((self.t("menu.settings"), lambda: self.open(SettingsScreen(self))))
            if self.page_url is not None:
                url = self.page_url
                listed.append((self.t("menu.page"), lambda: self.open(QrScreen(self, url))))
            if ui is not None:
                listed.append((self.t("menu.new_game"), self._confirm_new_game))
            return listed

        self.open(Menu(self, lambda: self.t("menu.title"), entries))

    def new_game_form(self) -> None:
        ids = [game_id for game_id in game_ids() if plugin(game_id).screens is not None]
        form = SetupForm(self, ids, self.settings.last_setup)
        self._stack = [*self._stack[:1], form] if self.session is not None else [form]

    def start_game(self, setup: Setup) -> None:
        """Hand a new game's setup to the daemon, which journals it and returns the session; the
        settings remember the game, its player count and names for the next setup form."""
        self._attach(self._on_new_game(setup))
        self.change_settings(last_setup=LastSetup(setup.game, len(setup.players), tuple(setup.players)))

    def change_settings(self, **changes: Any) -> None:
        low, high = CONTRAST_RANGE
        settings = self.settings._replace(**changes)
        settings = settings._replace(contrast=min(high, max(low, settings.contrast)))
        if settings != self.settings:
            self.settings = settings
            self._on_settings(settings)
            self._refresh()

    # --- inside ----------------------------------------------------------------------------

    def _game_parts(self) -> tuple[Session, GameUI]:
        if self.session is None or self.ui is None:
            raise IllegalAction(self.t("game.none"))
        return self.session, self.ui

    def _attach(self, session: Session) -> None:
        ui = self.ui_class(session.game.game_id)(self, session)
        self.session, self.ui = session, ui
        if self.buzzers is not None:
            self.buzzers.seat_count(len(session.game.setup.players))
        self._stack = [ui.base()]

    def undo(self) -> None:
        """Drop the last entry now: the confirmation's OK, or a screen's own take-back of an entry
        still on show (Tourney's face-down prediction)."""
        session, ui = self._game_parts()
        session.undo()
        self._stack = [ui.base()]

    def _offer_resume(self, game: Game[Any]) -> None:
        ui_class = self.ui_class(game.game_id)
        where = ui_class(self, Session(game)).where()
        players = ", ".join(game.setup.players)
        self._stack = [ResumeOffer(self, game.title, [players, where], lambda: self._attach(self._on_resume(game)))]

    def _confirm_new_game(self) -> None:
        self.open(Confirm(self, self.t("menu.new_game"), self.t("confirm.new_game"), self.new_game_form))

    def _settle(self, now: float) -> None:
        changed = False
        if self._flashing_until is not None and now >= self._flashing_until:
            self._flashing_until = None
            changed = True
        idle = now - self._last_input
        state = "off" if idle >= self.off_after else "dim" if idle >= self.dim_after else "on"
        if DISPLAY_STATES.index(state) > DISPLAY_STATES.index(self._display):
            self._display = state
            self._version += 1
        screen_deadline = self.top.deadline() if self._stack else None
        if screen_deadline is not None and now >= screen_deadline:
            self.top.tick(now)
            changed = True
        if changed:
            self._refresh()

    def _refresh(self) -> None:
        """Redraw, and bump the version only if the picture really changed."""
        canvas = Canvas(self.face)
        self.top.draw(canvas)
        if self._message is not None:
            self._draw_message(canvas, self._message, flashing=self._flashing_until is not None)
        if self._status_mark:
            self._draw_status_mark(canvas, self._status_mark)
        self._canvas = canvas
        image = canvas.image
        if self._image is None or image.tobytes() != self._image.tobytes():
            self._image = image
            self._version += 1

    def _draw_message(self, canvas: Canvas, message: str, *, flashing: bool) -> None:
        """A refusal over the bottom three rows: inverted while it flashes, then plain until the next key."""
        first = ROWS - 3
        canvas.fill(0, first, canvas.image.width, rows=3, value=1 if flashing else 0)
        if not flashing:
            canvas.rule(first - 1)
        canvas.lines(first, 3, message, invert=flashing)

    def _draw_status_mark(self, canvas: Canvas, mark: str) -> None:
        """``mark`` lit in a dark cell at the right end of the top row: readable on a title bar or a
        plain row, and it covers only the few pixels it needs (6 x 8 for one character)."""
        width = self.face.width(mark) + 2
        canvas.fill(WIDTH - width, 0, WIDTH, value=0)
        canvas.text(0, mark, x=WIDTH - width + 1)
