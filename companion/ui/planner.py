"""The key planner: the fewest key presses that enter a given engine action from where the app is.

Tests and the bench drive whole games through it, one :class:`KeyEvent` at a time, so what they
measure is the interaction a person at the table has. A plan also documents it: print one to see
how an action is entered.

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

from collections.abc import Callable
from typing import Any

from companion.keys import ARROWS, Key, KeyEvent
from companion.ui.app import App
from companion.ui.keypad import JOYSTICK_ON_KEYPAD, keys_to_type
from companion.ui.screens import Notice, Screen

LAYOUTS = ("joystick", "keypad")
"""The inputs a table may enter with: the 5-way joystick (or the seven-key keypad, the same keys)
and the 4x4 card keypad."""


def presses_for(app: App, action: Any, layout: str = "joystick") -> list[KeyEvent]:
    """Keys that enter ``action``: past any notices and menus, then the game screen's own plan.

    A dim or blank display first takes one press to wake (it does nothing else); the plan repeats
    its first key for that. On the card keypad the keys may stop short of the action where the
    screen changes under them (AUX to another entry): :func:`enter_by_keys` asks again from there.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"unknown input {layout!r}; expected one of {', '.join(LAYOUTS)}")
    screens = list(app.screens)
    leave = [KeyEvent(screen.leave_key) for screen in reversed(screens[1:])]
    plan = screens[0].plan(action)
    if plan is None:
        raise ValueError(f"{action!r} is not what {type(screens[0]).__name__} expects now")
    beneath = screens[1] if len(screens) > 1 else None  # the notice right above the game screen
    passing = isinstance(beneath, Notice) and beneath.passable() and screens[0].picks()
    if layout == "keypad":
        plan = screens[0].plan_keypad(action) or keypad_plan(screens[0], plan, typed_only=passing)
        leave = [on_keypad(key) for key in leave]
    if passing and isinstance(beneath, Notice) and beneath.begins_entry(plan[0]):
        leave = leave[:-1]  # the entry's first key closes the notice it begins on
    keys = leave + plan
    if app.display_state != "on":
        keys.insert(0, keys[0])
    return keys


def on_keypad(event: KeyEvent) -> KeyEvent:
    """The card-keypad press that does what the joystick press ``event`` does (held AUX: AUX)."""
    return JOYSTICK_ON_KEYPAD.get(event) or JOYSTICK_ON_KEYPAD[KeyEvent(event.key)]


def keypad_plan(screen: Screen, plan: list[KeyEvent], *, typed_only: bool = False) -> list[KeyEvent]:
    """The card-keypad presses for a screen's joystick ``plan``: arrows and OK become the typed
    card where the screen types; keys before that go alone, as the screen changes under them.
    ``typed_only``: type the card even where the picker starts on it (over a passable notice,
    where ``#`` would only close the notice)."""
    state = screen.typing()
    if state is None:
        return [on_keypad(key) for key in plan]
    arrows = next((i for i, key in enumerate(plan) if key.key not in ARROWS), len(plan))
    if arrows == 0 and plan[0] != KeyEvent(Key.OK):
        return [on_keypad(plan[0])]  # a key that changes the picker (AUX): plan again after it
    if arrows == len(plan) or plan[arrows] != KeyEvent(Key.OK):
        return [on_keypad(key) for key in plan]  # an ability's held OK: the joystick's way, held digits
    value = screen.typed_value(state.grid, plan[:arrows])
    typed = (typed_only and keys_to_type(state, value, screen.number_of, typed_only=True)) or \
        keys_to_type(state, value, screen.number_of)
    if typed is None:
        return [on_keypad(key) for key in plan]
    rest = plan[arrows + 1:]
    if rest and screen.typed_one_at_a_time:
        return typed  # the screen moved its cursor after the value typed: plan the rest from there
    return typed + [on_keypad(key) for key in rest]


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


MAX_PRESSES = 200  # one entry; the longest (a Tourney NPC row on the keypad) takes about 40
