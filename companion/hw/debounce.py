"""A pure debouncer for one switch: raw edges and times in, presses out.

Real contacts chatter for a few milliseconds when they close and open, and gpiozero's mock
pins do not simulate that, so the filtering we rely on lives here, where a test can drive it
with any clock. The rule is the classic "stable for ``debounce_s``": the switch is taken to
be pressed (or released) once its raw level has not changed for ``debounce_s``. Nothing here
sleeps or starts threads; the caller feeds edges and, when :attr:`Debouncer.deadline`
comes, calls :meth:`Debouncer.advance` so that holds and releases are noticed without an edge.

Times are plain numbers in one unit (seconds in the product; tests may use integer
milliseconds for exact arithmetic).

>>> pad = Debouncer(Key.OK, debounce_s=20, hold_s=800)
>>> pad.edge(True, 0), pad.edge(False, 3), pad.edge(True, 4)    # contact chatter
([], [], [])
>>> pad.edge(False, 200)                                         # a real release
[]
>>> pad.deadline
220
>>> pad.advance(220)
[KeyEvent(key=<Key.OK: 'OK'>, long=False)]

A key with no long-press meaning (the arrows) is given a :class:`Repeat`: it acts as soon as its
press settles, not on release, and again while it is held, so the cursor moves under the finger
and a held arrow scrolls a list:

>>> arrow = Debouncer(Key.DOWN, debounce_s=20, hold_s=800, repeat=Repeat(delay_s=500, interval_s=100))
>>> arrow.edge(True, 0), arrow.advance(20)                      # pressed: acts once it settles
([], [KeyEvent(key=<Key.DOWN: 'DOWN'>, long=False)])
>>> [arrow.advance(t) for t in (519, 520, 620)]                 # held: repeats after the delay
[[], [KeyEvent(key=<Key.DOWN: 'DOWN'>, long=False)], [KeyEvent(key=<Key.DOWN: 'DOWN'>, long=False)]]
>>> arrow.edge(False, 650), arrow.advance(1000)                 # released: nothing more
([], [])
"""

from __future__ import annotations

import math
from typing import NamedTuple

from companion.errors import ConfigError
from companion.keys import Key, KeyEvent

DEFAULT_DEBOUNCE_S = 0.02
DEFAULT_HOLD_S = 0.8


class Repeat(NamedTuple):
    """Auto-repeat of a held key: the first repeat after ``delay_s``, then one every ``interval_s``."""

    delay_s: float
    interval_s: float


DEFAULT_REPEAT = Repeat(delay_s=0.5, interval_s=0.125)
"""Half a second before a held arrow repeats (a deliberate tap never does), then 8 steps a second:
a 12-card hand scrolls end to end in under two seconds."""


class Debouncer:
    """Emits exactly one :class:`KeyEvent` per real press of one switch (plus repeats, if asked).

    A press becomes a short event when its release settles, or a long event as soon as the
    settled press has lasted ``hold_s`` (and then its release emits nothing), so a hold never
    also counts as a tap. With ``repeat`` the key has no long press: it emits when its press
    settles, then repeats while held, and its release emits nothing.
    """

    def __init__(self, key: Key, *, debounce_s: float = DEFAULT_DEBOUNCE_S,
                 hold_s: float = DEFAULT_HOLD_S, repeat: Repeat | None = None) -> None:
        if not 0 < debounce_s < hold_s:
            raise ConfigError(
                f"need 0 < debounce ({debounce_s}) < hold ({hold_s}) for key {key.name}")
        if repeat is not None and not (repeat.interval_s > 0 and debounce_s < repeat.delay_s):
            raise ConfigError(
                f"need a positive repeat interval and a repeat delay over the debounce for key {key.name}"
            )
        self.key = key
        self.debounce_s = debounce_s
        self.hold_s = hold_s
        self.repeat = repeat
        self._next_repeat: float = math.inf
        self._now: float = -math.inf
        self._raw = False
        self._raw_since: float = -math.inf
        self._pressed = False
        self._pressed_since: float = -math.inf
        self._long_sent = False

    @property
    def pressed(self) -> bool:
        """The settled state: what the switch is, once chatter is ignored."""
        return self._pressed

    @property
    def deadline(self) -> float | None:
        """When :meth:`advance` must next be called for a hold or a release to be noticed."""
        times = [t for t in (self._settle_at(), self._timed_at()) if t is not None]
        return min(times, default=None)

    def edge(self, pressed: bool, at: float) -> list[KeyEvent]:
        """Feed one raw level change seen at time ``at``; returns the events it completes.

        Times earlier than one already seen are taken as that time: edges can reach us from
        two threads, and a reordered edge must not rewind the filter.
        """
        events = self.advance(at)
        if pressed != self._raw:
            self._raw = pressed
            self._raw_since = self._now
        return events

    def advance(self, at: float) -> list[KeyEvent]:
        """Let time pass up to ``at`` with no edge; returns the events that fell due."""
        self._now = max(self._now, at)
        events: list[KeyEvent] = []
        while True:
            settle_at, timed_at = self._settle_at(), self._timed_at()
            if timed_at is not None and timed_at <= self._now and (
                    settle_at is None or timed_at <= settle_at):
                events.append(self._timed_event())
            elif settle_at is not None and settle_at <= self._now:
                events.extend(self._settle(settle_at))
            else:
                return events

    def _settle_at(self) -> float | None:
        return self._raw_since + self.debounce_s if self._raw != self._pressed else None

    def _timed_at(self) -> float | None:
        """When a held key next acts: its repeat, or its one long press."""
        if not self._pressed:
            return None
        if self.repeat is not None:  # not once the finger has lifted, while the release settles
            return self._next_repeat if self._raw else None
        return None if self._long_sent else self._pressed_since + self.hold_s

    def _timed_event(self) -> KeyEvent:
        if self.repeat is None:
            self._long_sent = True
            return KeyEvent(self.key, long=True)
        self._next_repeat += self.repeat.interval_s
        if self._next_repeat <= self._now:  # late (a stalled timer): one repeat, then the rhythm from now
            self._next_repeat = self._now + self.repeat.interval_s
        return KeyEvent(self.key)

    def _settle(self, at: float) -> list[KeyEvent]:
        self._pressed = self._raw
        if self._pressed:
            self._pressed_since = at
            self._long_sent = False
            if self.repeat is not None:
                self._next_repeat = at + self.repeat.delay_s
                return [KeyEvent(self.key)]
            return []
        if self.repeat is not None:
            return []
        return [] if self._long_sent else [KeyEvent(self.key)]
