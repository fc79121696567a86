"""The debouncer with exact integer milliseconds (it is unit-agnostic)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import ConfigError
from companion.hw.debounce import Debouncer
from companion.hw.keys import Key, KeyEvent

DEBOUNCE = 20
HOLD = 800
SHORT = KeyEvent(Key.OK)
LONG = KeyEvent(Key.OK, long=True)


def make() -> Debouncer:
    return Debouncer(Key.OK, debounce_s=DEBOUNCE, hold_s=HOLD)


def feed(debouncer: Debouncer, edges: list[tuple[bool, int]], end: int) -> list[KeyEvent]:
    events: list[KeyEvent] = []
    for pressed, at in edges:
        events += debouncer.edge(pressed, at)
    return events + debouncer.advance(end)


def test_a_clean_tap_is_one_short_press_once_the_release_settles() -> None:
    debouncer = make()
    assert debouncer.edge(True, 0) == []
    assert debouncer.edge(False, 100) == []
    assert debouncer.advance(119) == []
    assert debouncer.advance(120) == [SHORT]
    assert debouncer.advance(10_000) == []


def test_chatter_on_press_and_release_gives_one_press() -> None:
    edges = [(True, 0), (False, 1), (True, 2), (False, 4), (True, 5),        # closing
             (False, 300), (True, 301), (False, 303), (True, 304), (False, 305)]  # opening
    assert feed(make(), edges, end=1000) == [SHORT]


def test_a_glitch_shorter_than_the_debounce_time_is_ignored() -> None:
    assert feed(make(), [(True, 0), (False, 19)], end=1000) == []


def test_a_press_exactly_the_debounce_time_long_counts() -> None:
    assert feed(make(), [(True, 0), (False, 20)], end=1000) == [SHORT]


def test_hold_fires_once_at_hold_time_and_release_adds_nothing() -> None:
    debouncer = make()
    debouncer.edge(True, 0)
    assert debouncer.advance(20) == []           # press settles at 20
    assert debouncer.deadline == 20 + HOLD
    assert debouncer.advance(819) == []
    assert debouncer.advance(820) == [LONG]
    assert debouncer.advance(5000) == []
    assert debouncer.edge(False, 6000) == []
    assert debouncer.advance(7000) == []
    assert not debouncer.pressed


def test_held_exactly_the_hold_time_is_long_and_just_under_is_short() -> None:
    assert feed(make(), [(True, 0), (False, HOLD)], end=5000) == [LONG]
    assert feed(make(), [(True, 0), (False, HOLD - 1)], end=5000) == [SHORT]


def test_hold_is_noticed_late_when_nobody_advanced_in_time() -> None:
    assert feed(make(), [(True, 0), (False, 2000)], end=3000) == [LONG]


def test_deadline_is_none_when_idle() -> None:
    debouncer = make()
    assert debouncer.deadline is None
    feed(debouncer, [(True, 0), (False, 100)], end=1000)
    assert debouncer.deadline is None


def test_an_edge_from_the_past_does_not_rewind_time() -> None:
    debouncer = make()
    debouncer.edge(True, 100)
    debouncer.edge(False, 50)                  # reordered: taken as time 100
    assert debouncer.advance(1000) == []       # a zero-length press is no press


@pytest.mark.parametrize(("debounce", "hold"), [(0, 800), (800, 800), (900, 800), (-1, 5)])
def test_rejects_timings_that_cannot_work(debounce: float, hold: float) -> None:
    with pytest.raises(ConfigError, match="debounce"):
        Debouncer(Key.UP, debounce_s=debounce, hold_s=hold)


# --- properties -----------------------------------------------------------------------------

chatter = st.lists(st.integers(1, DEBOUNCE - 1), max_size=6)   # gaps between bounce edges
settled = st.integers(DEBOUNCE, 3 * HOLD)                        # a phase that outlasts bouncing


@st.composite
def real_presses(draw: st.DrawFn) -> tuple[list[tuple[bool, int]], list[KeyEvent], int]:
    """Presses with chatter at both ends; returns edges, expected events, end time."""
    edges: list[tuple[bool, int]] = []
    expected: list[KeyEvent] = []
    now = 0
    for _ in range(draw(st.integers(1, 12))):
        level = True
        press_started = now
        for gap in [0, *draw(chatter)]:            # closing: ends pressed
            now += gap
            edges.append((level, now))
            press_started = now if level else press_started
            level = not level
        if not edges[-1][0]:                        # odd chatter ended open: close again
            now += draw(st.integers(1, DEBOUNCE - 1))
            edges.append((True, now))
            press_started = now
        now += draw(settled)
        release_started = now
        level = False
        for gap in [0, *draw(chatter)]:            # opening: ends released
            now += gap
            edges.append((level, now))
            release_started = now if not level else release_started
            level = not level
        if edges[-1][0]:
            now += draw(st.integers(1, DEBOUNCE - 1))
            edges.append((False, now))
            release_started = now
        expected.append(KeyEvent(Key.OK, long=release_started - press_started >= HOLD))
        now += draw(settled)
    return edges, expected, now + DEBOUNCE


@settings(max_examples=300)
@given(real_presses())
def test_every_real_press_gives_exactly_one_event_whatever_the_chatter(
        case: tuple[list[tuple[bool, int]], list[KeyEvent], int]) -> None:
    edges, expected, end = case
    assert feed(make(), edges, end) == expected


@settings(max_examples=300)
@given(real_presses(), st.lists(st.integers(0, 20_000), max_size=30))
def test_extra_advance_calls_change_nothing(
        case: tuple[list[tuple[bool, int]], list[KeyEvent], int], ticks: list[int]) -> None:
    edges, expected, end = case
    debouncer = make()
    events: list[KeyEvent] = []
    pending_ticks = sorted(ticks)
    for pressed, at in edges:
        while pending_ticks and pending_ticks[0] < at:
            events += debouncer.advance(pending_ticks.pop(0))
        events += debouncer.edge(pressed, at)
    assert events + debouncer.advance(end) == expected


@given(st.lists(st.integers(1, DEBOUNCE - 1), min_size=1, max_size=40))
def test_chatter_that_never_settles_closed_gives_nothing(gaps: list[int]) -> None:
    edges = []
    now = 0
    for index, gap in enumerate(gaps):
        edges.append((index % 2 == 0, now))
        now += gap
    edges.append((False, now))
    assert feed(make(), edges, end=now + 10_000) == []


@given(st.integers(1, 60), st.integers(DEBOUNCE, HOLD - 1), st.integers(DEBOUNCE, 200))
def test_a_burst_of_quick_taps_loses_none(count: int, down: int, up: int) -> None:
    edges = []
    now = 0
    for _ in range(count):
        edges += [(True, now), (False, now + down)]
        now += down + up
    assert feed(make(), edges, end=now + DEBOUNCE) == [SHORT] * count
