"""``companion run``'s options: the command line, config.toml for what it leaves out, and every
check a run needs before anything opens (the board, its buzzer pins, the key script, luma's display
options, the ``[event]`` section). ``run --check`` reports from here and opens nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from companion.config import SETTINGS, RunConfig
from companion.errors import ConfigError, quoted
from companion.hw.boards import Board, list_presets, load_board
from companion.hw.display import (
    bus_problem,
    check_emulator_available,
    check_panel,
    parse_display_args,
    requested_display,
)
from companion.hw.mock import MAX_SCRIPT_BYTES, parse_script
from companion.inputs import named_path, read_text_file
from companion.paths import check_output_file
from companion.text import LANGUAGES

if TYPE_CHECKING:
    from companion.event.config import EventConfig

DEFAULT_BOARD = "adafruit-oled-bonnet"
SAVE_FRAME_SCALE = 4  # README's pictures show each panel pixel as 4x4


RUN_DESCRIPTION = """\
Run the device: buttons in, tricks adjudicated, the screen on the OLED. With --mock it runs on
simulated hardware: in a terminal the panel is drawn in braille and the keyboard is the joystick;
without one it runs headless until stopped. Options come from the command line, then from
config.toml ($CONFIGURATION_DIRECTORY/config.toml, else /etc/tabletop-companion/config.toml, or
--config-toml), then from the board. Exit status: 0 stopped normally, 2 a configuration or usage
error (nothing was started), 130 interrupted while starting.
"""


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mock",
        action="store_true",
        help="simulated hardware: mock pins, the display on a recording bus (drawn in braille in a terminal) "
        "or a luma emulator",
    )
    parser.add_argument(
        "--board", help=f"board preset ({', '.join(list_presets())}) or a board file; default {DEFAULT_BOARD}"
    )
    parser.add_argument(
        "--config-toml", type=Path, metavar="FILE", help="read this config.toml instead of the device's"
    )
    parser.add_argument(
        "--state-dir",
        type=named_path,
        help="where games are journalled (default: $STATE_DIRECTORY or ~/.local/state/tabletop-companion; "
        "with --keys, a fresh temporary directory)",
    )
    parser.add_argument(
        "--keys",
        type=Path,
        metavar="SCRIPT",
        help="mock mode: a key script to play (press OK / hold BACK / wait 0.5 / repeat 3 press DOWN)",
    )
    parser.add_argument(
        "--exit-when-done", action="store_true", help="with --keys: stop once the script has been played"
    )
    parser.add_argument(
        "--keys-virtual-time", action="store_true",
        help="with --keys: play the script on a clock of its own that jumps, so its waits, holds and each "
        "press's debounce take no real time (the device's own timers, the screen dimming, still run in real time)",
    )
    parser.add_argument("--keypad", metavar="PORT", help="serial port of the optional Pico keypad, e.g. /dev/ttyACM0")
    parser.add_argument("--numpad", metavar="WHICH",
                        help="a USB or Bluetooth numeric keypad as the card keypad: auto (the first one plugged in), "
                        "its /dev/input path, or part of its name (needs the [pi] extra's python-evdev)")
    parser.add_argument(
        "--buzzers",
        metavar="PINS",
        help="quiz buzzers on GPIO: BCM pins the board leaves free, seat 1 first, e.g. 12,16,20,21 "
        "(mock pins with --mock)",
    )
    parser.add_argument(
        "--keypad-buzzers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="quiz buzzers on the Pico keypad's seat inputs (--no-keypad-buzzers overrides config.toml)",
    )
    parser.add_argument(
        "--language", choices=LANGUAGES, help="screen language at start (default: what the menu set last)"
    )
    parser.add_argument(
        "--contrast", type=int, metavar="15-255", help="panel contrast at start (default: what the menu set last)"
    )
    parser.add_argument(
        "--page-address-offset",
        type=int,
        metavar="0-4",
        help="SH1106 only: first RAM column shown (luma's default 2; some modules need 0)",
    )
    parser.add_argument(
        "--save-frame", type=Path, metavar="FILE.png", help="write the last frame shown as an image on exit"
    )
    parser.add_argument("--save-frame-scale", type=int, default=SAVE_FRAME_SCALE, metavar="1-16",
                        help=f"with --save-frame: each pixel of the panel as NxN pixels (default {SAVE_FRAME_SCALE},"
                             " as README's pictures; 1 for the panel's own 128x64)")
    parser.add_argument(
        "--web",
        metavar="[HOST:]PORT",
        help="serve the table page (score sheet, chart, tricks, the record; read only) on PORT, on 127.0.0.1 "
        "unless HOST is given (0.0.0.0: the room's network; docs/pi-setup.md says what that exposes)",
    )
    parser.add_argument("--seed", type=int, help="seed for the device's random draws (default: from the OS)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the options, config.toml, the board and the key script, say what would run, "
        "and exit (0: all is right) without opening the display or the keys",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=None, help="log every journalled action (debug level)"
    )


def resolve_options(args: argparse.Namespace, config: RunConfig) -> argparse.Namespace:
    """The command line with every option it left out taken from config.toml, then checked.

    Everything a user can get wrong is refused here, before the display opens or a game starts.
    """
    merged = argparse.Namespace(**vars(args))
    for name, setting in SETTINGS.items():
        if not setting.luma and getattr(merged, name, None) is None:
            setattr(merged, name, config.get(name))
    for name in ("language", "contrast", "page_address_offset", "buzzers", "web"):
        value = getattr(merged, name)
        if value is not None:  # config.toml's values were checked as it was read; this checks ours
            SETTINGS[name].check(name, value, f"--{name.replace('_', '-')}")
    if args.keys is not None and not args.mock:
        raise ConfigError("--keys plays a script on mock keys: add --mock")
    if args.exit_when_done and args.keys is None:
        raise ConfigError("--exit-when-done stops after a key script: give one with --keys")
    if args.keys_virtual_time and args.keys is None:
        raise ConfigError("--keys-virtual-time sets a key script's clock: give one with --keys")

    def source(name: str) -> str:
        return f"--{name.replace('_', '-')}" if getattr(args, name) is not None else f"{name} in config.toml"

    if merged.buzzers is not None and merged.keypad_buzzers:
        raise ConfigError(f"quiz buzzers on GPIO ({source('buzzers')}) and on the keypad ({source('keypad_buzzers')})"
                          " stamp presses on different clocks: choose one")
    if merged.keypad_buzzers and not merged.keypad:
        raise ConfigError(
            f"{source('keypad_buzzers')} needs the keypad's serial port (--keypad, or keypad in config.toml)"
        )
    if not 1 <= args.save_frame_scale <= 16:
        raise ConfigError(f"--save-frame-scale {args.save_frame_scale}: give 1-16 (pixels per panel pixel)")
    if args.save_frame is not None:
        check_output_file(args.save_frame, "--save-frame")
        check_image_type(args.save_frame, "--save-frame")
    if args.state_dir is not None:
        check_state_dir(args.state_dir)
    return merged


def checked_parts(options: argparse.Namespace, config: RunConfig,
                   luma_argv: Sequence[str]) -> tuple[str | None, Board, argparse.Namespace]:
    """Everything a run needs read and checked before anything opens: the key script, the board
    with its buzzer pins and numpad, and luma's display options."""
    script = None
    if options.keys is not None:  # read and parsed now, so a bad script stops nothing half-started
        script = read_text_file(options.keys, "key script", limit=MAX_SCRIPT_BYTES)
        parse_script(script, str(options.keys))
    board = load_board(options.board or DEFAULT_BOARD)
    if options.buzzers is not None:
        from companion.hw.buzzers import parse_buzzer_pins  # loaded only for a table with buzzers

        check_buzzers_free(parse_buzzer_pins(options.buzzers), board)
    if options.numpad is not None:
        from companion.hw.numpad import EvdevBackend

        EvdevBackend()  # says which extra to install when python-evdev is missing
    return script, board, checked_display_args(options, board, [*config.luma_argv(), *luma_argv])


