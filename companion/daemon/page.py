"""The table page: the device's current game, read only, on the players' phones (``run --web``).

``GET /`` is one self-contained page in the device's language: the score sheet (every deal, every
seat, the totals), a chart of each seat's total deal by deal (SVG the page draws itself), the trick
in progress, the last decision with its reason, the tricks so far with theirs, and a link to the
game's record (``/record.jsonl``, what ``companion export`` writes). It follows ``/events``
(server-sent events) and redraws on every change; ``/game.json`` is the same data.

The data come from the journal on disk, never from the device's memory: :class:`TableView` reads
the lines the device appended (it is woken after each one, on the device's loop, by a flag and a
notify), feeds them to the engine as the scoreboard does (:class:`~companion.event.stream.LineStream`)
and describes the game with :func:`~companion.report.rendered_summary`, the code behind
``companion replay --json``. Its own thread does that work once per change, whatever the number of
phones; each phone's stream only sends the bytes already made. Served by
:mod:`companion.httpserve` (CSP, nosniff, GET and HEAD only) over :mod:`companion.httpguard` (slow
or unread phones cannot keep others out).
Imported only when ``--web`` is given: the device starts as fast without it.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any

from companion.engine.tricks import Term, TrickGame
from companion.errors import CompanionError, ConfigError
from companion.event.stream import LineStream
from companion.httpserve import PageHandler, PageServer
from companion.inputs import parse_address
from companion.journal import CURRENT_JOURNAL
from companion.record import decode_line, export_lines
from companion.report import rendered_summary
from companion.text import Catalog, Formatter

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 16  # phones at one table, with room for reloads and downloads
MAX_PER_PHONE = 4  # from one address: a page, its stream, a download, a reload
GATHER = 0.1  # seconds without a new line before the view reads: it works in the pauses between presses
MOST_GATHER = 0.5  # but at least this often during a long burst: the page is still live within a second
READ_LIMIT = 1 << 20  # bytes read from the journal per pass: a whole game is a few dozen KiB
LABELS = ("title", "none", "sheet", "deal", "total", "chart", "trick", "last", "tricks", "waiting", "record", "live",
          "reconnecting", "read_only")


def page_data(game: TrickGame[Any] | None, lang: str, catalog: Catalog, problem: str = "") -> dict[str, Any]:
    """What the page shows, as JSON: the replay summary (``companion replay --json`` in ``lang``), the
    score sheet and chart drawn from it, and the trick in progress (cards down, no result yet)."""
    labels = {key: catalog.text(lang, f"page.{key}") for key in LABELS}
    if game is None:
        return {"lang": lang, "labels": labels, "game": None, "problem": problem}
    summary = rendered_summary(game, lang, catalog)
    scored = [deal["scores"] for deal in summary["deals"] if deal["scores"] is not None]
    current = game.state.deals[-1].tricks[-1] if game.state.deals and game.state.deals[-1].tricks else None
    in_progress = game.trick_cards(current) if current is not None and current.result is None else []
    played = [card for deal in summary["deals"] for trick in deal["tricks"] for card in trick["cards"]]
    abilities = {card["ability"] for card in [*played, *in_progress] if card.get("ability")}
    return {
        "lang": lang,
        "labels": labels,
        "game": game.title,
        "seats": [catalog.text(lang, "seat.label", n=seat + 1) for seat in range(len(summary["players"]))],
        "sheet": {"deals": [deal["scores"] for deal in summary["deals"]], "totals": summary["totals"]},
        "chart": running_totals(scored, len(summary["players"])),
        "in_progress": in_progress,
        "abilities": {ident: _term(game, "ability", ident, lang, catalog) for ident in sorted(abilities)},
        "summary": summary,
        "problem": problem,
    }


def _term(game: TrickGame[Any], kind: str, ident: str, lang: str, catalog: Catalog) -> str:
    """A term's name in ``lang``, as the replay's reasons name it (its card data, else the catalogue)."""
    return str(Formatter.for_game(catalog, lang, game).value(Term(kind, ident)))


def running_totals(scores: Sequence[Sequence[int]], seats: int) -> list[list[int]]:
    """Each seat's total after each scored deal: the chart's points, a line per seat.

    >>> running_totals([[3, 0, 1], [2, 5, 0]], 3)
    [[3, 5], [0, 5], [1, 1]]
    """
    totals = [0] * seats
    points: list[list[int]] = [[] for _ in range(seats)]
    for deal in scores:
        for seat, score in enumerate(deal):
            totals[seat] += score
            points[seat].append(totals[seat])
    return points


class TableView:
    """The current journal's game as the page shows it, refreshed on its own thread when woken."""

    def __init__(self, state_dir: Path, lang: Callable[[], str] = lambda: "en", catalog: Catalog | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = state_dir / CURRENT_JOURNAL
        self.clock = clock
        self.lang = lang  # the device's language now (read on this view's thread)
        self.catalog = catalog or Catalog.load()
        self.closed = False
        # Three locks, so the device's wake never waits for the view's work: the wake flag, the game
        # being built (the record download reads it too), and the page's data with its version.
        self._wake = threading.Condition()
        self._game_lock = threading.Lock()
        self._cond = threading.Condition()
        self._woken = True
        self._version = 0
        self._stream = LineStream()
        self._problem = ""
        self._file: tuple[int, int] | None = None  # (inode, bytes read) of the journal being followed
        self._more = False  # whether the last pass left bytes to read
        self._shown_lang = ""
        self._data = self._describe()
        self._thread = threading.Thread(target=self._run, name="table-page", daemon=True)

    # --- the device's side: cheap, never blocking -------------------------------------------

    def wake(self) -> None:
        """A line was journalled, or the language changed: look again soon."""
        with self._wake:
            self._woken = True
            self._wake.notify()

    # --- the page's side ---------------------------------------------------------------------

    def wait_change(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self._version != seen or self.closed, timeout)
            return self._version

    def event_data(self) -> tuple[int, bytes]:
        with self._cond:
            return self._version, self._data

    def record(self) -> tuple[str, bytes]:
        """The game's record as ``companion export`` writes it, and a file name for it."""
        with self._game_lock:
            game = self._stream.game
            if game is None:
                return "", b""
            return game.game_id, ("\n".join(export_lines(game)) + "\n").encode("utf-8")

    # --- the view's own thread ---------------------------------------------------------------

    def start(self) -> TableView:
        self._thread.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        for condition in (self._wake, self._cond):
            with condition:
                self.closed = True
                condition.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def refresh(self) -> bool:
        """Read what the journal gained and describe the game again if it (or the language) changed."""
        lines = self._new_lines()
        if self._more:
            self.wake()  # the journal holds more than one pass reads: the next pass goes on
        if not lines and self.lang() == self._shown_lang:
            return False
        with self._game_lock:
            for raw in lines:
                try:
                    self._stream.offer(self._stream.applied + 1, decode_line(raw))
                except CompanionError as err:
                    self._problem = self._problem or f"line {self._stream.applied + 1}: {err}"
            data = self._describe()
        with self._cond:
            self._data = data
            self._version += 1
            self._cond.notify_all()
        return True

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._woken or self.closed)
                began = self.clock()
                # a burst of presses is read in its first pause (or every MOST_GATHER), not between them
                while not self.closed and self.clock() - began < MOST_GATHER:
                    self._woken = False
                    if not self._wake.wait_for(lambda: self._woken or self.closed, GATHER):
                        break
                if self.closed:
                    return
                self._woken = False
            try:
                self.refresh()
            except Exception:  # a bug here must stop the page, never the device
                log.exception("the table page could not follow the journal")

    def _new_lines(self) -> list[bytes]:
        """Whole lines appended since the last pass; a new journal (a new game) starts over."""
        try:
            with open(self.path, "rb") as journal:
                found = os.fstat(journal.fileno())
                if self._file is None or self._file[0] != found.st_ino or found.st_size < self._file[1]:
                    self._file = (found.st_ino, 0)
                    with self._game_lock:
                        self._stream, self._problem = LineStream(), ""
                journal.seek(self._file[1])
                data = journal.read(min(READ_LIMIT, found.st_size - self._file[1]))
                self._more = found.st_size - self._file[1] > READ_LIMIT
        except FileNotFoundError:
            return []
        except OSError as err:
            self._problem = f"the journal cannot be read: {err.strerror or err}"
            return []
        end = data.rfind(b"\n") + 1
        if end == 0 and self._more:  # no line ends within a whole pass: not a journal the device wrote
            self._problem, self._more = f"a line of the journal is longer than {READ_LIMIT} bytes", False
        self._file = (self._file[0], self._file[1] + end)
        return data[:end].splitlines()

    def _describe(self) -> bytes:
        self._shown_lang = self.lang()
        game = self._stream.game
        problem = self._problem or (str(self._stream.failure) if self._stream.failure else "")
        data = page_data(game if isinstance(game, TrickGame) else None, self._shown_lang, self.catalog, problem)
        return json.dumps(data, ensure_ascii=False).encode("utf-8")


