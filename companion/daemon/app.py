"""``companion run``: the device. Keys wake an event loop; the UI decides; the journal stores every
accepted action (fsync) before the screen shows it; the display is sent only what changed.

The same :class:`Device` runs on a Pi and in mock mode: only the pin factory and the display's bus
differ. Nothing here polls: the loop sleeps until a key event or the UI's next deadline (dim,
blank, the end of a flash) or the systemd watchdog's next beat.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from companion.daemon.loop import EventLoop, Timer, stop_on_signals
from companion.daemon.sdnotify import Notifier, watchdog_interval
from companion.daemon.store import Store
from companion.errors import CompanionError, ConfigError
from companion.hw.boards import Board, list_presets, load_board
from companion.hw.display import Display, display_parser, open_display
from companion.keys import KeyEvent
from companion.paths import state_dir
from companion.settings import Settings
from companion.ui.app import App

log = logging.getLogger(__name__)

DEFAULT_BOARD = "adafruit-oled-bonnet"
DIM_CONTRAST = 1  # the lowest visible contrast: readable up close, far from burn-in


class ScriptDone:
    """Posted by a finished key script when the device should stop once idle (demos, tests)."""


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
    ) -> None:
        self.store = store
        self.display = display
        self.notifier = notifier or Notifier(None)
        self.loop: EventLoop[Any] = EventLoop(self._on_event, clock=clock)
        recovered = store.recover()
        for message in recovered.messages:
            log.warning("%s", message)
        self.settings = store.load_settings()
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
        )
        self.startup_messages = recovered.messages
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
        self.notifier.ready("showing the first screen")

    def post(self, event: KeyEvent) -> None:
        """Hand a key event to the loop; safe from button and serial threads."""
        self.loop.post(event)

    def run(self) -> None:
        """Serve until stopped (SIGTERM, SIGINT or a finished script)."""
        with stop_on_signals(self.loop):
            self.loop.run()
        self.notifier.stopping("saving and stopping")

    def close(self) -> None:
        self.store.close()

    # --- the loop's side -------------------------------------------------------------------

    def _on_event(self, event: object) -> None:
        if isinstance(event, ScriptDone):
            self.loop.stop()
            return
        if isinstance(event, KeyEvent):
            self.app.handle(event)
            self._show()
            self._schedule()

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

    def _save_settings(self, settings: Settings) -> None:
        self.settings = settings
        self.store.save_settings(settings)
        self._shown_state = ""  # contrast may have changed: apply it on the next show


# --- the command line ----------------------------------------------------------------------


def configured_board(environ: Mapping[str, str] = os.environ) -> str:
    """The board named in ``$CONFIGURATION_DIRECTORY/config.toml`` (``board = "..."``), else the default."""
    directory = environ.get("CONFIGURATION_DIRECTORY")
    if not directory:
        return DEFAULT_BOARD
    path = Path(directory.split(":")[0]) / "config.toml"
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return DEFAULT_BOARD
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: {err}") from None
    board = config.get("board", DEFAULT_BOARD)
    if not isinstance(board, str):
        raise ConfigError(f"{path}: board must be a preset name or a file path")
    return board


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mock", action="store_true", help="simulated hardware: mock pins, display on a recording bus or a luma emulator")
    parser.add_argument("--board", help=f"board preset ({', '.join(list_presets())}) or a board file; default from config.toml, else {DEFAULT_BOARD}")
    parser.add_argument("--state-dir", type=Path, help="where games are journalled (default: $STATE_DIRECTORY or ~/.local/state/tabletop-companion)")
    parser.add_argument("--keys", type=Path, help="mock mode: a key script to play (press OK / hold BACK / wait 0.5 / repeat 3 press DOWN)")
    parser.add_argument("--exit-when-done", action="store_true", help="mock mode: stop once the key script has been played")
    parser.add_argument("--keypad", help="serial port of the optional Pico keypad, e.g. /dev/ttyACM0")
    parser.add_argument("--save-frame", type=Path, help="write the last frame shown as a PNG on exit")
    parser.add_argument("--seed", type=int, help="seed for the device's random draws (default: from the OS)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every journalled action (debug level)")


def cmd_run(args: argparse.Namespace, luma_argv: Sequence[str]) -> int:
    board = load_board(args.board or configured_board())
    display = _open_display(args, board, luma_argv)
    store = Store(args.state_dir or state_dir())
    device = Device(store, display, rng=random.Random(args.seed), notifier=Notifier.from_environ())
    for message in device.startup_messages:
        print(f"companion: {message}", file=sys.stderr)
    try:
        with ExitStack() as keys:
            _open_keys(args, board, device, keys)
            device.start()
            device.run()
    finally:
        if args.save_frame:
            device.app.render().save(args.save_frame)
        if display.bus is not None:
            print(f"companion: {device.frames} frames, {display.bus.total_bytes} display bytes", file=sys.stderr)
        device.close()
    return 0


def _open_display(args: argparse.Namespace, board: Board, luma_argv: Sequence[str]) -> Display:
    luma_args = display_parser(board).parse_args(list(luma_argv))
    if not args.mock:
        return open_display(luma_args)
    if "--display" in luma_argv or any(a.startswith("--display=") for a in luma_argv) or "-d" in luma_argv:
        return open_display(luma_args)  # an emulator the user asked for (capture, gifanim, asciiblock...)
    if sys.stdout.isatty():
        # a person at a terminal: show the screen as block art with luma's own emulator
        return open_display(display_parser(board).parse_args(["--display", "asciiblock", *luma_argv]))
    return open_display(luma_args, recording=True)  # headless: the real driver class on a recording bus


def _open_keys(args: argparse.Namespace, board: Board, device: Device, keys: ExitStack) -> None:
    """Open every key source the options ask for; ``keys`` closes them in reverse order."""
    if args.mock:
        from companion.hw.mock import MockPad, ScriptKeySource, key_source_for

        pad = MockPad(board.buttons, device.post, encoder_pins=board.encoder_pins)
        if args.keys is not None:
            done = (lambda: device.loop.post(ScriptDone())) if args.exit_when_done else None
            source = ScriptKeySource.from_file(args.keys, pad, on_done=done)
        else:
            source = key_source_for(pad)
        keys.callback(pad.close)
        source.start()
        keys.callback(source.stop, timeout=2.0)
    else:
        from companion.hw.buttons import ButtonPad

        keys.enter_context(ButtonPad(board.buttons, device.post, encoder_pins=board.encoder_pins))
    if args.keypad:
        from companion.hw.serial_keypad import SerialKeypad

        keys.enter_context(  # entering starts its reader thread; leaving stops and joins it
            SerialKeypad(args.keypad, device.post, on_problem=lambda text: log.warning("keypad: %s", text))
        )


def main_run(argv: Sequence[str]) -> int:
    """Entry for ``companion run``: our options, then luma's display options."""
    parser = argparse.ArgumentParser(prog="companion run", description=__doc__, add_help=False)
    add_run_arguments(parser)
    ours, luma_argv = parser.parse_known_args(argv)
    if "-h" in luma_argv or "--help" in luma_argv:
        full = argparse.ArgumentParser(prog="companion run", description=__doc__)
        add_run_arguments(full)
        display_parser(None, full).print_help()
        return 0
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if ours.verbose:
        logging.getLogger("companion").setLevel(logging.DEBUG)
    try:
        return cmd_run(ours, luma_argv)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return 2
