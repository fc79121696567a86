"""``companion run``: the checked options (:mod:`companion.daemon.run_options`) become hardware (the
display, the key sources, the quiz buzzers, the table page, event mode) around one
:class:`~companion.daemon.device.Device`, which serves until a signal or a finished key script
stops it; everything opened is closed in reverse order, the journal last.
"""

from __future__ import annotations

import argparse
import logging
import random
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from companion.config import RunConfig, load_config
from companion.daemon.acks import attach as attach_ack_pipe
from companion.daemon.device import Call, Device, ScriptDone
from companion.daemon.loop import EventLoop
from companion.daemon.run_options import (
    RUN_DESCRIPTION,
    add_run_arguments,
    check_state_dir,
    check_writable_dir,
    checked_event_section,
    checked_parts,
    report_check,
    resolve_options,
)
from companion.daemon.sdnotify import Notifier
from companion.daemon.store import Store
from companion.errors import CompanionError, ConfigError
from companion.hw.boards import Board
from companion.hw.display import EMULATORS, Display, display_parser, open_display
from companion.hw.mock import MockPad, ScriptKeySource, ThreadedSource, VirtualTime, key_source_for
from companion.inputs import CommandLineParser
from companion.keys import KeyEvent
from companion.paths import cache_dir, state_dir
from companion.text import CHECKED_FILE, Catalog

if TYPE_CHECKING:
    from companion.daemon.page import TablePageServer
    from companion.hw.buzzers import BuzzerArbiter
    from companion.hw.terminal import TerminalScreen

log = logging.getLogger(__name__)

CAPTURE_DIR = Path("companion-frames")


def scaled(frame: Image.Image, scale: int) -> Image.Image:
    """``frame`` with each pixel as ``scale`` x ``scale`` grey pixels, as the README's pictures are
    made (1: the frame itself)."""
    if scale == 1:
        return frame
    return frame.convert("L").resize((frame.width * scale, frame.height * scale), Image.Resampling.NEAREST)


def cmd_run(args: argparse.Namespace, luma_argv: Sequence[str], *, own_process: bool = False) -> int:
    config = load_config(args.config_toml)
    if config.path is not None and not args.check:
        log.info("options from %s", config.path)
    options = resolve_options(args, config)
    event = checked_event_section(config)  # a wrong [event] stops here, before anything is opened
    if options.verbose:
        logging.getLogger("companion").setLevel(logging.DEBUG)
    script, board, luma_args = checked_parts(options, config, luma_argv)
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
        buzzers = quiz_buzzers() if options.buzzers or options.keypad_buzzers else None
        page = _start_page(options.web, root) if options.web else None
        if page is not None:
            cleanup.callback(page.stop)
        device = Device(store, display, rng=random.Random(options.seed), notifier=Notifier.from_environ(),
                        settings_override=override, buzzers=buzzers, page_url=page.phone_url if page else None,
                        catalog=Catalog.load(checked=cache_dir() / CHECKED_FILE))
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


def quiz_buzzers() -> BuzzerArbiter:
    """The arbiter of the quiz buzzers' presses; their module loads only for a table that has them."""
    from companion.hw.buzzers import BuzzerArbiter

    return BuzzerArbiter()


def _start_event_mode(config: RunConfig, device: Device, cleanup: ExitStack) -> None:
    """Publish the journal to the event's broker: the link's mark goes to the screen's corner, the
    table's seated names to the setup form."""
    from companion.uplink.start import start_event_mode

    events = start_event_mode(config.sections, device.store, on_status=device.link_changed,
                              on_seating=device.seating_changed)
    if events is not None:
        cleanup.callback(events.close)


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
        from companion.hw.terminal import TerminalScreen, terminal_size  # the braille view: only at a terminal

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
        from companion.hw.buzzers import GpioBuzzers, parse_buzzer_pins

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
