"""The event loop: deadlines instead of polling, thread-safe posting, clean stops."""

from __future__ import annotations

import inspect
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import companion
from companion.daemon import loop as loop_module
from companion.daemon.loop import EventLoop, stop_on_signals

JOIN_TIMEOUT = 10.0  # generous: only a hang reaches it


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_timers_fire_in_deadline_order_and_only_when_due(clock: FakeClock) -> None:
    fired: list[str] = []
    loop: EventLoop[str] = EventLoop(fired.append, clock=clock)
    loop.call_at(3.0, lambda: fired.append("c"))
    loop.call_at(1.0, lambda: fired.append("a"))
    loop.call_at(2.0, lambda: fired.append("b1"))
    loop.call_at(2.0, lambda: fired.append("b2"))  # same deadline: order of setting

    clock.now = 1.5
    assert loop.run_until_idle() == 1
    assert fired == ["a"]
    clock.now = 10.0
    assert loop.run_until_idle() == 3
    assert fired == ["a", "b1", "b2", "c"]


def test_call_later_counts_from_the_clock(clock: FakeClock) -> None:
    fired: list[str] = []
    loop: EventLoop[str] = EventLoop(fired.append, clock=clock)
    clock.now = 100.0
    loop.call_later(5.0, lambda: fired.append("later"))
    clock.now = 104.9
    loop.run_until_idle()
    assert fired == []
    clock.now = 105.0
    loop.run_until_idle()
    assert fired == ["later"]


def test_cancelled_timer_never_fires(clock: FakeClock) -> None:
    fired: list[str] = []
    loop: EventLoop[str] = EventLoop(fired.append, clock=clock)
    doomed = loop.call_at(1.0, lambda: fired.append("doomed"))
    loop.call_at(2.0, lambda: fired.append("kept"))
    doomed.cancel()
    clock.now = 5.0
    loop.run_until_idle()
    assert fired == ["kept"]


def test_repeating_timer_keeps_its_beat_and_skips_missed_ones(clock: FakeClock) -> None:
    """The watchdog feed: one ping per interval, and one (not a burst) after a long stall."""
    pings: list[float] = []
    loop: EventLoop[str] = EventLoop(lambda event: None, clock=clock)
    feed = loop.call_every(15.0, lambda: pings.append(clock.now))
    for now in (14.9, 15.0, 29.9, 30.0, 100.0, 114.9, 115.0):
        clock.now = now
        loop.run_until_idle()
    assert pings == [15.0, 30.0, 100.0, 115.0]
    feed.cancel()
    clock.now = 1000.0
    loop.run_until_idle()
    assert pings == [15.0, 30.0, 100.0, 115.0]
    with pytest.raises(ValueError, match="positive interval"):
        loop.call_every(0, lambda: None)


def test_a_stop_ends_the_run_before_queued_events_which_stay_for_a_later_run(
    clock: FakeClock,
) -> None:
    handled: list[str] = []
    loop: EventLoop[str] = EventLoop(handled.append, clock=clock)
    loop.post("a")
    loop.stop()
    loop.post("b")
    assert loop.run_until_idle() == 0  # the stop does not wait behind "a"
    assert handled == []
    assert loop.run_until_idle() == 2
    assert handled == ["a", "b"]


def test_a_stop_from_a_handler_ends_the_run_after_that_handler() -> None:
    handled: list[str] = []

    def handler(event: str) -> None:
        handled.append(event)
        if event == "done":
            loop.stop()

    loop: EventLoop[str] = EventLoop(handler)
    for event in ("a", "done", "late"):
        loop.post(event)
    loop.run()  # returns: the stop came from inside the run
    assert handled == ["a", "done"]


def test_the_queue_is_bounded_and_what_it_drops_is_counted_and_logged_once_per_interval(
    clock: FakeClock, caplog: pytest.LogCaptureFixture,
) -> None:
    handled: list[int] = []
    loop: EventLoop[int] = EventLoop(handled.append, clock=clock, max_pending=4)
    accepted = [loop.post(number) for number in range(10)]
    assert accepted == [True] * 4 + [False] * 6
    assert loop.dropped == 6
    with caplog.at_level("WARNING", logger="companion.daemon.loop"):
        assert loop.run_until_idle() == 4
        assert [loop.post(number) for number in range(10, 16)] == [True] * 4 + [False] * 2
        loop.run_until_idle()  # within the interval: counted, not logged again
        clock.now = loop_module.DROP_REPORT_INTERVAL_S
        loop.post(16)
        loop.run_until_idle()
    assert handled == [*range(4), *range(10, 14), 16]
    assert [record.getMessage() for record in caplog.records] == [
        "dropped 6 event(s): 4 were already waiting to be handled (a flooding input?)",
        "dropped 2 event(s): 4 were already waiting to be handled (a flooding input?)"]


