"""Cursor models for choosing with four arrows and OK.

The models are immutable values, so the key planner's copies of a screen share them freely
(:mod:`companion.ui.planner`), and a picker's layout can be tuned by the presses it takes
(docs/screens.md).

A :class:`Grid` is rows of entries, and rows belong to groups (a suit whose cards fill two rows
is one group). LEFT/RIGHT step through the entries of the cursor's group, wrapping around;
UP/DOWN go to the row above or below (wrapping), to the same column or the row's last entry.

>>> grid = Grid.of([[(1, "B1"), (7, "B7")], [(9, "B9")], [(2, "U2"), (6, "U6")]], groups=[0, 0, 1], value="B7")
>>> grid.moved(Key.RIGHT).value, grid.moved(Key.DOWN).value, grid.moved(Key.UP).value
('B9', 'B9', 'U6')
>>> grid.moved(Key.LEFT).moved(Key.UP).value
'U2'
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Generic, NamedTuple, TypeVar

from companion.keys import Key

T = TypeVar("T", bound=Hashable)
S = TypeVar("S", bound=Hashable)
ARROWS = (Key.LEFT, Key.RIGHT, Key.UP, Key.DOWN)


class Grid(NamedTuple, Generic[T]):
    """Rows of ``(slot, value)`` entries in slot order, each row's group, and a cursor on one entry."""

    rows: tuple[tuple[tuple[int, T], ...], ...]
    groups: tuple[int, ...]
    row: int = 0
    col: int = 0

    @classmethod
    def of(cls, rows: Iterable[Iterable[tuple[int, T]]], *, groups: Iterable[int] | None = None,
           value: T | None = None) -> Grid[T]:
        """A grid of the non-empty rows (each its own group unless told), cursor on ``value`` or first."""
        labels = groups if groups is not None else itertools.count()
        pairs = [(tuple(row), group) for row, group in zip(rows, labels, strict=False)]
        kept = [(row, group) for row, group in pairs if row]
        if not kept:
            raise ValueError("a grid needs at least one entry")
        grid = cls(tuple(row for row, _ in kept), tuple(group for _, group in kept))
        return grid.at(value) or grid

    @property
    def value(self) -> T:
        return self.rows[self.row][self.col][1]

    @property
    def slot(self) -> int:
        return self.rows[self.row][self.col][0]

    def at(self, value: T | None) -> Grid[T] | None:
        """The same grid with the cursor on ``value``, or None when it is not offered."""
        for r, row in enumerate(self.rows):
            for c, (_, candidate) in enumerate(row):
                if candidate == value:
                    return self._replace(row=r, col=c)
        return None

    def places(self, group: int) -> list[tuple[int, int]]:
        """Every (row, column) of ``group``'s entries, in order."""
        return [(r, c) for r in range(len(self.rows)) if self.groups[r] == group for c in range(len(self.rows[r]))]

    def at_place(self, place: tuple[int, int]) -> Grid[T]:
        """The same grid with the cursor at (row, column) ``place``."""
        return self._replace(row=place[0], col=place[1])

    def nearest(self, group: int, slot: int) -> Grid[T]:
        """The cursor in ``group`` on the entry closest to ``slot`` (the lower one on a tie)."""
        r, c = min(
            self.places(group), key=lambda rc: (abs(self.rows[rc[0]][rc[1]][0] - slot), self.rows[rc[0]][rc[1]][0])
        )
        return self._replace(row=r, col=c)

    def likeliest(self, ranked: Iterable[T]) -> Grid[T]:
        """The cursor on the first of ``ranked`` the grid offers (where it was when none is): a
        game ranks the cards it expects from public information, most likely first.

        >>> grid = Grid.of([[(1, "B1"), (7, "B7")], [(9, "B9")]])
        >>> grid.likeliest(["U2", "B9", "B1"]).value, grid.likeliest([]).value
        ('B9', 'B1')
        """
        for value in ranked:
            found = self.at(value)
            if found is not None:
                return found
        return self

    def group_mass(self, weight: Callable[[T], float]) -> dict[int, float]:
        """How likely each group is to hold the value that comes: the sum of ``weight`` over its rows.

        >>> Grid.of([[(1, 1), (2, 2)], [(3, 3)]], groups=[0, 1]).group_mass(float)
        {0: 3.0, 1: 3.0}
        """
        mass: dict[int, float] = {}
        for row, group in zip(self.rows, self.groups, strict=True):
            mass[group] = mass.get(group, 0.0) + sum(weight(value) for _, value in row)
        return mass

    def best_start(self, weight: Callable[[T], float], *, candidates: int = 12) -> Grid[T]:
        """The cursor where the expected arrow presses to the card that comes are fewest, ``weight``
        saying how likely each value is (from public information); on a tie the cursor stays.

        Only the ``candidates`` likeliest entries are tried as starts: the best start is near them.

        >>> grid = Grid.of([[(n, f"W{n}") for n in range(1, 9)]])
        >>> grid.best_start(lambda v: {"W1": 3, "W8": 3}.get(v, 1)).value  # W8 is one LEFT away
        'W1'
        """
        places = [(r, c) for r in range(len(self.rows)) for c in range(len(self.rows[r]))]
        weights = {place: weight(self.rows[place[0]][place[1]][1]) for place in places}
        current = (self.row, self.col)
        starts = sorted(places, key=lambda place: (place != current, -weights[place]))[:candidates + 1]
        best, best_cost = current, None
        for start in starts:
            distance = self.at_place(start).distances()
            cost = sum(weights[place] * distance[place] for place in places)
            if best_cost is None or cost < best_cost - 1e-9:
                best, best_cost = start, cost
        return self.at_place(best)

    def distances(self) -> dict[tuple[int, int], int]:
        """Arrow presses from the cursor to every (row, column), breadth first."""
        found = {(self.row, self.col): 0}
        queue = deque([self])
        while queue:
            grid = queue.popleft()
            for key in ARROWS:
                following = grid.moved(key)
                place = (following.row, following.col)
                if place not in found:
                    found[place] = found[(grid.row, grid.col)] + 1
                    queue.append(following)
        return found

    def moved(self, key: Key) -> Grid[T]:
        if key in (Key.LEFT, Key.RIGHT):
            step = 1 if key is Key.RIGHT else -1
            places = self.places(self.groups[self.row])
            r, c = places[(places.index((self.row, self.col)) + step) % len(places)]
            return self._replace(row=r, col=c)
        if key in (Key.UP, Key.DOWN):
            row = (self.row + (1 if key is Key.DOWN else -1)) % len(self.rows)
            return self._replace(row=row, col=min(self.col, len(self.rows[row]) - 1))
        return self


