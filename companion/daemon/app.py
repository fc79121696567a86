"""``companion run``: the device. Keys wake an event loop; the UI decides; the journal stores every
accepted action (fsync) before the screen shows it; the display is sent only what changed.

The same :class:`Device` runs on a Pi and in mock mode: only the pin factory and the display's bus
differ. Nothing here polls: the loop sleeps until a key event or the UI's next deadline (dim,
blank, the end of a flash) or the systemd watchdog's next beat.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import random
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from companion.config import SETTINGS, RunConfig, load_config
from companion.daemon.acks import attach as attach_ack_pipe
from companion.daemon.loop import EventLoop, Timer, stop_on_signals
from companion.daemon.sdnotify import Notifier, watchdog_interval
from companion.daemon.store import Store
from companion.errors import CompanionError, ConfigError, quoted
from companion.hw.boards import Board, list_presets, load_board
from companion.hw.buzzers import BuzzerArbiter, parse_buzzer_pins
from companion.hw.display import (
    EMULATORS,
    Display,
    bus_problem,
    check_emulator_available,
    check_panel,
    display_parser,
    open_display,
    parse_display_args,
    requested_display,
)
from companion.hw.mock import (
    MAX_SCRIPT_BYTES,
    MockPad,
    ScriptKeySource,
    ThreadedSource,
    VirtualTime,
    key_source_for,
    parse_script,
)
from companion.hw.terminal import TerminalScreen, terminal_size
from companion.inputs import CommandLineParser, named_path, read_text_file
from companion.keys import KeyEvent
from companion.paths import check_output_file, state_dir
from companion.settings import Settings
from companion.text import LANGUAGES
from companion.ui.app import App

if TYPE_CHECKING:
    from companion.daemon.page import TablePageServer
    from companion.event.config import EventConfig
    from companion.uplink.publisher import LinkStatus

log = logging.getLogger(__name__)

DEFAULT_BOARD = "adafruit-oled-bonnet"
DIM_CONTRAST = 1  # the lowest visible contrast: readable up close, far from burn-in
CAPTURE_DIR = Path("companion-frames")
SAVE_FRAME_SCALE = 4  # README's pictures show each panel pixel as 4x4


class ScriptDone:
    """Posted by a finished key script when the device should stop once idle (demos, tests)."""


class Call:
    """Posted to run ``callback`` on the loop thread: a signal handler's follow-up work."""

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback


class Buzzed:
    """Posted by a quiz buzzer press: the screen waiting for it may now have a deadline."""


class LinkChanged:
    """Posted by event mode's publisher thread: the link's mark for the screen's corner changed."""

    def __init__(self, mark: str) -> None:
        self.mark = mark


