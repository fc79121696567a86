"""The numeric keypad: its key map, holds, NumLock, and being unplugged and plugged in again.

Recorded input-event streams stand in for the kernel; where /dev/uinput and python-evdev are both
present, a virtual keypad drives the reader through the real kernel path.
"""

from __future__ import annotations

import errno
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.hw import numpad
from companion.hw.numpad import (
    KEY_BACKSPACE,
    KEY_END,
    KEY_HOME,
    KEY_KP0,
    KEY_KP1,
    KEY_KP2,
    KEY_KP7,
    KEY_KPDOT,
    KEY_KPENTER,
    KEY_KPSLASH,
    KEY_NUMLOCK,
    KEY_PAGEUP,
    NUMPAD_KEYS,
    NUMPAD_LEGEND,
    Numpad,
    NumpadDecoder,
    is_numpad,
)
from companion.keys import CARD_KEYPAD_ROWS, Key, KeyEvent

TAP = 0.08  # a quick press, well under the hold time


def typed(stream: list[tuple[int, int, float]], *, hold_s: float = 0.8) -> list[KeyEvent]:
    """What a recorded stream of (code, value, time) types, flushed a second after its end."""
    decoder = NumpadDecoder(hold_s=hold_s)
    events = [event for code, value, at in stream for event in decoder.feed(code, value, at)]
    return events + decoder.advance(stream[-1][2] + 1.0)


def taps(*codes: int, start: float = 0.0) -> list[tuple[int, int, float]]:
    stream = []
    for index, code in enumerate(codes):
        at = start + index * 0.3
        stream += [(code, 1, at), (code, 0, at + TAP)]
    return stream


def test_every_card_keypad_key_and_aux_has_a_numpad_key() -> None:
    wanted = {key for row in CARD_KEYPAD_ROWS for key in row} | {Key.AUX}
    assert set(NUMPAD_LEGEND.values()) == wanted
    assert set(NUMPAD_KEYS.values()) == wanted


def test_the_codes_are_the_kernels() -> None:
    ecodes = pytest.importorskip("evdev.ecodes", reason="python-evdev (the [pi] extra) is not installed")
    for name in ("KEY_KP0", "KEY_KP9", "KEY_KPSLASH", "KEY_KPASTERISK", "KEY_KPMINUS", "KEY_KPPLUS", "KEY_KPENTER",
                 "KEY_BACKSPACE", "KEY_KPDOT", "KEY_NUMLOCK", "KEY_HOME", "KEY_PAGEDOWN", "KEY_INSERT", "KEY_DELETE"):
        assert getattr(numpad, name) == getattr(ecodes, name), name


def test_the_legend_is_what_the_device_types() -> None:
    assert dict(NUMPAD_LEGEND) == {**{str(digit): Key[f"N{digit}"] for digit in range(10)}, "/": Key.A, "*": Key.B,
                                   "-": Key.C, "+": Key.D, "Enter": Key.HASH, "Backspace": Key.STAR, ".": Key.AUX}


def test_taps_type_card_keypad_keys_in_order() -> None:
    assert typed(taps(KEY_KP1, KEY_KP2, KEY_KPENTER, KEY_KPSLASH, KEY_BACKSPACE, KEY_KPDOT)) == [
        KeyEvent(Key.N1), KeyEvent(Key.N2), KeyEvent(Key.HASH), KeyEvent(Key.A), KeyEvent(Key.STAR),
        KeyEvent(Key.AUX)]


def test_numlock_off_types_the_same_digits() -> None:
    on = typed(taps(KEY_KP7, KEY_KP1, KEY_KP0, KEY_KPDOT))
    off = typed(taps(KEY_HOME, KEY_END, numpad.KEY_INSERT, numpad.KEY_DELETE))
    assert off == on == [KeyEvent(Key.N7), KeyEvent(Key.N1), KeyEvent(Key.N0), KeyEvent(Key.AUX)]


def test_numlock_itself_types_nothing() -> None:
    assert typed([(KEY_NUMLOCK, 1, 0.0), (KEY_NUMLOCK, 0, 0.1), *taps(KEY_PAGEUP, start=0.5)]) == [KeyEvent(Key.N9)]


def test_a_held_key_is_one_long_press_at_the_hold_time_and_autorepeat_is_ignored() -> None:
    decoder = NumpadDecoder(hold_s=0.8)
    assert decoder.feed(KEY_BACKSPACE, 1, 0.0) == []
    repeats = [event for step in range(1, 20) for event in decoder.feed(KEY_BACKSPACE, 2, 0.25 + step * 0.033)]
    assert repeats == [KeyEvent(Key.STAR, long=True)]  # due at 0.8 s, noticed at the next event
    assert decoder.feed(KEY_BACKSPACE, 0, 1.5) + decoder.advance(3.0) == []


