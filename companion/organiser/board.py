"""The scoreboard's model: every table's games rebuilt from journal lines, and the event standings.

:class:`Board` is fed decoded messages (by :mod:`.scoreboard` from the broker, or by a test) and
trusts none of a device's summaries: each game is replayed line by line with the same engine as
``companion replay`` (:class:`~companion.event.stream.LineStream`). A line the rules refuse marks that game with the
table and line and stops only that game. Thread-safe: paho's thread writes, the web server and the
terminal read.

Standings count finished games only, each once (a copy of a game heard of earlier is flagged), and
only games whose player names their table may give (:mod:`.names`: the seating list, or no overlap
with another table using the same name). In each game the players are placed by total (ties share
the better place, "1224"); a place earns ``rank_points[place - 1]`` (0 past the list's end). Players
are ranked by rank points, then by the sum of their totals, then by name. Names are one player when
:func:`companion.names.name_key` says so (case, full-width forms, invisible characters, look-alike
letters); the row shows the plainest spelling, flagged when look-alikes were merged into it. A
default name (Aki, P1) is a seat at one table, ``("Aki", "3")``, shown "Aki (table 3)".

>>> rows = standings([(["A", "B", "C"], [10, 4, 10]), (["A", "B", "C"], [1, 9, 3])], [3, 1, 0])
>>> [(s.player, s.rank_points, s.score) for s in rows]  # A and C share 1st, then 3rd and 2nd
[('C', 4, 13), ('B', 3, 13), ('A', 3, 11)]
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import RecordError
from companion.event.stream import MAX_AHEAD, MAX_LINES, LineStream
from companion.event.wire import JournalMessage
from companion.names import FLAG, is_flagged, name_key
from companion.organiser.names import CATCH_UP, PlayedGame, Seating, name_flags, standing_key, table_order
from companion.record import dumps, header_json
from companion.text import printable

log = logging.getLogger(__name__)

DEFAULT_RANK_POINTS = (3, 2, 1, 0)
# What one table can make the scoreboard hold, far beyond an honest table's evening (a few dozen
# games of at most a few hundred lines, a few kB each); past these, messages are counted, not kept.
MAX_TABLES = 2_000
MAX_GAMES_PER_TABLE = 200
MAX_TABLE_BYTES = 16 << 20  # journal payload bytes kept per table
MAX_PROBLEMS_PER_TABLE = 5  # shown; the rest are counted
MAX_PROBLEM_CHARS = 300
MAX_NAME_CHARS = 32  # a player name as shown (devices take far shorter ones)
MAX_LATENCIES = 1_000_000
RESEND_RETRY = 5.0  # seconds before the same game's lines are asked for again
RESEND_LOG_EVERY = 60.0  # seconds between two "asking again" log lines of one table


@dataclass(frozen=True, order=True)
class Standing:
    player: str
    games: int
    rank_points: int
    score: int
    wins: int
    table: str | None = None  # a default name's table: that seat, not a person
    also: tuple[str, ...] = ()  # other spellings of the same name (name_key) merged into this row

    @property
    def shown(self) -> str:
        """The player as the standings show it: "Aki (table 3)" for a default name, flagged when
        the name needed folding or look-alike spellings were merged into the row."""
        name = shown_player(self.player, bool(self.also))
        return f"{name} (table {printable(self.table, 40)})" if self.table is not None else name


def shown_player(name: str, merged: bool = False) -> str:
    """A player's name as the page and the terminal show it: printable, cut, and flagged
    (:func:`companion.names.shown_name`) when look-alikes were folded to compare it."""
    return printable(name, MAX_NAME_CHARS) + (FLAG if merged or is_flagged(name) else "")


def places(totals: Sequence[int]) -> list[int]:
    """1-based place of each seat by total, ties sharing the better place.

    >>> places([5, 9, 5, 1])
    [2, 1, 2, 4]
    """
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


Player = str | tuple[str, str]  # a name, or (default name, table): see names.standing_key


def standings(results: Iterable[tuple[Sequence[Player], Sequence[int]]], rank_points: Sequence[int]) -> list[Standing]:
    """Event standings from finished games given as ``(players, totals)``, best first; spellings
    of one name (:func:`companion.names.name_key`) are one row, under the plainest of them."""
    tally: dict[Player, list[int]] = {}
    spellings: dict[Player, set[str]] = {}
    for players, totals in results:
        for player, total, place in zip(players, totals, places(totals), strict=True):
            name, table = (player, None) if isinstance(player, str) else player
            key: Player = name_key(name) if table is None else (name_key(name), table)
            row = tally.setdefault(key, [0, 0, 0, 0])
            row[0] += 1
            row[1] += rank_points[place - 1] if place <= len(rank_points) else 0
            row[2] += total
            row[3] += place == 1
            spellings.setdefault(key, set()).add(name)
    rows = []
    for key, (games, points, score, wins) in tally.items():
        names = sorted(spellings[key], key=lambda n: (is_flagged(n), n))  # unflagged first, then in order
        table = None if isinstance(key, str) else key[1]
        rows.append(Standing(names[0], games, points, score, wins, table, tuple(names[1:])))
    return sorted(rows, key=lambda s: (-s.rank_points, -s.score, s.player, table_order(s.table or "")))


@dataclass
class TrackedGame:
    """One game of one table as the scoreboard has it."""

    id: str
    order: int = 0  # when the board first heard of it: the earliest of identical games is the one scored
    stream: LineStream = field(default_factory=LineStream)
    announced: int = 0  # lines the device says the journal holds (status message)
    gap_since: float | None = None  # when lines were first seen missing
    requested_at: float | None = None  # when lines were last asked for again
    copy_of: str | None = None  # "table 3, game 3-ab12": an identical finished game, which alone counts
    fingerprint: str | None = None  # of a finished game: its setup and actions, whatever its id
    heard: tuple[float, float] | None = None  # first and last new line heard live (scoreboard's clock)
    name_flag: str | None = None  # why its player names keep it out of the standings (names.name_flags)

    def missing(self, limit: int = 5) -> list[int]:
        """Lines still to come; none once the rules refused a line (nothing after it can apply).

        A count the table announced is believed only up to MAX_AHEAD lines past what arrived."""
        if self.stream.failure is not None:
            return []
        return self.stream.missing(min(self.announced, self.stream.applied + MAX_AHEAD), limit)

    def finished(self) -> bool:
        game = self.stream.game
        return game is not None and self.stream.failure is None and game.is_over()


@dataclass
class Table:
    id: str
    games: dict[str, TrackedGame] = field(default_factory=dict)
    current: str | None = None
    online: bool = False
    last_seen: float | None = None
    view: dict[str, Any] | None = None  # cached for the page; None when it must be rebuilt
    payload: int = 0  # journal bytes kept for this table
    problems: list[str] = field(default_factory=list)  # the first few, shown
    problems_unshown: int = 0  # the rest, counted
    resent_at: float | None = None  # the table's last resend request: one per gap_grace at most
    resend_logged_at: float | None = None
    refused: int = 0  # messages not kept (limits), counted


class Board:
    """Every table of one event; feed it with :meth:`journal` and :meth:`status`."""

    def __init__(self, rank_points: Sequence[int] = DEFAULT_RANK_POINTS, *, gap_grace: float = 1.0,
                 seating: Seating | None = None) -> None:
        self.rank_points = tuple(rank_points)
        self.gap_grace = gap_grace
        self.seating = seating
        self.live_after = float("-inf")  # lines heard before this (catching up after a connection) are not live
        self.heard_dirty: set[str] = set()  # tables whose games' heard times changed since the last save
        self._names_dirty = False  # names or heard times changed: check the names again (names.name_flags)
        self.tables: dict[str, Table] = {}
        self.applied = 0
        self.duplicates = 0
        self.latencies: deque[tuple[float, float]] = deque(maxlen=MAX_LATENCIES)  # (publish time, s until applied)
        self.problems: list[str] = []  # about no table in particular, each once (bounded like a table's)
        self.problems_unshown = 0
        self.broker_down_since: float | None = None  # set by the scoreboard while it cannot reach the broker
        self.notice: str | None = None  # what the scoreboard sees wrong with the broker's set-up (an ACL)
        self.dirty: set[tuple[str, str]] = set()  # (table, game) whose lines changed since the last save
        self._order = 0
        self.version = 0
        self._changed = threading.Condition()
        self._standings: list[Standing] | None = None
        self.closed = False

    # --- input -----------------------------------------------------------------------------

    def journal(self, table_id: str, message: JournalMessage, now: float, size: int = 0) -> int:
        """One journal line from a table (``size``: its payload bytes); returns the lines it let the
        engine apply. A table past its limits has the line counted, not kept."""
        with self._changed:
            table = self._table(table_id, now)
            if table is None:
                return 0
            new_game = message.game not in table.games
            game = self._game(table, message.game)
            if game is None:
                return 0
            if new_game:
                table.current = message.game  # a game no status announced yet is the newest one
            if table.payload + size > MAX_TABLE_BYTES:
                self._refuse(table, f"more than {MAX_TABLE_BYTES >> 20} MiB of journal lines; the rest are not kept")
                return 0
            before = game.stream.duplicates, len(game.stream.waiting), game.stream.applied
            known = game.stream.game, game.stream.failure
            applied = game.stream.offer(message.line, message.data)
            if (game.stream.game, game.stream.failure) != known:
                self._names_dirty = True  # a new game's names (seated elsewhere?), or a game refused
            self.duplicates += game.stream.duplicates - before[0]
            if (len(game.stream.waiting), game.stream.applied) != before[1:]:
                table.payload += size  # kept: counts against the table's budget
                self.dirty.add((table.id, game.id))
                if now >= self.live_after:  # heard live: the game was being played about now
                    game.heard = (now if game.heard is None else game.heard[0], now)
                    self.heard_dirty.add(table.id)
                    self._names_dirty = True
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
            if table is None:
                return
            table.online = data.get("online") is True
            current = data.get("game")
            if isinstance(current, str) and current and self._game(table, current) is not None:
                table.current = current
            for game_id, lines in data.get("games", {}).items():
                game = self._game(table, game_id)
                if game is None:
                    continue  # past the table's limit of games (counted); the games it has still count
                # a count is believed only as far as a game can go: it asks for lines, it holds none
                game.announced = max(game.announced, min(lines, MAX_LINES))
                self._note_gap(game, now)
            self._touched(table, None)

    def set_seating(self, seating: Seating | None) -> None:
        """A new seating list (reloaded by the organiser): every game is checked against it again."""
        with self._changed:
            self.seating = seating
            self._names_dirty = True
            for table in self.tables.values():
                table.view = None
            self._bump()

    def catch_up(self, now: float) -> None:
        """The scoreboard (re)connected to the broker at ``now``: for CATCH_UP seconds every table
        resends and the broker delivers what it queued, all at once, so arrival times say nothing of
        when a line was played and no line heard then is live."""
        with self._changed:
            self.live_after = now + CATCH_UP

    def problem(self, text: str, table_id: str | None = None) -> None:
        """A message that could not be used; a table's first few are kept, the rest counted."""
        with self._changed:
            table = self._table(table_id, None) if table_id is not None else None
            self._note_problem(table, text)

    def resend_due(self, now: float) -> list[tuple[str, str, int, bool]]:
        """``(table, game, after, log_it)``: lines to ask for again, at most one game per table per
        ``gap_grace`` seconds, each game at most every ``RESEND_RETRY`` seconds, whatever a table
        announces; ``log_it`` once per table per minute."""
        due = []
        with self._changed:
            for table in self.tables.values():
                if table.resent_at is not None and now - table.resent_at < self.gap_grace:
                    continue
                waiting = []
                for game in table.games.values():
                    self._note_gap(game, now)
                    if game.gap_since is None or now - game.gap_since < self.gap_grace:
                        continue
                    if game.requested_at is not None and now - game.requested_at < max(self.gap_grace, RESEND_RETRY):
                        continue
                    waiting.append(game)
                if not waiting:
                    continue
                game = min(waiting, key=lambda g: (g.requested_at or 0.0, g.order))  # the longest unasked
                game.requested_at = table.resent_at = now
                log_it = table.resend_logged_at is None or now - table.resend_logged_at >= RESEND_LOG_EVERY
                if log_it:
                    table.resend_logged_at = now
                due.append((table.id, game.id, game.stream.applied, log_it))
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
            ordered = sorted(self.tables.values(), key=lambda t: table_order(t.id))
            return [(t.id, g) for t in ordered for g in t.games.values()]

    def finished_games(self) -> list[tuple[str, TrackedGame]]:
        """The games that count for the standings: over, accepted by the rules to the end, not a
        copy of a game already counted (the same setup and actions under another id, from this
        table or another: each game counts once, the earliest heard of), and not flagged for the
        player names it gives (:mod:`.names`)."""
        with self._changed:
            return [(table, g) for table, g in self.games()
                    if g.finished() and g.copy_of is None and g.name_flag is None]

    def standings(self) -> list[Standing]:
        with self._changed:
            if self._standings is None:
                self._mark_copies()  # a game that became a copy or stopped being one proves nothing, or again
                self._names_dirty = True
            if self._names_dirty:
                self._names_dirty = False
                if self._mark_names():
                    self._standings = None
            if self._standings is None:
                results = []
                for table, tracked in self.finished_games():
                    game = tracked.stream.game
                    if game is not None:
                        players = [standing_key(name, table, self.seating) for name in game.setup.players]
                        results.append((players, game.totals()))
                self._standings = standings(results, self.rank_points)
            return self._standings

    def flagged(self) -> list[str]:
        """A line per game kept out of the standings for its player names, at most
        MAX_PROBLEMS_PER_TABLE per table (then one line counting the rest)."""
        with self._changed:
            self.standings()
            lines = []
            for table in sorted(self.tables.values(), key=lambda t: table_order(t.id)):
                shown, unshown = self._flag_lines(table, MAX_PROBLEMS_PER_TABLE)
                lines += shown
                if unshown:
                    lines.append(f"table {printable(table.id, 40)}: {unshown} more games not scored for their names")
            return lines

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """Everything the page and the terminal show, as plain data (``now``: the clock of ``last_seen``)."""
        with self._changed:
            rows = [{**s.__dict__, "player": s.shown, "table": None if s.table is None else printable(s.table, 40),
                     "also": [printable(name, MAX_NAME_CHARS) for name in s.also]} for s in self.standings()]
            tables = []  # after the standings, which may have flagged copies and names in the views
            for table in sorted(self.tables.values(), key=lambda t: table_order(t.id)):
                if table.view is None:
                    table.view = _table_view(table)
                tables.append(table.view)
            return {
                "version": self.version,
                "now": time.time() if now is None else now,
                "broker_down_since": self.broker_down_since,
                "notice": self.notice,
                "tables": tables,
                "standings": rows,
                "rank_points": list(self.rank_points),
                "problems": self._problem_lines(),
            }

    def set_broker_down(self, since: float | None) -> None:
        """The scoreboard lost (a time) or regained (None) the broker: the page and terminal say so."""
        with self._changed:
            if since != self.broker_down_since:
                self.broker_down_since = since
                self._bump()

    def set_notice(self, text: str | None) -> None:
        """What is wrong with the broker's set-up as the scoreboard sees it (None: nothing); the
        page and the terminal show it at the top."""
        with self._changed:
            if text != self.notice:
                self.notice = text
                self._bump()

    def take_dirty(self) -> list[tuple[str, str, list[dict[str, Any]]]]:
        """``(table, game, lines)`` of every game whose lines changed since the last call (for the
        state directory): the lines applied so far, copied."""
        with self._changed:
            dirty, self.dirty = self.dirty, set()
            found = [(t, g, self.tables[t].games.get(g)) for t, g in sorted(dirty) if t in self.tables]
            return [(t, g, list(game.stream.lines)) for t, g, game in found if game is not None and game.stream.lines]

    def take_heard(self) -> list[tuple[str, dict[str, list[float]]]]:
        """``(table, {game: [first, last]})`` of every table whose games were heard live since the
        last call (for the state directory: a restart must not lose when games were played)."""
        with self._changed:
            dirty, self.heard_dirty = self.heard_dirty, set()
            found = [self.tables[t] for t in sorted(dirty) if t in self.tables]
            return [(t.id, {g.id: list(g.heard) for g in t.games.values() if g.heard is not None}) for t in found]

    def mark_heard_dirty(self, tables: Iterable[str]) -> None:
        """Tables whose heard times could not be saved: the next :meth:`take_heard` returns them again."""
        with self._changed:
            self.heard_dirty.update(tables)

    def restore_heard(self, table_id: str, game_id: str, first: float, last: float) -> None:
        """When a game restored from the state directory was heard live before the restart."""
        with self._changed:
            table = self.tables.get(table_id)
            game = table.games.get(game_id) if table is not None else None
            if game is not None and first <= last:
                game.heard = (first, last)
                self._names_dirty = True
                self._bump()

    def mark_dirty(self, games: Iterable[tuple[str, str]]) -> None:
        """Games whose saving failed: the next :meth:`take_dirty` returns them again."""
        with self._changed:
            self.dirty.update(games)

    def restore(self, table_id: str, game_id: str, lines: Sequence[dict[str, Any]]) -> None:
        """A game from the scoreboard's state directory, lines 1.. in order (nothing is marked dirty)."""
        with self._changed:
            table = self._table(table_id, None)
            game = self._game(table, game_id) if table is not None else None
            if table is None or game is None:
                return
            for number, line in enumerate(lines[:MAX_LINES], start=1):
                self.applied += game.stream.offer(number, line)
            table.payload += sum(len(dumps(line)) for line in lines)
            table.current = game_id
            self._names_dirty = True
            self._touched(table, game)

    # --- inside the lock -------------------------------------------------------------------

    def _table(self, table_id: str, now: float | None) -> Table | None:
        table = self.tables.get(table_id)
        if table is None:
            if len(self.tables) >= MAX_TABLES:
                self._note_problem(None, f"more than {MAX_TABLES} tables: table {printable(table_id, 40)} is ignored")
                return None
            table = self.tables[table_id] = Table(table_id)
        if now is not None:
            table.last_seen = now
        return table

    def _game(self, table: Table, game_id: str) -> TrackedGame | None:
        game = table.games.get(game_id)
        if game is None:
            if len(table.games) >= MAX_GAMES_PER_TABLE:
                self._refuse(table, f"more than {MAX_GAMES_PER_TABLE} games; games after that are not kept")
                return None
            self._order += 1
            game = table.games[game_id] = TrackedGame(game_id, self._order)
        return game

    def _refuse(self, table: Table, why: str) -> None:
        table.refused += 1
        self._note_problem(table, f"table {printable(table.id, 40)}: {why}")

    def _note_problem(self, table: Table | None, text: str) -> None:
        text = printable(text, MAX_PROBLEM_CHARS)
        kept = table.problems if table is not None else self.problems
        if len(kept) < MAX_PROBLEMS_PER_TABLE and text not in kept:
            kept.append(text)
        elif table is not None:
            table.problems_unshown += 1
        else:
            self.problems_unshown += 1
        self._bump()

    def _problem_lines(self) -> list[str]:
        """What is wrong, bounded: a table shows at most MAX_PROBLEMS_PER_TABLE (its refused
        messages first, then its games not scored for their names) and counts the rest."""
        lines = list(self.problems)
        if self.problems_unshown:
            lines.append(f"{self.problems_unshown} more problems not shown")
        for table in sorted(self.tables.values(), key=lambda t: table_order(t.id)):
            flags, unflagged = self._flag_lines(table, MAX_PROBLEMS_PER_TABLE - len(table.problems))
            lines += table.problems + flags
            if table.problems_unshown + unflagged:
                lines.append(f"table {printable(table.id, 40)}: {table.problems_unshown + unflagged} more problems"
                             " not shown")
        return lines

    def _flag_lines(self, table: Table, room: int) -> tuple[list[str], int]:
        """The first ``room`` of a table's games not scored for their names, as lines, and how many more."""
        flagged = [g for g in table.games.values() if g.name_flag is not None]
        shown = flagged[: max(room, 0)]
        lines = [printable(f"{g.name_flag}: not scored (game {g.id})", MAX_PROBLEM_CHARS) for g in shown]
        return lines, len(flagged) - len(lines)

    def _mark_names(self) -> bool:
        """Flag every game whose player names its table may not give (:func:`.names.name_flags`);
        True if a flag changed. Refused games and copies are no one's games: they prove nothing and
        are not flagged."""
        every = self.games()
        played = [PlayedGame(table, g.id, tuple(g.stream.game.setup.players), g.heard) for table, g in every
                  if g.stream.game is not None and g.stream.failure is None and g.copy_of is None]
        flags = name_flags(played, self.seating)
        changed = False
        for table_id, game in every:
            flag = flags.get((table_id, game.id))
            if flag != game.name_flag:
                game.name_flag = flag
                self.tables[table_id].view = None
                changed = True
        return changed

    def _mark_copies(self) -> None:
        """Flag every finished game identical to one heard of earlier (see :meth:`finished_games`)."""
        first: dict[str, tuple[str, TrackedGame]] = {}
        every = [(t, g) for t, g in self.games() if g.finished()]
        for table_id, game in sorted(every, key=lambda pair: pair[1].order):
            if game.fingerprint is None:
                game.fingerprint = _fingerprint(game)
            original = first.setdefault(game.fingerprint, (table_id, game))
            copy_of = None if original[1] is game else f"table {original[0]}, game {original[1].id}"
            if copy_of != game.copy_of:
                game.copy_of = copy_of
                self.tables[table_id].view = None

    def _note_gap(self, game: TrackedGame, now: float) -> None:
        if game.missing():
            if game.gap_since is None:
                game.gap_since = now
        else:
            game.gap_since = game.requested_at = None

    def _touched(self, table: Table, game: TrackedGame | None) -> None:
        table.view = None
        if game is not None and game.finished():
            self._standings = None
        self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.notify_all()