class TablePageServer(PageServer):
    """The table page of one :class:`TableView`; :meth:`serve_in_thread`, then :meth:`stop`. ``guard``
    options go to :class:`~companion.httpguard.GuardedHTTPServer` (a phone's caps by default)."""

    def __init__(self, address: tuple[str, int], view: TableView, **guard: Any) -> None:
        guard = {"max_connections": MAX_CONNECTIONS, "max_per_client": MAX_PER_PHONE, **guard}
        super().__init__(address, _Handler, PAGE, on_stop=view.close, name="table-page-web", **guard)
        self.view = view
        self.phone_url = phone_url(self.server_address)


class _Handler(PageHandler):
    server: TablePageServer

    def answer(self, path: str, body: bool) -> None:
        view = self.server.view
        if path == "/":
            self.send_data("text/html; charset=utf-8", PAGE.encode("utf-8"), body)
        elif path == "/events":
            self.stream_events(view)
        elif path == "/game.json":
            self.send_data("application/json", view.event_data()[1], body)
        elif path == "/record.jsonl":
            game_id, data = view.record()
            if not game_id:
                self.send_error(HTTPStatus.NOT_FOUND, "no game yet")
                return
            self.send_data("application/x-ndjson; charset=utf-8", data, body,
                           {"Content-Disposition": f'attachment; filename="{game_id}-record.jsonl"'})
        else:
            self.send_error(HTTPStatus.NOT_FOUND, "the table page has /, /events, /game.json and /record.jsonl")


