"""``companion scoreboard``: its options and its main loop (paho-mqtt is imported only when it runs)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from companion.errors import ConfigError
from companion.event.config import DEFAULT_PREFIX, OPTION_NAMES, Topics, check_id, parse_broker
from companion.organiser.board import DEFAULT_RANK_POINTS, Board
from companion.paths import state_dir

REFRESH = 2.0  # seconds between terminal redraws while the board changes


def add_scoreboard_command(commands: Any) -> None:
    """Register ``scoreboard`` on the ``companion`` command's subparsers."""
    board = commands.add_parser(
        "scoreboard",
        help="an event's live scoreboard: every table's game from the broker, standings, a web page",
        description="Subscribe to every table of an event, rebuild each game with the rules engine, "
        "show the tables and standings in the terminal and on a read-only web page.",
    )
    board.add_argument("--broker", required=True, help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    board.add_argument("--event", required=True, help="the event id the tables were given")
    board.add_argument("--prefix", default=DEFAULT_PREFIX, help=f"topic prefix (default {DEFAULT_PREFIX})")
    board.add_argument("--username", help="the scoreboard's broker account")
    board.add_argument("--password-file", help="a file whose first line is that account's password")
    board.add_argument("--ca-file", help="CA certificate for an mqtts:// broker")
    board.add_argument("--http", default="127.0.0.1:8080", metavar="HOST:PORT",
                       help="where to serve the web page (default 127.0.0.1:8080; 0.0.0.0:8080 for the room; 'off')")
    board.add_argument("--rank-points", default=",".join(map(str, DEFAULT_RANK_POINTS)), metavar="P1,P2,...",
                       help="points for 1st, 2nd, ... place in each finished game (default %(default)s)")
    board.add_argument("--export", type=Path, metavar="DIR",
                       help="on exit, write standings.csv, games.csv and every game's record here (checked at start)")
    board.add_argument("--seating", type=Path, metavar="FILE",
                       help="the organiser's seating list, a line 'TABLE: NAME, NAME, ...' per table (or per table "
                       "and round): a game naming a player not seated at its table is not scored (checked at start; "
                       "read again on SIGHUP)")
    board.add_argument("--state", type=Path, metavar="DIR",
                       help="where the scoreboard keeps every game it rebuilt, to resume from after its own restart "
                       "(default: STATE/scoreboard/EVENT in the user's state directory)")
    board.add_argument("--client-id", help="MQTT client id (default companion-scoreboard-EVENT); a second "
                       "scoreboard of the same event needs its own, or the broker drops the first")
    board.add_argument("--quiet", action="store_true", help="no terminal view (the web page only)")
    board.set_defaults(handler=cmd_scoreboard)


def parse_rank_points(text: str) -> tuple[int, ...]:
    """``"3,2,1,0"`` as numbers.

    >>> parse_rank_points("4, 2,1")
    (4, 2, 1)
    """
    try:
        points = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise ConfigError(f"--rank-points must be whole numbers separated by commas, not {text!r}") from None
    return points


def parse_http(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (or ``off``), checked.

    >>> parse_http("0.0.0.0:8080"), parse_http("off")
    (('0.0.0.0', 8080), None)
    """
    if text == "off":
        return None
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--http must be HOST:PORT or off, not {text!r}")
    return host.strip("[]"), int(port)


def cmd_scoreboard(args: argparse.Namespace) -> int:
    """Check every option, then run until Ctrl-C or SIGTERM; export at the end. A stop at any moment
    (even during the start) ends cleanly: the signal only sets a flag."""
    stop, reload = threading.Event(), threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        (reload if signum == getattr(signal, "SIGHUP", None) else stop).set()

    signals = [signal.SIGINT, signal.SIGTERM, *([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])]
    previous = {s: signal.signal(s, on_signal) for s in signals}
    try:
        return _run(args, stop, reload)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def reload_seating(board: Board, path: Path) -> str:
    """Read the seating list again (on SIGHUP: the organiser added a round); a list with a mistake
    is said in one line and the one in force stays."""
    from companion.organiser.names import read_seating

    try:
        board.set_seating(read_seating(path))
    except ConfigError as err:
        return f"seating list not reloaded, the one in force stays: {err}"
    return f"seating list reloaded from {path}"


def _run(args: argparse.Namespace, stop: threading.Event, reload: threading.Event) -> int:
    try:
        from companion.event.mqtt import paho_link
        from companion.organiser.names import read_seating
        from companion.organiser.scoreboard import Scoreboard, check_export_dir, export, render_text
        from companion.organiser.state import BoardState
        from companion.organiser.web import ScoreboardServer
    except ImportError as err:
        raise ConfigError(f"the scoreboard needs paho-mqtt ({err}): pip install 'tabletop-companion[event]'") from None

    # Everything that can be wrong is found before anything starts: one line, exit status 2.
    broker = parse_broker(args.broker, ca_file=args.ca_file, username=args.username, password_file=args.password_file,
                          names=OPTION_NAMES)
    broker.password()  # an unreadable password file is said now, not on the first connection
    broker.check_ca_file(OPTION_NAMES)
    topics = Topics(check_id("prefix", args.prefix, OPTION_NAMES), check_id("event", args.event, OPTION_NAMES))
    seating = read_seating(args.seating) if args.seating is not None else None
    board = Board(parse_rank_points(args.rank_points), seating=seating)
    http = parse_http(args.http)
    if args.export is not None:
        check_export_dir(args.export)
    state = BoardState(args.state if args.state is not None else state_dir() / "scoreboard" / topics.event)
    state.check()
    server = None
    if http is not None:
        try:
            server = ScoreboardServer(http, board)
        except OSError as err:
            raise ConfigError(f"--http {args.http}: cannot serve there ({err.strerror or err})") from None

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    scoreboard = None
    try:
        loaded = state.load(board, stop)
        print(f"scoreboard state: {state.directory} ({loaded.summary()})", file=sys.stderr)
        if stop.is_set():
            return 0  # Ctrl-C while the state was read: nothing was started
        if server is not None:
            server.serve_in_thread()
            print(f"scoreboard page: {server.url}", file=sys.stderr)
        scoreboard = Scoreboard(broker, topics, board, client_id=args.client_id, state=state,
                                transport=paho_link).start()

        def show() -> int:
            snapshot = board.snapshot()
            clear = "\x1b[H\x1b[2J" if sys.stdout.isatty() else ""
            print(clear + time.strftime("%H:%M:%S"), flush=True)
            print(render_text(snapshot), flush=True)  # it says so while the broker cannot be reached
            return int(snapshot["version"])

        seen = -1
        while not stop.wait(REFRESH):
            if reload.is_set():
                reload.clear()
                if args.seating is not None:
                    print(reload_seating(board, args.seating), file=sys.stderr, flush=True)
                    scoreboard.publish_seating()  # and again at every connection to the broker
            if not args.quiet and board.version != seen:
                seen = show()
        if not args.quiet:
            show()  # the board as it stands at the end
    finally:
        if server is not None:
            server.stop()
        if scoreboard is not None:
            scoreboard.close()
        if args.export is not None:
            for path in export(board, args.export, say=lambda line: print(line, file=sys.stderr)):
                print(f"wrote {path}", file=sys.stderr)
    return 0
