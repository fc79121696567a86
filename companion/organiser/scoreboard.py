"""``companion scoreboard``: the organiser's live view of every table of an event.

It subscribes to every table's journal and status topics (QoS 1, a persistent session so the broker
keeps what arrives while it is away), feeds a :class:`~.board.Board`, and asks a table to send
lines again (``.../resend``) when lines are missing for longer than a grace period: after a broker
that lost its queue, or when the scoreboard itself started late. It shows the board in the terminal
and on a read-only web page (:mod:`.web`), and writes CSV exports.

It speaks MQTT 5 through its link (:mod:`companion.event.link`; a persistent session that never
expires, as MQTT 3's ``clean_session=False``), so a resend request the broker refuses comes back
with a reason code and is said. It also reads the broker's count of connected clients
(``$SYS/broker/clients/connected``, which the documented ACL lets it read): when other clients are
connected but nothing of any table arrives for ``quiet`` seconds, the broker is dropping the
tables' messages (an ACL that does not name the event, or devices given another event id), and the
page and the terminal say so.
"""

from __future__ import annotations

import collections
import csv
import io
import logging
import os
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.errors import CompanionError, ConfigError, StorageError
from companion.event.config import Broker, Topics
from companion.event.link import SYSTEM_CLOCK, Clock, Message, Reason, Session, Transport, sleep_unless
from companion.event.wire import MAX_MESSAGE, decode_journal, decode_status, resend_message, seating_message
from companion.names import shown_name
from companion.organiser.board import MAX_TABLES, Board
from companion.organiser.state import BoardState, safe_name
from companion.organiser.text import columns, fit, spreadsheet_safe
from companion.record import dumps
from companion.storage import atomic_replace
from companion.text import printable

log = logging.getLogger(__name__)

SAVE_EVERY = 2.0  # seconds between two saves of the state directory's changed games
QUIET = 30.0  # seconds after connecting with clients there and nothing from any table: the ACL is said
CLIENTS_TOPIC = "$SYS/broker/clients/connected"  # mosquitto's count, every sys_interval (10 s by default)
WIDTH = 80  # columns of the terminal view


