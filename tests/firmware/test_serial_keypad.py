"""SerialKeypad's reader thread end to end over pyserial's loop:// port, including unplugging.

Every wait is a queue read with a generous timeout and every thread is joined with one; no
assertion depends on how fast anything ran.
"""

import queue
import threading
from collections.abc import Iterator

import keypad_core
import pytest
import serial

from companion.errors import ConfigError, HardwareError
from companion.hw import serial_keypad
from companion.hw.keys import Key, KeyEvent
from companion.hw.serial_keypad import SerialKeypad

WAIT_S = 5.0


def wire(payload: str) -> bytes:
    return keypad_core.frame(payload).encode("ascii")


class Recorder:
    """Collects what the reader thread hands out, for the test thread to wait on."""

    def __init__(self) -> None:
        self.events: queue.Queue[KeyEvent] = queue.Queue()
        self.problems: queue.Queue[str] = queue.Queue()

    def next_event(self) -> KeyEvent:
        return self.events.get(timeout=WAIT_S)

    def next_problem(self) -> str:
        return self.problems.get(timeout=WAIT_S)

    def no_more_problems(self) -> list[str]:
        """The problems reported so far and not yet taken (the caller knows none is in flight)."""
        return [self.problems.get_nowait() for _ in range(self.problems.qsize())]

    def keypad(self, port: str | serial.SerialBase, **options: object) -> SerialKeypad:
        options.setdefault("backoff", (0.01,))
        options.setdefault("token_source", iter(FlakyPort.TOKENS).__next__)
        options.setdefault("read_timeout", 0.01)
        return SerialKeypad(port, self.events.put, on_problem=self.problems.put, **options)


class FlakyPort:
    """A loop:// port that can refuse to open and be unplugged; what the host writes is kept apart.

    ``send`` is the keypad writing to the host.
    """

    TOKENS = ("T1", "T2", "T3")

    name = "flaky"

    def __init__(self, refuse_opens: int = 0, answer_hellos: bool = True) -> None:
        self._loop = serial.serial_for_url("loop://", do_not_open=True)
        self.answer_hellos = answer_hellos
        self.timeout: float | None = None
        self.refuse_opens = refuse_opens
        self.unplug = threading.Event()
        self.from_host: queue.Queue[bytes] = queue.Queue()
        self.closed = threading.Event()

    @property
    def is_open(self) -> bool:
        return self._loop.is_open

    @property
    def in_waiting(self) -> int:
        return self._loop.in_waiting

    def open(self) -> None:
        if self.refuse_opens:
            self.refuse_opens -= 1
            raise serial.SerialException("[Errno 2] No such file or directory: 'flaky'")
        self._loop.timeout = self.timeout
        self._loop.open()
        self.closed.clear()

    def close(self) -> None:
        self._loop.close()
        self.closed.set()

    def read(self, size: int) -> bytes:
        if self.unplug.is_set():
            self.unplug.clear()
            raise serial.SerialException("device reports readiness to read but returned no data")
        return self._loop.read(size)

    def write(self, data: bytes) -> int:
        """Keep what the host sent; answer a ``?TOKEN`` hello request as the firmware would."""
        self.from_host.put(data)
        if self.answer_hellos and data.startswith(b"?"):
            self.send(wire(f"H 0 2 {data[1:].decode().strip()}"))
        return len(data)

    def send(self, data: bytes) -> None:
        self._loop.write(data)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def loop_port() -> Iterator[serial.SerialBase]:
    port = serial.serial_for_url("loop://", timeout=0.01)
    yield port
    port.close()