def test_drops_not_yet_logged_are_logged_when_the_loop_stops(
    clock: FakeClock, caplog: pytest.LogCaptureFixture,
) -> None:
    loop: EventLoop[int] = EventLoop(lambda event: None, clock=clock, max_pending=1)
    loop.post(1)
    loop.run_until_idle()
    with caplog.at_level("WARNING", logger="companion.daemon.loop"):
        loop.post(2)
        loop.post(3)  # dropped
        loop.run_until_idle()
        loop.post(4)
        loop.post(5)  # dropped, within the interval of the last report
        loop.stop()
        loop.run_until_idle()
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        "dropped 1 event(s)", "dropped 1 event(s)"]


def test_a_loop_needs_room_for_one_event() -> None:
    with pytest.raises(ValueError, match="at least one event"):
        EventLoop(lambda event: None, max_pending=0)


def test_a_stop_under_a_flood_of_posts_ends_run_at_once_without_timing_anything() -> None:
    """The old failure: a stop queued behind every event posted before it, so a flooding
    producer kept SIGTERM waiting for minutes. Here one producer thread posts without pause,
    each handled event hands the test a step, and the stop comes during the third handler:
    run() must return right after it, however much is queued."""
    in_handler = threading.Event()
    go_on = threading.Event()
    handled: list[int] = []

    def handler(event: int) -> None:
        handled.append(event)
        if len(handled) == 3:
            in_handler.set()
            assert go_on.wait(JOIN_TIMEOUT)

    loop: EventLoop[int] = EventLoop(handler, max_pending=10_000)
    flooding = threading.Event()
    flooding.set()

    def flood() -> None:
        number = 0
        while flooding.is_set():
            loop.post(number)
            number += 1

    producer = threading.Thread(target=flood, name="flood")
    runner = threading.Thread(target=loop.run, name="loop-under-flood")
    producer.start()
    runner.start()
    try:
        assert in_handler.wait(JOIN_TIMEOUT)
        loop.stop()
        go_on.set()
        runner.join(JOIN_TIMEOUT)
        assert not runner.is_alive(), "run() did not return after stop() under a flood"
        assert handled == [0, 1, 2]
    finally:
        flooding.clear()
        go_on.set()
        producer.join(JOIN_TIMEOUT)
    assert not producer.is_alive()


def test_self_rearming_timer_at_a_frozen_clock_is_caught(clock: FakeClock) -> None:
    loop: EventLoop[str] = EventLoop(lambda event: None, clock=clock)

    def rearm() -> None:
        loop.call_at(clock.now, rearm)

    loop.call_at(0.0, rearm)
    with pytest.raises(RuntimeError, match="still busy after 50 steps"):
        loop.run_until_idle(max_steps=50)


@pytest.fixture
def running_loop() -> Iterator[tuple[EventLoop[str], list[str], threading.Event]]:
    """A loop on the real clock, run by a thread; stopped and joined (with a timeout) afterwards."""
    handled: list[str] = []
    got_one = threading.Event()

    def handler(event: str) -> None:
        handled.append(event)
        got_one.set()

    loop: EventLoop[str] = EventLoop(handler)
    thread = threading.Thread(target=loop.run, name="loop-under-test")
    thread.start()
    yield loop, handled, got_one
    loop.stop()
    thread.join(JOIN_TIMEOUT)
    assert not thread.is_alive(), "run() did not return after stop()"


def test_post_from_another_thread_wakes_a_sleeping_run(
    running_loop: tuple[EventLoop[str], list[str], threading.Event],
) -> None:
    loop, handled, got_one = running_loop  # no timers: run() sleeps with no timeout at all
    loop.post("button-1")
    assert got_one.wait(JOIN_TIMEOUT)
    assert handled == ["button-1"]


def test_timer_set_from_another_thread_wakes_a_sleeping_run(
    running_loop: tuple[EventLoop[str], list[str], threading.Event],
) -> None:
    loop, handled, got_one = running_loop
    loop.call_at(0.0, lambda: loop.post("from-timer"))  # already due; no event would wake run()
    assert got_one.wait(JOIN_TIMEOUT)
    assert handled == ["from-timer"]


def test_stop_from_another_thread_ends_run() -> None:
    loop: EventLoop[str] = EventLoop(lambda event: None)
    thread = threading.Thread(target=loop.run)
    thread.start()
    loop.stop()
    thread.join(JOIN_TIMEOUT)
    assert not thread.is_alive()


