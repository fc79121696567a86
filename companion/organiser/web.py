"""The scoreboard's read-only web page: every table and the standings, live, readable on a projector.

``GET /`` is one self-contained page (no outside scripts or fonts); it opens ``GET /events``, a
server-sent event stream that sends the whole board as JSON whenever it changes (at most a few
times a second), and redraws. ``/standings.csv`` and ``/games.csv`` are the exports. Nothing can be
changed through the server: it answers GET and HEAD only, and it has no login: served on
``0.0.0.0`` it is readable by anyone on the room's network (docs/event.md).

The server is :mod:`companion.httpserve`'s, shared with the device's table page: every answer
carries a Content-Security-Policy that allows only the page's own inline script and style (by hash)
and connections back to this server, and ``X-Content-Type-Options: nosniff``. Slow or unread
clients cannot keep others out (:mod:`companion.httpguard`): a deadline per request, write
timeouts, a cap per client address, and the oldest idle stream closed first to make room.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from companion.httpserve import KEEPALIVE, MIN_INTERVAL, PageHandler, PageServer, security_headers
from companion.organiser.board import Board
from companion.organiser.scoreboard import games_csv, standings_csv

__all__ = ["KEEPALIVE", "MIN_INTERVAL", "SECURITY_HEADERS", "ScoreboardServer"]

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Scoreboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { background: #111; color: #eee; font: 1.4rem/1.4 system-ui, sans-serif; margin: 1rem 2rem; }
h1 { font-size: 2rem; margin: 0 0 .5rem; } h2 { font-size: 1.6rem; margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .2rem .6rem; border-bottom: 1px solid #333; vertical-align: top; }
th { color: #aaa; font-weight: normal; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.off { color: #f66; } .on { color: #6f6; } .done { color: #9cf; } .bad { color: #fc3; }
#state { color: #888; font-size: 1rem; } .note { color: #888; font-size: 1rem; }
</style></head>
<body>
<h1>Scoreboard <span id="state">connecting...</span></h1>
<p id="notice" class="bad"></p>
<h2>Tables</h2>
<table id="tables"><thead><tr><th>table</th><th>game</th><th>deal</th><th>trick</th>
<th>players and totals</th><th>state</th></tr></thead><tbody></tbody></table>
<h2>Standings</h2>
<table id="standings"><thead><tr><th>#</th><th>player</th><th>games</th><th>points</th><th>score</th>
</tr></thead><tbody></tbody></table>
<p id="names-note" class="note">A name a device gives a seat nobody named (Aki, Ben, ..., P1, Player 1) is that seat,
not a person: it is shown as "Aki (table 3)" and never added up across tables. A game naming a player seated
at another table, or a name two tables use at the same time ("contested"), is not scored until the organiser
settles it.</p>
<ul id="problems" class="bad"></ul>
<script>
"use strict";
function cell(row, text, cls) {
  const td = row.insertCell(); td.textContent = text; if (cls) td.className = cls; return td;
}
function draw(board) {
  const now = board.now;  // the scoreboard's clock, which also stamped last_seen
  const tables = document.querySelector("#tables tbody");
  tables.replaceChildren();
  for (const t of board.tables) {
    const row = tables.insertRow(); row.dataset.table = t.table;
    cell(row, t.table);
    const g = t.game;
    cell(row, g ? g.kind : "-");
    cell(row, g ? g.deal : "", "n"); cell(row, g ? g.trick : "", "n");
    cell(row, g ? g.players.map((p, i) => p + " " + g.totals[i]).join(", ") : "", "totals");
    let state = t.online ? "online" : "offline";
    if (t.last_seen !== null) state += ", seen " + Math.max(0, Math.round(now - t.last_seen)) + " s ago";
    if (g && g.over) state += ", finished";
    if (g && g.copy_of) state += ", a copy of " + g.copy_of + ": not scored";
    if (g && g.waiting_for.length) state += ", waiting for line " + g.waiting_for[0];
    if (g && g.changed_lines.length) state += ", line " + g.changed_lines[0] + " came again changed (first kept)";
    if (g && g.name_flag) state += ", NOT SCORED: " + g.name_flag;
    if (g && g.problem) state += ", REFUSED: " + g.problem;
    cell(row, state, g && (g.problem || g.name_flag) ? "bad" : g && g.over ? "done" : t.online ? "on" : "off");
  }
  const standings = document.querySelector("#standings tbody");
  standings.replaceChildren();
  board.standings.forEach((s, i) => {
    const row = standings.insertRow();
    cell(row, i + 1, "n"); cell(row, s.player); cell(row, s.games, "n");
    cell(row, s.rank_points, "n"); cell(row, s.score, "n");
  });
  const problems = document.getElementById("problems");
  problems.replaceChildren(...board.problems.map(p => {
    const li = document.createElement("li"); li.textContent = p; return li;
  }));
  document.body.dataset.version = board.version;
}
function live(board) {
  if (board.broker_down_since === null) return "live";
  const since = new Date(board.broker_down_since * 1000);
  const hhmm = String(since.getHours()).padStart(2, "0") + ":" + String(since.getMinutes()).padStart(2, "0");
  return "cannot reach the broker (since " + hhmm + ")";
}
const events = new EventSource("events");
events.onerror = () => { document.getElementById("state").textContent = "reconnecting..."; };
events.onmessage = (e) => {
  const board = JSON.parse(e.data); draw(board); document.getElementById("state").textContent = live(board);
  document.getElementById("notice").textContent = board.notice || "";
};
</script>
</body></html>
"""


class _BoardFeed:
    """The board as an event stream follows it: its version, and its snapshot as JSON."""

    def __init__(self, board: Board) -> None:
        self.board = board

    @property
    def closed(self) -> bool:
        return self.board.closed

    def wait_change(self, seen: int, timeout: float) -> int:
        return self.board.wait_change(seen, timeout)

    def event_data(self) -> tuple[int, bytes]:
        snapshot = self.board.snapshot()
        return snapshot["version"], json.dumps(snapshot, ensure_ascii=False).encode("utf-8")


SECURITY_HEADERS = security_headers(PAGE)


class ScoreboardServer(PageServer):
    """Serves one :class:`Board`; :meth:`serve_in_thread`, then :meth:`stop`. ``guard`` options go
    to :class:`~companion.httpguard.GuardedHTTPServer` (its caps and timeouts)."""

    def __init__(self, address: tuple[str, int], board: Board, **guard: Any) -> None:
        super().__init__(address, _Handler, PAGE, on_stop=board.close, name="scoreboard-web", **guard)
        self.board = board


class _Handler(PageHandler):
    server: ScoreboardServer

    def answer(self, path: str, body: bool) -> None:
        if path == "/events":
            self.stream_events(_BoardFeed(self.server.board))
        elif path == "/":
            self.send_data("text/html; charset=utf-8", PAGE.encode("utf-8"), body)
        elif path == "/standings.csv":
            self.send_data("text/csv; charset=utf-8", standings_csv(self.server.board).encode("utf-8"), body)
        elif path == "/games.csv":
            self.send_data("text/csv; charset=utf-8", games_csv(self.server.board).encode("utf-8"), body)
        elif path == "/board.json":
            self.send_data(
                "application/json", json.dumps(self.server.board.snapshot(), ensure_ascii=False).encode("utf-8"), body
            )
        else:
            self.send_error(
                HTTPStatus.NOT_FOUND, "the scoreboard has /, /events, /board.json, /standings.csv and /games.csv"
            )