def test_frames_written_to_a_loop_port_come_out_as_events_in_order(
        recorder: Recorder, loop_port: serial.SerialBase) -> None:
    with recorder.keypad(loop_port, ask_hello=False):
        loop_port.write(wire("H 0 2") + wire("K 1 UP P") + b"$K 2 O")
        loop_port.write(b"K L*0000\n" + wire("K 3 OK L") + wire("K 4 BACK P"))
        received = [recorder.next_event() for _ in range(3)]
    assert received == [KeyEvent(Key.UP), KeyEvent(Key.OK, long=True), KeyEvent(Key.BACK)]
    assert recorder.no_more_problems() == [
        "checksum mismatch (sent 0000, computed 0B4F): b'K 2 OK L'",
        "lost 1 line(s) from the keypad (sequence 2 expected, 3 received): "
        "a key press may be missing"]
    assert loop_port.is_open  # the caller's port stays the caller's


def test_garbage_is_reported_through_on_problem_and_reading_goes_on(
        recorder: Recorder, loop_port: serial.SerialBase) -> None:
    with recorder.keypad(loop_port, ask_hello=False):
        loop_port.write(b"\x00\xffTraceback (most recent call last):\r\n" + wire("K 1 SELECT P"))
        assert recorder.next_problem() == (
            "ignored noise from the keypad: b'\\x00\\xffTraceback (most recent call last):'")
        assert recorder.next_problem() == "unknown key 'SELECT' from the keypad, ignored"
        loop_port.write(wire("K 2 AUX P"))
        assert recorder.next_event() == KeyEvent(Key.AUX)


def test_a_failing_event_callback_is_logged_and_the_reader_keeps_going(
        loop_port: serial.SerialBase, caplog: pytest.LogCaptureFixture) -> None:
    delivered: queue.Queue[KeyEvent] = queue.Queue()

    def on_event(event: KeyEvent) -> None:
        delivered.put(event)
        if event.key is Key.UP:
            raise RuntimeError("screen not ready")

    with SerialKeypad(loop_port, on_event, read_timeout=0.01, ask_hello=False):
        loop_port.write(wire("K 1 UP P") + wire("K 2 DOWN P"))
        assert [delivered.get(timeout=WAIT_S) for _ in range(2)] == [
            KeyEvent(Key.UP), KeyEvent(Key.DOWN)]
    assert "keypad callback failed on KeyEvent(key=<Key.UP: 'UP'>, long=False)" in caplog.text
    assert "screen not ready" in caplog.text


def test_problems_go_to_the_log_by_default(
        loop_port: serial.SerialBase, caplog: pytest.LogCaptureFixture) -> None:
    events: queue.Queue[KeyEvent] = queue.Queue()
    with SerialKeypad(loop_port, events.put, read_timeout=0.01, ask_hello=False):
        loop_port.write(b"noise\n" + wire("K 1 OK P"))
        assert events.get(timeout=WAIT_S) == KeyEvent(Key.OK)
    assert "ignored noise from the keypad: b'noise'" in caplog.text


def test_the_keypad_is_asked_for_its_hello_with_a_fresh_token_on_every_connect(
        recorder: Recorder) -> None:
    port = FlakyPort()
    with recorder.keypad(port):
        assert port.from_host.get(timeout=WAIT_S) == b"?T1\n"
        port.unplug.set()
        assert port.from_host.get(timeout=WAIT_S) == b"?T2\n"


def test_keys_buffered_before_the_hello_answer_are_dropped_and_summed_up(
        recorder: Recorder) -> None:
    port = FlakyPort(answer_hellos=False)
    with recorder.keypad(port):
        assert port.from_host.get(timeout=WAIT_S) == b"?T1\n"
        port.send(b"P*D68C\n" + wire("K 4 OK P") + wire("K 5 OK L"))
        port.send(wire("H 6 2 T1") + wire("K 7 UP P"))
        assert recorder.next_event() == KeyEvent(Key.UP)
        assert recorder.no_more_problems() == [
            "ignored what the keypad had buffered before this host was listening: "
            "2 key press(es), 1 problem(s)"]


