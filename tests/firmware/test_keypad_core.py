"""The Pico keypad's pure logic under CPython, driven by a fake MicroPython tick clock."""

import doctest
import json
from pathlib import Path

import keypad_core
import pytest
from hypothesis import given
from hypothesis import strategies as st
from keypad_core import LONG, SHORT, Button, KeypadFirmware, checksum, frame, parse_pin_map

from companion.hw.debounce import Debouncer
from companion.hw.keys import Key

FIRMWARE_DIR = Path(keypad_core.__file__).parent
TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms() wraps here on the RP2040
SCAN_MS = 2


def ticks_diff(end: int, start: int) -> int:
    """MicroPython's time.ticks_diff: the signed distance on the wrapping tick circle."""
    half = TICKS_PERIOD // 2
    return ((end - start + half) % TICKS_PERIOD) - half


def scan(button: Button, levels: list[tuple[int, bool]], start: int = 0) -> list[tuple[int, str]]:
    """Sample ``button`` every SCAN_MS through ``levels`` (duration ms, pressed) from ``start``.

    Returns ``(elapsed ms, SHORT or LONG)`` for each report, elapsed counted from ``start``
    so tests read the same whether or not the tick counter wrapped on the way.
    """
    reports = []
    elapsed = 0
    for duration, pressed in levels:
        for _ in range(duration // SCAN_MS):
            kind = button.sample(pressed, (start + elapsed) % TICKS_PERIOD)
            if kind is not None:
                reports.append((elapsed, kind))
            elapsed += SCAN_MS
    return reports


def test_checksum_is_crc16_ccitt_false_in_four_upper_case_hex_digits() -> None:
    assert checksum("") == "FFFF"  # nothing shifted in: the start value
    assert checksum("123456789") == "29B1"  # the catalogue's check value for CRC-16/CCITT-FALSE
    assert checksum("A") == "B915"
    assert checksum("K 3 OK L") != checksum("K 3 OK K")
    assert frame("B 0") == "$B 0*" + checksum("B 0") + "\n"


def test_a_clean_press_reports_short_once_its_release_settles() -> None:
    reports = scan(Button(ticks_diff), [(10, False), (100, True), (60, False)])
    assert reports == [(110 + keypad_core.DEBOUNCE_MS, SHORT)]


def test_contact_chatter_shorter_than_the_debounce_time_reports_nothing() -> None:
    chatter = [(4, True), (2, False), (6, True), (4, False), (8, True), (40, False)]
    assert scan(Button(ticks_diff), chatter) == []


def test_chatter_on_press_and_release_still_gives_exactly_one_short_press() -> None:
    bouncy_press = [(2, True), (2, False), (4, True), (2, False), (150, True)]
    bouncy_release = [(2, False), (2, True), (2, False), (4, True), (60, False)]
    reports = scan(Button(ticks_diff), bouncy_press + bouncy_release)
    assert [kind for _at, kind in reports] == [SHORT]


def test_a_glitch_while_held_is_not_a_release() -> None:
    reports = scan(Button(ticks_diff), [(100, True), (10, False), (100, True), (40, False)])
    assert [kind for _at, kind in reports] == [SHORT]


def test_long_press_fires_while_held_exactly_800_ms_after_the_press_settled() -> None:
    settle = keypad_core.DEBOUNCE_MS
    reports = scan(Button(ticks_diff), [(2000, True), (60, False)])
    assert reports == [(settle + keypad_core.LONG_PRESS_MS, LONG)]


def test_a_press_whose_release_settles_before_the_long_press_time_is_short() -> None:
    held = keypad_core.LONG_PRESS_MS - SCAN_MS
    reports = scan(Button(ticks_diff), [(held, True), (60, False)])
    assert reports == [(held + keypad_core.DEBOUNCE_MS, SHORT)]


def test_a_release_settling_in_the_scan_the_long_press_falls_due_is_long() -> None:
    held = keypad_core.LONG_PRESS_MS
    reports = scan(Button(ticks_diff), [(held, True), (60, False)])
    assert reports == [(held + keypad_core.DEBOUNCE_MS, LONG)]


def test_the_next_press_after_a_long_one_starts_afresh() -> None:
    reports = scan(Button(ticks_diff), [(1000, True), (100, False), (1000, True), (100, False),
                                        (50, True), (60, False)])
    assert [kind for _at, kind in reports] == [LONG, LONG, SHORT]


def test_debounce_and_long_press_survive_the_tick_counter_wrapping() -> None:
    start = TICKS_PERIOD - 500
    levels = [(100, True), (60, False), (1000, True), (60, False)]
    assert scan(Button(ticks_diff), levels, start) == scan(Button(ticks_diff), levels, 0)
    assert [kind for _at, kind in scan(Button(ticks_diff), levels, start)] == [SHORT, LONG]


class FirmwareRun:
    """A KeypadFirmware for keys UP and OK, booted at 0, scanned every SCAN_MS on a fake clock."""

    def __init__(self, warning: str = "") -> None:
        self.now = 0
        self.firmware = KeypadFirmware(["UP", "OK"], ticks_diff, self.now, warning)

    def run_until(self, end_ms: int, pressed: tuple[str, ...] = (),
                  host_input: str = "") -> list[str]:
        """Scan with ``pressed`` held from now until just before ``end_ms``; returns lines sent."""
        lines = []
        while self.now < end_ms:
            levels = ["UP" in pressed, "OK" in pressed]
            lines += self.firmware.step(self.now, levels, host_input)
            host_input = ""
            self.now += SCAN_MS
        return lines


def test_the_firmware_says_hello_with_sequence_0_at_boot_and_when_asked() -> None:
    run = FirmwareRun()
    assert run.run_until(10) == [frame("H 0 2")]
    assert run.run_until(20, host_input="?\n") == [frame("H 1 2")]


def test_a_hello_request_token_is_echoed_so_the_host_can_tell_live_lines_from_old_ones() -> None:
    run = FirmwareRun()
    run.run_until(10)
    assert run.run_until(20, host_input="?7F3A\n") == [frame("H 1 2 7F3A")]
    assert run.run_until(30, host_input="junk?B2\r") == [frame("H 2 2 B2")]


def test_a_hello_request_counts_only_once_its_line_ends() -> None:
    run = FirmwareRun()
    run.run_until(10)
    assert run.run_until(20, host_input="?C") == []
    assert run.run_until(30, host_input="D\n") == [frame("H 1 2 CD")]


def test_a_hello_token_is_cut_to_safe_characters_and_length() -> None:
    run = FirmwareRun()
    run.run_until(10)
    assert run.run_until(20, host_input="?$a *B\u00e9C\n") == [frame("H 1 2 BC")]
    assert run.run_until(30, host_input="?0123456789AB\n") == [frame("H 2 2 01234567")]


def test_endless_host_input_without_a_line_end_is_bounded_and_then_forgotten() -> None:
    run = FirmwareRun()
    run.run_until(10)
    assert run.run_until(20, host_input="x" * 10_000 + "?LOST") == []
    assert run.run_until(30, host_input="\n?OK\n") == [frame("H 1 2 OK")]


def test_a_pin_map_warning_follows_every_hello_as_an_error_frame() -> None:
    run = FirmwareRun(warning="keypad_pins.json ignored: not valid JSON")
    assert run.run_until(10) == [
        frame("H 0 2"), frame("E 1 keypad_pins.json ignored: not valid JSON")]
    assert run.run_until(20, host_input="?A\n") == [
        frame("H 2 2 A"), frame("E 3 keypad_pins.json ignored: not valid JSON")]


def test_an_error_frame_stays_printable_and_within_the_frame_limit() -> None:
    run = FirmwareRun(warning="$" * 500 + "\n*")
    error_line = run.run_until(10)[1]
    assert len(error_line) <= keypad_core.MAX_FRAME_BYTES
    assert error_line.count("$") == 1 and error_line.count("*") == 1
    assert error_line.startswith("$E 1 ???")


def test_key_frames_carry_name_kind_and_the_next_sequence_number() -> None:
    run = FirmwareRun()
    lines = (run.run_until(100) + run.run_until(200, pressed=("UP",)) + run.run_until(300)
             + run.run_until(1300, pressed=("OK",)) + run.run_until(1400))
    assert lines == [frame("H 0 2"), frame("K 1 UP P"), frame("K 2 OK L")]


def test_keys_settling_in_the_same_scan_are_sent_in_key_order() -> None:
    run = FirmwareRun()
    run.run_until(100)
    assert run.run_until(200, pressed=("OK", "UP")) + run.run_until(300) == [
        frame("K 1 UP P"), frame("K 2 OK P")]


def test_sequence_numbers_wrap_at_256() -> None:
    run = FirmwareRun()
    lines = run.run_until(100)
    for press in range(257):
        lines += run.run_until(200 + 100 * press, pressed=("UP",))
        lines += run.run_until(250 + 100 * press)
    sequence_numbers = [int(line.split(" ")[1].split("*")[0]) for line in lines]
    assert sequence_numbers == [n % 256 for n in range(258)]


def test_a_heartbeat_goes_out_after_2_s_without_any_other_line() -> None:
    beat = keypad_core.HEARTBEAT_MS
    run = FirmwareRun()
    assert run.run_until(beat) == [frame("H 0 2")]
    assert run.run_until(beat + SCAN_MS) == [frame("B 1")]
    assert run.run_until(2 * beat) == []
    assert run.run_until(2 * beat + SCAN_MS) == [frame("B 2")]


def test_a_key_line_postpones_the_heartbeat() -> None:
    run = FirmwareRun()
    run.run_until(1000)
    assert run.run_until(1100, pressed=("UP",)) + run.run_until(1200) == [frame("K 1 UP P")]
    sent_at = 1100 + keypad_core.DEBOUNCE_MS
    assert run.run_until(sent_at + keypad_core.HEARTBEAT_MS) == []
    assert run.run_until(sent_at + keypad_core.HEARTBEAT_MS + SCAN_MS) == [frame("B 2")]


def test_the_led_lights_for_a_blink_after_each_line() -> None:
    run = FirmwareRun()
    run.run_until(SCAN_MS)  # the hello goes out at 0
    assert run.firmware.led_on(keypad_core.BLINK_MS - 1)
    assert not run.firmware.led_on(keypad_core.BLINK_MS)


def test_the_led_stays_dark_before_any_line() -> None:
    assert not KeypadFirmware(["OK"], ticks_diff, 0).led_on(0)


def test_the_shipped_pin_map_is_the_documented_default() -> None:
    shipped = (FIRMWARE_DIR / "keypad_pins.json").read_text(encoding="utf-8")
    assert json.loads(shipped) == keypad_core.DEFAULT_PINS
    assert parse_pin_map(shipped) == keypad_core.default_pin_map()
    assert [name for name, _gpio in parse_pin_map(shipped)] == list(keypad_core.KEY_NAMES)


def test_a_partial_pin_map_overrides_only_the_keys_it_names() -> None:
    pins = dict(parse_pin_map('{"OK": 20, "BACK": 26}'))
    assert pins == {**keypad_core.DEFAULT_PINS, "OK": 20, "BACK": 26}


@pytest.mark.parametrize(("text", "message"), [
    ("{", "not valid JSON"),
    ("[2, 3]", 'must be a JSON object like {"UP": 2}'),
    ('{"SELECT": 9}', "unknown key 'SELECT'; keys are UP DOWN LEFT RIGHT OK BACK AUX"),
    ('{"up": 9}', "unknown key 'up'; keys are UP DOWN LEFT RIGHT OK BACK AUX"),
    ('{"OK": 25}', "OK: 25 is not a free GP number (0-22, 26-28)"),
    ('{"OK": "GP9"}', "OK: 'GP9' is not a free GP number (0-22, 26-28)"),
    ('{"OK": true}', "OK: True is not a free GP number (0-22, 26-28)"),
    ('{"OK": 9.0}', "OK: 9.0 is not a free GP number (0-22, 26-28)"),
    ('{"AUX": 3}', "DOWN and AUX are both on GP3"),
])
def test_a_bad_pin_map_is_refused_with_the_reason(text: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_pin_map(text)
    assert str(refused.value) == message


def test_the_firmware_docstring_examples_hold() -> None:
    results = doctest.testmod(keypad_core)
    assert results.attempted > 0
    assert results.failed == 0


@given(st.lists(st.tuples(st.integers(1, 600), st.booleans()), max_size=20))
def test_the_pico_debounces_exactly_as_the_on_board_buttons_do(
        levels: list[tuple[int, bool]]) -> None:
    """Same presses, same events: the Pico keypad and the HAT's buttons feel alike."""
    samples = [pressed for duration, pressed in levels for _ in range(duration)]
    pico, board = Button(ticks_diff), Debouncer(Key.OK, debounce_s=keypad_core.DEBOUNCE_MS,
                                                    hold_s=keypad_core.LONG_PRESS_MS)
    pico_events, board_events, previous = [], [], False
    for index, pressed in enumerate(samples):
        now = index * SCAN_MS
        kind = pico.sample(pressed, now)
        if kind is not None:
            pico_events.append((now, kind == LONG))
        events = board.edge(pressed, now) if pressed != previous else board.advance(now)
        board_events += [(now, event.long) for event in events]
        previous = pressed
    assert pico_events == board_events
