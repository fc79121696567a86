"""The numeric keypad on the whole device: the same journal as the card keypad, and hot-plug said on the panel."""

from __future__ import annotations

import errno
import queue
import random
from pathlib import Path

from companion.daemon.virtual import VirtualDevice
from companion.hw.numpad import NUMPAD_KEYS, PRINTED_KEYS, Backoff, Numpad, NumpadDecoder
from companion.keys import KeyEvent
from companion.sim import table_model
from companion.ui.planner import presses_for
from tests.device.test_device import start_game

CODES = {NUMPAD_KEYS[code]: code for code in PRINTED_KEYS.values()}


def typed_on_numpad(events: list[KeyEvent], decoder: NumpadDecoder, clock: list[float]) -> list[KeyEvent]:
    """What the device reads when a hand types ``events`` on the numeric keypad's printed keys."""
    out = []
    for event in events:
        clock[0] += 2.0
        code = CODES[event.key]
        out += decoder.feed(code, 1, clock[0]) + decoder.feed(code, 0, clock[0] + (1.2 if event.long else 0.1))
    return out


def play(dev: VirtualDevice, *, numpad: bool, actions: int) -> None:
    start_game(dev, "tezuma")
    rng = random.Random(5)
    game = dev.game
    table = table_model(game, rng, 0.4)
    decoder, clock = NumpadDecoder(), [0.0]
    for _ in range(actions):
        action = table.choose(game, rng)
        for _attempt in range(20):  # a plan may stop short where the screen changes under it
            if game.actions[-1:] == [action]:
                break
            planned = presses_for(dev.app, action, "keypad")
            for event in typed_on_numpad(planned, decoder, clock) if numpad else planned:
                dev.device.post(event)
                dev.device.loop.run_until_idle()
        assert game.actions[-1] == action
        table.after(game, action)


def test_both_keypads_write_the_same_journal(tmp_path: Path) -> None:
    journals = []
    for numpad in (False, True):
        state = tmp_path / ("numpad" if numpad else "card-keypad")
        dev = VirtualDevice(state)
        try:
            play(dev, numpad=numpad, actions=40)
        finally:
            dev.close()
        journals.append((state / "current.jsonl").read_text(encoding="utf-8"))
    assert journals[0].count("\n") > 40
    assert journals[0] == journals[1]


class Unplugging:
    """A keypad that is there until ``pull`` makes its reads fail as an unplugged device's do."""

    path, name = "/dev/input/event5", "Numeric Keypad"

    def __init__(self) -> None:
        self.reads: queue.Queue[tuple[int, int] | None] = queue.Queue()

    def grab(self) -> None:
        pass

    def read_keys(self, timeout: float) -> list[tuple[int, int]]:
        try:
            item = self.reads.get(timeout=timeout)
        except queue.Empty:
            return []
        if item is None:
            raise OSError(errno.ENODEV, "No such device")
        return [item]

    def close(self) -> None:
        pass


class Backend:
    def __init__(self) -> None:
        self.plugged: Unplugging | None = Unplugging()

    def find(self, wanted: str) -> Unplugging | None:
        return self.plugged


def test_unplugging_mid_game_is_said_on_the_panel_and_the_joystick_keeps_working(tmp_path: Path) -> None:
    dev = VirtualDevice(tmp_path)
    backend = Backend()
    said: queue.Queue[str] = queue.Queue()

    def status(text: str) -> None:
        dev.device.say(text)
        said.put(text)

    pad = Numpad("auto", backend, dev.device.post, on_status=status, backoff=Backoff((0.01,)), poll_s=0.01)
    try:
        pad.start()
        assert said.get(timeout=5.0) == "numeric keypad connected: Numeric Keypad"
        start_game(dev, "tezuma")
        keypad = backend.plugged
        assert keypad is not None
        backend.plugged = None
        keypad.reads.put(None)
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