def test_an_unanswered_hello_is_asked_again_and_reported_once(recorder: Recorder) -> None:
    port = FlakyPort(answer_hellos=False)
    now = [0.0]
    with recorder.keypad(port, clock=lambda: now[0], silence_timeout=1000.0):
        assert port.from_host.get(timeout=WAIT_S) == b"?T1\n"
        now[0] = 1.0
        assert port.from_host.get(timeout=WAIT_S) == b"?T1\n"
        assert recorder.next_problem() == (
            "keypad on flaky has not answered its hello request; its keys are ignored until it "
            "does (asking every 1 s)")
        now[0] = 2.0
        assert port.from_host.get(timeout=WAIT_S) == b"?T1\n"
        port.send(wire("H 0 2 T1") + wire("K 1 BACK L"))
        assert recorder.next_event() == KeyEvent(Key.BACK, long=True)
    assert recorder.no_more_problems() == []


def test_a_keypad_missing_at_start_is_reported_once_then_picked_up(recorder: Recorder) -> None:
    port = FlakyPort(refuse_opens=3)
    with recorder.keypad(port):
        assert recorder.next_problem() == (
            "keypad on flaky unavailable ([Errno 2] No such file or directory: 'flaky'); retrying")
        assert recorder.next_problem() == "keypad on flaky is back"
        port.send(wire("H 0 2") + wire("K 1 RIGHT L"))
        assert recorder.next_event() == KeyEvent(Key.RIGHT, long=True)
    assert port.refuse_opens == 0
    assert recorder.no_more_problems() == []


def test_unplugging_mid_line_reports_the_loss_and_the_return_then_reads_on(
        recorder: Recorder) -> None:
    port = FlakyPort()
    with recorder.keypad(port, ask_hello=False):
        port.send(wire("K 1 UP P") + b"$K 2 DO")
        assert recorder.next_event() == KeyEvent(Key.UP)
        port.unplug.set()
        assert recorder.next_problem() == (
            "discarded a partial line when the keypad went away: b'$K 2 DO'")
        assert recorder.next_problem() == (
            "keypad on flaky unavailable (device reports readiness to read but returned no data); "
            "retrying")
        assert recorder.next_problem() == "keypad on flaky is back"
        port.send(wire("H 0 2") + wire("K 1 DOWN P"))
        assert recorder.next_event() == KeyEvent(Key.DOWN)
    assert recorder.no_more_problems() == []