class Scoreboard:
    """A :class:`Board` kept up to date from the broker until :meth:`close`."""

    def __init__(
        self,
        broker: Broker,
        topics: Topics,
        board: Board,
        *,
        client_id: str | None = None,
        clock: Clock = SYSTEM_CLOCK,
        transport: Transport | None = None,
        check_every: float = 0.5,
        state: BoardState | None = None,
        quiet: float = QUIET,
    ) -> None:
        """``transport`` makes the link to the broker (paho-mqtt's client unless given); ``clock``
        is what the board's times and the periodic check read and wait on."""
        self.broker = broker
        self.topics = topics
        self.board = board
        self.clock = clock
        self.state = state
        self.connected = threading.Event()
        self.resends = 0
        self.received: collections.Counter[str] = collections.Counter()  # messages per table, kept or not
        self.resent: collections.Counter[str] = collections.Counter()  # resend requests per table
        self._saved_at = float("-inf")
        self._quiet = quiet
        self._connected_at: float | None = None  # when the current connection began (self.clock)
        self._heard_since_connect = False  # any table's message since then
        self.broker_clients: int | None = None  # the broker's connected clients, ourselves included
        self._refusals_said: set[str] = set()
        self._seated: set[str] = set()  # tables whose seating message is on the broker
        self._seating_lock = threading.Lock()  # the link's thread (on connect) and a reload publish it
        self._check_every = check_every
        self._stopping = False
        self._stop = threading.Condition()  # notified when the scoreboard closes
        self._checker = threading.Thread(target=self._check_gaps, name="scoreboard-gaps", daemon=True)
        if transport is None:
            from companion.event.mqtt import paho_link

            transport = paho_link
        # a persistent session that never expires: the broker queues what comes while we are away
        session = Session(client_id or f"companion-scoreboard-{topics.event}", persistent=True, max_inflight=100,
                          reconnect_delays=(1, 10))
        self.link = transport(broker, session, self)

    def start(self) -> Scoreboard:
        self.board.set_broker_down(self.clock.time())  # until the first connection says otherwise
        self.link.start()
        self._checker.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        with self._stop:
            self._stopping = True
            self._stop.notify_all()
        self._checker.join(timeout)
        self.link.stop()
        self.save()
        self.board.close()

    def save(self) -> None:
        """Write the state directory's changed games (if there is a state directory)."""
        if self.state is not None:
            self.state.save(self.board)

    # --- the link's thread ------------------------------------------------------------------

    def link_connected(self, reason: Reason, session_present: bool) -> None:
        if reason.failed:
            log.error("broker %s:%d refused the scoreboard: %s", self.broker.host, self.broker.port, reason)
            return
        log.info("connected to %s:%d (session %s)", self.broker.host, self.broker.port,
                 "kept" if session_present else "new")
        now = self.clock.time()
        self.board.catch_up(now)  # what arrives now was queued or is resent: not heard live
        self._connected_at, self._heard_since_connect = now, False
        self.link.subscribe([(self.topics.every_table("journal"), 1), (self.topics.every_table("status"), 1),
                             (CLIENTS_TOPIC, 0)])
        self.connected.set()
        self.board.set_broker_down(None)
        self.publish_seating()

    def publish_seating(self) -> None:
        """Each table's seated names, retained on ``.../seating`` (its device offers them first); a table
        the list no longer seats has its message cleared. Nothing without a seating list."""
        seating = self.board.seating
        with self._seating_lock:
            tables = dict(seating.names) if seating is not None else {}
            for table, names in tables.items():
                self.link.publish(Message(self.topics.table(table, "seating"), seating_message(names), retain=True))
            for table in self._seated - set(tables):
                self.link.publish(Message(self.topics.table(table, "seating"), b"", retain=True))
            self._seated = set(tables)

    def link_lost(self, detail: str) -> None:
        if self.connected.is_set():
            log.warning("lost the broker (%s); reconnecting", detail)
            self.board.set_broker_down(self.clock.time())
        self.connected.clear()

    def link_message(self, topic: str, payload: bytes) -> None:
        """One message from a table: kept, or refused with a problem naming the table; never raises
        (an exception here would end the link's thread, and with it the scoreboard's input)."""
        if topic == CLIENTS_TOPIC:
            self.broker_clients = int(payload) if payload.isdigit() and len(payload) < 10 else None
            return
        where = self.topics.table_of(topic)
        if where is None:
            return
        self._heard_since_connect = True
        table, kind = where
        size = len(payload)
        try:
            if size > MAX_MESSAGE:
                self.board.problem(f"table {table}: a {kind} message of {size} bytes is over the scoreboard's limit of "
                                   f"{MAX_MESSAGE} bytes (message_size_limit); refused", table)
            elif kind == "journal":
                self.board.journal(table, decode_journal(payload), self.clock.time(), size)
            elif kind == "status":
                self.board.status(table, decode_status(payload), self.clock.time())
        except CompanionError as err:
            self.board.problem(f"table {table}: {err}", table)
        except Exception as err:  # a bug reached by a crafted message: said, and the next message is read
            log.exception("table %s: a %s message could not be handled", printable(table, 40), printable(kind, 20))
            self.board.problem(f"table {table}: a {kind} message could not be handled ({type(err).__name__})", table)
        finally:
            if table in self.received or len(self.received) < MAX_TABLES:
                self.received[table] += 1

    def link_acked(self, mid: int, reason: Reason) -> None:
        """A resend request the broker refused (its ACL): said once per reason, in the log and on the page."""
        if not reason.failed or str(reason) in self._refusals_said:
            return
        self._refusals_said.add(str(reason))
        text = (f"the broker refused the scoreboard's resend request ({reason}): the ACL must let the "
                f"scoreboard write {self.topics.every_table('resend')} (docs/mosquitto/acl)")
        log.error("%s", text)
        self.board.problem(text)

    def quiet_note(self, now: float) -> str | None:
        """What to say when other clients are connected but nothing of any table arrives."""
        if (not self.connected.is_set() or self._heard_since_connect or self._connected_at is None
                or now - self._connected_at < self._quiet or not self.broker_clients or self.broker_clients < 2):
            return None
        others = self.broker_clients - 1
        return (f"{others} other client{'s are' if others > 1 else ' is'} connected to the broker, but nothing of "
                f"event {self.topics.event}'s tables arrives: the broker's ACL must name event {self.topics.event} "
                f"(EVENT_ID in docs/mosquitto/acl filled in) and every device's [event] event must be "
                f"{self.topics.event}; a device whose lines the broker refuses shows x")

    # --- the checker's thread ---------------------------------------------------------------

    def _check_gaps(self) -> None:
        while not sleep_unless(self.clock, self._stop, lambda: self._stopping, self._check_every):
            try:
                self._check_once()
            except Exception:  # never let a bug stop the resend requests and the saves for good
                log.exception("the scoreboard's periodic check failed; trying again")

    def _check_once(self) -> None:
        now = self.clock.time()
        self.board.set_notice(self.quiet_note(now))
        if self.connected.is_set():
            for table, game, after, log_it in self.board.resend_due(now):
                if log_it:
                    log.info("table %s: asking again for missing lines (game %s after line %d; said once a minute)",
                             printable(table, 40), printable(game, 40), after)
                self.link.publish(Message(self.topics.table(table, "resend"), resend_message(game, after)))
                self.resends += 1
                self.resent[table] += 1
        if now - self._saved_at >= SAVE_EVERY:
            self._saved_at = now
            self.save()


