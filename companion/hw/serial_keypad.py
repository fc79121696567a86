"""Host side of the optional Pico keypad: its USB-serial lines in, :class:`KeyEvent` out.

The wire protocol is specified in hardware/pico-keypad.md. In short, each line is a frame
``$<T> <seq> [fields]*<CRC-16>`` ending in a newline: ``K`` a key (``P`` short,
``L`` long), ``B`` a heartbeat, ``H`` the hello, ``E`` a message from the keypad. The
``$`` lets the reader resynchronise after a device reset cut a line short. On connecting,
the host sends ``?TOKEN`` and takes keys only after the hello echoing TOKEN: what came
before it was buffered by the Pico's USB stack while nobody listened, and is stale.

:class:`KeypadLineParser` is pure (bytes in, events and problems out), so every kind of line
damage is testable without a thread. :class:`SerialKeypad` runs it on a reader thread over
pyserial and survives the keypad being unplugged or reset.

A keypad (or anything else on the port) that floods the link costs little, whatever it sends:

- the reader takes at most :data:`LINK_BYTES_PER_S` bytes a second (many times what keys and
  heartbeats need) and leaves the rest waiting in the port, so parsing a flood of valid frames
  costs a bounded share of a core;
- presses (keys and quiz buzzers) pass at most :data:`PRESS_RATE_PER_S` a second after a burst
  of :data:`PRESS_BURST`, what a hand can press; the rest are dropped and counted;
- a frame sent again with the same sequence number is one press, not two;
- problems reach the log at most :data:`PROBLEM_BURST` per :data:`PROBLEM_INTERVAL_S`, the rest
  as a count, and dropped presses and a throttled link as one count per interval.
"""

from __future__ import annotations

import binascii
import logging
import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import serial

from companion.errors import ConfigError
from companion.hw.reader import ReaderThread
from companion.keys import Key, KeyEvent

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 2
MAX_FRAME_BYTES = 120
HEARTBEAT_S = 2.0
SEQ_MODULO = 256
HELLO_REQUEST = b"?"
HELLO_RETRY_S = 1.0
_SHOWN_BYTES = 40
_SEQ_FIELD = re.compile(r"0|[1-9][0-9]{0,2}")
_CHECKSUM_FIELD = re.compile(rb"[0-9A-F]{4}")
_OLD_CHECKSUM_FIELD = re.compile(rb"[0-9A-F]{2}")  # protocol 1: recognised only to say "update"
_LINE_BREAK = re.compile(rb"[\n$]")  # what ends a line: a newline, or the "$" starting the next frame
_BLANK_LINES = re.compile(rb"(?:\r?\n)+")
_CANDIDATE = re.compile(rb"\$[^$\n]*\*[0-9A-F]{4}\r?\n")  # what could be a frame, found at C speed
MUTE_AFTER = 16  # damaged lines in a row after which junk is only counted until a good frame
PROBLEM_BURST = 10  # problems passed on in one interval; the rest are counted
PROBLEM_INTERVAL_S = 10.0
PRESS_RATE_PER_S = 10.0  # what a hand keeps up: one finger taps 5-7 a second flat out, two alternating ~10
PRESS_BURST = 10  # presses taken at once before the rate applies: a quick flurry, six buzzers
LINK_BYTES_PER_S = 4096  # what the reader takes: a key frame is about 20 bytes, a heartbeat 10
READ_CHUNK = 512  # bytes parsed per read at most, so the pace is kept within a read


@dataclass(frozen=True)
class Problem:
    """Something the reader noticed and the table should hear of; ``message`` is a sentence."""

    message: str

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class SeatPress:
    """A quiz buzzer on the keypad: ``seat`` (0-based) pressed at ``micros`` on the keypad's
    microsecond clock (it wraps every 2**30 us; see :class:`companion.hw.buzzers.KeypadSeatClock`)."""

    seat: int
    micros: int


Result = KeyEvent | Problem | SeatPress


