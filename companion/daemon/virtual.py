"""A whole device on fake buses, in virtual time: mock pins in, the real SSD1306 driver out.

Tests, benchmarks and the kill test drive the production :class:`~companion.daemon.device.Device`
through it; nothing here is a second UI path, only a faster clock and hands on the mock pins.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from companion.daemon.device import Device
from companion.daemon.store import Store
from companion.hw.boards import load_board
from companion.hw.buzzers import BuzzerArbiter, GpioBuzzers
from companion.hw.display import open_display, parse_display_args
from companion.hw.mock import MockPad, VirtualTime
from companion.keys import KeyEvent
from companion.ui.planner import presses_for


class VirtualDevice:
    """The production :class:`Device` with MockFactory buttons and a recording display bus."""

    def __init__(self, state: Path, *, board: str = "adafruit-oled-bonnet", seed: int = 1,
                 buzzer_pins: Mapping[int, int] | None = None) -> None:
        self.time = VirtualTime(1000.0)
        self.board = load_board(board)
        self.display = open_display(parse_display_args([], self.board), recording=True)
        arbiter = BuzzerArbiter() if buzzer_pins else None
        self.device = Device(Store(state, wall=lambda: "2026-11-25T12:00:00+00:00"), self.display,
                             clock=self.time.now, rng=random.Random(seed), buzzers=arbiter)
        self.pad = MockPad(self.board.buttons, self.device.post, factory=MockFactory(),
                           clock=self.time.now, sleep=self.time.sleep, timer=self.time.timer)
        self.buzzer_pins = dict(buzzer_pins or {})
        self.buzzers = (GpioBuzzers(self.buzzer_pins, arbiter, clock=self.time.now, pin_factory=self.pad.factory,
                                    on_press=self.device.buzzed) if arbiter is not None else None)
        self.device.start()
        self.device.loop.run_until_idle()
        self.presses = 0
        self.pressed: list[KeyEvent] = []  # every key, in order: a key script can be written from it

    @property
    def app(self) -> Any:
        return self.device.app

    @property
    def game(self) -> Any:
        return self.device.app.session.game if self.device.app.session else None

    def press(self, event: KeyEvent) -> None:
        """Close and open the switch on its mock pin; let the loop handle what it produced."""
        self.pad.press(event.key, long=event.long)
        self.device.loop.run_until_idle()
        self.presses += 1
        self.pressed.append(event)

    def enter(self, action: Any) -> None:
        """Enter an engine action with the keys a person would press."""
        for event in presses_for(self.app, action):
            self.press(event)

    def buzz(self, seat: int) -> None:
        """Press and release ``seat``'s quiz buzzer on its mock pin; let the loop handle it."""
        pin = self.pad.factory.pin(self.buzzer_pins[seat])
        pin.drive_low()
        pin.drive_high()
        self.device.loop.run_until_idle()

    def wait(self, seconds: float) -> None:
        self.time.sleep(seconds)
        self.device.loop.run_until_idle()

    def close(self) -> None:
        if self.buzzers is not None:
            self.buzzers.close()
        self.pad.close()
        self.device.close()


def key_script(events: list[KeyEvent]) -> str:
    """The events as a mock-mode key script (``companion run --mock --keys``)."""
    return "".join(f"{'hold' if e.long else 'press'} {e.key.name}\n" for e in events)