# --- the terminal ------------------------------------------------------------------------------


def broker_note(snapshot: dict[str, Any]) -> str:
    """"cannot reach the broker (since HH:MM)" while the scoreboard has no broker, else ''.

    >>> broker_note({"broker_down_since": None}), broker_note({"broker_down_since": 0.0})[:30]
    ('', 'cannot reach the broker (since')
    """
    since = snapshot.get("broker_down_since")
    if since is None:
        return ""
    return f"cannot reach the broker (since {time.strftime('%H:%M', time.localtime(since))})"


def _fit(line: str) -> str:
    return line if columns(line) <= WIDTH else fit(line, WIDTH).rstrip()


def render_text(snapshot: dict[str, Any], now: float | None = None) -> str:
    """The board as plain text that fits 80 columns: a line per table (and one more for what is
    wrong or special about its game), then the standings. Everything a table sent is made
    printable (no escape sequences reach the terminal).

    >>> print(render_text({"tables": [{"table": "3", "online": True, "last_seen": 0.0, "games": 1,
    ...     "game": {"kind": "tezuma", "players": ["A", "B", "C\x1b[2J"], "deal": 2, "trick": 4,
    ...     "totals": [5, 3, 0], "over": False, "problem": None, "waiting_for": [7], "changed_lines": []}}],
    ...     "standings": [], "problems": []}, now=12.0))
    table  game         deal trick  players and totals          state
    3      tezuma          2     4  A 5, B 3, C?[2J 0           online, 12 s ago
           waiting for line 7
    <BLANKLINE>
    standings: no finished games yet
    """
    now = snapshot.get("now", time.time()) if now is None else now
    out = []
    down = broker_note(snapshot)
    if down:
        out.append(f"*** {down} ***")
    if snapshot.get("notice"):
        out += textwrap.wrap(f"*** {printable(snapshot['notice'], 400)} ***", WIDTH)
    out.append(f"{'table':6} {'game':12} {'deal':>4} {'trick':>5}  {'players and totals':27} state")
    for view in snapshot["tables"]:
        game = view["game"]
        seen = "" if view["last_seen"] is None else f", {max(0.0, now - view['last_seen']):.0f} s ago"
        state = ("online" if view["online"] else "offline") + seen
        table = fit(printable(view["table"], 40), 6)
        if game is None:
            out.append(_fit(f"{table} {'-':12} {'':>4} {'':>5}  {'':27} {state}"))
            continue
        players = printable(", ".join(f"{p} {t}" for p, t in zip(game["players"], game["totals"], strict=True)))
        out.append(_fit(f"{table} {fit(printable(game['kind'], 40), 12)} {game['deal']:4} {game['trick']:5}  "
                        f"{fit(players, 27)} {state}"))
        notes = []
        if game["over"]:
            notes.append("finished")
        if game.get("copy_of"):
            notes.append(f"a copy of {game['copy_of']}: not scored")
        if game.get("name_flag"):
            notes.append(f"NOT SCORED: {game['name_flag']}")
        if game["waiting_for"]:
            notes.append(f"waiting for line {game['waiting_for'][0]}")
        if game["changed_lines"]:
            notes.append(f"line {game['changed_lines'][0]} came again changed (first kept)")
        if game["problem"]:
            notes.append(f"REFUSED: {game['problem']}")
        if notes:
            out.append(_fit(" " * 7 + printable(", ".join(notes), WIDTH)))
    out.append("")
    if snapshot["standings"]:
        out.append("standings (rank points, then score):")
        out.append(f"{'#':>3} {'player':32} {'games':>5} {'points':>6} {'score':>6}")
        for place, row in enumerate(snapshot["standings"], start=1):
            out.append(_fit(f"{place:3} {fit(printable(row['player'], 40), 32)} {row['games']:5} "
                            f"{row['rank_points']:6} {row['score']:6}"))
    else:
        out.append("standings: no finished games yet")
    out += [_fit(f"problem: {printable(p, WIDTH)}") for p in snapshot["problems"]]
    return "\n".join(out)


