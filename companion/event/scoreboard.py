"""``companion scoreboard``: the organiser's live view of every table of an event.

It subscribes to every table's journal and status topics (QoS 1, a persistent session so the broker
keeps what arrives while it is away), feeds a :class:`~.board.Board`, and asks a table to send
lines again (``.../resend``) when lines are missing for longer than a grace period: after a broker
that lost its queue, or when the scoreboard itself started late. It shows the board in the terminal
and on a read-only web page (:mod:`.web`), and writes CSV exports.
"""

from __future__ import annotations

import csv
import io
import logging
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from companion.storage import atomic_replace
from companion.engine.record import dumps
from companion.errors import CompanionError
from companion.event.board import Board
from companion.event.config import Broker, Topics
from companion.event.wire import decode_journal, decode_status, resend_message

log = logging.getLogger(__name__)


class Scoreboard:
    """A :class:`Board` kept up to date from the broker until :meth:`close`."""

    def __init__(
        self,
        broker: Broker,
        topics: Topics,
        board: Board,
        *,
        client_id: str | None = None,
        clock: Callable[[], float] = time.time,
        check_every: float = 0.5,
    ) -> None:
        self.broker = broker
        self.topics = topics
        self.board = board
        self.clock = clock
        self.connected = threading.Event()
        self.resends = 0
        self._check_every = check_every
        self._stop = threading.Event()
        self._checker = threading.Thread(target=self._check_gaps, name="scoreboard-gaps", daemon=True)
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or f"companion-scoreboard-{topics.event}",
            clean_session=False,  # the broker queues what comes while we are away
        )
        if broker.username is not None:
            self.client.username_pw_set(broker.username, broker.password())
        if broker.tls:
            self.client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None, cert_reqs=ssl.CERT_REQUIRED)
        self.client.max_inflight_messages_set(100)
        self.client.reconnect_delay_set(min_delay=1, max_delay=10)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> Scoreboard:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()
        self._checker.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        self._stop.set()
        self._checker.join(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self.board.close()

    def _on_connect(self, client: mqtt.Client, _userdata: Any, flags: Any, reason: Any, _props: Any) -> None:
        if reason.is_failure:
            log.error("broker %s:%d refused the scoreboard: %s", self.broker.host, self.broker.port, reason)
            return
        log.info("connected to %s:%d (session %s)", self.broker.host, self.broker.port,
                 "kept" if flags.session_present else "new")
        client.subscribe([(self.topics.every_table("journal"), 1), (self.topics.every_table("status"), 1)])
        self.connected.set()

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        self.connected.clear()
        log.warning("lost the broker (%s); reconnecting", reason)

    def _on_message(self, _client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        where = self.topics.table_of(message.topic)
        if where is None:
            return
        table, kind = where
        try:
            if kind == "journal":
                self.board.journal(table, decode_journal(message.payload), self.clock())
            elif kind == "status":
                self.board.status(table, decode_status(message.payload), self.clock())
        except CompanionError as err:
            self.board.problem(f"table {table}: {err}")

    def _check_gaps(self) -> None:
        while not self._stop.wait(self._check_every):
            if not self.connected.is_set():
                continue
            for table, game, after in self.board.resend_due(self.clock()):
                log.info("table %s game %s: asking again for the lines after %d", table, game, after)
                self.client.publish(self.topics.table(table, "resend"), resend_message(game, after), qos=1)
                self.resends += 1


# --- the terminal ------------------------------------------------------------------------------


def render_text(snapshot: dict[str, Any], now: float | None = None) -> str:
    """The board as plain text: one line per table, then the standings.

    >>> print(render_text({"tables": [{"table": "3", "online": True, "last_seen": 0.0, "games": 1,
    ...     "game": {"kind": "tezuma", "players": ["A", "B", "C"], "deal": 2, "trick": 4,
    ...     "totals": [5, 3, 0], "over": False, "problem": None, "waiting_for": [], "changed_lines": []}}],
    ...     "standings": [], "problems": []}, now=12.0))
    table    game          deal trick  players and totals             state
    3        tezuma           2     4  A 5, B 3, C 0                  online, seen 12 s ago
    <BLANKLINE>
    standings: no finished games yet
    """
    now = snapshot.get("now", time.time()) if now is None else now
    out = [f"{'table':8} {'game':12} {'deal':>5} {'trick':>5}  {'players and totals':30} state"]
    for view in snapshot["tables"]:
        game = view["game"]
        seen = "" if view["last_seen"] is None else f", seen {now - view['last_seen']:.0f} s ago"
        state = ("online" if view["online"] else "offline") + seen
        if game is None:
            out.append(f"{view['table']:8} {'-':12} {'':>5} {'':>5}  {'':30} {state}")
            continue
        players = ", ".join(f"{p} {t}" for p, t in zip(game["players"], game["totals"], strict=True))
        if game["over"]:
            state += ", finished"
        if game["waiting_for"]:
            state += f", waiting for line {game['waiting_for'][0]}"
        if game["changed_lines"]:
            state += f", line {game['changed_lines'][0]} came again changed (first kept)"
        if game["problem"]:
            state += f", REFUSED: {game['problem']}"
        out.append(f"{view['table']:8} {game['kind']:12} {game['deal']:5} {game['trick']:5}  {players:30} {state}")
    out.append("")
    if snapshot["standings"]:
        out.append("standings (rank points, then score):")
        out.append(f"{'#':>3} {'player':20} {'games':>5} {'points':>6} {'score':>6}")
        for place, row in enumerate(snapshot["standings"], start=1):
            out.append(f"{place:3} {row['player']:20} {row['games']:5} {row['rank_points']:6} {row['score']:6}")
    else:
        out.append("standings: no finished games yet")
    out += [f"problem: {p}" for p in snapshot["problems"]]
    return "\n".join(out)


# --- exports -----------------------------------------------------------------------------------


def standings_csv(board: Board) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["place", "player", "games", "rank_points", "score", "wins"])
    for place, row in enumerate(board.standings(), start=1):
        writer.writerow([place, row.player, row.games, row.rank_points, row.score, row.wins])
    return out.getvalue()


def games_csv(board: Board) -> str:
    """One row per game of every table: who played, the totals, and whether it is finished or refused."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["table", "game_id", "game", "players", "totals", "finished", "winners", "lines", "problem"])
    for table, tracked in board.games():
        game = tracked.stream.game
        if game is None:
            writer.writerow([table, tracked.id, "", "", "", "", "", tracked.stream.applied, "no header yet"])
            continue
        over = game.is_over()
        writer.writerow([
            table, tracked.id, game.game_id, " / ".join(game.setup.players),
            " / ".join(map(str, game.totals())), "yes" if over else "no",
            " / ".join(game.setup.players[s] for s in game.winners()) if over else "",
            tracked.stream.applied, str(tracked.stream.failure or ""),
        ])
    return out.getvalue()


def export(board: Board, directory: Path) -> list[Path]:
    """Write ``standings.csv``, ``games.csv`` and every game's record as ``records/<table>-<game>.jsonl``.

    A record is the journal lines as received (undos included), so ``companion replay`` reads it.
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
        path = records / f"{table}-{game_id}.jsonl"
        atomic_replace(path, "".join(dumps(line) + "\n" for line in lines).encode("utf-8"))
        written.append(path)
    return written
