"""A keypad flooding its link costs bounded work: repeats, the hand's pace, the byte budget, stop.

The old failures: valid key frames at full USB speed were each handled, drawn and journalled
(a core and growing memory), a frame sent twice was two presses, and the reader parsed
whatever arrived. Every clock here is a fake one the test moves; waits on the reader thread
are queue reads with generous timeouts and threads are joined with one, so nothing depends on
how fast the machine is.
"""

import queue
import re
from pathlib import Path

import keypad_core
import pytest
import serial

from companion.daemon.loop import MAX_PENDING_EVENTS
from companion.errors import ConfigError
from companion.hw import serial_keypad
from companion.hw.keys import Key, KeyEvent
from companion.hw.serial_keypad import (
    KeypadLineParser,
    PressLimiter,
    Problem,
    SeatPress,
    SerialKeypad,
    TokenBucket,
)

WAIT_S = 5.0


def wire(payload: str) -> bytes:
    return keypad_core.frame(payload).encode("ascii")


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --- a repeated frame is one press -------------------------------------------------------------

def test_a_frame_sent_twice_with_one_sequence_number_is_one_press_and_reported() -> None:
    parser = KeypadLineParser()
    results = parser.feed(wire("K 7 OK P") + wire("K 7 OK P") + wire("K 8 UP P"))
    assert results == [
        KeyEvent(Key.OK),
        Problem("ignored a frame repeating sequence number 7 (one press, not two): b'K 7 OK P'"),
        KeyEvent(Key.UP)]  # and no "lost 255 lines" either
    assert parser.repeated_frames == 1


def test_a_repeat_split_across_reads_is_still_one_press() -> None:
    parser = KeypadLineParser()
    stream = wire("K 200 LEFT L") * 3
    results = [result for cut in range(0, len(stream), 5) for result in parser.feed(stream[cut:cut + 5])]
    assert [result for result in results if isinstance(result, KeyEvent)] == [KeyEvent(Key.LEFT, long=True)]
    assert parser.repeated_frames == 2


def test_any_frame_kind_repeated_is_dropped_but_a_hello_starts_the_count_afresh() -> None:
    parser = KeypadLineParser()
    assert parser.feed(wire("B 3") + wire("B 3")) == [
        Problem("ignored a frame repeating sequence number 3 (one press, not two): b'B 3'")]
    assert parser.feed(wire("H 4 2") + wire("H 4 2") + wire("K 5 OK P")) == [KeyEvent(Key.OK)]
    assert parser.repeated_frames == 1


def test_the_same_sequence_number_after_others_is_lost_lines_not_a_repeat() -> None:
    parser = KeypadLineParser()
    results = parser.feed(wire("K 5 OK P") + wire("K 6 UP P") + wire("K 5 OK P"))
    assert [result for result in results if isinstance(result, KeyEvent)] == [
        KeyEvent(Key.OK), KeyEvent(Key.UP), KeyEvent(Key.OK)]
    assert parser.repeated_frames == 0


def test_after_the_port_is_lost_the_same_sequence_number_is_a_new_frame() -> None:
    parser = KeypadLineParser()
    parser.feed(wire("K 9 OK P"))
    parser.reset()
    assert parser.feed(wire("K 9 OK P")) == [KeyEvent(Key.OK)]


# --- the pace of a hand, on an injected clock ------------------------------------------------

def test_the_bucket_gives_its_burst_then_its_rate_and_never_saves_beyond_the_burst() -> None:
    clock = FakeClock()
    bucket = TokenBucket(clock, rate=10.0, burst=3)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now = 0.1
    assert [bucket.take() for _ in range(2)] == [True, False]
    clock.now = 100.0  # a long pause saves up no more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_spending_beyond_the_budget_says_how_long_to_wait() -> None:
    clock = FakeClock()
    bucket = TokenBucket(clock, rate=100.0, burst=100)
    assert bucket.spend(60) == 0.0
    assert bucket.spend(90) == pytest.approx(0.5)
    clock.now = 0.5
    assert bucket.spend(0) == 0.0


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 5), (-1.0, 5), (10.0, 0)])
def test_a_rate_limit_without_a_rate_or_a_burst_is_refused(rate: float, burst: int) -> None:
    with pytest.raises(ConfigError, match="positive rate and a burst of at least 1"):
        TokenBucket(FakeClock(), rate=rate, burst=burst)