NUMBER_BIG_STEP = 5
"""How far RIGHT/LEFT move a :class:`Number`."""


class Number(NamedTuple):
    """A whole number in ``[low, high]``: UP/DOWN step by one, RIGHT/LEFT by five (no wrap).

    >>> Number(0, 0, 20).moved(Key.RIGHT).moved(Key.UP).value
    6
    """

    value: int
    low: int
    high: int

    def moved(self, key: Key) -> Number:
        step = {Key.UP: 1, Key.DOWN: -1, Key.RIGHT: NUMBER_BIG_STEP, Key.LEFT: -NUMBER_BIG_STEP}.get(key, 0)
        return self._replace(value=min(self.high, max(self.low, self.value + step)))


def likeliest_middle(mass: Mapping[int, float]) -> list[int]:
    """Groups in the order a wrapping picker's rows take them, by how likely each is (``mass``): the
    likeliest first, the second likeliest last (one UP, wrapping), the third second (one DOWN), and
    so on outwards; on a tie the lower group first. A group's likely neighbours are then one press away.

    >>> likeliest_middle({0: 1.0, 1: 5.0, 2: 3.0, 3: 2.0})
    [1, 3, 0, 2]
    """
    ranked = sorted(mass, key=lambda group: (-mass[group], group))
    return ranked[0::2] + ranked[1::2][::-1]
