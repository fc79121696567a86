"""How keys feel: arrows act on the press and repeat while held; OK and BACK keep their long press.

Driven through the real ButtonPad on MockFactory pins with virtual time, so the timings are exact.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import ConfigError
from companion.hw.buttons import ButtonPad
from companion.hw.debounce import DEFAULT_DEBOUNCE_S, DEFAULT_REPEAT, Debouncer, Repeat
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import VirtualTime

PINS = {Key.UP: 17, Key.DOWN: 22, Key.OK: 4, Key.BACK: 5}


@pytest.fixture
def timed_events(vtime: VirtualTime) -> list[tuple[float, KeyEvent]]:
    return []


@pytest.fixture
def pad(mock_factory: MockFactory, vtime: VirtualTime,
        timed_events: list[tuple[float, KeyEvent]]) -> Iterator[ButtonPad]:
    pad = ButtonPad(PINS, lambda event: timed_events.append((round(vtime.now() - 1000.0, 6), event)),
                    pin_factory=mock_factory, clock=vtime.now, timer=vtime.timer)
    yield pad
    pad.close()


def test_an_arrow_acts_when_its_press_settles_not_on_release(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        timed_events: list[tuple[float, KeyEvent]]) -> None:
    pin = mock_factory.pin(PINS[Key.DOWN])
    pin.drive_low()
    vtime.sleep(0.1)
    assert timed_events == [(DEFAULT_DEBOUNCE_S, KeyEvent(Key.DOWN))]  # the finger is still down
    pin.drive_high()
    vtime.sleep(0.1)
    assert len(timed_events) == 1  # the release adds nothing


def test_a_held_arrow_repeats_after_the_delay_then_steadily(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        timed_events: list[tuple[float, KeyEvent]]) -> None:
    pin = mock_factory.pin(PINS[Key.UP])
    pin.drive_low()
    vtime.sleep(1.0)
    pin.drive_high()
    vtime.sleep(0.5)
    first = DEFAULT_DEBOUNCE_S
    repeats = [first + DEFAULT_REPEAT.delay_s + n * DEFAULT_REPEAT.interval_s for n in range(4)]
    assert [at for at, _ in timed_events] == pytest.approx([first, *repeats])
    assert {event for _, event in timed_events} == {KeyEvent(Key.UP)}  # never a long press


def test_ok_and_back_still_act_on_release_or_at_the_hold_time(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        timed_events: list[tuple[float, KeyEvent]]) -> None:
    ok, back = mock_factory.pin(PINS[Key.OK]), mock_factory.pin(PINS[Key.BACK])
    ok.drive_low()
    vtime.sleep(0.3)
    assert timed_events == []  # a tap's meaning is known only when it ends
    ok.drive_high()
    vtime.sleep(0.1)
    back.drive_low()
    vtime.sleep(1.5)
    back.drive_high()
    vtime.sleep(0.1)
    assert [event for _, event in timed_events] == [KeyEvent(Key.OK), KeyEvent(Key.BACK, long=True)]


def test_a_late_timer_gives_one_repeat_not_a_burst() -> None:
    arrow = Debouncer(Key.DOWN, debounce_s=20, hold_s=800, repeat=Repeat(delay_s=500, interval_s=100))
    arrow.edge(True, 0)
    assert len(arrow.advance(20)) == 1
    assert len(arrow.advance(2000)) == 1  # the timer thread stalled 1.5 s: one step, not fifteen
    assert arrow.deadline == 2100


def test_a_repeat_must_come_after_the_debounce() -> None:
    with pytest.raises(ConfigError, match="repeat"):
        Debouncer(Key.UP, debounce_s=20, hold_s=800, repeat=Repeat(delay_s=10, interval_s=100))
    with pytest.raises(ConfigError, match="repeat"):
        Debouncer(Key.UP, debounce_s=20, hold_s=800, repeat=Repeat(delay_s=500, interval_s=0))


edges = st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=400)), max_size=40)


@given(edges)
def test_acting_on_the_press_counts_exactly_the_presses_release_acting_counts(steps: list[tuple[bool, int]]) -> None:
    """Same chatter filter either way: with no repeat due, an arrow gives one event per settled
    press, as many as a release-acting key, each no later than the release-acting one."""
    on_press = Debouncer(Key.UP, debounce_s=20, hold_s=10**9 - 1, repeat=Repeat(delay_s=10**9, interval_s=1))
    on_release = Debouncer(Key.UP, debounce_s=20, hold_s=10**9 - 1)
    now, seen_press, seen_release = 0, [], []
    for level, gap in steps:
        now += gap
        seen_press += [now for _ in on_press.edge(level, now)]
        seen_release += [now for _ in on_release.edge(level, now)]
    end = now + 10_000
    for debouncer, seen in ((on_press, seen_press), (on_release, seen_release)):
        seen += [end for _ in debouncer.edge(False, end)]
        while debouncer.deadline is not None and debouncer.deadline < 10**8:
            at = debouncer.deadline
            seen += [at for _ in debouncer.advance(at)]
    assert len(seen_press) == len(seen_release)
    assert all(p <= r for p, r in zip(seen_press, seen_release, strict=True))