def checksum(payload: bytes) -> str:
    """The frame check: CRC-16/CCITT-FALSE of the payload bytes as four upper-case hex digits
    (``binascii.crc_hqx`` is this CRC given the start value 0xFFFF; the firmware's
    keypad_core.checksum computes the same bit by bit).

    >>> checksum(b"123456789")  # the CRC catalogue's check value
    '29B1'
    """
    return f"{binascii.crc_hqx(payload, 0xFFFF):04X}"


def _good_check(line: bytes) -> bool:
    """Whether a frame-like line (``$...*XXXX`` and its line end) carries the right CRC."""
    payload, _star, rest = line.rpartition(b"*")
    return rest[:4] == b"%04X" % binascii.crc_hqx(payload[1:], 0xFFFF)


def _xor(payload: bytes) -> int:
    value = 0
    for byte in payload:
        value ^= byte
    return value


def escape(text: str) -> str:
    """``text`` with control characters written as escapes, so a device cannot drive a terminal
    or forge log lines through our messages.

    >>> escape("pins\\x1b[2J ok\\n")
    'pins\\\\x1b[2J ok\\\\n'
    """
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _show(data: bytes) -> str:
    """Received bytes as a short, safe excerpt for a message."""
    excerpt = repr(data[:_SHOWN_BYTES])
    return excerpt + "..." if len(data) > _SHOWN_BYTES else excerpt