def test_a_hold_with_no_autorepeat_fires_at_its_deadline() -> None:
    decoder = NumpadDecoder(hold_s=0.8)
    decoder.feed(KEY_KP2, 1, 10.0)
    assert decoder.advance(10.5) == []
    assert decoder.deadline == pytest.approx(10.8)
    assert decoder.advance(10.9) == [KeyEvent(Key.N2, long=True)]
    assert decoder.deadline is None


def test_two_keys_rolled_over_come_out_in_the_order_they_were_released() -> None:
    stream = [(KEY_KP1, 1, 0.0), (KEY_KP2, 1, 0.05), (KEY_KP2, 0, 0.1), (KEY_KP1, 0, 0.12)]
    assert typed(stream) == [KeyEvent(Key.N2), KeyEvent(Key.N1)]


def test_only_numeric_keypads_are_taken_by_auto() -> None:
    keyboard = [*NUMPAD_KEYS, numpad.KEY_Q, numpad.KEY_A, numpad.KEY_Z]
    assert is_numpad(NUMPAD_KEYS)
    assert not is_numpad(keyboard)
    assert is_numpad(keyboard, letters_allowed=True)
    assert not numpad._matches("auto", "/dev/input/event3", "USB Keyboard", keyboard)
    assert numpad._matches("keyboard", "/dev/input/event3", "USB Keyboard", keyboard)
    assert numpad._matches("/dev/input/event3", "/dev/input/event3", "USB Keyboard", keyboard)
    assert not numpad._matches("/dev/input/event4", "/dev/input/event3", "Numpad", NUMPAD_KEYS)


# --- the reader thread over a recorded backend ----------------------------------------------------

class RecordedKeypad:
    """A plugged-in keypad playing a recording; ``unplug`` makes its next read fail as the kernel's does."""

    def __init__(self, name: str) -> None:
        self.path = "/dev/input/event7"
        self.name = name
        self.grabbed = False
        self.closed = False
        self.pending: queue.Queue[tuple[int, int] | None] = queue.Queue()

    def grab(self) -> None:
        self.grabbed = True

    def read_keys(self, timeout: float) -> list[tuple[int, int]]:
        try:
            item = self.pending.get(timeout=timeout)
        except queue.Empty:
            return []
        if item is None:
            raise OSError(errno.ENODEV, "No such device")
        return [item]

    def close(self) -> None:
        self.closed = True


class RecordedBackend:
    """Input devices coming and going: ``plugged`` is what ``find`` returns now."""

    def __init__(self) -> None:
        self.plugged: RecordedKeypad | None = None
        self.finds = 0

    def find(self, wanted: str) -> RecordedKeypad | None:
        self.finds += 1
        return self.plugged


@pytest.fixture
def reader() -> Iterator[tuple[RecordedBackend, queue.Queue[KeyEvent], list[str], Numpad]]:
    backend = RecordedBackend()
    events: queue.Queue[KeyEvent] = queue.Queue()
    said: list[str] = []
    pad = Numpad("auto", backend, events.put, on_status=said.append, backoff=(0.01,), poll_s=0.01,
                 hold_s=0.8)
    pad.start()
    try:
        yield backend, events, said, pad
    finally:
        pad.stop()
        pad.join(5.0)


def press(keypad: RecordedKeypad, code: int) -> None:
    keypad.pending.put((code, 1))
    keypad.pending.put((code, 0))


def wait_for(condition: threading.Event, what: str) -> None:
    if not condition.wait(5.0):
        raise AssertionError(f"timed out waiting for {what}")


