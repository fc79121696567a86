"""The card keypad's keys on the screens: typing a card where a screen picks one, the joystick elsewhere.

The 4x4 card keypad (:data:`~companion.keys.CARD_KEYPAD_ROWS`) has no arrows. What its keys mean:

* everywhere: ``#`` is OK and ``*`` is BACK (held: held OK, and the undo offer held BACK makes);
  held ``0`` is AUX; held ``2``/``8``/``4``/``6`` are UP/DOWN/LEFT/RIGHT, as on a phone;
* on a screen that picks a numbered card from a :class:`~companion.ui.picker.Grid` (a trick
  screen), the letters choose the suit or colour (A the game's first, B its second, ...; the
  letter of the suit shown again steps on four, so A A reaches a fifth colour) and the digits type
  the card's number in the suit shown, which the game starts on the likely one (a follower's lead
  suit). A number no other card of that suit begins with is entered at once; otherwise the cursor
  waits on it for ``#`` or the next digit (``1`` then ``#`` enters 1, ``1`` ``2`` enters 12). A
  number the suit shown no longer has goes to the one other suit that has it, with no letter;
* on every other screen the short ``2``/``8``/``4``/``6`` and ``5`` work as the arrows and OK too.

Every entry still shows on the screen before the next is asked, and undo is where it was (held
``*``). :func:`typed` is pure, so the key planner plans keypad presses with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from companion.keys import DIGITS, LETTERS, Key, KeyEvent

if TYPE_CHECKING:  # the screens' key handling loads this module at start; the pickers load with a game's screens
    from companion.ui.picker import Grid

NumberOf = Callable[[Any], "int | None"]
TEN = "10"  # what a lone 0 types where no card is numbered 0

EVERYWHERE = {Key.HASH: Key.OK, Key.STAR: Key.BACK}
HELD = {Key.N0: Key.AUX, Key.N2: Key.UP, Key.N8: Key.DOWN, Key.N4: Key.LEFT, Key.N6: Key.RIGHT}
PHONE = {Key.N2: Key.UP, Key.N8: Key.DOWN, Key.N4: Key.LEFT, Key.N6: Key.RIGHT, Key.N5: Key.OK}
JOYSTICK_ON_KEYPAD: dict[KeyEvent, KeyEvent] = {
    KeyEvent(Key.OK): KeyEvent(Key.HASH), KeyEvent(Key.OK, long=True): KeyEvent(Key.HASH, long=True),
    KeyEvent(Key.BACK): KeyEvent(Key.STAR), KeyEvent(Key.BACK, long=True): KeyEvent(Key.STAR, long=True),
    KeyEvent(Key.AUX): KeyEvent(Key.N0, long=True),
    **{KeyEvent(arrow): KeyEvent(digit, long=True) for digit, arrow in HELD.items() if arrow is not Key.AUX},
}
"""The keypad press that does what a joystick press does, on any screen (held AUX has none)."""


def as_joystick(event: KeyEvent, *, typing: bool) -> KeyEvent | None:
    """The joystick key a keypad press stands for, or None when it types (or means nothing here).

    >>> as_joystick(KeyEvent(Key.HASH), typing=True), as_joystick(KeyEvent(Key.N2), typing=True)
    (KeyEvent(key=<Key.OK: 'OK'>, long=False), None)
    >>> as_joystick(KeyEvent(Key.N2), typing=False), as_joystick(KeyEvent(Key.N0, long=True), typing=True)
    (KeyEvent(key=<Key.UP: 'UP'>, long=False), KeyEvent(key=<Key.AUX: 'AUX'>, long=False))
    """
    if event.key in EVERYWHERE:
        return KeyEvent(EVERYWHERE[event.key], event.long)
    if event.long and event.key in HELD:
        return KeyEvent(HELD[event.key])
    if not typing and event.key in PHONE:
        return KeyEvent(PHONE[event.key])
    return None


class Typing(NamedTuple):
    """A card picker as the keypad sees it: the grid, the digits typed so far and whether the
    card under the cursor is to be entered now."""

    grid: Grid[Any]
    digits: str = ""
    enter: bool = False


def letter_group(grid: Grid[Any], letter: Key) -> int | None:
    """The group a letter chooses: the game's group ``index``, ``index + 4``, ... stepping on from
    the group shown when it is one of them; None when none of them is offered."""
    index = LETTERS.index(letter)
    offered = sorted(set(grid.groups))
    mine = [group for group in offered if group % len(LETTERS) == index]
    if not mine:
        return None
    shown = grid.groups[grid.row]
    return mine[(mine.index(shown) + 1) % len(mine)] if shown in mine else mine[0]


def letters_to(grid: Grid[Any], group: int) -> list[Key]:
    """The letter presses that show ``group`` from the group ``grid`` shows (none when it is shown).

    >>> from companion.ui.picker import Grid
    >>> grid = Grid.of([[(1, "bird")], [(1, "fan")], [(1, "x")], [(1, "y")], [(1, "flower")]])
    >>> [key.name for key in letters_to(grid.at("fan"), 4)], [key.name for key in letters_to(grid, 4)]
    (['A', 'A'], ['A'])
    """
    letters: list[Key] = []
    for _ in range(len(set(grid.groups))):
        if grid.groups[grid.row] == group:
            return letters
        letters.append(LETTERS[group % len(LETTERS)])
        found = letter_group(grid, letters[-1])
        grid = grid if found is None else grid.nearest(found, grid.slot)
    return letters


def typed(state: Typing, key: Key, number_of: NumberOf) -> Typing:
    """The picker after one letter or digit (any other key leaves it as it was).

    >>> from companion.engine.tricks import SuitedCard as C
    >>> from companion.ui.picker import Grid
    >>> grid = Grid.of([[(n, C("W", n)) for n in (1, 4, 10, 12)], [(n, C("F", n)) for n in (1, 4)]])
    >>> rank = lambda card: card.rank
    >>> after = typed(Typing(grid), Key.N4, rank); after.grid.value, after.enter
    (SuitedCard(suit='W', rank=4), True)
    >>> after = typed(Typing(grid), Key.N1, rank); after.grid.value, after.digits, after.enter
    (SuitedCard(suit='W', rank=1), '1', False)
    >>> typed(after, Key.N2, rank).grid.value, typed(typed(Typing(grid), Key.B, rank), Key.N1, rank).enter
    (SuitedCard(suit='W', rank=12), True)
    >>> other = Grid.of([[(n, C("W", n)) for n in (1, 4, 10)], [(n, C("F", n)) for n in (1, 7)]])
    >>> after = typed(Typing(other), Key.N7, rank); after.grid.value, after.enter  # W has no 7
    (SuitedCard(suit='F', rank=7), True)
    """
    grid = state.grid
    if key in LETTERS:
        group = letter_group(grid, key)
        return Typing(grid if group is None else grid.nearest(group, grid.slot))
    if key not in DIGITS:
        return state
    return _typed_digit(state, key, number_of)


def _typed_digit(state: Typing, key: Key, number_of: NumberOf) -> Typing:
    """The picker after one digit: the digits so far and this one, or this one starting afresh."""
    grid = state.grid
    shown = grid.groups[grid.row]
    others = [group for group in dict.fromkeys(grid.groups) if group != shown]
    zero = any(number_of(value) == 0 for row in grid.rows for _, value in row)  # Tezuma's trump 0
    for digits in (state.digits + str(DIGITS[key]), str(DIGITS[key])):
        digits = TEN if digits == "0" and not zero else digits  # where no card is 0, a lone 0 is ten
        for groups in ([shown], others):
            numbered = [(group, number_of(grid.at_place(place).value), place)
                        for group in groups for place in grid.places(group)]
            found = [entry for entry in numbered if str(entry[1]).startswith(digits)]
            if not found or len({group for group, _, _ in found}) > 1:
                continue  # no such number in the suit shown: another suit only when it is the one
            exact = [place for _, number, place in found if str(number) == digits]
            place = exact[0] if exact else min(found, key=lambda entry: str(entry[1]))[2]
            return Typing(grid.at_place(place), digits, enter=bool(exact) and len(found) == 1)
    return Typing(grid)


def keys_to_type(start: Typing, value: Any, number_of: NumberOf, *, typed_only: bool = False) -> list[KeyEvent] | None:
    """The letters and digits (and ``#`` when the digits do not enter it alone) that enter ``value``
    from ``start``; None when the keypad cannot type it (a card without a number). ``typed_only``:
    type it even when the picker starts on it (a lone ``#`` would do).

    >>> from companion.engine.tricks import SuitedCard as C
    >>> from companion.ui.picker import Grid
    >>> grid = Grid.of([[(n, C("W", n)) for n in (1, 4, 10, 12)], [(n, C("F", n)) for n in (1, 4)]])
    >>> [e.key.name for e in keys_to_type(Typing(grid), C("F", 4), lambda card: card.rank)]
    ['B', 'N4']
    >>> [e.key.name for e in keys_to_type(Typing(grid.at(C("W", 4))), C("W", 1), lambda card: card.rank)]
    ['N1', 'HASH']
    >>> [e.key.name for e in keys_to_type(Typing(grid), C("W", 1), lambda card: card.rank)]
    ['HASH']
    """
    number = number_of(value)
    target = start.grid.at(value)
    if number is None or target is None:
        return None
    if start.grid.value == value and not start.digits and not typed_only:
        return [KeyEvent(Key.HASH)]  # the picker starts on it: a right guess is one press
    letters = letters_to(start.grid, target.groups[target.row])
    for digits in _spellings(number):
        for keys in (digits, letters + digits) if letters else (digits,):
            state = _typed_through(start, keys, number_of)
            if state is not None and state.grid.value == value:
                return [KeyEvent(key) for key in keys] + ([] if state.enter else [KeyEvent(Key.HASH)])
    return None


def _spellings(number: int) -> list[list[Key]]:
    """The digit keys that type ``number``, the shortest first (a lone 0 types ten)."""
    spellings = [[next(key for key, d in DIGITS.items() if str(d) == digit) for digit in str(number)]]
    if str(number) == TEN:
        spellings.insert(0, [Key.N0])
    return spellings


def _typed_through(start: Typing, keys: list[Key], number_of: NumberOf) -> Typing | None:
    """The picker after ``keys``, or None when a card would be entered before the last of them."""
    state = start
    for index, key in enumerate(keys):
        state = typed(state, key, number_of)
        if state.enter and index < len(keys) - 1:
            return None
    return state