def checked_display_args(options: argparse.Namespace, board: Board, luma_argv: Sequence[str]) -> argparse.Namespace:
    """luma's display options, parsed and checked (nothing is opened)."""
    check_emulator_available(requested_display(luma_argv))
    luma_args = parse_display_args(luma_argv, board)
    check_panel(luma_args)
    if options.page_address_offset is not None:
        luma_args.page_address_offset = options.page_address_offset
    if getattr(luma_args, "page_address_offset", None) is not None and luma_args.display != "sh1106":
        raise ConfigError(f"page_address_offset is an SH1106 setting; this display is {luma_args.display}")
    return luma_args


def check_buzzers_free(pins: Mapping[int, int], board: Board) -> None:
    """No quiz buzzer on a pin the board already wires to something (``{seat: BCM pin}``).

    >>> check_buzzers_free({0: 12, 1: 5}, load_board("adafruit-oled-bonnet"))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: buzzers: seat 2's GPIO5 is key BACK on board adafruit-oled-bonnet;
    choose pins it leaves free (hardware/README.md)
    """
    taken = {pin: f"key {key.name}" for key, pin in board.buttons.items()}
    taken |= {pin: f"its switch {label}" for label, pin in board.spare_pins.items()}
    taken |= {pin: f"encoder {channel}" for channel, pin in zip("AB", board.encoder_pins or (), strict=False)}
    taken |= {pin: f"the display's {role}" for role, pin in board.display.pins().items()}
    for seat, pin in pins.items():
        if pin in taken:
            raise ConfigError(f"buzzers: seat {seat + 1}'s GPIO{pin} is {taken[pin]} on board {board.name};"
                              " choose pins it leaves free (hardware/README.md)")


