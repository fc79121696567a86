"""Mock mode: scripted and terminal key sources pressing MockFactory pins."""

from __future__ import annotations

import io
import os
import queue
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.errors import ConfigError
from companion.hw.keys import Key, KeyEvent
from companion.hw.mock import (
    IdleKeySource,
    MockPad,
    ScriptKeySource,
    TtyKeySource,
    VirtualTime,
    decode_keys,
    install_mock_factory,
    key_source_for,
    parse_script,
)
from companion.keys import CARD_KEYPAD_ROWS

PINS = {Key.UP: 17, Key.DOWN: 22, Key.LEFT: 27, Key.RIGHT: 23, Key.OK: 4, Key.BACK: 5,
        Key.AUX: 6}


@pytest.fixture
def events() -> list[KeyEvent]:
    return []


@pytest.fixture
def virtual_pad(mock_factory: MockFactory, vtime: VirtualTime,
                events: list[KeyEvent]) -> Iterator[MockPad]:
    pad = MockPad(PINS, events.append, factory=mock_factory, clock=vtime.now,
                  sleep=vtime.sleep, timer=vtime.timer)
    yield pad
    pad.close()


def test_script_presses_reach_the_ui_as_key_events(virtual_pad: MockPad, vtime: VirtualTime,
                                                   events: list[KeyEvent]) -> None:
    script = """
        # open the menu, go down three, confirm
        press OK
        wait 0.5
        repeat 3 press down   # lower case is fine
        hold BACK
    """
    source = ScriptKeySource(script, virtual_pad, sleep=vtime.sleep)
    source.start()
    assert source.join(timeout=10)
    assert events == [KeyEvent(Key.OK), *[KeyEvent(Key.DOWN)] * 3, KeyEvent(Key.BACK, long=True)]
    assert vtime.now() > 1000.5 + virtual_pad.pad.hold_s       # it waited, in virtual time


def test_a_long_script_of_quick_presses_loses_none(virtual_pad: MockPad, vtime: VirtualTime,
                                                   events: list[KeyEvent]) -> None:
    source = ScriptKeySource("repeat 200 press UP\nrepeat 200 press LEFT", virtual_pad,
                             sleep=vtime.sleep)
    source.start()
    assert source.join(timeout=30)
    assert events == [KeyEvent(Key.UP)] * 200 + [KeyEvent(Key.LEFT)] * 200


def test_stop_interrupts_a_real_wait() -> None:
    presses: list[Key] = []

    class Recorder:
        def press(self, key: Key, *, long: bool = False) -> None:
            presses.append(key)

    source = ScriptKeySource("wait 3600\npress OK", Recorder())
    source.start()
    assert not source.join(timeout=0.05)
    assert source.stop(timeout=5)
    assert presses == []


def test_an_error_in_the_source_thread_is_raised_by_join() -> None:
    class Broken:
        def press(self, key: Key, *, long: bool = False) -> None:
            raise RuntimeError("pin on fire")

    source = ScriptKeySource("press OK", Broken())
    source.start()
    with pytest.raises(RuntimeError, match="pin on fire"):
        source.join(timeout=5)


