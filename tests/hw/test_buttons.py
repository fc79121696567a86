"""ButtonPad on MockFactory pins, with virtual time driving the debouncer's timer."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from companion.errors import HardwareError
from companion.hw.buttons import ButtonPad
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import VirtualTime

PINS = {Key.UP: 17, Key.DOWN: 22, Key.OK: 4, Key.BACK: 5}


@pytest.fixture
def events() -> list[KeyEvent]:
    return []


@pytest.fixture
def pad(mock_factory: MockFactory, vtime: VirtualTime,
        events: list[KeyEvent]) -> Iterator[ButtonPad]:
    pad = ButtonPad(PINS, events.append, pin_factory=mock_factory, clock=vtime.now,
                    timer=vtime.timer)
    yield pad
    pad.close()


def test_a_chattering_contact_gives_exactly_one_event(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        events: list[KeyEvent]) -> None:
    pin = mock_factory.pin(PINS[Key.OK])
    for _ in range(10):                      # 20 edges within 5 ms
        pin.drive_low()
        vtime.sleep(0.00025)
        pin.drive_high()
        vtime.sleep(0.00025)
    pin.drive_low()
    vtime.sleep(0.1)
    pin.drive_high()
    vtime.sleep(0.1)
    assert events == [KeyEvent(Key.OK)]


def test_fifty_quick_distinct_presses_give_fifty_events(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        events: list[KeyEvent]) -> None:
    keys = [Key.UP, Key.DOWN] * 25
    for key in keys:
        pin = mock_factory.pin(PINS[key])
        pin.drive_low()
        vtime.sleep(0.03)
        pin.drive_high()
        vtime.sleep(0.03)
    assert events == [KeyEvent(key) for key in keys]


def test_a_hold_gives_one_long_event_while_still_held_and_nothing_on_release(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        events: list[KeyEvent]) -> None:
    pin = mock_factory.pin(PINS[Key.BACK])
    pin.drive_low()
    vtime.sleep(0.81)
    assert events == []
    vtime.sleep(0.02)
    assert events == [KeyEvent(Key.BACK, long=True)]
    vtime.sleep(3.0)
    pin.drive_high()
    vtime.sleep(1.0)
    assert events == [KeyEvent(Key.BACK, long=True)]


def test_keys_pressed_together_are_each_reported(
        pad: ButtonPad, mock_factory: MockFactory, vtime: VirtualTime,
        events: list[KeyEvent]) -> None:
    up, down = mock_factory.pin(PINS[Key.UP]), mock_factory.pin(PINS[Key.DOWN])
    up.drive_low()
    vtime.sleep(0.01)
    down.drive_low()
    vtime.sleep(0.1)
    up.drive_high()
    vtime.sleep(0.1)
    down.drive_high()
    vtime.sleep(0.1)
    assert events == [KeyEvent(Key.UP), KeyEvent(Key.DOWN)]


def test_close_releases_the_pins_and_stops_reporting(
        mock_factory: MockFactory, vtime: VirtualTime, events: list[KeyEvent]) -> None:
    pad = ButtonPad(PINS, events.append, pin_factory=mock_factory, clock=vtime.now,
                    timer=vtime.timer)
    pin = mock_factory.pin(PINS[Key.OK])
    pin.drive_low()                            # a press in flight has a timer armed
    pad.close()
    pad.close()
    vtime.sleep(2.0)
    assert events == []
    Button(PINS[Key.OK], pin_factory=mock_factory).close()   # the pin is free again


def test_a_pin_used_twice_is_a_hardware_error_and_leaves_no_pin_claimed(
        mock_factory: MockFactory, events: list[KeyEvent]) -> None:
    with pytest.raises(HardwareError, match="GPIO17 for key DOWN"):
        ButtonPad({Key.UP: 17, Key.DOWN: 17}, events.append, pin_factory=mock_factory)
    Button(17, pin_factory=mock_factory).close()


def test_an_invalid_pin_is_a_hardware_error(mock_factory: MockFactory) -> None:
    with pytest.raises(HardwareError, match="GPIO99 for key OK"):
        ButtonPad({Key.OK: 99}, print, pin_factory=mock_factory)


def test_rotary_encoder_steps_become_down_and_up(
        mock_factory: MockFactory, events: list[KeyEvent]) -> None:
    with ButtonPad({Key.OK: 4}, events.append, pin_factory=mock_factory,
                   encoder_pins=(20, 21)):
        a, b = mock_factory.pin(20), mock_factory.pin(21)
        for drive in (a.drive_low, b.drive_low, a.drive_high, b.drive_high):  # clockwise
            drive()
        for drive in (b.drive_low, a.drive_low, b.drive_high, a.drive_high):  # counter
            drive()
    assert events == [KeyEvent(Key.DOWN), KeyEvent(Key.UP)]


def test_default_timer_and_clock_deliver_taps_and_holds(mock_factory: MockFactory) -> None:
    """The production path: threading timers and the monotonic clock, no virtual time."""
    received: queue.Queue[KeyEvent] = queue.Queue()
    with ButtonPad({Key.OK: 4}, received.put, pin_factory=mock_factory,
                   debounce_s=0.005, hold_s=1.0):
        pin = mock_factory.pin(4)
        pin.drive_low()
        assert received.get(timeout=5) == KeyEvent(Key.OK, long=True)   # timer, no edge
        pin.drive_high()
        time.sleep(0.05)      # ten debounce periods: the release settles, whatever the load
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        assert received.get(timeout=5) == KeyEvent(Key.OK)
        assert received.empty()
