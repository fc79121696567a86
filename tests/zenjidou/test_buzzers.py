"""Quiz buzzers: the earliest edge wins even when it is handled last; too-close presses are a tie."""

from __future__ import annotations

import random
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from companion.games.zenjidou.table import ZenjidouTable
from companion.hw.buzzers import BuzzerArbiter, GpioBuzzers, Verdict
from companion.hw.keys import Key, KeyEvent
from companion.session import Session
from companion.sim import new_random_game
from companion.ui import App
from tests.ui.helpers import FakeClock

BUSY_TIMEOUT_S = 5.0


class LateCallbackPin(MockPin):
    """A mock pin that, like lgpio, stamps the edge when it happens but runs the callback later on
    its own worker thread; ``hold`` keeps that worker busy (a busy event loop) until released."""

    hold: threading.Event | None = None

    def _call_when_changed(self) -> None:
        stamp, state, deliver = self._last_change, self._state, super(MockPin, self)._call_when_changed
        hold = self.hold

        def later() -> None:
            if hold is not None:
                hold.wait(BUSY_TIMEOUT_S)
            deliver(stamp, state)

        worker = threading.Thread(target=later, daemon=True)
        worker.start()
        WORKERS.append(worker)


WORKERS: list[threading.Thread] = []


def test_two_presses_1ms_apart_the_earlier_edge_wins_though_handled_last() -> None:
    factory = MockFactory(pin_class=LateCallbackPin)
    arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.05)
    handled: list[int] = []
    original = arbiter.press

    def press(seat: int, at: float, now: float) -> None:
        handled.append(seat)
        original(seat, at, now)

    arbiter.press = press  # type: ignore[method-assign]
    app_clock = [0.0]
    buzzers = GpioBuzzers({0: 5, 1: 6}, arbiter, clock=lambda: app_clock[0], pin_factory=factory)
    try:
        arbiter.arm(now=0.0)
        first, second = factory.pin(5), factory.pin(6)
        first.hold = threading.Event()  # seat 1's callback waits behind busy work
        first.drive_low()
        time.sleep(0.001)
        second.drive_low()
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while handled != [1] and time.monotonic() < deadline:
            time.sleep(0.001)
        first.hold.set()
        for worker in WORKERS:
            worker.join(BUSY_TIMEOUT_S)
        assert handled == [1, 0]  # seat 2 was handled first...
        app_clock[0] = 1.0
        assert arbiter.verdict(now=1.0) == Verdict("first", (0,))  # ...but seat 1's edge came first
    finally:
        buzzers.close()
        WORKERS.clear()


def test_presses_closer_than_the_resolution_are_a_tie_and_the_table_repeats() -> None:
    arbiter = BuzzerArbiter(resolution_s=0.001, settle_s=0.01)
    arbiter.arm(now=0.0)
    arbiter.press(1, at=5.0004, now=0.1)
    arbiter.press(0, at=5.0000, now=0.1)
    assert arbiter.verdict(now=0.2) == Verdict("tie", (0, 1))
    arbiter.repeat(now=0.3)
    assert arbiter.verdict(now=0.4) is None
    arbiter.press(1, at=6.0, now=0.5)
    assert arbiter.verdict(now=0.6) == Verdict("first", (1,))


def test_a_seat_that_is_out_is_ignored_and_bounces_do_not_count() -> None:
    arbiter = BuzzerArbiter(resolution_s=0.0002, settle_s=0.01)
    arbiter.arm(now=0.0, out={2})
    arbiter.press(2, at=1.0, now=0.1)
    assert arbiter.deadline() is None
    arbiter.press(0, at=1.5, now=0.1)
    arbiter.press(0, at=1.0001, now=0.1)  # a bounce of the same button
    arbiter.press(1, at=1.2, now=0.1)
    assert arbiter.verdict(now=0.05) is None  # still settling
    assert arbiter.verdict(now=0.2) == Verdict("first", (1,))


@pytest.mark.parametrize("pins", [[5, 5], [5, 40], ["5"]])
def test_bad_buzzer_pins_are_refused(pins: list[object]) -> None:
    from companion.errors import ConfigError
    from companion.hw.buzzers import check_buzzer_pins

    with pytest.raises(ConfigError):
        check_buzzer_pins(pins)


def test_a_buzzer_no_player_has_is_ignored_and_the_quiz_goes_on() -> None:
    """The keypad has six buzzer inputs: at a table of three, a press on the sixth claimed the quiz
    for a P6 the engine refused ("P6 cannot point again"), and no other press could answer it."""
    rng = random.Random(0)
    game = new_random_game("zenjidou", 3, rng)
    table = ZenjidouTable(game, rng, rules="B")
    while game.decision is not None and game.decision.kind != "quiz":
        game.push(table.choose(game, rng))
    assert game.decision is not None
    clock, arbiter = FakeClock(), BuzzerArbiter(settle_s=0.05)
    app = App(Session(game), clock=clock, rng=rng, buzzers=arbiter)
    actions = len(game.actions)
    arbiter.press(5, at=clock.now, now=clock.now)  # seat 6's input, unused at three
    clock.advance(1.0)
    app.tick()
    assert arbiter.verdict(clock.now) is None
    arbiter.press(1, at=clock.now, now=clock.now)
    clock.advance(1.0)
    app.tick()
    assert arbiter.verdict(clock.now) == Verdict("first", (1,))
    app.handle(KeyEvent(Key.OK))  # P2 points at the card first offered
    assert len(app.session.game.actions) == actions + 1
    assert app.session.game.actions[-1].to_json()["player"] == 1
