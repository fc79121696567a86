"""The host's keypad line parser against clean frames, every kind of line damage, and fuzzing.

Valid frames are built with the firmware's own keypad_core.frame, so these tests also pin the
contract between what the Pico sends and what the host reads.
"""

import functools
import itertools
import operator

import keypad_core
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.hw import serial_keypad
from companion.hw.keys import Key, KeyEvent
from companion.hw.serial_keypad import KeypadLineParser, Problem


def wire(payload: str) -> bytes:
    """The bytes the Pico sends for ``payload``."""
    return keypad_core.frame(payload).encode("ascii")


def messages(results: list[KeyEvent | Problem]) -> list[str]:
    return [result.message for result in results if isinstance(result, Problem)]


def events(results: list[KeyEvent | Problem]) -> list[KeyEvent]:
    return [result for result in results if isinstance(result, KeyEvent)]


def test_host_and_firmware_agree_on_the_protocol_constants() -> None:
    assert [*keypad_core.KEY_NAMES, *keypad_core.MATRIX_KEY_NAMES] == [key.name for key in Key]
    assert keypad_core.PROTOCOL_VERSION == serial_keypad.PROTOCOL_VERSION
    assert keypad_core.MAX_FRAME_BYTES == serial_keypad.MAX_FRAME_BYTES
    assert keypad_core.SEQ_MODULO == serial_keypad.SEQ_MODULO
    assert keypad_core.HEARTBEAT_MS == serial_keypad.HEARTBEAT_S * 1000
    assert keypad_core.HELLO_REQUEST.encode() in serial_keypad.HELLO_REQUEST
    for payload in ("", "K 12 OK L", "E 3 keypad_pins.json ignored: not valid JSON"):
        assert serial_keypad.checksum(payload.encode()) == keypad_core.checksum(payload)


@pytest.mark.parametrize("key", list(Key))
@pytest.mark.parametrize(("kind", "long"), [("P", False), ("L", True)])
def test_every_key_short_and_long_becomes_its_event(key: Key, kind: str, long: bool) -> None:
    assert KeypadLineParser().feed(wire(f"K 9 {key.name} {kind}")) == [KeyEvent(key, long=long)]


def test_the_firmwares_own_output_parses_to_its_presses_without_problems() -> None:
    firmware = keypad_core.KeypadFirmware(["UP", "OK"], lambda end, start: end - start, 0)
    stream = ""
    for now in range(0, 9000, 2):
        levels = [1000 <= now < 1100, 3000 <= now < 4000]
        stream += "".join(firmware.step(now, levels, "?" if now == 5000 else ""))
    assert KeypadLineParser().feed(stream.encode()) == [
        KeyEvent(Key.UP), KeyEvent(Key.OK, long=True)]


def test_crlf_line_ends_from_micropython_stdout_are_accepted() -> None:
    assert KeypadLineParser().feed(wire("K 0 OK P").replace(b"\n", b"\r\n")) == [KeyEvent(Key.OK)]


def test_heartbeats_and_a_matching_hello_are_silent() -> None:
    assert KeypadLineParser().feed(wire("H 0 2") + wire("B 1") + b"\r\n\n" + wire("B 2")) == []


def test_frames_are_counted_for_the_silence_watchdog() -> None:
    parser = KeypadLineParser()
    parser.feed(wire("H 0 2") + wire("B 1") + b"noise\n" + wire("B 2")[:-1])
    assert parser.frames_received == 2