class SeatingChanged:
    """Posted by event mode's publisher thread: the names the event seats at this table."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)


class Device:
    """The running device: the loop, the UI app, the display and the store, wired together."""

    def __init__(
        self,
        store: Store,
        display: Display,
        *,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        notifier: Notifier | None = None,
        settings_override: Mapping[str, Any] | None = None,
        buzzers: BuzzerArbiter | None = None,
        page_url: str | None = None,
    ) -> None:
        self.store = store
        self.display = display
        self.notifier = notifier or Notifier(None)
        self.loop: EventLoop[Any] = EventLoop(self._on_event, clock=clock)
        recovered = store.recover()  # logs what it found
        self.settings = store.load_settings()
        if settings_override:  # config.toml or the command line: applied at every start
            self.settings = Settings.from_json({**self.settings.to_json(), **settings_override})
        self.app = App(
            clock=clock,
            rng=rng or random.Random(),
            settings=self.settings,
            on_new_game=store.start,
            resume_offer=recovered.game,
            on_resume=store.resume,
            on_fact=store.remember_fact,
            on_settings=self._save_settings,
            table_facts=store.table_facts,
            player_names=store.roster_names,
            page_url=page_url,
            buzzers=buzzers,
        )
        self.startup_messages = recovered.messages + store.notices
        self._show_notices(recovered.messages)
        self.on_settings: list[Callable[[], None]] = []  # told after the menu changed a setting
        self._shown_version = -1
        self._shown_state = ""
        self._timer: Timer | None = None
        self.frames = 0

    def start(self) -> None:
        """Draw the first frame and arm the timers; after this the device answers keys."""
        self._show()
        self._schedule()
        interval = watchdog_interval()
        if interval:
            self.loop.call_every(interval, self.notifier.watchdog)

    def post(self, event: KeyEvent) -> None:
        """Hand a key event to the loop; safe from button and serial threads."""
        self.loop.post(event)

    def buzzed(self) -> None:
        """A quiz buzzer was pressed (its press is already with the arbiter); safe from any thread."""
        self.loop.post(Buzzed())

    def say(self, text: str) -> None:
        """Put a sentence from outside the UI (a keypad plugged in or out) on the screen; safe from any thread."""
        self.loop.post(Call(lambda: self._show_message(text)))

    def _show_message(self, text: str) -> None:
        self.app.show_message(text)
        self._show()
        self._schedule()

    def link_changed(self, status: LinkStatus) -> None:
        """Event mode's link status changed; safe from the publisher's thread (the loop draws it)."""
        self.loop.post(LinkChanged(status.mark))

    def seating_changed(self, names: Sequence[str]) -> None:
        """The event seats ``names`` at this table (none: no list); safe from the publisher's thread."""
        self.loop.post(SeatingChanged(names))

    def run(self) -> None:
        """Serve until stopped (SIGTERM, SIGINT or a finished script)."""
        with stop_on_signals(self.loop):
            # Ready only now: a SIGTERM from here on stops the loop cleanly instead of killing us.
            self.notifier.ready("showing the first screen")
            self.loop.run()
        self.notifier.stopping("saving and stopping")

    def close(self) -> None:
        self.store.close()

    # --- the loop's side -------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        if isinstance(event, ScriptDone):
            self.loop.stop()
            return
        if isinstance(event, Call):
            event.callback()
            return
        if isinstance(event, KeyEvent):
            self.app.handle(event)
            self._show_notices()
            self._show()
            self._schedule()
        elif isinstance(event, Buzzed):
            self.app.tick()
            self._show()
            self._schedule()
        elif isinstance(event, LinkChanged):
            self.app.show_status_mark(event.mark)
            self._show()  # a dim display shows the mark too; a blank one shows it when woken
        elif isinstance(event, SeatingChanged):
            self.app.offer_seated_names(event.names)
            self._show()

    def _on_timer(self) -> None:
        self._timer = None
        self.app.tick()
        self._show()
        self._schedule()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.app.next_deadline()
        if deadline is not None:
            self._timer = self.loop.call_at(deadline, self._on_timer)

    def _show(self) -> None:
        state = self.app.display_state
        if state != self._shown_state:
            if state == "off":
                self.display.hide()
            else:
                self.display.contrast(self.settings.contrast if state == "on" else DIM_CONTRAST)
                if self._shown_state in ("", "off"):
                    self.display.show()
            self._shown_state = state
        if self.app.version != self._shown_version and state != "off":
            self.display.display(self.app.render())
            self._shown_version = self.app.version
            self.frames += 1

    def _show_notices(self, first: Sequence[str] = ()) -> None:
        """Put what went wrong outside the UI (storage, start-up recovery) on the screen."""
        notices = [*first, *self.store.take_notices()]
        if notices:  # after the key's own refusal, if it had one
            self.app.show_message("; ".join(filter(None, [self.app.message, *notices])))

    def _save_settings(self, settings: Settings) -> None:
        self.settings = settings
        self._shown_state = ""  # contrast may have changed: apply it on the next show, saved or not
        self.store.save_settings(settings)
        for listener in self.on_settings:
            listener()


# --- the command line ----------------------------------------------------------------------

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


def scaled(frame: Image.Image, scale: int) -> Image.Image:
    """``frame`` with each pixel as ``scale`` x ``scale`` grey pixels, as the README's pictures are
    made (1: the frame itself)."""
    if scale == 1:
        return frame
    return frame.convert("L").resize((frame.width * scale, frame.height * scale), Image.Resampling.NEAREST)


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