def wait_until(check: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + 5.0
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_plugged_in_late_unplugged_and_back_nothing_entered_is_lost(reader: tuple) -> None:
    backend, events, said, pad = reader
    wait_until(lambda: backend.finds > 0 and said, "the first look")
    assert said == ["numeric keypad 'auto' not found: the joystick keeps working"]
    first = backend.plugged = RecordedKeypad("Numeric Keypad")
    wait_for(pad.connected, "the keypad")
    assert first.grabbed
    press(first, KEY_KP1)
    press(first, KEY_KPENTER)
    assert [events.get(timeout=5.0), events.get(timeout=5.0)] == [KeyEvent(Key.N1), KeyEvent(Key.HASH)]
    backend.plugged = None
    first.pending.put((KEY_KP2, 1))  # held as it was pulled out: released, and typed once
    first.pending.put(None)
    assert events.get(timeout=5.0) == KeyEvent(Key.N2)
    wait_until(lambda: not pad.connected.is_set(), "the unplug")
    assert first.closed
    assert said[-1] == "numeric keypad unplugged: the joystick keeps working"
    second = backend.plugged = RecordedKeypad("Numeric Keypad")
    wait_for(pad.connected, "the keypad's return")
    press(second, KEY_KP7)
    assert events.get(timeout=5.0) == KeyEvent(Key.N7)
    assert said.count("numeric keypad connected: Numeric Keypad") == 2
    assert events.empty()


def test_a_keypad_that_refuses_the_grab_is_tried_again(reader: tuple) -> None:
    backend, _events, _said, pad = reader

    class Busy(RecordedKeypad):
        def grab(self) -> None:
            raise OSError(errno.EBUSY, "Device or resource busy")

    backend.plugged = Busy("Numeric Keypad")
    wait_until(lambda: backend.finds >= 3, "retries")
    assert not pad.connected.is_set()
    backend.plugged = RecordedKeypad("Numeric Keypad")
    wait_for(pad.connected, "the keypad")


# --- the real kernel path --------------------------------------------------------------------------

def test_a_virtual_keypad_through_uinput() -> None:
    if not os.path.exists("/dev/uinput"):
        pytest.skip("no /dev/uinput on this machine: the kernel path runs where it exists (the power-cut VM)")
    evdev = pytest.importorskip("evdev", reason="python-evdev (the [pi] extra) is not installed")
    codes = sorted(NUMPAD_KEYS)
    try:
        virtual = evdev.UInput({evdev.ecodes.EV_KEY: codes}, name="companion test numpad")
    except (OSError, evdev.UInputError) as err:
        pytest.skip(f"cannot create a uinput device here: {err}")
    events: queue.Queue[KeyEvent] = queue.Queue()
    with virtual, Numpad("companion test numpad", numpad.EvdevBackend(), events.put, on_status=lambda text: None,
                         poll_s=0.02) as pad:
        wait_for(pad.connected, "the virtual keypad")
        for code in (KEY_KP1, KEY_KP0, KEY_KPENTER):
            virtual.write(evdev.ecodes.EV_KEY, code, 1)
            virtual.syn()
            virtual.write(evdev.ecodes.EV_KEY, code, 0)
            virtual.syn()
        got = [events.get(timeout=5.0) for _ in range(3)]
    assert got == [KeyEvent(Key.N1), KeyEvent(Key.N0), KeyEvent(Key.HASH)]


def test_without_evdev_the_backend_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_evdev(name: str, *args: object, **kwargs: object) -> object:
        if name == "evdev":
            raise ImportError("No module named 'evdev'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_evdev)
    with pytest.raises(numpad.HardwareError, match=r"pip install 'tabletop-companion\[pi\]'"):
        numpad.EvdevBackend()


def test_held_zero_is_the_card_keypads_held_zero() -> None:
    # AUX on every screen that picks a card, as on the card keypad
    assert typed([(KEY_KP0, 1, 0.0), (KEY_KP0, 0, 1.0)]) == [KeyEvent(Key.N0, long=True)]


def test_hardware_doc_states_the_key_map() -> None:
    doc = (Path(__file__).resolve().parents[2] / "hardware" / "numpad.md").read_text(encoding="utf-8")
    rows = doc.split("<!-- numpad-keys -->")[1].split("<!-- /numpad-keys -->")[0].strip().splitlines()[2:]
    card_keypad = {"A": Key.A, "B": Key.B, "C": Key.C, "D": Key.D, "#": Key.HASH, "*": Key.STAR, "held 0": Key.AUX}
    documented = {}
    for row in rows:
        printed, typed, _what = (cell.strip().replace("`", "") for cell in row.strip("|").split("|"))
        if printed == "0-9" and typed == "0-9":
            documented.update({str(digit): Key[f"N{digit}"] for digit in range(10)})
        else:
            documented[printed] = card_keypad[typed]
    assert documented == dict(NUMPAD_LEGEND)


def test_a_pcs_numpad_in_mock_mode_types_the_same_keys() -> None:
    from companion.hw.mock import decode_keys

    application = b"".join(b"\x1bO" + code for code in (b"o", b"j", b"m", b"k", b"M", b"n", b"p", b"y"))
    assert decode_keys(application) == [KeyEvent(key) for key in (Key.A, Key.B, Key.C, Key.D, Key.HASH, Key.AUX,
                                                                  Key.N0, Key.N9)]
    assert decode_keys(b"/-+.7\r") == [KeyEvent(key) for key in (Key.A, Key.C, Key.D, Key.AUX, Key.N7, Key.OK)]