def test_presses_faster_than_a_hand_are_dropped_counted_and_reported_once_per_interval() -> None:
    clock = FakeClock()
    presses = PressLimiter(clock)
    burst, rate = serial_keypad.PRESS_BURST, serial_keypad.PRESS_RATE_PER_S
    assert sum(presses.admit() for _ in range(1000)) == burst  # a flood in one instant
    assert presses.dropped == 1000 - burst
    assert presses.report() == [
        (f"dropped {1000 - burst} key press(es) arriving faster than a hand presses (over {burst} at once "
         f"or {rate:g} a second): a stuck key or a faulty keypad?")]
    clock.now = 1.0
    assert sum(presses.admit() for _ in range(1000)) == rate  # one second later: a second's worth
    assert presses.report() == []  # counted, and told at the end of the interval
    clock.now = serial_keypad.PROBLEM_INTERVAL_S
    assert presses.report()[0].startswith(f"dropped {1000 - int(rate)} key press(es)")
    assert presses.report() == []


def test_a_person_pressing_at_a_hands_pace_loses_nothing() -> None:
    clock = FakeClock()
    presses = PressLimiter(clock)
    admitted = []
    for press in range(600):  # a minute of pressing flat out, at the limit's own pace
        clock.now = press / serial_keypad.PRESS_RATE_PER_S
        admitted.append(presses.admit())
    assert all(admitted) and presses.dropped == 0 and presses.report() == []


# --- the reader thread under a flood --------------------------------------------------------

class Recorder:
    def __init__(self) -> None:
        self.events: queue.Queue[KeyEvent] = queue.Queue()
        self.problems: queue.Queue[str] = queue.Queue()
        self.seats: queue.Queue[SeatPress] = queue.Queue()

    def keypad(self, port: serial.SerialBase, clock: FakeClock, **options: object) -> SerialKeypad:
        return SerialKeypad(port, self.events.put, on_problem=self.problems.put, on_seat=self.seats.put,
                            clock=clock, ask_hello=False, silence_timeout=1e9, read_timeout=0.01, **options)

    def problems_until(self, last: str) -> list[str]:
        """The problems up to and including the next one that starts with ``last``."""
        seen = [self.problems.get(timeout=WAIT_S)]
        while not seen[-1].startswith(last):
            seen.append(self.problems.get(timeout=WAIT_S))
        return seen

    def drain(self, got: "queue.Queue[object]") -> list[object]:
        return [got.get_nowait() for _ in range(got.qsize())]


@pytest.fixture
def loop_port():
    port = serial.serial_for_url("loop://", timeout=0.01)
    yield port
    port.close()


def key_flood(first_seq: int, count: int) -> bytes:
    keys = list(Key)
    return b"".join(wire(f"K {(first_seq + n) % 256} {keys[n % len(keys)].name} P") for n in range(count))


def test_a_flood_of_valid_key_frames_passes_a_hands_worth_of_presses(loop_port: serial.SerialBase) -> None:
    """1,000 good key frames in one instant of the keypad's clock: the burst passes, the rest is
    counted; a second later, a second's worth more. A key's E line marks the end of each flood."""
    clock = FakeClock()
    recorder = Recorder()
    burst, rate = serial_keypad.PRESS_BURST, int(serial_keypad.PRESS_RATE_PER_S)
    with recorder.keypad(loop_port, clock, link_bytes_per_s=1e9) as keypad:
        loop_port.write(key_flood(0, 1000) + wire("E 232 end of flood one"))
        recorder.problems_until("keypad reports: end of flood one")
        assert len(recorder.drain(recorder.events)) == burst
        assert keypad.key_presses.dropped == 1000 - burst
        clock.now = 1.0
        loop_port.write(key_flood(233, 100) + wire("E 77 end of flood two"))
        recorder.problems_until("keypad reports: end of flood two")
        assert len(recorder.drain(recorder.events)) == rate
        assert keypad.key_presses.dropped == 1000 - burst + 100 - rate
    reports = [problem for problem in recorder.drain(recorder.problems) if problem.startswith("dropped")]
    assert reports == []  # every drop was told at the first one or is waiting for the interval's end