def cmd_run(args: argparse.Namespace, luma_argv: Sequence[str], *, own_process: bool = False) -> int:
    config = load_config(args.config_toml)
    if config.path is not None and not args.check:
        log.info("options from %s", config.path)
    options = resolve_options(args, config)
    event = checked_event_section(config)  # a wrong [event] stops here, before anything is opened
    if options.verbose:
        logging.getLogger("companion").setLevel(logging.DEBUG)
    script, board, luma_args = _checked_parts(options, config, luma_argv)
    if options.check:  # what the service would run with, without touching the panel it may be driving
        return report_check(options, config, board, luma_args)
    with ExitStack() as cleanup:
        # entered first, left last: a second SIGTERM while closing everything below changes nothing
        signals = cleanup.enter_context(Signals(hangup_stops=options.mock and sys.stdout.isatty(),
                                                own_process=own_process))
        root = _state_root(options, script, cleanup)
        # held for the device's whole life; a second device stops here, before it resets the panel
        store = Store(root)
        cleanup.callback(store.close)
        attach_ack_pipe(store.journal_size, store.on_journalled, cleanup)  # a power-cut bench's observer; off normally
        display, screen = _open_display(options, luma_args)
        override = {name: getattr(options, name) for name in ("language", "contrast")
                    if getattr(options, name) is not None}
        buzzers = BuzzerArbiter() if options.buzzers or options.keypad_buzzers else None
        page = _start_page(options.web, root) if options.web else None
        if page is not None:
            cleanup.callback(page.stop)
        device = Device(store, display, rng=random.Random(options.seed), notifier=Notifier.from_environ(),
                        settings_override=override, buzzers=buzzers, page_url=page.phone_url if page else None)
        cleanup.callback(device.close)
        if page is not None:
            _follow(page, device)
        signals.attach(device.loop)
        for message in device.startup_messages:
            print(f"companion: {message}", file=sys.stderr)
        if event is not None:  # no network without [event]
            _start_event_mode(config, device, cleanup)
        _serve(options, script, board, device, display, screen)
        if options.save_frame:
            try:
                scaled(device.app.render(), options.save_frame_scale).save(options.save_frame)
            except OSError as err:
                raise ConfigError(f"--save-frame {options.save_frame}: cannot write it: {err.strerror}") from None
    return 0


def _start_event_mode(config: RunConfig, device: Device, cleanup: ExitStack) -> None:
    """Publish the journal to the event's broker: the link's mark goes to the screen's corner, the
    table's seated names to the setup form."""
    from companion.uplink.start import start_event_mode

    events = start_event_mode(config.sections, device.store, on_status=device.link_changed,
                              on_seating=device.seating_changed)
    if events is not None:
        cleanup.callback(events.close)


def _checked_parts(options: argparse.Namespace, config: RunConfig,
                   luma_argv: Sequence[str]) -> tuple[str | None, Board, argparse.Namespace]:
    """Everything a run needs read and checked before anything opens: the key script, the board
    with its buzzer pins and numpad, and luma's display options."""
    script = None
    if options.keys is not None:  # read and parsed now, so a bad script stops nothing half-started
        script = read_text_file(options.keys, "key script", limit=MAX_SCRIPT_BYTES)
        parse_script(script, str(options.keys))
    board = load_board(options.board or DEFAULT_BOARD)
    if options.buzzers is not None:
        check_buzzers_free(parse_buzzer_pins(options.buzzers), board)
    if options.numpad is not None:
        from companion.hw.numpad import EvdevBackend

        EvdevBackend()  # says which extra to install when python-evdev is missing
    return script, board, _display_args(options, board, [*config.luma_argv(), *luma_argv])


def _start_page(web: str, root: Path) -> TablePageServer:
    """The table page's server, bound (a busy port is a ConfigError now); imported only here, so a
    device without --web never loads it."""
    from companion.daemon.page import start_table_page

    page = start_table_page(web, root)
    print(f"companion: table page on {page.url} (phones open {page.phone_url})", file=sys.stderr)
    return page


def _follow(page: TablePageServer, device: Device) -> None:
    """The page follows every journalled line and the device's language, and starts serving."""
    view = page.view
    view.lang = lambda: device.app.lang
    device.store.on_journalled.append(view.wake)
    device.on_settings.append(view.wake)
    view.wake()
    page.serve_in_thread()
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


def hardware_problems(options: argparse.Namespace, luma_args: argparse.Namespace) -> list[str]:
    """What ``run --check`` finds absent on this machine: the display's bus or device (not in mock
    mode) and the keypad's serial port, which the run would wait for instead of using."""
    problems = [] if options.mock else list(filter(None, [bus_problem(luma_args)]))
    if options.keypad and not os.path.exists(options.keypad):
        problems.append(f"keypad {quoted(options.keypad, 120)}: no such serial port (is the Pico plugged in?"
                        " the device would start and wait for it)")
    return problems