class KeypadLineParser:
    """Turns the keypad's byte stream into key events and problems; never raises on any input.

    Only a frame whose checksum, grammar and key name are all right becomes an event; every
    other byte is reported once, as part of the line it arrived in (or, while a hello is
    awaited, in one summary when it comes; or, after MUTE_AFTER damaged lines in a row, in a
    byte count when the next good frame or a reset ends the run). What it reports does not
    depend on how the bytes were split into reads. A frame with the sequence number of the
    good frame just before it is a repeat: reported, never a second press.

    >>> parser = KeypadLineParser()
    >>> parser.feed(b"$H 0 2*E055\\r\\n$K 1 UP P*D68C\\n")
    [KeyEvent(key=<Key.UP: 'UP'>, long=False)]
    >>> print(*parser.feed(b"$K 2 OK L*0000\\n$K 4 OK L*86AE\\n"), sep="\\n")
    checksum mismatch (sent 0000, computed 0B4F): b'K 2 OK L'
    lost 2 line(s) from the keypad (sequence 2 expected, 4 received): a key press may be missing
    KeyEvent(key=<Key.OK: 'OK'>, long=True)
    """

    def __init__(self) -> None:
        self._line = bytearray()
        self._overlong = False
        self._expected_seq: int | None = None
        self._last_seq: int | None = None  # of the last good frame: the same again is a repeat
        self._keypad_version: int | None = None
        self._awaited_token: str | None = None
        self._stale_keys = 0
        self._stale_problems = 0
        self._junk_run = 0  # damaged lines since the last frame with a good check
        self._muted_bytes = 0  # junk skipped uncounted-by-line since muting began
        self.frames_received = 0
        """Count of well-formed frames so far; a stalled count means a silent keypad."""
        self.repeated_frames = 0
        """Frames dropped for carrying the sequence number of the frame just before them."""

    @property
    def awaiting_hello(self) -> bool:
        """Whether keys are still held back until the hello answering :meth:`expect_hello`."""
        return self._awaited_token is not None

    def expect_hello(self, token: str) -> None:
        """Treat everything until a hello echoing ``token`` as stale, and drop it.

        Call it when ``?token`` goes to a freshly opened port: the keypad's USB stack keeps
        what the keypad sent while no host had the port open and delivers that first, so
        keys before the answer are old presses that nobody meant for this session. They are
        summed up in one problem when the answer arrives.
        """
        self._awaited_token = token
        self._stale_keys = self._stale_problems = 0

    def feed(self, data: bytes) -> list[Result]:
        """Take the next bytes read from the port; returns what they completed, in order.

        The bytes between line breaks are copied in slices, so only line breaks cost Python
        code. After MUTE_AFTER damaged lines in a row, junk is skipped with one regular-expression
        search per frame-like line and reported as a byte count when a good frame (or a reset)
        ends it: a flood of line breaks costs little more than a flood of anything else.
        """
        results: list[Result] = []
        pos = 0
        while pos < len(data):
            if self._junk_run >= MUTE_AFTER:
                pos = self._skip(data, pos, results)
                continue
            if not self._line and not self._overlong:
                blanks = _BLANK_LINES.match(data, pos)  # blank lines say nothing: skip them at once
                if blanks is not None:
                    pos = blanks.end()
                    continue
            match = _LINE_BREAK.search(data, pos)
            end = len(data) if match is None else match.start()
            if end > pos:
                results += self._admit(self._take_run(data[pos:end]))
            if match is None:
                break
            if data[end] == 0x0A:  # newline ends a frame or a noise line
                results += self._admit(self._end_line())
            else:  # "$" starts a frame, whatever came before
                ended = self._end_line(cut_short=True)
                self._line.append(0x24)
                results += self._admit(ended)
            pos = end + 1
        return results

    def reset(self) -> list[Problem]:
        """Forget the stream (the port was closed); reports a partial line lost with it."""
        self._expected_seq = self._last_seq = None
        self._awaited_token = None
        if self._junk_run >= MUTE_AFTER:
            self._muted_bytes += len(self._take_line())
            return self._unmute()
        self._junk_run = 0
        line = self._take_line()
        if not line:
            return []
        return [Problem(f"discarded a partial line when the keypad went away: {_show(line)}")]

    def _skip(self, data: bytes, pos: int, results: list[Result]) -> int:
        """Muted: count junk up to the next frame-like line and read that; returns where to go on."""
        carry = self._take_line()
        if carry.startswith(b"$"):  # a frame may have begun before these bytes
            head = carry + data[pos : pos + MAX_FRAME_BYTES + 1]
            match = _CANDIDATE.match(head)
            if match is not None and match.end() - 1 <= MAX_FRAME_BYTES:
                results += self._admit(self._muted_frame(head[: match.end()]))
                return pos + match.end() - len(carry)
            open_line = b"\n" not in head and b"$" not in head[1:] and len(head) <= MAX_FRAME_BYTES
            if open_line and pos + len(head) - len(carry) >= len(data):
                self._line += head  # still open at the end of what arrived
                return len(data)
        self._muted_bytes += len(carry)
        for match in _CANDIDATE.finditer(data, pos):
            line = match.group()
            if len(line) - 1 <= MAX_FRAME_BYTES and _good_check(line):
                self._muted_bytes += match.start() - pos
                results += self._admit(self._muted_frame(line))
                return match.end()
        last = data.rfind(b"$", pos)
        if last >= 0 and b"\n" not in data[last:] and len(data) - last <= MAX_FRAME_BYTES:
            self._muted_bytes += last - pos
            self._line += data[last:]
        else:
            self._muted_bytes += len(data) - pos
        return len(data)

    def _muted_frame(self, line: bytes) -> list[Result]:
        """A frame-like line met while muted: junk unless its check is good, which ends muting."""
        if not _good_check(line):
            self._muted_bytes += len(line)
            return []
        return [*self._unmute(), *self._read_frame(line[1:].removesuffix(b"\n").removesuffix(b"\r"))]

    def _unmute(self) -> list[Problem]:
        skipped, self._muted_bytes, self._junk_run = self._muted_bytes, 0, 0
        if not skipped:
            return []
        return [Problem(f"ignored {skipped} more byte(s) of damaged lines from the keypad after "
                        f"{MUTE_AFTER} in a row")]

    def _junk(self, message: str) -> list[Result]:
        """A damaged line's problem; enough of them in a row mute the reports (see :meth:`feed`)."""
        self._junk_run += 1
        return [Problem(message)]

    def _take_run(self, run: bytes) -> list[Result]:
        """Bytes inside a line (no newline, no "$"): kept up to MAX_FRAME_BYTES, then reported once."""
        room = MAX_FRAME_BYTES - len(self._line)
        if len(run) <= room:
            self._line += run
            return []
        self._line += run[:room]
        if self._overlong:
            return []
        self._overlong = True
        return self._junk(f"line longer than {MAX_FRAME_BYTES} bytes without a line end, discarded "
                          f"up to the next one: {_show(bytes(self._line))}")

    def _admit(self, results: list[Result]) -> list[Result]:
        """Pass results on, or count them as stale while the hello answer is awaited."""
        if self._awaited_token is None:
            return results
        for result in results:
            if isinstance(result, (KeyEvent, SeatPress)):
                self._stale_keys += 1
            else:
                self._stale_problems += 1
        return []

    def _take_line(self) -> bytes:
        """Empty the line buffer; returns the line, or b"" if it was blank or already reported."""
        line = bytes(self._line).removesuffix(b"\r")
        self._line.clear()
        overlong, self._overlong = self._overlong, False
        return b"" if overlong else line

    def _end_line(self, *, cut_short: bool = False) -> list[Result]:
        line = self._take_line()
        if not line:
            return []
        if not line.startswith(b"$"):
            return self._junk(f"ignored noise from the keypad: {_show(line)}")
        if cut_short:
            return self._junk(f"discarded a frame cut short by the next one (keypad reset?): "
                              f"{_show(line)}")
        return self._read_frame(line[1:])

    def _read_frame(self, body: bytes) -> list[Result]:
        payload, star, sent = body.rpartition(b"*")
        if star and _OLD_CHECKSUM_FIELD.fullmatch(sent) and int(sent, 16) == _xor(payload):
            return self._junk(f"keypad firmware speaks protocol 1 (an XOR checksum), this host only "
                              f"{PROTOCOL_VERSION}: copy firmware/ onto the keypad again; its keys "
                              f"are ignored: {_show(payload)}")
        if not star or not _CHECKSUM_FIELD.fullmatch(sent):
            return self._junk(f"frame without a valid *XXXX checksum: {_show(body)}")
        computed = checksum(payload)
        if sent.decode() != computed:
            return self._junk(f"checksum mismatch (sent {sent.decode()}, computed {computed}): "
                              f"{_show(payload)}")
        self._junk_run = 0
        fields = payload.decode("ascii", errors="replace").split(" ")
        if len(fields) < 2 or not _SEQ_FIELD.fullmatch(fields[1]) or int(fields[1]) >= SEQ_MODULO:
            return [self._unreadable(payload)]
        kind, seq, args = fields[0], int(fields[1]), fields[2:]
        self.frames_received += 1
        repeated = kind != "H" and seq == self._last_seq
        self._last_seq = None if kind == "H" else seq  # a hello starts the count afresh
        if repeated:  # sent twice (a retry, a duplicated USB packet): one press, not two
            self.repeated_frames += 1
            return [Problem(f"ignored a frame repeating sequence number {seq} (one press, not two): "
                            f"{_show(payload)}")]
        results: list[Result] = []
        if kind == "H":
            self._expected_seq = None  # a hello starts the count afresh: the keypad may reboot
        elif self._expected_seq is not None and seq != self._expected_seq:
            results.append(Problem(
                f"lost {(seq - self._expected_seq) % SEQ_MODULO} line(s) from the keypad (sequence "
                f"{self._expected_seq} expected, {seq} received): a key press may be missing"))
        self._expected_seq = (seq + 1) % SEQ_MODULO
        return results + self._interpret(kind, args, payload)

    def _interpret(self, kind: str, args: list[str], payload: bytes) -> list[Result]:
        """What a frame with a good checksum and sequence number means."""
        if kind == "B" and not args:
            return []
        if kind == "H" and len(args) in (1, 2) and args[0].isdigit():
            return self._hello(int(args[0]), args[1] if len(args) == 2 else "")
        if kind == "E" and args:
            return [Problem(f"keypad reports: {escape(' '.join(args))}")]
        if kind == "S" and len(args) == 2 and args[0].isdigit() and args[1].isdigit() and 1 <= int(args[0]) <= 6:
            if self._keypad_version not in (None, PROTOCOL_VERSION):
                return [Problem(f"ignored seat {args[0]}'s buzzer sent in protocol {self._keypad_version}")]
            return [SeatPress(int(args[0]) - 1, int(args[1]))]
        if kind == "K" and len(args) == 2 and args[1] in ("P", "L"):
            key = Key.__members__.get(args[0])
            if key is None:
                return [Problem(f"unknown key {args[0]!r} from the keypad, ignored")]
            if self._keypad_version not in (None, PROTOCOL_VERSION):
                return [Problem(f"ignored key {key.name} sent in protocol {self._keypad_version}")]
            return [KeyEvent(key, long=args[1] == "L")]
        return [self._unreadable(payload)]

    def _hello(self, version: int, token: str) -> list[Result]:
        results: list[Result] = []
        if self._awaited_token is not None and token == self._awaited_token:
            self._awaited_token = None
            if self._stale_keys or self._stale_problems:
                results.append(Problem(
                    f"ignored what the keypad had buffered before this host was listening: "
                    f"{self._stale_keys} key press(es), {self._stale_problems} problem(s)"))
        self._keypad_version = version
        if version != PROTOCOL_VERSION:
            results.append(Problem(f"keypad speaks protocol {version}, this host only "
                                   f"{PROTOCOL_VERSION}: its keys are ignored until the two match"))
        return results

    @staticmethod
    def _unreadable(payload: bytes) -> Problem:
        return Problem(f"frame with a good checksum but unreadable content (firmware "
                       f"mismatch?): {_show(payload)}")