@pytest.mark.parametrize(("line", "message"), [
    (b"MPY: soft reboot\r\n", "ignored noise from the keypad: b'MPY: soft reboot'"),
    (b"\x00\xff\xfe\x1b[2J\n", "ignored noise from the keypad: b'\\x00\\xff\\xfe\\x1b[2J'"),
    (b"$K 1 OK P\n", "frame without a valid *XXXX checksum: b'K 1 OK P'"),
    (b"$K 1 OK P*161e\n", "frame without a valid *XXXX checksum: b'K 1 OK P*161e'"),
    (b"$K 1 OK P*16127\n", "frame without a valid *XXXX checksum: b'K 1 OK P*16127'"),
    (b"$K 1 OK P*0000\n", "checksum mismatch (sent 0000, computed 1612): b'K 1 OK P'"),
    (b"$K 1 UP P*1612\n", "checksum mismatch (sent 1612, computed D68C): b'K 1 UP P'"),
    (b"$K 1 OK P*00\n", "frame without a valid *XXXX checksum: b'K 1 OK P*00'"),
    (wire("K 1 SELECT P"), "unknown key 'SELECT' from the keypad, ignored"),
    (wire("K 1 ok P"), "unknown key 'ok' from the keypad, ignored"),
    (wire("K 1 OK X"), "frame with a good checksum but unreadable content (firmware mismatch?): "
                       "b'K 1 OK X'"),
    (wire("K 1 OK P extra"), "frame with a good checksum but unreadable content (firmware "
                             "mismatch?): b'K 1 OK P extra'"),
    (wire("K 256 OK P"), "frame with a good checksum but unreadable content (firmware "
                         "mismatch?): b'K 256 OK P'"),
    (wire("K 01 OK P"), "frame with a good checksum but unreadable content (firmware "
                        "mismatch?): b'K 01 OK P'"),
    (wire("K OK P"), "frame with a good checksum but unreadable content (firmware "
                     "mismatch?): b'K OK P'"),
    (wire("Z 1"), "frame with a good checksum but unreadable content (firmware mismatch?): b'Z 1'"),
    (wire("E 1 keypad_pins.json ignored: not valid JSON"),
     "keypad reports: keypad_pins.json ignored: not valid JSON"),
])
def test_each_damaged_or_foreign_line_is_reported_and_yields_no_event(
        line: bytes, message: str) -> None:
    assert KeypadLineParser().feed(line) == [Problem(message)]


def test_a_frame_with_non_ascii_bytes_and_a_good_checksum_yields_no_event() -> None:
    body = "K 1 O\u00cb P".encode("latin-1")
    line = b"$" + body + b"*" + serial_keypad.checksum(body).encode() + b"\n"
    results = KeypadLineParser().feed(line)
    assert events(results) == []
    assert messages(results) == ["unknown key 'O\ufffd' from the keypad, ignored"]


def test_a_line_without_end_is_reported_once_and_the_next_frame_still_parses() -> None:
    parser = KeypadLineParser()
    results = parser.feed(b"x" * 300) + parser.feed(b"y" * 300) + parser.feed(wire("K 1 OK P"))
    assert messages(results) == [
        f"line longer than 120 bytes without a line end, discarded up to the next one: "
        f"{b'x' * 40!r}..."]
    assert events(results) == [KeyEvent(Key.OK)]


def test_an_overlong_frame_is_reported_once_and_the_next_line_still_parses() -> None:
    parser = KeypadLineParser()
    results = parser.feed(b"$K 1 " + b"A" * 200 + b"\n" + wire("K 2 OK L"))
    [problem] = messages(results)
    assert problem.startswith("line longer than 120 bytes")
    assert events(results) == [KeyEvent(Key.OK, long=True)]


def test_a_keypad_reset_mid_line_loses_only_the_cut_frame() -> None:
    parser = KeypadLineParser()
    stream = wire("K 4 UP P") + b"$K 5 DO" + wire("H 0 2") + wire("K 1 OK P")
    results = parser.feed(stream)
    assert results == [
        KeyEvent(Key.UP),
        Problem("discarded a frame cut short by the next one (keypad reset?): b'$K 5 DO'"),
        KeyEvent(Key.OK),
    ]


def test_a_partial_line_is_reported_when_the_port_goes_away() -> None:
    parser = KeypadLineParser()
    parser.feed(wire("K 1 OK P") + b"$K 2 U")
    assert parser.reset() == [
        Problem("discarded a partial line when the keypad went away: b'$K 2 U'")]
    assert parser.reset() == []


def test_after_a_reset_the_sequence_count_starts_afresh() -> None:
    parser = KeypadLineParser()
    parser.feed(wire("K 1 OK P"))
    parser.reset()
    assert parser.feed(wire("K 77 OK P")) == [KeyEvent(Key.OK)]


def test_lost_lines_are_counted_from_the_sequence_numbers() -> None:
    parser = KeypadLineParser()
    results = parser.feed(wire("K 7 UP P") + wire("B 8") + wire("K 11 OK P") + wire("B 12"))
    assert results == [
        KeyEvent(Key.UP),
        Problem("lost 2 line(s) from the keypad (sequence 9 expected, 11 received): "
                "a key press may be missing"),
        KeyEvent(Key.OK),
    ]


