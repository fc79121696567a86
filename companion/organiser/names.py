"""Whose games a table may score: player names checked against the seating list, or against each other.

Standings match players by the names the devices give, and a table account can give any name. Three
rules keep a table from scoring games for another table's players (docs/event.md, "Player names"):

1. **The seating list is the authority when the organiser gives one** (``--seating FILE``): a game
   naming a player not seated at its table is flagged and not scored.
2. **Without it, overlap by the scoreboard's own clock is the proof.** A name used by games of two
   different tables whose activity overlaps (the first and last line the scoreboard heard live) is
   *contested* at both and scored at neither. Devices' clocks are not trusted, and a line heard while
   the scoreboard catches up after (re)connecting to the broker is not live: its arrival time says
   when it was resent, not when it was played. Games one after the other at different tables (a
   player moving between rounds) never overlap.
Names are compared by one normalisation everywhere (:func:`companion.names.name_key`: NFKC, case,
invisible characters and Unicode TR39 look-alikes), so Cyrillic ``G\u0435n`` at one table is ``Gen``
at another: contested when both play at once, one row in the standings otherwise, and shown flagged
(:func:`companion.names.shown_name`) since the organiser cannot see the difference.

3. **Default names are a seat, not a person**: the names a device fills in when nobody chose one (the
   first names of its seat-name list, Aki, Ben, ... and あき, べん, ...) and the seat labels P1, Player 1
   appear at every table, so they are never merged across tables nor contested; the standings show
   "Aki (table 3)". A name the seating list seats is a person, default or not.

>>> seating = parse_seating("1: Alice, Bob, Aki\\n2: Carol, Dan, Eve", "seats.txt")
>>> games = [PlayedGame("1", "g1", ("Alice", "Bob", "Aki"), (0.0, 9.0)),
...          PlayedGame("2", "g2", ("Carol", "Alice", "Aki"), (5.0, 20.0))]
>>> name_flags(games, seating)
{('2', 'g2'): 'table 2 names Alice, seated at table 1'}
>>> name_flags(games, None)  # no list: Alice at two tables at once; Aki is a default name
{('1', 'g1'): 'contested: Alice at tables 1 and 2 at once', ('2', 'g2'): 'contested: Alice at tables 1 and 2 at once'}
>>> [standing_key(n, "2", None) for n in ("Alice", "Aki", "P2")], standing_key("Aki", "1", seating)
(['Alice', ('Aki', '2'), ('P2', '2')], 'Aki')
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import ConfigError, StorageError
from companion.names import name_key, shown_name
from companion.registry import game_class, game_ids
from companion.storage import read_file
from companion.text import load_seat_names

CATCH_UP = 60.0  # seconds after each connection to the broker during which lines are not heard live
MAX_SEATING_BYTES = 1 << 20
MAX_SEAT_NAME = 32  # characters: a seating list's name (a device's are far shorter)
MAX_SEATS = 10  # seat labels P1..P10, Player 1..Player 10 are default names
_TABLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # as a table account (config.check_id)


@functools.cache
def default_names() -> frozenset[str]:
    """:func:`name_key` of every name a device gives a seat nobody named: the setup form fills seat
    *n* with the *n*-th name of its language's seat-name list (up to the most players any game
    takes), and P1, Player 1, ... are the seat labels."""
    most = max(game_class(game).max_players for game in game_ids())
    pool = [name for names in load_seat_names().values() for name in names[:most]]
    labels = [label for n in range(1, MAX_SEATS + 1) for label in (f"P{n}", f"Player {n}")]
    return frozenset(name_key(name) for name in [*pool, *labels])


@dataclass(frozen=True)
class Seating:
    """The organiser's seating list: the names seated at each table (a name may sit at several)."""

    tables: Mapping[str, frozenset[str]]  # table id -> name keys seated there
    where: Mapping[str, tuple[str, ...]]  # name key -> the tables it is seated at, in the list's order
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # table id -> its names as written

    def seats(self, name: str) -> bool:
        return name_key(name) in self.where

    def allows(self, table: str, name: str) -> bool:
        return name_key(name) in self.tables.get(table, frozenset())