class Signals:
    """How the device answers signals for its whole life, shutdown included (a context manager).

    SIGTERM and SIGINT stop the loop; one that comes before the loop exists stops it as soon as it
    is attached, and one that comes while the device is already saving and closing changes nothing
    (systemd, or an impatient user, may send a second: the run still ends cleanly, exit status 0).
    SIGHUP is logged and ignored, as a service that reads its config only at start: config.toml
    applies at the next start (``systemctl restart``); a hangup of the terminal the panel is drawn
    in (``hangup_stops``) stops the device like SIGTERM. Outside the main thread nothing changes.
    ``own_process``: the run is the whole process (the ``companion`` command), which exits next.
    """

    def __init__(self, *, hangup_stops: bool, own_process: bool = False) -> None:
        self.loop: EventLoop[Any] | None = None
        self.requested = False
        self._hangup_stops = hangup_stops
        self._own_process = own_process
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Signals:
        if threading.current_thread() is threading.main_thread():
            handlers = {signal.SIGTERM: self._stop, signal.SIGINT: self._stop,
                        signal.SIGHUP: self._stop if self._hangup_stops else self._ignore_hangup}
            self._previous = {signum: signal.signal(signum, handler) for signum, handler in handlers.items()}
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Give the caller its handlers back; a process that only exits now (``own_process``)
        ignores these signals instead, so a late one cannot cut the exit short."""
        for signum, handler in self._previous.items():
            signal.signal(signum, signal.SIG_IGN if self._own_process else handler)

    def attach(self, loop: EventLoop[Any]) -> None:
        """From now on a stop signal stops ``loop`` (at once, if one came already)."""
        self.loop = loop
        if self.requested:
            loop.stop()

    def _stop(self, signum: int, _frame: object) -> None:
        self.requested = True
        if self.loop is not None:
            self.loop.stop()  # once stopped, a no-op: the shutdown in progress goes on

    @staticmethod
    def _ignore_hangup(_signum: int, _frame: object) -> None:
        log.info("SIGHUP ignored: config.toml is read at start; restart the device to apply a change"
                 " (sudo systemctl restart tabletop-companion)")


def _state_root(options: argparse.Namespace, script: str | None, cleanup: ExitStack) -> Path:
    """Where the games are kept: --state-dir, a fresh temporary folder for a key script (a scripted
    run repeats: it never resumes an old game), or the user's state directory, checked writable."""
    if options.state_dir is not None:
        return options.state_dir  # type: ignore[no-any-return]  # the option is read with type=Path
    if script is not None:
        root = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="companion-keys-")))
        print("companion: --keys without --state-dir: playing on a fresh temporary state", file=sys.stderr)
        return root
    root = state_dir()
    check_state_dir(root)
    return root


def _serve(options: argparse.Namespace, script: str | None, board: Board, device: Device, display: Display,
           screen: TerminalScreen | None) -> None:
    """Open the key sources and run the device until it stops; on a recording bus, say what it sent."""
    try:
        with ExitStack() as running:
            if screen is not None:  # entered first, left last: errors print on the restored terminal
                running.enter_context(screen.shown(on_resize=lambda redraw: device.loop.post(Call(redraw))))
                display.watchers.append(screen.draw)
            # keys pressed while the terminal is too small to show the panel act on nothing seen: dropped
            post = device.post if screen is None else screen.while_shown(device.post)
            _open_keys(options, script, board, device, running, post)
            device.start()
            device.run()
    finally:
        if display.bus is not None:
            print(
                f"companion: frames shown {device.frames}, display bytes {display.bus.total_bytes}", file=sys.stderr
            )


def _display_args(options: argparse.Namespace, board: Board, luma_argv: Sequence[str]) -> argparse.Namespace:
    """luma's display options, parsed and checked (nothing is opened)."""
    check_emulator_available(requested_display(luma_argv))
    luma_args = parse_display_args(luma_argv, board)
    check_panel(luma_args)
    if options.page_address_offset is not None:
        luma_args.page_address_offset = options.page_address_offset
    if getattr(luma_args, "page_address_offset", None) is not None and luma_args.display != "sh1106":
        raise ConfigError(f"page_address_offset is an SH1106 setting; this display is {luma_args.display}")
    return luma_args


def _open_display(options: argparse.Namespace,
                  luma_args: argparse.Namespace) -> tuple[Display, TerminalScreen | None]:
    """The display to draw on, and in mock mode at a terminal the braille view of it."""
    asked_for = luma_args.display
    if not options.mock:
        return open_display(luma_args), None
    if asked_for == "capture":  # one PNG per frame: into a folder of their own, not over the working directory
        check_writable_dir(CAPTURE_DIR, "--display capture writes each frame into the folder")
        luma_args.file_template = str(CAPTURE_DIR / "frame_{0:06d}.png")
        print(f"companion: --display capture writes each frame as {CAPTURE_DIR}/frame_NNNNNN.png", file=sys.stderr)
    if asked_for in EMULATORS:
        return open_display(luma_args), None  # an emulator the user asked for (capture, gifanim...)
    display = open_display(luma_args, recording=True)  # the real driver class on a recording bus
    if display.bus is not None and sys.stdout.isatty():  # a person at a terminal: show them the panel
        return display, TerminalScreen(display.bus.panel, sys.stdout, terminal_size(sys.stdout.fileno()))
    return display, None