def test_the_sequence_wraps_from_255_to_0_without_a_report() -> None:
    parser = KeypadLineParser()
    assert parser.feed(wire("B 254") + wire("B 255") + wire("B 0") + wire("K 1 AUX L")) == [
        KeyEvent(Key.AUX, long=True)]


def test_a_gap_across_the_wrap_counts_the_lost_lines() -> None:
    parser = KeypadLineParser()
    assert messages(parser.feed(wire("B 254") + wire("B 2"))) == [
        "lost 3 line(s) from the keypad (sequence 255 expected, 2 received): "
        "a key press may be missing"]


def test_a_hello_restarts_the_count_without_a_report() -> None:
    parser = KeypadLineParser()
    assert parser.feed(wire("B 40") + wire("H 0 2") + wire("K 1 LEFT P")) == [KeyEvent(Key.LEFT)]


def test_keys_from_a_keypad_speaking_another_protocol_version_are_refused() -> None:
    parser = KeypadLineParser()
    results = parser.feed(wire("H 0 3") + wire("K 1 OK P"))
    assert results == [
        Problem("keypad speaks protocol 3, this host only 2: "
                "its keys are ignored until the two match"),
        Problem("ignored key OK sent in protocol 3"),
    ]
    assert parser.feed(wire("H 0 2") + wire("K 1 OK P")) == [KeyEvent(Key.OK)]


def test_a_keypad_with_protocol_1_firmware_is_told_to_update_and_its_keys_are_ignored() -> None:
    """Protocol 1 framed with an XOR checksum in two digits: $H 0 1*49 and $K 1 UP P*0F."""
    assert KeypadLineParser().feed(b"$H 0 1*49\n$K 1 UP P*0F\n") == [
        Problem("keypad firmware speaks protocol 1 (an XOR checksum), this host only 2: "
                "copy firmware/ onto the keypad again; its keys are ignored: b'H 0 1'"),
        Problem("keypad firmware speaks protocol 1 (an XOR checksum), this host only 2: "
                "copy firmware/ onto the keypad again; its keys are ignored: b'K 1 UP P'"),
    ]


def test_the_crafted_change_that_fooled_the_xor_checksum_is_caught() -> None:
    """"K 1 UP P" -> "K 0 OK P" changes three bytes whose XOR deltas cancel (0x1A ^ 0x1B ^ 0x01)."""
    genuine, forged = b"K 1 UP P", b"K 0 OK P"
    assert functools.reduce(operator.xor, genuine) == functools.reduce(operator.xor, forged)
    line = b"$" + forged + b"*" + serial_keypad.checksum(genuine).encode() + b"\n"
    assert KeypadLineParser().feed(line) == [
        Problem(f"checksum mismatch (sent {serial_keypad.checksum(genuine)}, "
                f"computed {serial_keypad.checksum(forged)}): b'K 0 OK P'")]


@given(st.sampled_from([f"K {seq} {key.name} {kind}" for seq in (0, 9, 255) for key in Key for kind in "PL"]),
       st.data())