class ProblemLimiter:
    """Passes on at most ``burst`` problems per ``interval`` seconds and counts the rest, so a
    flood of junk costs a log line per interval rather than one per junk line.

    >>> now = [0.0]
    >>> limiter = ProblemLimiter(lambda: now[0], burst=2, interval=10.0)
    >>> [m for text in "abcd" for m in limiter.admit(text)]
    ['a', 'b']
    >>> now[0] = 10.0
    >>> limiter.flush()
    ['2 more keypad problem(s) in 10 s not shown (junk on the port?)']
    """

    def __init__(self, clock: Callable[[], float], *, burst: int = PROBLEM_BURST,
                 interval: float = PROBLEM_INTERVAL_S) -> None:
        self._clock = clock
        self._burst = burst
        self._interval = interval
        self._window_start = clock()
        self._passed = 0
        self._held_back = 0

    def admit(self, message: str) -> list[str]:
        """What to pass on now for ``message``: it, or nothing, after any summary now due."""
        due = self.flush()
        if self._passed < self._burst:
            self._passed += 1
            return [*due, message]
        self._held_back += 1
        return due

    def flush(self) -> list[str]:
        """The count of what was held back, once its interval is over (call it now and then)."""
        now = self._clock()
        if now - self._window_start < self._interval:
            return []
        held, self._held_back = self._held_back, 0
        self._window_start, self._passed = now, 0
        if not held:
            return []
        return [f"{held} more keypad problem(s) in {self._interval:g} s not shown (junk on the port?)"]