def _mock_keys(options: argparse.Namespace, script: str | None, board: Board, device: Device,
               post: Callable[[KeyEvent], None]) -> tuple[MockPad, ThreadedSource]:
    """Mock pins handing their keys to ``post``, and what presses them: the key script (on a clock
    of its own with ``--keys-virtual-time``), else the terminal's keyboard, else nothing."""
    if script is None:
        pad = MockPad(board.buttons, post, encoder_pins=board.encoder_pins)
        return pad, key_source_for(pad)
    done = (lambda: device.loop.post(ScriptDone())) if options.exit_when_done else None
    if not options.keys_virtual_time:
        pad = MockPad(board.buttons, post, encoder_pins=board.encoder_pins)
        return pad, ScriptKeySource(script, pad, name=str(options.keys), on_done=done)
    clock = VirtualTime()  # the debouncer's timers run in the script's thread as its sleeps jump the clock
    pad = MockPad(board.buttons, post, encoder_pins=board.encoder_pins,
                  clock=clock.now, sleep=clock.sleep, timer=clock.timer)
    return pad, ScriptKeySource(script, pad, name=str(options.keys), on_done=done, sleep=clock.sleep)


def _open_keys(options: argparse.Namespace, script: str | None, board: Board, device: Device,
               keys: ExitStack, post: Callable[[KeyEvent], None]) -> None:
    """Open every key source the options ask for, each handing its keys to ``post``; ``keys``
    closes them in reverse order."""
    if options.mock:
        pad, source = _mock_keys(options, script, board, device, post)
        keys.callback(pad.close)
        source.start()
        keys.callback(source.stop, timeout=2.0)
    else:
        from companion.hw.buttons import ButtonPad

        keys.enter_context(ButtonPad(board.buttons, post, encoder_pins=board.encoder_pins))
    arbiter = device.app.buzzers
    if options.buzzers and arbiter is not None:
        from companion.hw.buzzers import GpioBuzzers

        pins = parse_buzzer_pins(options.buzzers)
        keys.callback(GpioBuzzers(pins, arbiter, clock=device.app.now, on_press=device.buzzed).close)
    if options.keypad:
        from companion.hw.buzzers import KeypadBuzzers
        from companion.hw.serial_keypad import SerialKeypad

        seats = (
            KeypadBuzzers(arbiter, clock=device.app.now, on_press=device.buzzed)
            if options.keypad_buzzers and arbiter
            else None
        )
        keys.enter_context(  # entering starts its reader thread; leaving stops and joins it
            SerialKeypad(options.keypad, post, on_problem=lambda text: log.warning("keypad: %s", text),
                         on_seat=seats or (lambda press: None))
        )
    if options.numpad is not None:
        from companion.hw.numpad import EvdevBackend, Numpad

        def numpad_status(text: str) -> None:
            log.warning("%s", text)
            device.say(text)

        keys.enter_context(Numpad(options.numpad, EvdevBackend(), post, on_status=numpad_status))


def main_run(argv: Sequence[str], *, own_process: bool = False) -> int:
    """Entry for ``companion run``: our options, then luma's display options. ``own_process``: the
    run is the whole process (the ``companion`` command), so its signal handlers stay to the end."""
    parser = CommandLineParser(prog="companion run", description=RUN_DESCRIPTION, add_help=False,
                               allow_abbrev=False)  # a prefix must never take one of luma's options
    add_run_arguments(parser)
    try:
        ours, luma_argv = parser.parse_known_args(argv)
    except ConfigError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    if "-h" in luma_argv or "--help" in luma_argv:
        full = CommandLineParser(prog="companion run", description=RUN_DESCRIPTION, allow_abbrev=False,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        add_run_arguments(full)
        display_parser(None, full).print_help()
        return 0
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # While starting, Ctrl-C raises KeyboardInterrupt, so the terminal view and the journal are left
    # as they should be; the loop takes SIGINT over once serving. The caller's handler comes back after.
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler) if in_main_thread else None
    try:
        return cmd_run(ours, luma_argv, own_process=own_process)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C before the loop took over SIGINT: nothing was half-done
        return 130
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)