def test_every_error_of_up_to_three_bits_in_a_payload_is_caught(payload: str, data: st.DataObject) -> None:
    frame = bytearray(wire(payload))
    payload_bits = len(payload) * 8
    flips = data.draw(st.sets(st.integers(0, payload_bits - 1), min_size=1, max_size=3))
    for bit in flips:
        frame[1 + bit // 8] ^= 1 << (bit % 8)
    if b"\n" in frame[:-1] or b"$" in frame[1:]:
        return  # the damage made a line break: a different test covers what that does
    assert events(KeypadLineParser().feed(bytes(frame))) == []


def test_while_a_hello_is_awaited_everything_before_it_is_stale_and_summed_up() -> None:
    parser = KeypadLineParser()
    parser.expect_hello("7F3A")
    buffered = (b"UP P*0F\n" + wire("H 0 2") + wire("K 1 OK P") + wire("H 2 2 0000")
                + wire("K 9 UP L"))
    assert parser.feed(buffered) == []
    assert parser.awaiting_hello
    assert parser.feed(wire("H 10 2 7F3A") + wire("K 11 LEFT P")) == [
        Problem("ignored what the keypad had buffered before this host was listening: "
                "2 key press(es), 2 problem(s)"),
        KeyEvent(Key.LEFT),
    ]
    assert not parser.awaiting_hello


def test_an_answered_hello_with_nothing_stale_is_silent() -> None:
    parser = KeypadLineParser()
    parser.expect_hello("A")
    assert parser.feed(wire("H 3 2 A") + wire("K 4 OK P")) == [KeyEvent(Key.OK)]


def test_a_keypad_reboot_after_the_answer_does_not_hold_keys_back() -> None:
    parser = KeypadLineParser()
    parser.expect_hello("A")
    parser.feed(wire("H 3 2 A"))
    assert parser.feed(wire("H 0 2") + wire("K 1 OK P")) == [KeyEvent(Key.OK)]


def test_losing_the_port_forgets_the_awaited_hello() -> None:
    parser = KeypadLineParser()
    parser.expect_hello("A")
    parser.reset()
    assert not parser.awaiting_hello
    assert parser.feed(wire("K 1 OK P")) == [KeyEvent(Key.OK)]


def test_feeding_one_byte_at_a_time_gives_the_same_results() -> None:
    stream = (b"boot junk\r\n" + wire("H 0 2") + b"$K 1 U" + wire("K 1 UP P") + b"\xff" * 130
              + b"\n" + wire("K 3 OK L") + b"$K 4")
    whole = KeypadLineParser().feed(stream)
    parser = KeypadLineParser()
    assert [result for byte in stream for result in parser.feed(bytes([byte]))] == whole
    assert len(events(whole)) == 2 and len(messages(whole)) == 4


# --- property tests: garbage interleaved with valid frames ------------------------------------

def without(forbidden: bytes) -> st.SearchStrategy[bytes]:
    """Any bytes but ``forbidden`` ones."""
    return st.binary(max_size=60).map(lambda data: bytes(b for b in data if b not in forbidden))


some_frame = st.builds(lambda seq, key: wire(f"K {seq} {key.name} P"),
                       st.integers(0, 255), st.sampled_from(list(Key)))


@st.composite
def corrupt_frame(draw: st.DrawFn) -> bytes:
    """A frame with one payload byte changed: the checksum must catch it."""
    frame = draw(some_frame)
    index = draw(st.integers(1, frame.index(b"*") - 1))
    replacement = draw(st.integers(0, 255).filter(lambda byte: byte != frame[index]))
    return frame[:index] + bytes([replacement]) + frame[index + 1:]


@st.composite
def cut_frame(draw: st.DrawFn) -> bytes:
    """The start of a frame, as a reset leaves it; only ever placed right before a ``$``."""
    frame = draw(some_frame)
    return frame[:draw(st.integers(1, len(frame) - 1))]


overlong_run = st.builds(
    lambda start, body: start + bytes(body), st.sampled_from([b"", b"$"]),
    st.lists(st.integers(0, 255).filter(lambda byte: byte not in b"\n$"),
             min_size=serial_keypad.MAX_FRAME_BYTES, max_size=300))

# Each of these leaves no frame open, so whatever follows cannot complete it into a valid
# frame: noise has no "$", a line with "$" but no "*" ends at its own newline, a corrupt frame
# ends at its own newline, and an overlong run is dropped up to the next line end or "$".
closed_garbage = st.one_of(without(b"$"), without(b"\n*").map(lambda body: b"$" + body + b"\n"),
                           corrupt_frame(), overlong_run)
damage = st.builds(lambda runs, cut: b"".join(runs) + cut,
                   st.lists(closed_garbage, max_size=3), st.one_of(st.just(b""), cut_frame()))


@given(st.lists(st.tuples(damage, st.sampled_from(list(Key)), st.booleans()), max_size=12), damage)
def test_garbage_between_valid_frames_yields_exactly_their_events_in_order(
        pieces: list[tuple[bytes, Key, bool]], trailing_damage: bytes) -> None:
    stream = b""
    expected = []
    for seq, (damage_before, key, long) in enumerate(pieces):
        stream += damage_before + wire(f"K {seq} {key.name} {'L' if long else 'P'}")
        expected.append(KeyEvent(key, long))
    results = KeypadLineParser().feed(stream + trailing_damage)
    assert events(results) == expected
    assert not any(message.startswith("lost") for message in messages(results))


@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=8))
def test_any_bytes_in_any_chunks_parse_the_same_and_never_raise(
        stream: bytes, cuts: list[int]) -> None:
    whole = KeypadLineParser().feed(stream)
    parser = KeypadLineParser()
    chunked = []
    bounds = [0, *sorted(cut for cut in cuts if cut <= len(stream)), len(stream)]
    for start, end in itertools.pairwise(bounds):
        chunked += parser.feed(stream[start:end])
    assert chunked == whole
    assert all(isinstance(result, (KeyEvent, Problem)) for result in whole)