# --- exports -----------------------------------------------------------------------------------


def _csv(rows: list[list[Any]]) -> str:
    """CSV whose cells a spreadsheet shows as text (no formulas, no control characters)."""
    out = io.StringIO()
    writer = csv.writer(out)
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
    return out.getvalue()


def standings_csv(board: Board) -> str:
    """The standings (a default name as "Aki (table 3)"), then a ``not scored`` row per game kept out
    for its player names (bounded per table like the page's problems)."""
    rows: list[list[Any]] = [["place", "player", "games", "rank_points", "score", "wins"]]
    for place, row in enumerate(board.standings(), start=1):
        rows.append([place, row.shown, row.games, row.rank_points, row.score, row.wins])
    rows += [["not scored", line] for line in board.flagged()]
    return _csv(rows)


def games_csv(board: Board) -> str:
    """One row per game of every table: who played, the totals, whether it is finished, refused, or a
    copy of another (not scored)."""
    board.standings()  # flags the copies and the names
    rows: list[list[Any]] = [["table", "game_id", "game", "players", "totals", "finished", "winners", "lines",
                              "problem"]]
    for table, tracked in board.games():
        game = tracked.stream.game
        if game is None:
            rows.append([table, tracked.id, "", "", "", "", "", tracked.stream.applied, "no header yet"])
            continue
        over = game.is_over()
        problem = str(tracked.stream.failure or "")
        if tracked.copy_of:
            problem = f"a copy of {tracked.copy_of}: not scored"
        elif tracked.name_flag:
            problem = f"{tracked.name_flag}: not scored"
        rows.append([
            table, tracked.id, game.game_id, " / ".join(shown_name(name) for name in game.setup.players),
            " / ".join(map(str, game.totals())),
            "yes" if over else "no",
            " / ".join(game.setup.players[s] for s in game.winners()) if over else "",
            tracked.stream.applied, problem,
        ])
    return _csv(rows)


def check_export_dir(directory: Path) -> None:
    """Refuse, before the scoreboard starts, an export folder that cannot be written (ConfigError).

    >>> check_export_dir(Path("/proc/version"))
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: --export /proc/version: a file is in the way; name a folder
    """
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"--export {directory}: a file is in the way; name a folder")
    try:
        (directory / "records").mkdir(parents=True, exist_ok=True)
        probe = directory / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise ConfigError(f"--export {directory}: cannot write there ({err.strerror or err})") from None


def export(board: Board, directory: Path, say: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Write ``standings.csv``, ``games.csv`` and every game's record as ``records/<table>-<game>.jsonl``.

    A record is the journal lines as received (undos included), so ``companion replay`` reads it. A
    game whose table or game id cannot name a file, or whose file cannot be written, is skipped
    with one line to ``say``; every other file is still written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = [directory / "standings.csv", directory / "games.csv"]
    atomic_replace(written[0], standings_csv(board).encode("utf-8"))
    atomic_replace(written[1], games_csv(board).encode("utf-8"))
    records = directory / "records"
    records.mkdir(exist_ok=True)
    streams = [(table, g.id, list(g.stream.lines)) for table, g in board.games()]
    for table, game_id, lines in streams:
        if not lines:
            continue
        if not (safe_name(table) and safe_name(game_id)):
            say(f"skipped table {printable(table, 40)!r} game {printable(game_id, 40)!r}: not a safe file name")
            continue
        path = records / f"{table}-{game_id}.jsonl"
        try:
            atomic_replace(path, "".join(dumps(line) + "\n" for line in lines).encode("utf-8"))
        except (StorageError, CompanionError) as err:
            say(f"skipped {path}: {err}")
            continue
        written.append(path)
    return written