def start_table_page(web: str, state_dir: Path) -> TablePageServer:
    """The page's server bound to ``web`` (``[HOST:]PORT``, loopback unless a host is given) and its
    view started; a ConfigError in one line when the address cannot be served."""
    address = parse_address(web, "--web")
    view = TableView(state_dir)
    try:
        server = TablePageServer(address, view)
    except OSError as err:
        raise ConfigError(f"--web {web}: cannot serve there ({err.strerror or err})") from None
    view.start()
    return server


def phone_url(server_address: tuple[Any, ...]) -> str:
    """The page's address as a phone on the room's network opens it: a wildcard host (0.0.0.0, ::)
    becomes this machine's address on the network its default route leaves by (no packet is sent)."""
    host, port = str(server_address[0]), server_address[1]
    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 9))  # TEST-NET-1: a route lookup only
                host = probe.getsockname()[0]
        except OSError:
            host = socket.gethostname()
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Table</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { background: #fff; color: #111; font: 1rem/1.4 system-ui, sans-serif; margin: .8rem; }
h1 { font-size: 1.3rem; margin: 0 0 .4rem; } h2 { font-size: 1.1rem; margin: 1rem 0 .3rem; }
table { border-collapse: collapse; } th, td { padding: .15rem .5rem; border-bottom: 1px solid #ccc; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; } tr.total td { font-weight: bold; }
#chart { width: 100%; max-width: 40rem; height: auto; border: 1px solid #ccc; }
#state, .note { color: #666; font-size: .85rem; } .bad { color: #b00; } ol { padding-left: 1.5rem; }
.key { display: inline-block; width: .8rem; height: .8rem; margin: 0 .2rem 0 .6rem; }
</style></head>
<body>
<h1><span id="game"></span> <span id="state">...</span></h1>
<p id="problem" class="bad"></p>
<h2 data-label="sheet"></h2>
<table id="sheet"><thead></thead><tbody></tbody></table>
<h2 data-label="chart"></h2>
<div id="legend"></div>
<svg id="chart" viewBox="0 0 400 200" xmlns="http://www.w3.org/2000/svg" role="img"></svg>
<h2 data-label="trick"></h2>
<p id="trick"></p><p id="waiting" class="note"></p>
<h2 data-label="last"></h2>
<p id="last"></p>
<h2 data-label="tricks"></h2>
<div id="tricks"></div>
<p><a id="record" href="record.jsonl" download data-label="record"></a></p>
<p class="note" data-label="read_only"></p>
<script>
"use strict";
const COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const SVG = "http://www.w3.org/2000/svg";
let labels = {};
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}
function who(d, seat) { return d.seats[seat] + " " + d.summary.players[seat]; }
function play(d, card) {
  const ability = card.ability ? " (" + (d.abilities[card.ability] || card.ability) + ")" : "";
  return who(d, card.seat) + ": " + (card.card || "-") + ability;
}
function sheet(d) {
  const head = document.querySelector("#sheet thead"), body = document.querySelector("#sheet tbody");
  const top = el("tr"); top.append(el("th", labels.deal));
  d.seats.forEach((_, seat) => top.append(el("th", who(d, seat), "n")));
  head.replaceChildren(top);
  const rows = d.sheet.deals.map((scores, i) => {
    const row = el("tr"); row.append(el("td", String(i + 1)));
    d.seats.forEach((_, seat) => row.append(el("td", scores ? String(scores[seat]) : "", "n")));
    return row;
  });
  const total = el("tr", undefined, "total"); total.append(el("td", labels.total));
  d.sheet.totals.forEach(t => total.append(el("td", String(t), "n")));
  body.replaceChildren(...rows, total);
}
function chart(d) {
  const box = document.getElementById("chart"), width = 400, height = 200, pad = 24;
  const all = d.chart.flat().concat([0]);
  const low = Math.min(...all), high = Math.max(...all, low + 1), deals = Math.max(1, d.chart[0].length);
  const x = i => pad + (width - 2 * pad) * (i + 1) / deals;
  const y = v => height - pad - (height - 2 * pad) * (v - low) / (high - low);
  const parts = [svg("line", {x1: pad, y1: y(0), x2: width - pad, y2: y(0), stroke: "#999"})];
  for (const value of [high, low]) {
    const label = svg("text", {x: 2, y: y(value) + 4, "font-size": 10, fill: "#666"});
    label.textContent = value; parts.push(label);
  }
  d.chart.forEach((points, seat) => {
    const colour = COLOURS[seat % COLOURS.length];
    const line = [[pad, y(0)], ...points.map((v, i) => [x(i), y(v)])].map(p => p.join(",")).join(" ");
    parts.push(svg("polyline", {points: line, fill: "none", stroke: colour, "stroke-width": 2}));
    points.forEach((v, i) => parts.push(
      svg("circle", {cx: x(i), cy: y(v), r: 3, fill: colour, "data-seat": seat, "data-deal": i + 1, "data-total": v})));
  });
  box.replaceChildren(...parts);
  document.getElementById("legend").replaceChildren(...d.seats.flatMap((_, seat) => {
    const key = el("span", undefined, "key"); key.setAttribute("data-colour", seat);
    key.append(svg("svg", {width: 12, height: 12}));
    key.firstChild.append(svg("rect", {width: 12, height: 12, fill: COLOURS[seat % COLOURS.length]}));
    return [key, el("span", who(d, seat))];
  }));
}
function tricks(d) {
  const blocks = [];
  d.summary.deals.forEach((deal, i) => {
    if (!deal.tricks.length) return;
    blocks.push(el("h3", labels.deal + " " + (i + 1)));
    const list = el("ol");
    deal.tricks.forEach(t => list.append(el("li", t.cards.map(c => play(d, c)).join(", ") + " \\u2192 " + t.reason)));
    blocks.push(list);
  });
  document.getElementById("tricks").replaceChildren(...blocks);
  const last = d.summary.deals.flatMap(deal => deal.tricks).pop();
  const decided = last ? last.cards.map(c => play(d, c)).join(", ") + " \u2192 " + last.reason : "-";
  document.getElementById("last").textContent = decided;
  const down = d.in_progress.map(c => play(d, c));
  document.getElementById("trick").textContent = down.length ? down.join(", ") : "-";
  const pending = d.summary.pending;
  const next = pending && (Number.isInteger(pending.seat) ? who(d, pending.seat) : pending.prompt);
  document.getElementById("waiting").textContent = next ? labels.waiting + ": " + next : "";
}
function draw(d) {
  labels = d.labels;
  document.documentElement.lang = d.lang;
  for (const node of document.querySelectorAll("[data-label]")) node.textContent = labels[node.dataset.label];
  document.getElementById("problem").textContent = d.problem || "";
  document.getElementById("game").textContent = d.game ? labels.title + ": " + d.game : labels.none;
  document.title = d.game || labels.title;
  if (d.game) { sheet(d); chart(d); tricks(d); }
  document.body.dataset.drawn = (Number(document.body.dataset.drawn) || 0) + 1;
}
const events = new EventSource("events");
events.onerror = () => { document.getElementById("state").textContent = labels.reconnecting || "..."; };
events.onmessage = e => { draw(JSON.parse(e.data)); document.getElementById("state").textContent = labels.live; };
</script>
</body></html>
"""
