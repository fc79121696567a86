"""The scoreboard's model: every table's games rebuilt from journal lines, and the event standings.

:class:`Board` is fed decoded messages (by :mod:`.scoreboard` from the broker, or by a test) and
trusts none of a device's summaries: each game is replayed line by line with the same engine as
``companion replay`` (:class:`~.stream.LineStream`). A line the rules refuse marks that game with the
table and line and stops only that game. Thread-safe: paho's thread writes, the web server and the
terminal read.

Standings count finished games only. In each game the players are placed by total (ties share the
better place, "1224"); a place earns ``rank_points[place - 1]`` (0 past the list's end). Players are
ranked by rank points, then by the sum of their totals, then by name.

>>> rows = standings([(["A", "B", "C"], [10, 4, 10]), (["A", "B", "C"], [1, 9, 3])], [3, 1, 0])
>>> [(s.player, s.rank_points, s.score) for s in rows]  # A and C share 1st, then 3rd and 2nd
[('C', 4, 13), ('B', 3, 13), ('A', 3, 11)]
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.event.stream import LineStream
from companion.event.wire import JournalMessage

DEFAULT_RANK_POINTS = (3, 2, 1, 0)


@dataclass(frozen=True, order=True)
class Standing:
    player: str
    games: int
    rank_points: int
    score: int
    wins: int


def places(totals: Sequence[int]) -> list[int]:
    """1-based place of each seat by total, ties sharing the better place.

    >>> places([5, 9, 5, 1])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def standings(results: Iterable[tuple[Sequence[str], Sequence[int]]], rank_points: Sequence[int]) -> list[Standing]:
    """Event standings from finished games given as ``(players, totals)``, best first."""
    tally: dict[str, list[int]] = {}
    for players, totals in results:
        for player, total, place in zip(players, totals, places(totals), strict=True):
            row = tally.setdefault(player, [0, 0, 0, 0])
            row[0] += 1
            row[1] += rank_points[place - 1] if place <= len(rank_points) else 0
            row[2] += total
            row[3] += place == 1
    rows = [Standing(name, *row) for name, row in tally.items()]
    return sorted(rows, key=lambda s: (-s.rank_points, -s.score, s.player))


@dataclass
class TrackedGame:
    """One game of one table as the scoreboard has it."""

    id: str
    stream: LineStream = field(default_factory=LineStream)
    announced: int = 0  # lines the device says the journal holds (status message)
    gap_since: float | None = None  # when lines were first seen missing
    requested_at: float | None = None  # when lines were last asked for again

    def missing(self) -> list[int]:
        """Lines still to come; none once the rules refused a line (nothing after it can apply)."""
        return [] if self.stream.failure is not None else self.stream.missing(self.announced)


@dataclass
class Table:
    id: str
    games: dict[str, TrackedGame] = field(default_factory=dict)
    current: str | None = None
    online: bool = False
    last_seen: float | None = None
    view: dict[str, Any] | None = None  # cached for the page; None when it must be rebuilt