def test_handler_exception_ends_run_and_the_loop_can_run_again() -> None:
    def handler(event: str) -> None:
        if event == "bad":
            raise KeyError(event)

    loop: EventLoop[str] = EventLoop(handler)
    loop.post("bad")
    with pytest.raises(KeyError):
        loop.run()
    loop.stop()
    loop.run()  # returns: not stuck in "already running"


def test_run_twice_at_once_is_refused() -> None:
    loop: EventLoop[str] = EventLoop(lambda event: loop.run())
    loop.post("re-enter")
    with pytest.raises(RuntimeError, match="already running"):
        loop.run()


def test_stop_on_signals_sets_and_restores_handlers_in_the_main_thread() -> None:
    loop: EventLoop[str] = EventLoop(lambda event: None)
    before = signal.getsignal(signal.SIGTERM)
    with stop_on_signals(loop, [signal.SIGTERM]) as installed:
        assert installed
        signal.raise_signal(signal.SIGTERM)  # handled in this thread: only queues a stop
    assert signal.getsignal(signal.SIGTERM) is before
    assert loop.run_until_idle() == 0  # the first item taken was the stop


def test_stop_on_signals_does_nothing_outside_the_main_thread() -> None:
    loop: EventLoop[str] = EventLoop(lambda event: None)
    result: list[bool] = []

    def enter() -> None:
        with stop_on_signals(loop) as installed:
            result.append(installed)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join(JOIN_TIMEOUT)
    assert result == [False]



def test_a_stop_signal_landing_on_another_thread_stops_the_loop_at_once() -> None:
    """The kernel gives a signal sent to the process to any thread that does not block it (luma's,
    gpiozero's, the key script's). Python runs the handler in the main thread, which, asleep in the
    loop's queue, is not woken by a signal it did not receive: the stop must not wait for the next
    event or timer (a device with no timer would never stop; one with the watchdog, only at its ping)."""
    loop: EventLoop[str] = EventLoop(lambda event: None)
    main = threading.main_thread()
    stopped = threading.Event()
    rescued: list[bool] = []
    get_line = next(number for number, text in enumerate(inspect.getsourcelines(loop_module)[0], start=1)
                    if "item = self._queue.get(" in text)  # where the loop sleeps

    def signal_from_here() -> None:
        deadline = time.monotonic() + JOIN_TIMEOUT
        while time.monotonic() < deadline:  # until the main thread sleeps in the queue, not before
            frame = sys._current_frames().get(main.ident or 0)
            if frame is not None and frame.f_code.co_filename == loop_module.__file__ and frame.f_lineno == get_line:
                break
            time.sleep(0.005)
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # lands on this thread, not main
        if not stopped.wait(JOIN_TIMEOUT):  # only a hang reaches this: end the test rather than hang
            rescued.append(True)
            loop.stop()

    with stop_on_signals(loop, [signal.SIGTERM]):
        other = threading.Thread(target=signal_from_here)
        other.start()
        loop.run()
        stopped.set()
        other.join(JOIN_TIMEOUT)
    assert not other.is_alive()
    assert rescued == [], "the loop slept through a SIGTERM that landed on another thread"


@pytest.fixture
def notify_socket() -> Iterator[tuple[socket.socket, str]]:
    directory = tempfile.mkdtemp(prefix="sdn", dir="/tmp")  # sun_path holds only 108 bytes
    path = os.path.join(directory, "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(path)
        sock.settimeout(JOIN_TIMEOUT)
        yield sock, path
    shutil.rmtree(directory)


def _wait_for(sock: socket.socket, wanted: bytes) -> list[bytes]:
    """Datagrams up to and including ``wanted`` (socket.timeout if it never comes)."""
    seen = [sock.recv(4096)]
    while seen[-1] != wanted:
        seen.append(sock.recv(4096))
    return seen


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_a_daemon_process_cleanly(
    notify_socket: tuple[socket.socket, str], signum: int
) -> None:
    sock, path = notify_socket
    package_root = Path(companion.__file__).resolve().parents[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(package_root),
        "NOTIFY_SOCKET": path,
        "WATCHDOG_USEC": "100000",  # a 50 ms ping, so pings are seen within the test
    }
    env.pop("WATCHDOG_PID", None)
    daemon = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("tiny_daemon.py"))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert _wait_for(sock, b"READY=1") == [b"READY=1"]
        _wait_for(sock, b"WATCHDOG=1")  # the repeating timer runs inside run()
        daemon.send_signal(signum)
        _out, err = daemon.communicate(timeout=JOIN_TIMEOUT)
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait(JOIN_TIMEOUT)
    assert daemon.returncode == 0, err.decode()
    assert err == b""  # no KeyboardInterrupt traceback
    assert _wait_for(sock, b"STOPPING=1")[-1] == b"STOPPING=1"