class TokenBucket:
    """A rate with a burst on an injected clock: ``rate`` units a second on average, up to
    ``burst`` at once. Pure arithmetic, so tests drive it with a fake clock.

    >>> now = [0.0]
    >>> bucket = TokenBucket(lambda: now[0], rate=2.0, burst=2)
    >>> [bucket.take() for _ in range(3)]
    [True, True, False]
    >>> now[0] = 0.5
    >>> bucket.take(), bucket.take()
    (True, False)
    >>> bucket.spend(3)  # seconds until the 3 units spent beyond the budget are paid back
    1.5
    """

    def __init__(self, clock: Callable[[], float], *, rate: float, burst: float) -> None:
        if rate <= 0 or burst < 1:
            raise ConfigError(f"a rate limit needs a positive rate and a burst of at least 1: {rate!r}, {burst!r}")
        self._clock = clock
        self.rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._at = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self.rate)
        self._at = now

    def take(self, amount: float = 1.0) -> bool:
        """Take ``amount`` if the budget has it now; otherwise take nothing."""
        self._refill()
        if self._tokens < amount:
            return False
        self._tokens -= amount
        return True

    def spend(self, amount: float) -> float:
        """Spend ``amount`` whatever the budget holds; returns the seconds to wait before the
        budget is back to zero (0.0 if it never went below)."""
        self._refill()
        self._tokens -= amount
        return max(0.0, -self._tokens / self.rate)


