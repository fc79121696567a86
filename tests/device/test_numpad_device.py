"""The numeric keypad on the whole device: the same journal as the card keypad, and hot-plug said on the panel."""

from __future__ import annotations

import queue
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.daemon.virtual import VirtualDevice
from companion.hw.numpad import NUMPAD_KEYS, PRINTED_KEYS, EvdevBackend, Numpad, NumpadDecoder
from companion.keys import KeyEvent
from companion.sim import table_model
from companion.ui.planner import presses_for
from tests.device.test_device import start_game
from tests.hw.test_numpad import RecordedBackend, RecordedKeypad

CODES = {NUMPAD_KEYS[code]: code for code in PRINTED_KEYS.values()}


Typist = Callable[[list[KeyEvent]], list[KeyEvent]]
"""Types planned card-keypad keys on some keypad; returns what the device read, in order."""


def play(dev: VirtualDevice, typist: Typist | None, *, actions: int | None) -> None:
    """Start Tezuma and enter ``actions`` actions of a simulated table (None: the whole game) by the
    card keypad's plans, typed by ``typist`` (None: the card keypad itself)."""
    start_game(dev, "tezuma")
    rng = random.Random(5)
    game = dev.game
    table = table_model(game, rng, 0.4)
    entered = 0
    while not game.is_over() and (actions is None or entered < actions):
        action = table.choose(game, rng)
        for _attempt in range(20):  # a plan may stop short where the screen changes under it
            if game.actions[-1:] == [action]:
                break
            planned = presses_for(dev.app, action, "keypad")
            for event in typist(planned) if typist else planned:
                dev.device.post(event)
                dev.device.loop.run_until_idle()
        assert game.actions[-1] == action
        table.after(game, action)
        entered += 1


def decoded(events: list[KeyEvent], decoder: NumpadDecoder, clock: list[float]) -> list[KeyEvent]:
    """A recorded stream: each key pressed and released on the numeric keypad, through the decoder."""
    out = []
    for event in events:
        clock[0] += 2.0
        code = CODES[event.key]
        out += decoder.feed(code, 1, clock[0]) + decoder.feed(code, 0, clock[0] + (1.2 if event.long else 0.1))
    return out


def test_both_keypads_write_the_same_journal(tmp_path: Path) -> None:
    journals = []
    decoder, clock = NumpadDecoder(), [0.0]
    for numpad in (False, True):
        state = tmp_path / ("numpad" if numpad else "card-keypad")
        dev = VirtualDevice(state)
        try:
            play(dev, (lambda events: decoded(events, decoder, clock)) if numpad else None, actions=40)
        finally:
            dev.close()
        journals.append((state / "current.jsonl").read_text(encoding="utf-8"))
    assert journals[0].count("\n") > 40
    assert journals[0] == journals[1]


def test_unplugging_mid_game_is_said_on_the_panel_and_the_joystick_keeps_working(tmp_path: Path) -> None:
    dev = VirtualDevice(tmp_path)
    backend = RecordedBackend()
    backend.plugged = RecordedKeypad("Numeric Keypad")
    said: queue.Queue[str] = queue.Queue()

    def status(text: str) -> None:
        dev.device.say(text)
        said.put(text)

    pad = Numpad("auto", backend, dev.device.post, on_status=status, backoff=(0.01,), poll_s=0.01)
    try:
        pad.start()
        assert said.get(timeout=5.0) == "numeric keypad connected: Numeric Keypad"
        start_game(dev, "tezuma")
        keypad = backend.plugged
        assert keypad is not None
        backend.plugged = None
        keypad.pending.put(None)
        assert said.get(timeout=5.0) == "numeric keypad unplugged: the joystick keeps working"
        dev.device.loop.run_until_idle()
        assert dev.app.message is not None and "numeric keypad unplugged" in dev.app.message
        before = len(dev.game.actions)
        dev.enter(next(iter(dev.game.legal_actions)))  # the joystick enters the next action
        assert len(dev.game.actions) == before + 1
    finally:
        pad.stop()
        pad.join(5.0)
        dev.close()


@pytest.fixture
def uinput_keypad() -> Iterator[object]:
    """A virtual numeric keypad in the kernel (/dev/uinput), where this machine has one."""
    import os

    if not os.path.exists("/dev/uinput"):
        pytest.skip("no /dev/uinput on this machine: the kernel path runs where it exists (the power-cut VM)")
    evdev = pytest.importorskip("evdev", reason="python-evdev (the [pi] extra) is not installed")
    try:
        virtual = evdev.UInput({evdev.ecodes.EV_KEY: sorted(NUMPAD_KEYS)}, name="companion whole-game numpad")
    except (OSError, evdev.UInputError) as err:
        pytest.skip(f"cannot create a uinput device here: {err}")
    with virtual:
        yield virtual


def test_a_whole_game_through_the_kernels_input_layer(tmp_path: Path, uinput_keypad: object) -> None:
    """Every key of a whole game typed on a virtual keypad, read back by the reader thread."""
    import evdev

    virtual: evdev.UInput = uinput_keypad  # type: ignore[assignment]
    read: queue.Queue[KeyEvent] = queue.Queue()

    def through_the_kernel(events: list[KeyEvent]) -> list[KeyEvent]:
        for event in events:
            for value in (1, 0):
                virtual.write(evdev.ecodes.EV_KEY, CODES[event.key], value)
                virtual.syn()
                if value and event.long:
                    time.sleep(1.0)  # held past the hold time, on the reader's own clock
        return [read.get(timeout=5.0) for _ in events]

    dev = VirtualDevice(tmp_path)
    pad = Numpad("companion whole-game numpad", EvdevBackend(), read.put, on_status=lambda text: None, poll_s=0.02)
    try:
        pad.start()
        if not pad.connected.wait(5.0):
            raise AssertionError("the reader never took the virtual keypad")
        play(dev, through_the_kernel, actions=None)
        assert dev.game.is_over()
    finally:
        pad.stop()
        pad.join(5.0)
        dev.close()
