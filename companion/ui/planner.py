"""The key planner: the fewest key presses that enter a given engine action from where the app is.

Tests and the bench drive whole games through it, one :class:`KeyEvent` at a time, so what they
measure is the interaction a person at the table has. A plan also documents it: print one to see
how an action is entered.

>>> import random
>>> from companion.carddata import printed_cards
>>> from companion.games.tezuma import Draft, Tezuma2015
>>> from companion.session import Session
>>> game = Tezuma2015(Tezuma2015.new_setup(["Aki", "Ben", "Chie"], cards=printed_cards("tezuma-2015")))
>>> app = App(Session(game), clock=lambda: 0.0, rng=random.Random(1))
>>> [(e.key.name, e.long) for e in presses_for(app, Draft(0, "scoring", "2"))]
[('RIGHT', False), ('DOWN', False), ('OK', False)]
"""

from __future__ import annotations

from typing import Any

from companion.keys import KeyEvent
from companion.ui.app import App


def presses_for(app: App, action: Any) -> list[KeyEvent]:
    """Keys that enter ``action``: past any notices and menus, then the game screen's own plan.

    A dim or blank display first takes one press to wake (it does nothing else); the plan repeats
    its first key for that.
    """
    screens = list(app.screens)
    keys = [KeyEvent(screen.leave_key) for screen in reversed(screens[1:])]
    plan = screens[0].plan(action)
    if plan is None:
        raise ValueError(f"{action!r} is not what {type(screens[0]).__name__} expects now")
    keys += plan
    if app.display_state != "on":
        keys.insert(0, keys[0])
    return keys