def check_state_dir(path: Path) -> None:
    """``path`` is, or can become, a directory this process can write in."""
    check_writable_dir(path, "state directory")


def check_writable_dir(path: Path, what: str) -> None:
    """``path`` is, or can become, a directory this process can write in (made if need be);
    else a ConfigError naming ``what`` and the reason, before anything has started."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{what} {path}: {existing} is a file, not a directory; move it or choose another")
    try:
        path.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=path, prefix=".write-test-")
        os.close(handle)
        os.unlink(probe)
    except OSError as err:
        raise ConfigError(f"{what} {path} is not writable: {err.strerror}") from None


def check_image_type(path: Path, option: str) -> None:
    """``path`` ends in an extension Pillow can save an image as."""
    Image.init()
    saved = sorted(ext for ext, kind in Image.registered_extensions().items() if kind in Image.SAVE)
    if path.suffix.lower() not in saved:
        raise ConfigError(f"{option} {path}: the name must end in an image type such as .png"
                          f" (not {path.suffix or 'nothing'!r})")


EVENT_INSTALL = ".venv/bin/pip install '.[event]'"
"""The README's command that installs event mode's MQTT client (paho-mqtt) beside the device."""


def checked_event_section(config: RunConfig) -> EventConfig | None:
    """config.toml's ``[event]`` section, checked, and ready to serve (:func:`check_event_ready`);
    None without one. Event mode's modules (ssl among them) load only for a device in an event."""
    if "event" not in config.sections:
        return None
    from companion.event.config import event_config

    event = event_config(config.sections)
    if event is not None:
        check_event_ready(event)
    return event


def check_event_ready(event: EventConfig) -> None:
    """Refuse, before anything opens, an ``[event]`` section the run could not serve: its CA file or
    password file unreadable, or paho-mqtt not installed (the hint is the README's install command)."""
    event.broker.check_ca_file()
    event.broker.password()  # a ConfigError naming the file and why it cannot be read
    if importlib.util.find_spec("paho") is None:
        raise ConfigError(f"config.toml has an [event] section but paho-mqtt is not installed: {EVENT_INSTALL}"
                          " in the folder the device was installed from (README.md)")


def report_check(options: argparse.Namespace, config: RunConfig, board: Board, luma_args: argparse.Namespace) -> int:
    """``run --check``'s verdict on checked options: "all is right" (0) only if the run would start,
    else each absent part named on its own line (2)."""
    problems = hardware_problems(options, luma_args)
    for problem in problems:
        print(f"companion: {problem}", file=sys.stderr)
    if problems:
        return 2
    source = f"options from {config.path}" if config.path is not None else "no config.toml"
    print(f"companion: all is right ({source}): board {board.name}, display {luma_args.display}"
          f" on {'a simulated bus' if options.mock else luma_args.interface}", file=sys.stderr)
    return 0


def hardware_problems(options: argparse.Namespace, luma_args: argparse.Namespace) -> list[str]:
    """What ``run --check`` finds absent on this machine: the display's bus or device (not in mock
    mode) and the keypad's serial port, which the run would wait for instead of using."""
    problems = [] if options.mock else list(filter(None, [bus_problem(luma_args)]))
    if options.keypad and not os.path.exists(options.keypad):
        problems.append(f"keypad {quoted(options.keypad, 120)}: no such serial port (is the Pico plugged in?"
                        " the device would start and wait for it)")
    return problems