junk_heavy = st.lists(st.one_of(st.sampled_from([b"$", b"\n", b"*", b"\r", b"$K 1 OK P*", b"1612", b"junk\n"]),
                                st.binary(max_size=8), some_frame, corrupt_frame()), max_size=120).map(b"".join)


@given(junk_heavy, st.lists(st.integers(0, 2000), max_size=12))
def test_muted_or_not_any_chunking_gives_the_same_results(stream: bytes, cuts: list[int]) -> None:
    """Floods of line breaks, half frames and damaged frames switch the parser to counting junk;
    what it reports must still not depend on how the bytes were split into reads."""
    whole = KeypadLineParser().feed(stream)
    parser = KeypadLineParser()
    chunked = []
    bounds = [0, *sorted(cut for cut in cuts if cut <= len(stream)), len(stream)]
    for start, end in itertools.pairwise(bounds):
        chunked += parser.feed(stream[start:end])
    assert chunked == whole
    one_by_one = KeypadLineParser()
    assert [r for byte in stream for r in one_by_one.feed(bytes([byte]))] == whole


@given(st.lists(st.tuples(st.integers(0, 60), st.sampled_from(list(Key))), min_size=1, max_size=6))
def test_a_muted_parser_still_finds_every_good_frame(pieces: list[tuple[int, Key]]) -> None:
    stream, expected = b"", []
    for seq, (junk_lines, key) in enumerate(pieces):
        stream += b"$\n" * junk_lines + wire(f"K {seq} {key.name} P")
        expected.append(KeyEvent(key))
    assert events(KeypadLineParser().feed(stream)) == expected


def in_chunks(stream: bytes, cuts: list[int]) -> list[KeyEvent | Problem]:
    """What one parser makes of ``stream`` fed in pieces cut at ``cuts``."""
    parser = KeypadLineParser()
    bounds = [0, *sorted(cut for cut in cuts if cut <= len(stream)), len(stream)]
    return [result for start, end in itertools.pairwise(bounds) for result in parser.feed(stream[start:end])]


@given(st.integers(0, 255), st.sampled_from(list(Key)),
       st.text(alphabet="ABCXYZ019 ", min_size=serial_keypad.MAX_FRAME_BYTES, max_size=400),
       st.lists(st.integers(0, 600), max_size=8))
def test_an_oversized_frame_with_a_good_checksum_is_refused_once_in_any_chunking(
        seq: int, key: Key, padding: str, cuts: list[int]) -> None:
    oversized = wire(f"K {seq} {key.name} P {padding}")
    assert len(oversized) > serial_keypad.MAX_FRAME_BYTES
    stream = oversized + wire(f"K {(seq + 1) % 256} OK L")
    results = in_chunks(stream, cuts)
    assert results == KeypadLineParser().feed(stream)
    assert events(results) == [KeyEvent(Key.OK, long=True)]  # only the frame after it
    [problem] = messages(results)
    assert problem.startswith(f"line longer than {serial_keypad.MAX_FRAME_BYTES} bytes")


@given(some_frame, st.integers(0, 0xFFFF), st.lists(st.integers(0, 100), max_size=6))
def test_a_frame_whose_checksum_is_wrong_is_one_problem_and_no_press(
        frame: bytes, check: int, cuts: list[int]) -> None:
    payload = frame[1:frame.index(b"*")]
    sent = b"%04X" % check
    if sent == serial_keypad.checksum(payload).encode():
        sent = b"%04X" % (check ^ 1)  # any other value
    stream = b"$" + payload + b"*" + sent + b"\n"
    results = in_chunks(stream, cuts)
    assert events(results) == []
    [problem] = messages(results)
    assert problem.startswith(f"checksum mismatch (sent {sent.decode()}, computed ")