class Board:
    """Every table of one event; feed it with :meth:`journal` and :meth:`status`."""

    def __init__(self, rank_points: Sequence[int] = DEFAULT_RANK_POINTS, *, gap_grace: float = 1.0) -> None:
        self.rank_points = tuple(rank_points)
        self.gap_grace = gap_grace
        self.tables: dict[str, Table] = {}
        self.applied = 0
        self.duplicates = 0
        self.latencies: list[tuple[float, float]] = []  # (device's publish time, seconds until applied)
        self.problems: list[str] = []  # bad messages, each once
        self.version = 0
        self._changed = threading.Condition()
        self._standings: list[Standing] | None = None
        self.closed = False

    # --- input -----------------------------------------------------------------------------

    def journal(self, table_id: str, message: JournalMessage, now: float) -> int:
        """One journal line from a table; returns the lines it let the engine apply."""
        with self._changed:
            table = self._table(table_id, now)
            if message.game not in table.games:
                table.current = message.game  # a game no status announced yet is the newest one
            game = self._game(table, message.game)
            before = game.stream.duplicates
            applied = game.stream.offer(message.line, message.data)
            self.duplicates += game.stream.duplicates - before
            if applied:
                self.applied += applied
                if message.sent is not None:
                    self.latencies.append((message.sent, max(0.0, now - message.sent)))
                self._touched(table, game)
            self._note_gap(game, now)
            return applied

    def status(self, table_id: str, data: dict[str, Any], now: float) -> None:
        """A table's retained status: online or not, its current game, and its games' line counts."""
        with self._changed:
            table = self._table(table_id, now)
            table.online = bool(data.get("online"))
            current = data.get("game")
            if isinstance(current, str) and current:
                table.current = current
                self._game(table, current)
            for game_id, lines in data.get("games", {}).items():
                game = self._game(table, game_id)
                game.announced = max(game.announced, lines)
                self._note_gap(game, now)
            self._touched(table, None)

    def problem(self, text: str) -> None:
        with self._changed:
            if text not in self.problems:
                self.problems.append(text)
                self._bump()

    def resend_due(self, now: float) -> list[tuple[str, str, int]]:
        """``(table, game, after)`` for every game whose missing lines waited ``gap_grace`` seconds."""
        due = []
        with self._changed:
            for table in self.tables.values():
                for game in table.games.values():
                    self._note_gap(game, now)
                    if game.gap_since is None or now - game.gap_since < self.gap_grace:
                        continue
                    if game.requested_at is not None and now - game.requested_at < self.gap_grace:
                        continue
                    game.requested_at = now
                    due.append((table.id, game.id, game.stream.applied))
        return due

    # --- output ----------------------------------------------------------------------------

    def wait_change(self, seen: int, timeout: float) -> int:
        """Block until the board changed after version ``seen`` (or timeout); returns the version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen or self.closed, timeout)
            return self.version

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def games(self) -> list[tuple[str, TrackedGame]]:
        """``(table, game)`` for every game seen, in table order."""
        with self._changed:
            ordered = sorted(self.tables.values(), key=lambda t: _table_order(t.id))
            return [(t.id, g) for t in ordered for g in t.games.values()]

    def finished_games(self) -> list[tuple[str, TrackedGame]]:
        """The games that count for the standings: over, and accepted by the rules to the end."""
        return [
            (table, g)
            for table, g in self.games()
            if g.stream.game is not None and g.stream.failure is None and g.stream.game.is_over()
        ]

    def standings(self) -> list[Standing]:
        with self._changed:
            if self._standings is None:
                results = [(g.stream.game.setup.players, g.stream.game.totals()) for _, g in self.finished_games()]
                self._standings = standings(results, self.rank_points)  # type: ignore[union-attr]
            return self._standings

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """Everything the page and the terminal show, as plain data (``now``: the clock of ``last_seen``)."""
        with self._changed:
            tables = []
            for table in sorted(self.tables.values(), key=lambda t: _table_order(t.id)):
                if table.view is None:
                    table.view = _table_view(table)
                tables.append(table.view)
            return {
                "version": self.version,
                "now": time.time() if now is None else now,
                "tables": tables,
                "standings": [s.__dict__ for s in self.standings()],
                "rank_points": list(self.rank_points),
                "problems": list(self.problems),
            }

    # --- inside the lock -------------------------------------------------------------------

    def _table(self, table_id: str, now: float) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            table = self.tables[table_id] = Table(table_id)
        table.last_seen = now
        return table

    def _game(self, table: Table, game_id: str) -> TrackedGame:
        game = table.games.get(game_id)
        if game is None:
            game = table.games[game_id] = TrackedGame(game_id)
        return game

    def _note_gap(self, game: TrackedGame, now: float) -> None:
        if game.missing():
            if game.gap_since is None:
                game.gap_since = now
        else:
            game.gap_since = game.requested_at = None

    def _touched(self, table: Table, game: TrackedGame | None) -> None:
        table.view = None
        if game is not None and game.stream.game is not None and game.stream.game.is_over():
            self._standings = None
        self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.notify_all()


def _table_order(table_id: str) -> tuple[int, str]:
    return (int(table_id), "") if table_id.isdigit() else (1 << 30, table_id)


def _table_view(table: Table) -> dict[str, Any]:
    game = table.games.get(table.current) if table.current else None
    view: dict[str, Any] = {
        "table": table.id,
        "online": table.online,
        "last_seen": table.last_seen,
        "games": len(table.games),
        "game": None,
    }
    if game is None or game.stream.game is None:
        return view
    played = game.stream.game
    summary = played.summary()
    deals = summary.get("deals", [])
    tricks = deals[-1]["tricks"] if deals else []
    failure = game.stream.failure
    view["game"] = {
        "id": game.id,
        "kind": played.game_id,
        "title": played.title,
        "players": list(played.setup.players),
        "deal": len(deals),
        "trick": len(tricks) + (0 if played.is_over() else 1),
        "totals": played.totals(),
        "over": played.is_over(),
        "winners": played.winners() if played.is_over() else [],
        "lines": game.stream.applied,
        "waiting_for": game.missing()[:5],
        "problem": f"table {table.id}, {failure}" if failure else None,
        "changed_lines": list(game.stream.conflicts),
    }
    return view
