"""The game record: one JSON Lines format for the journal, exports and ``companion replay``.

Line 1 is the header (the :class:`Setup` plus the format name and version); every later line is
one action, or ``{"type": "undo"}`` which drops the action before it. The journal only ever appends,
so an undo on the device is a line too; :func:`export_lines` writes the folded, undo-free form.
Reading goes through a visitor, like PGN in python-chess: :class:`GameBuilder` rebuilds the game, and
other visitors can watch the same stream. See ``docs/record-format.md``.

>>> from companion.carddata import printed_cards
>>> from companion.games.tezuma import Tezuma2015
>>> game = Tezuma2015(Tezuma2015.new_setup("ABC", cards=printed_cards("tezuma-2015")))
>>> lines = export_lines(game)
>>> read_record(lines).game.setup == game.setup
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from companion.engine.base import Game, Setup, setup_to_json
from companion.errors import CompanionError, IllegalAction, RecordError
from companion.registry import game_class

FORMAT = "tabletop-companion-record"
VERSION = 1
UNDO = "undo"
META_KEYS = ("at",)  # written by the device for people reading a journal; the rules ignore them


def header_json(setup: Setup) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, **setup_to_json(setup)}


def dumps(obj: Mapping[str, Any]) -> str:
    """One record line: compact, UTF-8 text kept readable (seat names may be Japanese)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def export_lines(game: Game[Any]) -> list[str]:
    """The whole record of ``game`` as lines, without undo lines."""
    return [dumps(header_json(game.setup)), *(dumps(a.to_json()) for a in game.actions)]


def setup_from_header(data: Mapping[str, Any]) -> Setup:
    """Check a header line and turn it into a :class:`Setup`."""
    if data.get("format") != FORMAT:
        raise RecordError(f"not a game record: the header's 'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise RecordError(f"record version {data.get('version')!r} is not supported (this reads {VERSION})")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise RecordError("the header's 'players' must list the seat names")
    for key in ("options", "cards", "table_facts"):
        if not isinstance(data.get(key, {}), dict):
            raise RecordError(f"the header's {key!r} must be an object")
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError("the header's 'seed' must be an integer")
    game = data.get("game")
    if not isinstance(game, str):
        raise RecordError("the header names no 'game'")
    return Setup(game, tuple(players), data.get("options", {}), seed, data.get("cards", {}), data.get("table_facts", {}))


class RecordVisitor:
    """Receives a record line by line; override what you need. Errors end the reading."""

    def begin(self, setup: Setup, line: int) -> None:
        """The header was read."""

    def action(self, data: Mapping[str, Any], line: int) -> None:
        """An action line (still JSON: decoding is the game's business)."""

    def undo(self, line: int) -> None:
        """An undo line."""

    def error(self, error: RecordError) -> None:
        """Reading stopped here; by default the error propagates."""
        raise error


class GameBuilder(RecordVisitor):
    """Rebuilds the game a record describes; keeps what it adjudicated when a later line is bad."""

    def __init__(self) -> None:
        self.game: Game[Any] | None = None
        self.failure: RecordError | None = None
        self.lines = 0

    def begin(self, setup: Setup, line: int) -> None:
        self.game = game_class(setup.game)(setup)

    def action(self, data: Mapping[str, Any], line: int) -> None:
        game = self._started(line)
        action = game.action_from_json(data)
        try:
            game.push(action)
        except IllegalAction as err:
            raise RecordError(f"illegal action {dumps(data)}: {err}", line) from None

    def undo(self, line: int) -> None:
        game = self._started(line)
        if not game.actions:
            raise RecordError("undo with nothing to undo", line)
        game.pop()

    def error(self, error: RecordError) -> None:
        self.failure = error

    def _started(self, line: int) -> Game[Any]:
        if self.game is None:
            raise RecordError("an action before the header", line)
        return self.game


def read_record(lines: Iterable[str], visitor: RecordVisitor | None = None) -> Any:
    """Feed every line of a record to ``visitor`` (a :class:`GameBuilder` by default) and return it.

    Blank lines are skipped. A line that is not JSON, not an object, or breaks the rules stops the
    reading with a :class:`RecordError` naming the line, handed to ``visitor.error``.
    """
    parsed = ((n, _parse_line(text, n)) for n, text in enumerate(lines, start=1) if text.strip())
    return _feed(parsed, visitor)


def read_objects(objects: Iterable[Mapping[str, Any]], visitor: RecordVisitor | None = None) -> Any:
    """:func:`read_record` for lines already decoded (the journal reader hands over objects)."""
    return _feed(enumerate(objects, start=1), visitor)


def _feed(numbered: Iterable[tuple[int, Mapping[str, Any]]], visitor: RecordVisitor | None) -> Any:
    visitor = visitor if visitor is not None else GameBuilder()
    started = False
    number = 0
    try:
        for number, data in numbered:
            try:
                if not started:
                    visitor.begin(setup_from_header(data), number)
                    started = True
                elif data.get("type") == UNDO:
                    visitor.undo(number)
                else:
                    visitor.action({k: v for k, v in data.items() if k not in META_KEYS}, number)
            except RecordError as err:
                raise err if err.line is not None else RecordError(str(err), number) from None
            except CompanionError as err:
                raise RecordError(str(err), number) from None
        if not started:
            raise RecordError("the record is empty: no header line", number or 1)
    except RecordError as err:
        visitor.error(err)
    return visitor


def _parse_line(text: str, number: int) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"not valid JSON ({err.msg} at column {err.colno})", number) from None
    if not isinstance(data, dict):
        raise RecordError("each line must be a JSON object", number)
    return data
