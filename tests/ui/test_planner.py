"""The key planner finds a screen's keys by pressing them on copies: a screen needs no planning code."""

from __future__ import annotations

from typing import Any

from companion.errors import IllegalAction
from companion.keys import Key, KeyEvent
from companion.ui.canvas import Canvas
from companion.ui.planner import search
from companion.ui.screens import Screen


class Table:
    """An app as far as the test screens need one: it takes what is pushed."""

    def __init__(self) -> None:
        self.pushed: list[Any] = []
        self.menus = 0

    def push(self, action: Any) -> None:
        self.pushed.append(action)

    def open_menu(self) -> None:
        self.menus += 1


class Dial(Screen):
    """A number up to 20: RIGHT adds one, UP doubles, DOWN refuses, BACK opens the menu, OK enters
    the number. It has no planning code, only its keys."""

    def __init__(self, app: Any, value: int = 1) -> None:
        super().__init__(app)
        self.value = value

    def draw(self, canvas: Canvas) -> None:
        canvas.text(0, str(self.value))

    def on_key(self, event: KeyEvent) -> None:
        if event.key is Key.RIGHT:
            self.value = min(self.value + 1, 20)
        elif event.key is Key.UP:
            self.value = min(self.value * 2, 20)
        elif event.key is Key.DOWN:
            raise IllegalAction("no going down")
        elif event.key is Key.OK:
            self.app.push(("set", self.value))
        elif event.key is Key.BACK:
            self.app.open_menu()


class Row(Screen):
    """Digits taken one at a time (RIGHT steps 0-9 round, OK takes one); three taken enter the row."""

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.digit, self.taken = 0, []

    def draw(self, canvas: Canvas) -> None:
        canvas.text(0, str(self.taken))

    def on_key(self, event: KeyEvent) -> None:
        if event.key is Key.RIGHT:
            self.digit = (self.digit + 1) % 10
        elif event.key is Key.OK:
            self.taken.append(self.digit)  # in place: the copies must not share it
            if len(self.taken) == 3:
                self.app.push(tuple(self.taken))

    def progress(self, action: Any) -> int | None:
        return len(self.taken) if tuple(self.taken) == action[: len(self.taken)] else None


def test_the_fewest_keys_are_found_by_pressing_them_on_copies() -> None:
    table: Any = Table()
    dial = Dial(table)
    keys = search(table, dial, ("set", 6))
    assert keys is not None and len(keys) == 4  # e.g. RIGHT UP UP, or UP RIGHT UP; then OK
    assert table.pushed == [] and table.menus == 0 and dial.value == 1  # the screen itself untouched
    for event in keys:
        dial.on_key(event)
    assert table.pushed == [("set", 6)]


def test_an_action_the_screen_cannot_enter_is_no_plan() -> None:
    """Every state of the dial is searched once (its keys go round: without that the search would
    not end); a row whose digits taken no longer begin the action is not searched at all."""
    table: Any = Table()
    assert search(table, Dial(table), ("set", -1)) is None
    row = Row(table)
    row.taken = [9]
    assert search(table, row, (1, 2, 3)) is None


def test_an_action_built_in_parts_is_planned_a_part_at_a_time_on_copies_of_its_state() -> None:
    """Each digit is searched for from the copy that took the one before: the row's 1,000 orders
    of digits are never searched whole."""
    table: Any = Table()
    row = Row(table)
    keys = search(table, row, (2, 0, 5))
    right, ok = KeyEvent(Key.RIGHT), KeyEvent(Key.OK)
    assert keys == [right, right, ok, *[right] * 8, ok, *[right] * 5, ok]  # round from 2 to 0, then to 5
    assert row.taken == [] and table.pushed == []  # the copies took the digits, not the screen
    for event in keys:
        row.on_key(event)
    assert table.pushed == [(2, 0, 5)]