class IntervalCount:
    """A running count (dropped presses, seconds spent waiting) that asks to be reported the
    first time at once, then at most once per ``interval`` seconds: a flood costs one log line
    per interval.

    >>> now = [0.0]
    >>> count = IntervalCount(lambda: now[0], interval=10.0)
    >>> count.add(1); count.due()
    1
    >>> count.add(5); count.due()
    0
    >>> now[0] = 10.0
    >>> count.due()
    5
    """

    def __init__(self, clock: Callable[[], float], *, interval: float = PROBLEM_INTERVAL_S) -> None:
        self._clock = clock
        self._interval = interval
        self._reported_at: float | None = None
        self._pending: float = 0
        self.total: float = 0
        """Everything added so far, reported or not."""

    def add(self, amount: float) -> None:
        self._pending += amount
        self.total += amount

    def due(self) -> float:
        """What was added since the last report, if a report is due now (else 0); resets it."""
        if not self._pending:
            return 0
        now = self._clock()
        if self._reported_at is not None and now - self._reported_at < self._interval:
            return 0
        pending, self._pending, self._reported_at = self._pending, 0, now
        return pending


class PressLimiter:
    """Lets presses through at the pace of a hand and counts the rest.

    A stuck key, a firmware loop or a noisy line can produce thousands of valid presses a
    second; each would be handled, drawn and journalled. What a person can press passes
    untouched: :data:`PRESS_BURST` at once, then :data:`PRESS_RATE_PER_S` a second.

    >>> now = [0.0]
    >>> presses = PressLimiter(lambda: now[0], rate=1.0, burst=2)
    >>> [presses.admit() for _ in range(4)], presses.report()  # doctest: +NORMALIZE_WHITESPACE
    ([True, True, False, False], ['dropped 2 key press(es) arriving faster than a hand presses
    (over 2 at once or 1 a second): a stuck key or a faulty keypad?'])
    >>> now[0] = 1.0
    >>> presses.admit(), presses.dropped
    (True, 2)
    """

    def __init__(self, clock: Callable[[], float], *, rate: float = PRESS_RATE_PER_S,
                 burst: int = PRESS_BURST, what: str = "key press") -> None:
        self._bucket = TokenBucket(clock, rate=rate, burst=burst)
        self._dropped = IntervalCount(clock)
        self._limits = f"over {burst} at once or {rate:g} a second"
        self._what = what

    @property
    def dropped(self) -> int:
        """Presses dropped so far."""
        return int(self._dropped.total)

    def admit(self) -> bool:
        """Whether this press may pass; a refused one is counted."""
        if self._bucket.take():
            return True
        self._dropped.add(1)
        return False

    def report(self) -> list[str]:
        """The count of dropped presses, when one is due (call it now and then)."""
        dropped = int(self._dropped.due())
        if not dropped:
            return []
        return [(f"dropped {dropped} {self._what}(es) arriving faster than a hand presses ({self._limits}): "
                 f"a stuck key or a faulty keypad?")]