@pytest.mark.parametrize(("script", "message"), [
    ("press OK\npress SELECT", r"demo\.keys, line 2: unknown key 'SELECT'.*: 'press SELECT'"),
    ("\n\nwait soon", r"line 3: 'soon' is not a number of seconds"),
    ("wait -1", r"line 1: wait '-1' must be zero or more seconds"),
    ("wait nan", r"line 1: wait 'nan' must be zero or more"),
    ("press OK\nwait 100000000000", r"line 2: wait '100000000000' is more than 3600 seconds .*: 'wait 100000000000'"),
    ("wait 1e400", r"line 1: wait '1e400' must be zero or more"),
    ("repeat 0 press OK", r"line 1: repeat count '0' must be a whole number from 1"),
    ("repeat many press OK", r"line 1: repeat count 'many'"),
    ("press", r"line 1: press needs a key"),
    ("press OK now", r"line 1: expected 'press KEY'"),
    ("tap OK", r"line 1: unknown command 'tap'"),
])
def test_bad_script_lines_are_config_errors_naming_the_line(script: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_script(script, "demo.keys")


def test_script_file_is_read_and_a_missing_one_is_a_config_error(
        tmp_path: Path, virtual_pad: MockPad) -> None:
    path = tmp_path / "moves.keys"
    path.write_text("press AUX\n")
    assert ScriptKeySource.from_file(path, virtual_pad).steps == [KeyEvent(Key.AUX)]
    with pytest.raises(ConfigError, match=r"absent\.keys: cannot read key script"):
        ScriptKeySource.from_file(tmp_path / "absent.keys", virtual_pad)


def test_decode_keys_covers_the_documented_keys() -> None:
    chunk = b"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA\r\n\x7f\x08 wasdobx"
    assert [event.key for event in decode_keys(chunk)] == [
        Key.UP, Key.DOWN, Key.RIGHT, Key.LEFT, Key.UP, Key.OK, Key.OK, Key.BACK, Key.BACK,
        Key.AUX, Key.UP, Key.LEFT, Key.DOWN, Key.RIGHT, Key.OK, Key.BACK, Key.AUX]
    assert not any(event.long for event in decode_keys(chunk))


def test_decode_keys_long_presses_and_ignored_keys() -> None:
    assert decode_keys(b"\x1b[1;5D\x1b\r\x1b\x7fX") == [
        KeyEvent(Key.LEFT, long=True), KeyEvent(Key.OK, long=True),
        KeyEvent(Key.BACK, long=True), KeyEvent(Key.AUX, long=True)]
    assert decode_keys(b"\x1b[5~\x1bOPz\t") == []           # PgUp, F1, unmapped
    assert decode_keys(b"\x1b") == [KeyEvent(Key.BACK)]


def test_tty_source_presses_keys_and_restores_the_terminal(
        mock_factory: MockFactory) -> None:
    received: queue.Queue[KeyEvent] = queue.Queue()
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        pad = MockPad(PINS, received.put, factory=mock_factory)    # real time and timers
        source = TtyKeySource(pad, fd=slave, poll_s=0.01)
        source.start()
        os.write(master, b"\x1b[B")
        assert received.get(timeout=5) == KeyEvent(Key.DOWN)
        os.write(master, b"B")
        assert received.get(timeout=5) == KeyEvent(Key.BACK, long=True)
        assert source.stop(timeout=5)
        assert termios.tcgetattr(slave) == before
        pad.close()
    finally:
        os.close(master)
        os.close(slave)


def test_tty_source_refuses_a_non_terminal(tmp_path: Path, virtual_pad: MockPad) -> None:
    with open(tmp_path / "plain", "w") as plain, pytest.raises(ConfigError, match="not a terminal"):
        TtyKeySource(virtual_pad, fd=plain.fileno())


def test_key_source_for_picks_script_then_terminal_then_idle(
        tmp_path: Path, virtual_pad: MockPad) -> None:
    path = tmp_path / "k.keys"
    path.write_text("press OK")
    assert isinstance(key_source_for(virtual_pad, script=path), ScriptKeySource)
    master, slave = os.openpty()
    try:
        with open(slave, closefd=False) as tty_stdin:
            assert isinstance(key_source_for(virtual_pad, stdin=tty_stdin), TtyKeySource)
    finally:
        os.close(master)
        os.close(slave)
    idle = key_source_for(virtual_pad, stdin=io.StringIO())
    assert isinstance(idle, IdleKeySource)
    idle.start()
    assert not idle.join(timeout=0.01)
    assert idle.stop(timeout=5)


def test_install_mock_factory_sets_gpiozeros_default(mock_factory: MockFactory) -> None:
    factory = install_mock_factory()
    assert Device.pin_factory is factory and factory is not mock_factory


def test_mock_pad_on_its_own_factory_and_pin_lookup(mock_factory: MockFactory,
                                                    vtime: VirtualTime) -> None:
    events: list[KeyEvent] = []
    pad = MockPad({Key.OK: 4}, events.append, clock=vtime.now, sleep=vtime.sleep,
                  timer=vtime.timer)
    try:
        assert pad.factory is Device.pin_factory
        pad.pin(Key.OK).drive_low()
        vtime.sleep(1.0)
        assert events == [KeyEvent(Key.OK, long=True)]
    finally:
        pad.close()


def test_virtual_time_runs_timers_in_order_and_cancels() -> None:
    vtime = VirtualTime()
    fired: list[tuple[str, float]] = []
    vtime.timer(0.3, lambda: fired.append(("late", vtime.now())))
    cancel = vtime.timer(0.2, lambda: fired.append(("cancelled", vtime.now())))

    def chain() -> None:
        vtime.timer(0.05, lambda: fired.append(("chained", vtime.now())))

    vtime.timer(0.1, chain)
    cancel()
    vtime.sleep(1.0)
    assert fired == [("chained", pytest.approx(0.15)), ("late", pytest.approx(0.3))]
    assert vtime.now() == pytest.approx(1.0)


def test_a_press_waits_for_a_late_settle_timer_so_nothing_overtakes_it():
    """Under load the debounce timer can fire late; the scripted press returns only after its event."""
    from gpiozero.pins.mock import MockFactory

    from companion.hw.keys import Key
    from companion.hw.mock import MockPad, VirtualTime

    clock = VirtualTime()

    def late_timer(delay, callback):  # every deadline fires 100 ms after it was due
        return clock.timer(delay + 0.1, callback)

    events: list = []
    pad = MockPad(
        {Key.OK: 5}, events.append, factory=MockFactory(), clock=clock.now, sleep=clock.sleep, timer=late_timer
    )
    try:
        pad.press(Key.OK)
        assert [e.key for e in events] == [Key.OK] and pad.pad.settled
    finally:
        pad.close()


def test_the_keyboard_types_the_card_keypad_s_sixteen_keys() -> None:
    """Digits, * and # are themselves, f g h j are A-D; a capital or Alt+key is held (held 0: AUX)."""
    assert [event.key for event in decode_keys(b"1234567890*#fghj")] == [
        Key.N1, Key.N2, Key.N3, Key.N4, Key.N5, Key.N6, Key.N7, Key.N8, Key.N9, Key.N0, Key.STAR, Key.HASH,
        Key.A, Key.B, Key.C, Key.D]
    assert {event.key for event in decode_keys(b"1234567890*#fghj")} == set(CARD_KEYPAD_ROWS[0] + CARD_KEYPAD_ROWS[1]
                                                                           + CARD_KEYPAD_ROWS[2] + CARD_KEYPAD_ROWS[3])
    assert decode_keys(b"\x1b0G\x1b#") == [KeyEvent(Key.N0, long=True), KeyEvent(Key.B, long=True),
                                           KeyEvent(Key.HASH, long=True)]


def test_a_card_keypad_key_reaches_the_device_as_the_serial_keypad_hands_it_on(mock_factory: MockFactory) -> None:
    """No pin on the board: the press goes straight to the device's events, held or not; the app
    then types with it (tests/ui/test_ui_card_keypad.py)."""
    received: list[KeyEvent] = []
    pad = MockPad(PINS, received.append, factory=mock_factory, sleep=lambda seconds: None)
    try:
        pad.press(Key.N7)
        pad.press(Key.N0, long=True)
        pad.press(Key.STAR)
        assert received == [KeyEvent(Key.N7), KeyEvent(Key.N0, long=True), KeyEvent(Key.STAR)]
    finally:
        pad.close()