def test_drops_are_reported_as_counts_through_the_log_not_line_by_line(loop_port: serial.SerialBase) -> None:
    """However the reads split the flood: one count at the first drop, the rest at the end of
    the interval, and together they are every dropped press."""
    clock = FakeClock()
    recorder = Recorder()
    with recorder.keypad(loop_port, clock, link_bytes_per_s=1e9) as keypad:
        loop_port.write(key_flood(0, 500) + wire("E 244 end"))
        first = [problem for problem in recorder.problems_until("keypad reports: end") if problem.startswith("dropped")]
        clock.now = serial_keypad.PROBLEM_INTERVAL_S
        loop_port.write(wire("B 245"))
        rest = recorder.problems_until("dropped") if sum(int(told.split()[1]) for told in first) < 490 else []
    told = [int(problem.split()[1]) for problem in [*first, *rest] if problem.startswith("dropped")]
    assert len(told) <= 2
    assert sum(told) == keypad.key_presses.dropped == 500 - serial_keypad.PRESS_BURST


def test_buzzer_presses_are_held_to_a_hands_pace_too(loop_port: serial.SerialBase) -> None:
    clock = FakeClock()
    recorder = Recorder()
    with recorder.keypad(loop_port, clock, link_bytes_per_s=1e9) as keypad:
        loop_port.write(b"".join(wire(f"S {seq} {1 + seq % 6} {seq * 10}") for seq in range(200))
                        + wire("E 200 end"))
        recorder.problems_until("keypad reports: end")
    assert len(recorder.drain(recorder.seats)) == serial_keypad.PRESS_BURST
    assert keypad.seat_presses.dropped == 200 - serial_keypad.PRESS_BURST
    assert keypad.key_presses.dropped == 0


def test_the_reader_takes_no_more_than_its_byte_budget_and_stop_cuts_its_wait_short(
        loop_port: serial.SerialBase) -> None:
    """With a budget of one byte a second on a clock that never moves, the reader reads one
    chunk, reports the link as too fast and waits for about 500 s of budget: the rest of the
    flood stays in the port, and stop() still ends the thread at once (joined with a timeout)."""
    clock = FakeClock()
    recorder = Recorder()
    flood = b"".join(wire(f"B {seq}") for seq in range(256))  # under loop://'s 4096-byte buffer
    keypad = recorder.keypad(loop_port, clock, link_bytes_per_s=1.0)
    keypad.start()
    try:
        loop_port.write(flood)
        told = recorder.problems_until("keypad on")[-1]
        assert "sends more than 1 bytes a second" in told
        assert loop_port.in_waiting >= len(flood) - serial_keypad.READ_CHUNK - 1
    finally:
        keypad.stop()
        keypad.join(timeout=WAIT_S)  # raises HardwareError if the wait was not cut short


def test_the_limits_table_in_the_keypad_doc_states_the_constants_in_the_code() -> None:
    doc = (Path(keypad_core.__file__).parents[1] / "hardware" / "pico-keypad.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- keypad-limits -->\n(.*?)<!-- /keypad-limits -->", doc, re.DOTALL)
    assert match is not None, "hardware/pico-keypad.md lost its keypad-limits table"
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in match[1].strip().splitlines()[2:]]
    assert dict(rows) == {
        "bytes the reader parses, at most": f"{serial_keypad.LINK_BYTES_PER_S} per second",
        "presses passed at once before the pace applies": f"{serial_keypad.PRESS_BURST}",
        "presses passed per second after that": f"{serial_keypad.PRESS_RATE_PER_S:g}",
        "events waiting in the device's queue, at most": f"{MAX_PENDING_EVENTS}",
        "problems logged per interval, then one count":
            f"{serial_keypad.PROBLEM_BURST} per {serial_keypad.PROBLEM_INTERVAL_S:g} s",
        "dropped presses and a throttled link, logged":
            f"at the first, then one count per {serial_keypad.PROBLEM_INTERVAL_S:g} s",
    }