def parse_seating(text: str, source: str) -> Seating:
    """A seating list: ``TABLE: NAME, NAME, ...`` per line; ``#`` starts a comment, blank lines are
    skipped; a table may have several lines (one per round: the names add up). A mistake is a
    ConfigError naming the file and the line.

    >>> parse_seating("# round 1\\n3: Alice, Bob\\n3: Carol\\n5: Alice", "s").where["alice"]
    ('3', '5')
    >>> parse_seating("3 Alice", "s")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: --seating s, line 1: expected 'TABLE: NAME, NAME, ...', not '3 Alice'
    """
    tables: dict[str, set[str]] = {}
    where: dict[str, list[str]] = {}
    written: dict[str, dict[str, str]] = {}  # table id -> name key -> the name as first written
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue

        def bad(why: str, number: int = number) -> ConfigError:
            return ConfigError(f"--seating {source}, line {number}: {why}")

        table, colon, rest = line.partition(":")
        table = table.strip()
        if not colon:
            raise bad(f"expected 'TABLE: NAME, NAME, ...', not {line[:60]!r}")
        if not _TABLE.match(table):
            raise bad(f"a table id is 1-64 letters, digits, '_', '.' or '-' (the table's account), not {table[:60]!r}")
        names = [name.strip() for name in rest.split(",")]
        for name in names:
            if not name:
                raise bad("an empty name (two commas, or a comma at the end)")
            if len(name) > MAX_SEAT_NAME or any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
                raise bad(f"a name is at most {MAX_SEAT_NAME} printable characters, not {name[:40]!r}")
        keys = [name_key(name) for name in names]
        if len(set(keys)) != len(keys):
            raise bad("a name is seated twice at the same table")
        for key in keys:
            if table not in where.setdefault(key, []):
                where[key].append(table)
        tables.setdefault(table, set()).update(keys)
        for key, name in zip(keys, names, strict=True):
            written.setdefault(table, {}).setdefault(key, name)
    if not tables:
        raise ConfigError(f"--seating {source}: no table in it (a line is 'TABLE: NAME, NAME, ...')")
    return Seating({t: frozenset(n) for t, n in tables.items()}, {k: tuple(t) for k, t in where.items()},
                   {t: tuple(n.values()) for t, n in written.items()})


def read_seating(path: Path) -> Seating:
    """The seating list in ``path`` (UTF-8), checked; any fault is one ConfigError line."""
    try:
        data = read_file(path, MAX_SEATING_BYTES)
    except FileNotFoundError:
        raise ConfigError(f"--seating {path}: no such file") from None
    except (StorageError, OSError) as err:
        raise ConfigError(f"--seating {path}: cannot read it ({err})") from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark: Windows editors write one
    except UnicodeDecodeError:
        raise ConfigError(f"--seating {path}: not UTF-8 text") from None
    return parse_seating(text, str(path))


@dataclass(frozen=True)
class PlayedGame:
    """What the rules need of one game: where, whose names, and when it was heard live (or None)."""

    table: str
    game: str
    players: tuple[str, ...]
    heard: tuple[float, float] | None  # first and last line heard live, by the scoreboard's clock

    @property
    def key(self) -> tuple[str, str]:
        return self.table, self.game


def is_default(name: str, seating: Seating | None) -> bool:
    """A name that stands for a seat, not a person: a default name the seating list does not seat."""
    return name_key(name) in default_names() and not (seating is not None and seating.seats(name))


def standing_key(name: str, table: str, seating: Seating | None) -> str | tuple[str, str]:
    """Who a seat is in the standings: the name, or ``(name, table)`` for a default name."""
    return (name, table) if is_default(name, seating) else name


def name_flags(games: Sequence[PlayedGame], seating: Seating | None) -> dict[tuple[str, str], str]:
    """``{(table, game): why}`` for every game that must not be scored for the names it gives (rules
    1 and 2 above); each game is named by its first flaw."""
    flags: dict[tuple[str, str], str] = {}
    if seating is not None:
        for game in games:
            for name in game.players:
                if is_default(name, seating) or seating.allows(game.table, name):
                    continue
                tables = seating.where.get(name_key(name), ())
                where = f"seated at table {', '.join(tables)}" if tables else "not on the seating list"
                flags.setdefault(game.key, f"table {game.table} names {shown_name(name)}, {where}")
        return flags
    by_key: dict[str, list[tuple[tuple[float, float], PlayedGame, str]]] = {}
    for game in games:
        if game.heard is None:
            continue  # heard only while catching up: no trustworthy time, no proof either way
        for name in dict.fromkeys(game.players):
            if not is_default(name, None):
                by_key.setdefault(name_key(name), []).append((game.heard, game, name))
    for key in sorted(by_key):
        used = sorted(by_key[key], key=lambda entry: (entry[0], entry[1].key))
        for i, (heard, first, name) in enumerate(used):
            for (start, _end), other, other_name in used[i + 1:]:
                if start >= heard[1]:
                    break  # sorted by start: no later game overlaps ``first`` either
                if other.table != first.table:
                    pair = sorted([(first.table, name), (other.table, other_name)], key=lambda t: table_order(t[0]))
                    names = shown_name(pair[0][1])
                    if pair[1][1] != pair[0][1]:
                        names += f" and {shown_name(pair[1][1])}"
                    why = f"contested: {names} at tables {pair[0][0]} and {pair[1][0]} at once"
                    flags.setdefault(first.key, why)
                    flags.setdefault(other.key, why)
    return flags


def table_order(table_id: str) -> tuple[int, str]:
    """Tables in the order people number them: 2 before 10, then ids that are not numbers."""
    return (int(table_id), "") if table_id.isdigit() and len(table_id) < 10 else (1 << 30, table_id)