@dataclass
class _Connection:
    """What the reader tracks for one opening of the port."""

    heard_at: float
    frames_heard: int
    token: str
    asked_at: float = 0.0
    silence_reported: bool = False
    hello_late_reported: bool = False


class SerialKeypad(ReaderThread):
    """Reads the Pico keypad on a background thread and hands each key to ``on_event``.

    ``port`` is a device path or pyserial URL (opened here, exclusively, e.g.
    ``/dev/ttyACM0`` or ``loop://``), or a pyserial port object (left open at the end if it
    was, though closed and reopened after a failure; its read timeout becomes
    ``read_timeout`` so that :meth:`stop` is noticed). When the keypad vanishes (unplugged,
    reset) the failure is reported once, the port retried after each delay of ``backoff`` in
    turn (the last one repeating), and its return reported. ``on_problem`` receives every
    problem as a sentence: line damage, lost lines, a keypad that stopped sending
    heartbeats, the port coming and going. Both callbacks run on the reader thread.

    With ``ask_hello`` (the default), every connection starts with a hello request whose
    token comes from ``token_source`` (1-8 characters of 0-9A-Z), repeated every
    HELLO_RETRY_S until answered; keys count only from the answer on.

    However fast the port delivers, the reader parses at most ``link_bytes_per_s`` bytes a
    second (what arrives faster waits in the port), and passes on at most ``press_burst`` key
    presses at once and ``press_rate`` a second after that (and as many buzzer presses): the
    rest are dropped and their count reported at most once per PROBLEM_INTERVAL_S. So a
    flooding keypad costs a bounded share of a core, and :meth:`stop` is obeyed at once.
    """

    def __init__(self, port: str | serial.Serial, on_event: Callable[[KeyEvent], None], *,
                 on_problem: Callable[[str], None] = logger.warning,
                 on_seat: Callable[[SeatPress], None] = lambda press: None,
                 clock: Callable[[], float] = time.monotonic,
                 backoff: Sequence[float] = (0.5, 1.0, 2.0, 5.0),
                 silence_timeout: float = 3 * HEARTBEAT_S,
                 read_timeout: float = 0.1,
                 ask_hello: bool = True,
                 token_source: Callable[[], str] = lambda: secrets.token_hex(3).upper(),
                 press_rate: float = PRESS_RATE_PER_S, press_burst: int = PRESS_BURST,
                 link_bytes_per_s: float = LINK_BYTES_PER_S) -> None:
        self._owns_port = isinstance(port, str)
        self._port = (serial.serial_for_url(port, do_not_open=True, exclusive=True)
                      if isinstance(port, str) else port)
        self._port.timeout = read_timeout
        self._name = port if isinstance(port, str) else (self._port.name or repr(self._port))
        super().__init__(f"keypad reader on {self._name}", f"keypad {self._name}", backoff)
        self._on_event = on_event
        self._on_problem = on_problem
        self._on_seat = on_seat
        self._clock = clock
        self._silence_timeout = silence_timeout
        self._ask_hello = ask_hello
        self._token_source = token_source
        self._parser = KeypadLineParser()
        self._limiter = ProblemLimiter(clock)
        self.key_presses = PressLimiter(clock, rate=press_rate, burst=press_burst)
        self.seat_presses = PressLimiter(clock, rate=press_rate, burst=press_burst, what="buzzer press")
        self._link_budget = TokenBucket(clock, rate=link_bytes_per_s, burst=max(link_bytes_per_s, 1.0))
        self._throttled = IntervalCount(clock)  # seconds the reader waited for its byte budget
        self._connection = _Connection(0.0, 0, "")

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                self._connect(reconnecting=failures > 0)
                failures = 0
                self._read_until_stopped()
            except OSError as err:  # serial.SerialException is one
                self._disconnect()
                if failures == 0:
                    self._report(f"keypad on {self._name} unavailable ({err}); retrying")
                self._wait_to_retry(failures)
                failures += 1
        self._disconnect(closing=True)

    def _connect(self, *, reconnecting: bool) -> None:
        if not self._port.is_open:
            self._port.open()
        if reconnecting:
            self._report(f"keypad on {self._name} is back")
        self._connection = _Connection(self._clock(), self._parser.frames_received,
                                       self._token_source() if self._ask_hello else "")
        if self._ask_hello:
            self._parser.expect_hello(self._connection.token)
            self._ask_for_hello()

    def _ask_for_hello(self) -> None:
        self._connection.asked_at = self._clock()
        self._port.write(HELLO_REQUEST + self._connection.token.encode("ascii") + b"\n")

    def _read_until_stopped(self) -> None:
        while not self._stopping.is_set():
            data = self._port.read(min(self._port.in_waiting, READ_CHUNK) or 1)
            for result in self._parser.feed(data):
                self._deliver(result)
            wait = self._link_budget.spend(len(data))
            self._throttled.add(wait)
            for summary in self._summaries():
                self._deliver(Problem(summary), limited=False)
            self._watch_silence()
            if self._parser.awaiting_hello:
                self._watch_hello()
            if wait:  # over the byte budget: the rest waits in the port; stop() cuts this short
                self._stopping.wait(wait)

    def _summaries(self) -> list[str]:
        """The counts now due: problems held back, presses dropped, time spent throttled."""
        throttled = self._throttled.due()
        slow_link = [(f"keypad on {self._name} sends more than {self._link_budget.rate:g} bytes a second, "
                      f"far more than keys and heartbeats need: reading it no faster ({throttled:.1f} s of waiting "
                      f"since the last report; a firmware fault, or another device on the port?)")] if throttled else []
        return [*self._limiter.flush(), *self.key_presses.report(), *self.seat_presses.report(), *slow_link]

    def _watch_silence(self) -> None:
        """Report once when no valid line came for ``silence_timeout``; heartbeats rearm it."""
        link, now = self._connection, self._clock()
        if self._parser.frames_received != link.frames_heard:
            link.frames_heard, link.heard_at = self._parser.frames_received, now
            link.silence_reported = False
        elif not link.silence_reported and now - link.heard_at >= self._silence_timeout:
            link.silence_reported = True
            self._report(f"keypad on {self._name} has sent no valid line for "
                         f"{self._silence_timeout:g} s (it beats every {HEARTBEAT_S:g} s): "
                         f"is its firmware running?")

    def _watch_hello(self) -> None:
        """Ask again while the hello goes unanswered; say so once, since keys wait for it."""
        link = self._connection
        if self._clock() - link.asked_at < HELLO_RETRY_S:
            return
        if not link.hello_late_reported:
            link.hello_late_reported = True
            self._report(f"keypad on {self._name} has not answered its hello request; its keys "
                         f"are ignored until it does (asking every {HELLO_RETRY_S:g} s)")
        self._ask_for_hello()

    def _disconnect(self, *, closing: bool = False) -> None:
        for problem in self._parser.reset():
            self._deliver(problem)
        if closing and not self._owns_port:
            return
        try:
            self._port.close()
        except OSError:
            logger.debug("closing keypad port %s failed", self._name, exc_info=True)

    def _report(self, message: str) -> None:
        self._deliver(Problem(message))

    def _deliver(self, result: Result, *, limited: bool = True) -> None:
        """Hand one result to its callback (problems through the limiter); a failing callback is
        logged, never kills the reader."""
        try:
            if isinstance(result, Problem):
                for message in self._limiter.admit(result.message) if limited else [result.message]:
                    self._on_problem(message)
            elif isinstance(result, SeatPress):
                if self.seat_presses.admit():
                    self._on_seat(result)
            elif self.key_presses.admit():
                self._on_event(result)
        except Exception:  # the reader must outlive any callback bug
            logger.exception("keypad callback failed on %r", result)
