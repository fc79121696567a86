"""The key planner: the fewest key presses that enter a given engine action from where the app is.

Tests and the bench drive whole games through it, one :class:`KeyEvent` at a time, so what they
measure is the interaction a person at the table has. A plan also documents it: print one to see
how an action is entered.

The plan is found, not written: a breadth-first search presses every key of the input on copies of
the game screen (:meth:`Screen.clone`, whose app is a stand-in that stops a copy where it enters an
action, opens a menu or leaves) until a copy enters the action. Screens therefore only draw and
handle keys; a new screen needs no planning code of its own. Copies whose state the keys left the
same are searched once (:func:`state_key`), a copy that has entered another action or built up a
part no longer of the action (:meth:`Screen.progress`) is searched no further, and the search
gives up past :data:`MAX_PRESSES` presses or :data:`MAX_STATES` states. Where an action is built in
parts (a row of cards, each confirmed; the ticks of a question), the search goes on from the first
copy that has built one more part, alone: part by part, nearest first, as a person would.

This lives with the screens, not with the tests, because the device's own harnesses use it too
(:mod:`companion.daemon.virtual` enters actions on a whole virtual device by it).

>>> import random
>>> from companion.carddata import printed_cards
>>> from companion.games.tezuma.rules import Draft, Tezuma2015
>>> from companion.session import Session
>>> game = Tezuma2015(Tezuma2015.new_setup(["Aki", "Ben", "Chie"], cards=printed_cards("tezuma-2015")))
>>> app = App(Session(game), clock=lambda: 0.0, rng=random.Random(1))
>>> [(e.key.name, e.long) for e in presses_for(app, Draft(0, "scoring", "2"))]
[('RIGHT', False), ('DOWN', False), ('OK', False)]
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from companion.errors import CompanionError
from companion.keys import DIGITS, JOYSTICK_KEYS, LETTERS, Key, KeyEvent
from companion.ui.app import App
from companion.ui.keypad import JOYSTICK_ON_KEYPAD
from companion.ui.picker import ARROWS, Grid
from companion.ui.screens import Notice, Screen

LAYOUTS = ("joystick", "keypad")
"""The inputs a table may enter with: the 5-way joystick (or the seven-key keypad, the same keys)
and the 4x4 card keypad."""

JOYSTICK_EVENTS = (*(KeyEvent(arrow) for arrow in ARROWS), KeyEvent(Key.OK), KeyEvent(Key.OK, long=True),
                   KeyEvent(Key.AUX), KeyEvent(Key.AUX, long=True), KeyEvent(Key.BACK))
"""Every joystick press a screen handles (held BACK is the app's undo offer, never an entry)."""

KEYPAD_EVENTS = (*(KeyEvent(letter) for letter in LETTERS), KeyEvent(Key.HASH), KeyEvent(Key.STAR),
                 *(KeyEvent(digit) for digit in DIGITS),
                 *(KeyEvent(digit, long=True) for digit in (Key.N2, Key.N8, Key.N4, Key.N6, Key.N0)),
                 KeyEvent(Key.HASH, long=True))
"""Every card-keypad press a screen handles (held ``*`` is the app's undo offer). Of two plans as
short, the search keeps the one whose keys come first here: a key that names its entry (Tourney's
suit keys) whatever the cursor shows, then ``#``, the keypad's OK everywhere, before a ``5``."""

EVENTS = {"joystick": JOYSTICK_EVENTS, "keypad": KEYPAD_EVENTS}

MAX_PRESSES = 200  # one entry; the longest (a Tourney NPC row on the joystick) takes about 40
MAX_STATES = 200_000  # screen states one search may visit before it gives up


def presses_for(app: App, action: Any, layout: str = "joystick") -> list[KeyEvent]:
    """Keys that enter ``action``: past any notices and menus, then the game screen's own keys.

    A dim or blank display first takes one press to wake (it does nothing else); the plan repeats
    its first key for that. A notice the next entry may begin on (:meth:`Notice.passable`) is left
    by the entry's first key where that is fewer presses, as a person would.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown input {layout!r}; expected one of {', '.join(LAYOUTS)}")
    screens = list(app.screens)
    beneath = screens[1] if len(screens) > 1 else None  # the notice right above the game screen
    passing = beneath if isinstance(beneath, Notice) and beneath.passable() and screens[0].picks() else None
    leave = [on_input(KeyEvent(screen.leave_key), layout) for screen in reversed(screens[2 if passing else 1:])]
    plan = search(app, screens[0], action, layout, passing)
    if plan is None:
        raise ValueError(f"{action!r} is not what {type(screens[0]).__name__} expects now")
    keys = leave + plan
    if app.display_state != "on":
        keys.insert(0, keys[0])
    return keys


def on_input(event: KeyEvent, layout: str) -> KeyEvent:
    """The press of ``layout`` that does what the joystick press ``event`` does (held AUX: AUX)."""
    if layout == "joystick":
        return event
    return JOYSTICK_ON_KEYPAD.get(event) or JOYSTICK_ON_KEYPAD[KeyEvent(event.key)]


class Entered(Exception):
    """A copy of the screen did something that ends its search: entered ``action`` (None: left)."""

    def __init__(self, action: Any = None) -> None:
        super().__init__(action)
        self.action = action


class Probe:
    """The app as a screen's copy sees it during the search: everything reads through to the real
    app, but what would change the app (an entry, a menu, a screen opened or closed, an undo)
    stops the copy there instead (:class:`Entered`)."""

    def __init__(self, app: App, layout: str) -> None:
        self._app, self._keypad = app, layout == "keypad"
        self.current: Screen | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    @property
    def card_keypad(self) -> bool:
        return self._keypad

    @property
    def top(self) -> Screen:
        assert self.current is not None  # set before every key the search presses
        return self.current

    @property
    def screens(self) -> tuple[Screen, ...]:
        return (self.top,)

    def push(self, action: Any) -> None:
        raise Entered(action)

    def _stop(self, *_: Any, **__: Any) -> None:
        raise Entered()

    open = close = open_menu = undo = new_game_form = start_game = change_settings = offer_undo = _stop


def search(app: App, screen: Screen, action: Any, layout: str = "joystick",
           notice: Notice | None = None) -> list[KeyEvent] | None:
    """The fewest presses of ``layout`` that make ``screen`` enter ``action`` (part by part where it
    is built in parts), breadth first over copies; ``notice`` is a passable notice above it, left by
    its key or by the entry's first key. None where no presses within the limits enter it."""
    probe = Probe(app, layout)
    start = screen.clone(probe)
    begun = start.progress(action)
    if begun is None:
        return None
    if notice is None:
        start.on_shown()  # the app drew it after the last key (the notices above left by then)
    baseline = dict(vars(start))
    pins = Pins()
    seen = {(notice is not None, state_key(start, baseline, pins))}
    queue: deque[tuple[Screen, bool, list[KeyEvent]]] = deque([(start, notice is not None, [])])
    searched = 0
    while queue:
        node, covered, path = queue.popleft()
        if len(path) >= MAX_PRESSES:
            break
        for event, child in _children(probe, node, notice if covered else None, layout):
            if child is None:
                continue
            if isinstance(child, Entered):
                if child.action is not None and child.action == action:
                    return [*path, event]
                continue
            built = child.progress(action)
            if built is None:
                continue
            key = (False, state_key(child, baseline, pins))  # any first press closed the notice
            if built > begun:  # a part built: the rest is searched from there alone
                begun, seen = built, {key}
                queue = deque([(child, False, [*path, event])])
                break
            if key in seen:
                continue
            seen.add(key)
            searched += 1
            if searched > MAX_STATES:
                raise ValueError(f"{action!r}: more than {MAX_STATES} screen states searched on the {layout}")
            queue.append((child, False, [*path, event]))
    return None


def _children(probe: Probe, node: Screen, notice: Notice | None,
              layout: str) -> Iterator[tuple[KeyEvent, Screen | Entered | None]]:
    """Each press of ``layout`` and the copy of ``node`` it leaves (or how it ended the copy). Under
    a passable ``notice`` still open, a press that does not begin the entry only closes it."""
    leave = None if notice is None else on_input(KeyEvent(notice.leave_key), layout)
    for event in EVENTS[layout]:
        if notice is not None and not notice.begins_entry(event):
            continue  # the notice takes it (its own key is tried last, below), or ignores it
        yield event, _pressed(probe, node, event)
    if leave is not None:  # last: of two plans as short, the one whose first key counts for the entry
        child = node.clone(probe)
        child.on_shown()
        yield leave, child


def _pressed(probe: Probe, node: Screen, event: KeyEvent) -> Screen | Entered | None:
    """A copy of ``node`` after ``event``; how it ended the copy; None where the screen refused it."""
    child = node.clone(probe)
    probe.current = child
    try:
        if event.key in JOYSTICK_KEYS:
            child.on_key(event)
        else:
            child.on_keypad(event)
    except Entered as stop:
        return stop
    except CompanionError:
        return None  # refused: the app flashes why and nothing else changes
    child.on_shown()
    return child


def state_key(screen: Screen, baseline: dict[str, Any], pins: Pins) -> Hashable:
    """What the keys changed on a copy of a screen, cheaply: the attributes that differ from the
    first copy's (``baseline``) and are not :meth:`Screen.stale`, each made hashable by
    :func:`frozen`. Two copies with equal keys react alike to every key, so the search visits one."""
    parts = []
    stale = screen.stale()
    for name, value in vars(screen).items():
        before = baseline.get(name, baseline)
        if value is before or (type(value) in (list, dict, set) and value == before) or name == "app" or name in stale:
            continue
        parts.append((name, frozen(value, pins)))
    return tuple(parts)


def frozen(value: Any, pins: Pins) -> Hashable:
    """``value`` as a cheap hashable: a grid by its cursor and its rows (each rows object hashed
    once, :meth:`Pins.named`: a grid's arrows keep its rows, so hashing them at every press would be
    wasted), containers by their items (a keypad's Typing is a tuple: its grid, the digits typed,
    enter), anything unhashable by identity."""
    if isinstance(value, Grid):
        return ("grid", pins.named(value.rows), pins.named(value.groups), value.row, value.col)
    if isinstance(value, (list, tuple)):
        return tuple(frozen(item, pins) for item in value)
    if isinstance(value, dict):
        return tuple((key, frozen(item, pins)) for key, item in value.items())
    if isinstance(value, set):
        return frozenset(value)
    if not isinstance(value, Hashable):  # a dataclass with eq but not frozen, say: by identity
        return ("id", pins.named(value))
    return value


class Pins:
    """Names for the large values of one search: equal values get one number, each object is
    hashed once (the first time it is met), and every object named stays alive meanwhile, so an
    identity is never reused for another."""

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[object, int]] = {}
        self._by_value: dict[Hashable, int] = {}

    def named(self, value: object) -> int:
        known = self._by_id.get(id(value))
        if known is not None:
            return known[1]
        number = -len(self._by_id) - 1  # unhashable: its identity alone
        if isinstance(value, Hashable):
            with contextlib.suppress(TypeError):  # a tuple holding something unhashable stays as it was
                number = self._by_value.setdefault(value, len(self._by_value))
        self._by_id[id(value)] = (value, number)
        return number


def enter_by_keys(app: App, action: Any, layout: str = "joystick",
                  on_press: Callable[[KeyEvent], None] = lambda event: None,
                  press: Callable[[KeyEvent], None] | None = None) -> int:
    """Press the planner's keys until the game has taken ``action``; returns the presses made.

    ``press`` is how a planned key reaches the app (default: straight to :meth:`App.handle`); a
    bench passes each key through a physical input's own decoding instead."""
    session = app.session
    if session is None:
        raise ValueError("no game to enter an action into")
    entered = len(session.game.actions)
    presses = 0
    while len(session.game.actions) == entered:
        if presses > MAX_PRESSES:
            raise ValueError(f"{action!r} took more than {MAX_PRESSES} presses on the {layout}")
        for event in presses_for(app, action, layout):
            (press or app.handle)(event)
            on_press(event)
            presses += 1
    if session.game.actions[-1] != action:
        raise ValueError(f"the {layout}'s keys for {action!r} entered {session.game.actions[-1]!r}")
    return presses