def _fingerprint(game: TrackedGame) -> str:
    """What makes two finished games the same game: setup (seed included) and actions, not the id."""
    played = game.stream.game
    if played is None:
        return ""
    digest = hashlib.sha256(dumps(header_json(played.setup)).encode())
    for action in played.actions:
        digest.update(b"\n" + dumps(action.to_json()).encode())
    return digest.hexdigest()


def _table_view(table: Table) -> dict[str, Any]:
    game = table.games.get(table.current) if table.current else None
    view: dict[str, Any] = {
        "table": printable(table.id, 40),
        "online": table.online,
        "last_seen": table.last_seen,
        "games": len(table.games),
        "game": None,
    }
    if game is None or game.stream.game is None:
        return view
    played = game.stream.game
    failure: RecordError | str | None = game.stream.failure
    try:
        summary = played.summary()
        deals = summary.get("deals", [])
        tricks = deals[-1]["tricks"] if deals else []
        over = played.is_over()
        totals, winners = played.totals(), (played.winners() if over else [])
    except Exception as err:  # a rules bug reached by a crafted game: this table says so, the board goes on
        log.exception("table %s: the game's summary failed", printable(table.id, 40))
        deals, tricks, over, totals, winners = [], [], False, [0] * len(played.setup.players), []
        failure = failure or f"the engine failed to summarise the game ({type(err).__name__})"
    view["game"] = {
        "id": printable(game.id, 40),
        "kind": played.game_id,
        "title": played.title,
        "players": [shown_player(p) for p in played.setup.players],
        "deal": len(deals),
        "trick": len(tricks) + (0 if over else 1),
        "totals": totals,
        "over": over,
        "winners": winners,
        "lines": game.stream.applied,
        "waiting_for": game.missing(),
        "problem": printable(f"table {table.id}, {failure}", MAX_PROBLEM_CHARS) if failure else None,
        "changed_lines": game.stream.conflicts[:5],
        "copy_of": game.copy_of,
        "name_flag": None if game.name_flag is None else printable(game.name_flag, MAX_PROBLEM_CHARS),
    }
    return view