def test_a_port_opened_by_url_is_exclusive_and_closed_on_stop(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    port = FlakyPort()
    opened_with: list[tuple[str, dict[str, object]]] = []

    def serial_for_url(url: str, **options: object) -> FlakyPort:
        opened_with.append((url, options))
        return port

    monkeypatch.setattr(serial_keypad.serial, "serial_for_url", serial_for_url)
    with recorder.keypad("/dev/ttyACM0"):
        port.send(wire("K 1 OK P"))
        assert recorder.next_event() == KeyEvent(Key.OK)
    assert opened_with == [("/dev/ttyACM0", {"do_not_open": True, "exclusive": True})]
    assert port.closed.is_set() and not port.is_open


def test_a_missing_device_path_is_reported_and_stop_still_works(recorder: Recorder) -> None:
    keypad = recorder.keypad("/dev/no-such-keypad", backoff=(0.01, 0.02))
    keypad.start()
    problem = recorder.next_problem()
    keypad.stop()
    keypad.join(timeout=WAIT_S)
    assert problem.startswith("keypad on /dev/no-such-keypad unavailable (")
    assert problem.endswith("); retrying")


def test_a_silent_keypad_is_reported_once_until_it_speaks_again(
        recorder: Recorder, loop_port: serial.SerialBase) -> None:
    now = [0.0]
    with recorder.keypad(loop_port, ask_hello=False, clock=lambda: now[0]):
        loop_port.write(wire("B 1"))
        now[0] = 5.0
        loop_port.write(wire("K 2 LEFT P"))
        assert recorder.next_event() == KeyEvent(Key.LEFT)
        now[0] = 11.0
        assert recorder.next_problem() == (
            "keypad on loop:// has sent no valid line for 6 s (it beats every 2 s): "
            "is its firmware running?")
        loop_port.write(wire("K 3 UP P"))
        assert recorder.next_event() == KeyEvent(Key.UP)
        assert recorder.no_more_problems() == []
        now[0] += 6.0
        assert recorder.next_problem().startswith(
            "keypad on loop:// has sent no valid line for 6 s")


def test_join_raises_when_the_reader_cannot_stop_in_time(recorder: Recorder) -> None:
    release = threading.Event()

    class StuckPort(FlakyPort):
        def read(self, size: int) -> bytes:
            release.wait(WAIT_S)
            return b""

    keypad = recorder.keypad(StuckPort(), ask_hello=False)
    keypad.start()
    keypad.stop()
    with pytest.raises(HardwareError, match=r"keypad reader on flaky did not stop within 0\.05 s"):
        keypad.join(timeout=0.05)
    release.set()
    keypad.join(timeout=WAIT_S)


def test_a_keypad_starts_only_once(recorder: Recorder, loop_port: serial.SerialBase) -> None:
    with recorder.keypad(loop_port, ask_hello=False) as keypad, pytest.raises(RuntimeError):
        keypad.start()


def test_an_empty_backoff_is_refused(recorder: Recorder, loop_port: serial.SerialBase) -> None:
    with pytest.raises(ConfigError, match="backoff needs at least one delay"):
        recorder.keypad(loop_port, backoff=())


def test_a_flood_of_junk_reaches_the_log_as_a_burst_then_a_count(
        recorder: Recorder, loop_port: serial.SerialBase) -> None:
    """The parser reports MUTE_AFTER damaged lines and then a byte count; the reader passes on
    PROBLEM_BURST problems per interval and then how many it held back."""
    now = [0.0]
    burst, mute = serial_keypad.PROBLEM_BURST, serial_keypad.MUTE_AFTER
    with recorder.keypad(loop_port, ask_hello=False, clock=lambda: now[0], silence_timeout=1e9):
        loop_port.write(b"junk\n" * 500 + wire("K 1 OK P"))
        assert recorder.next_event() == KeyEvent(Key.OK)  # the junk did not hide the key
        shown = [recorder.next_problem() for _ in range(burst)]
        assert shown == ["ignored noise from the keypad: b'junk'"] * burst
        assert recorder.no_more_problems() == []
        now[0] = serial_keypad.PROBLEM_INTERVAL_S
        held_back = mute - burst + 1  # the rest of the reported lines, and the parser's count
        assert recorder.next_problem() == (
            f"{held_back} more keypad problem(s) in {serial_keypad.PROBLEM_INTERVAL_S:g} s not shown "
            "(junk on the port?)")


def test_a_muted_parser_counts_the_junk_and_reports_it_with_the_next_good_frame() -> None:
    parser = serial_keypad.KeypadLineParser()
    results = parser.feed(b"junk\n" * 500 + b"$$$$\n\n\n" + wire("K 1 OK P"))
    problems = [r.message for r in results if not isinstance(r, KeyEvent)]
    assert problems[:-1] == ["ignored noise from the keypad: b'junk'"] * serial_keypad.MUTE_AFTER
    skipped = (500 - serial_keypad.MUTE_AFTER) * 5 + 7
    assert problems[-1] == (f"ignored {skipped} more byte(s) of damaged lines from the keypad after "
                            f"{serial_keypad.MUTE_AFTER} in a row")
    assert results[-1] == KeyEvent(Key.OK)


def test_control_characters_from_the_keypad_are_escaped_in_its_reports(
        recorder: Recorder, loop_port: serial.SerialBase) -> None:
    with recorder.keypad(loop_port, ask_hello=False):
        loop_port.write(wire("E 1 pins\x1b[2J\rforged INFO line") + b"\x07\x1b]0;title\n")
        assert recorder.next_problem() == "keypad reports: pins\\x1b[2J\\rforged INFO line"
        assert recorder.next_problem() == "ignored noise from the keypad: b'\\x07\\x1b]0;title'"
