"""The game record: one JSON Lines format for the journal, exports and ``companion replay``.

Line 1 is the header (the :class:`Setup` plus the format name and version); every later line is
one action, or ``{"type": "undo"}`` which drops the action before it. The journal only ever appends,
so an undo on the device is a line too; :func:`export_lines` writes the folded, undo-free form.
Reading goes through a visitor, like PGN in python-chess: :class:`GameBuilder` rebuilds the game, and
other visitors can watch the same stream. See ``docs/record-format.md``.

>>> from companion.carddata import printed_cards
>>> from companion.games.tezuma.rules import Tezuma2015
>>> game = Tezuma2015(Tezuma2015.new_setup("ABC", cards=printed_cards("tezuma-2015")))
>>> lines = export_lines(game)
>>> read_record(lines).game.setup == game.setup
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.carddata import validate_table_facts
from companion.codec import decode_json
from companion.errors import CompanionError, IllegalAction, RecordError, quoted
from companion.registry import game_class

if TYPE_CHECKING:  # the engine loads with the first game played, not with the setup form
    from companion.engine.base import Game, Setup

FORMAT = "tabletop-companion-record"
VERSION = 1
UNDO = "undo"
META_KEYS = ("at",)  # written by the device for people reading a journal; the rules ignore them
_RAW_SHOWN = 40  # bytes of a bad line quoted in its message: enough to recognise it


def header_json(setup: Setup) -> dict[str, Any]:
    from companion.engine.base import setup_to_json

    return {"format": FORMAT, "version": VERSION, **setup_to_json(setup)}


# --- the JSON Lines codec: every record and journal line goes through these -------------------


def dumps(obj: Mapping[str, Any]) -> str:
    """One record line without its newline: compact, UTF-8 text kept readable (seat names may be
    Japanese), and only what JSON can say (no NaN).

    >>> dumps({"kind": "play", "seat": 2, "name": "花子"})
    '{"kind":"play","seat":2,"name":"花子"}'
    """
    if not isinstance(obj, Mapping):
        raise RecordError(f"a record line must be a JSON object, not {type(obj).__name__}")
    try:
        return json.dumps(dict(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise RecordError(f"this record cannot be written as JSON: {err}") from None


def encode_line(obj: Mapping[str, Any]) -> bytes:
    """:func:`dumps` as the bytes of one line, newline included.

    >>> encode_line({"kind": "play", "seat": 2})
    b'{"kind":"play","seat":2}\\n'
    """
    return dumps(obj).encode("utf-8") + b"\n"


def decode_line(raw: bytes) -> dict[str, Any]:
    """Parse one line (without its newline) into an object; a :class:`RecordError` says what is wrong.

    >>> decode_line(b'{"a": 1}')
    {'a': 1}
    >>> decode_line(b'{"a": NaN}')
    Traceback (most recent call last):
    ...
    companion.errors.RecordError: not valid JSON (NaN is not JSON)
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RecordError(f"not UTF-8 at byte {err.start + 1}") from None
    value = decode_json(text)
    if not isinstance(value, dict):
        raise RecordError(f"must be a JSON object, not a {type(value).__name__}")
    return value


@dataclass(frozen=True)
class DroppedLine:
    """The first line that could not be read, and everything after it, left out of the game.

    After a crash this is a torn last line (``first == last``); anything else is damage.
    """

    line: int  # 1-based number of the first bad line
    reason: str
    raw: bytes  # that line's first bytes, enough to recognise it
    size: int  # bytes left out, from the bad line to the end of the file
    last: int = 0  # 1-based number of the last line left out (0: the same as ``line``)

    def __str__(self) -> str:
        more = "..." if self.size > len(self.raw) else ""
        lines = f"line {self.line}" if self.last <= self.line else f"lines {self.line}-{self.last}"
        return f"{lines} dropped ({self.reason}): {self.raw!r}{more} ({self.size} bytes)"


@dataclass(frozen=True)
class RecordLines:
    """What a record's bytes hold: the objects up to the first unreadable line, and that line.

    ``numbers[i]`` is the 1-based line of ``objects[i]``, ``ends[i]`` the byte just after it
    (newline included); ``good_size`` is where the readable prefix ends.
    """

    objects: list[dict[str, Any]]
    dropped: list[DroppedLine]
    good_size: int
    numbers: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    missing_newline: bool = False  # the last object's line has no newline after it

    def numbered(self) -> Iterator[tuple[int, dict[str, Any]]]:
        return zip(self.numbers, self.objects, strict=False)


def parse_lines(data: bytes) -> RecordLines:
    """Split a record's bytes into objects, stopping at the first line that is not one.

    The one reading of the format, used by the device's journal and by ``replay`` and ``export``:
    lines end at ``\\n`` only (U+2028 inside a string is text), blank lines are skipped, a last
    line without a newline counts if it is a whole object, NaN and Infinity are not JSON.

    >>> read = parse_lines(b'{"a":1}\\n\\n{"b":2}\\n{"c"')
    >>> read.objects, read.numbers
    ([{'a': 1}, {'b': 2}], [1, 3])
    >>> print(read.dropped[0])
    line 4 dropped (no newline at the end: the write was cut short): b'{"c"' (4 bytes)
    """
    objects: list[dict[str, Any]] = []
    numbers: list[int] = []
    ends: list[int] = []
    start = 0
    number = 0
    total_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    while start < len(data):
        number += 1
        newline = data.find(b"\n", start)
        end = len(data) if newline < 0 else newline
        raw = data[start:end]
        after = end if newline < 0 else end + 1
        if raw.strip():
            try:
                objects.append(decode_line(raw))
            except RecordError as bad:
                why = "no newline at the end: the write was cut short" if newline < 0 else str(bad)
                dropped = DroppedLine(number, why, raw[:_RAW_SHOWN], len(data) - start, total_lines)
                return RecordLines(objects, [dropped], start, numbers, ends)
            numbers.append(number)
            ends.append(after)
        start = after
    missing = bool(data) and not data.endswith(b"\n")
    return RecordLines(objects, [], len(data), numbers, ends, missing)


def export_lines(game: Game[Any]) -> list[str]:
    """The whole record of ``game`` as lines, without undo lines."""
    return [dumps(header_json(game.setup)), *(dumps(a.to_json()) for a in game.actions)]


def setup_from_header(data: Mapping[str, Any]) -> Setup:
    """Check a header line and turn it into a :class:`Setup`."""
    if data.get("format") != FORMAT:
        raise RecordError(f"not a game record: the header's 'format' must be {FORMAT!r}")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise RecordError(f"record version {quoted(version)} is not supported (this reads {VERSION})")
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
    from companion.engine.base import Setup

    return Setup(
        game, tuple(players), data.get("options", {}), seed, data.get("cards", {}), data.get("table_facts", {})
    )


def _is_seat(value: object, players: int) -> bool:
    from companion.engine.base import is_int

    return is_int(value) and 0 <= value < players


_OPTION_CHECKS: dict[str, tuple[Callable[[object, int], bool], str]] = {
    "seat": (_is_seat, "a seat number 0-{last}"),
    "bool": (lambda value, players: isinstance(value, bool), "true or false"),
    "list": (lambda value, players: isinstance(value, list), "a list"),
    "text": (lambda value, players: isinstance(value, str), "text"),
}


def check_options(cls: type[Game[Any]], setup: Setup) -> None:
    """Refuse a header whose options the game reads have the wrong type, naming the option.

    Header options are untrusted input (a file, a table on the network): ``0.0`` for a seat must be
    a message here, not a TypeError deep in the rules later. Each game declares what it reads
    (``option_kinds``, ``required_options``); options it does not read are left alone.

    >>> from companion.engine.base import Setup
    >>> from companion.games.tezuma.rules import Tezuma2015
    >>> check_options(Tezuma2015, Setup("tezuma-2015", ("A", "B", "C"), {"start_seat": 0.0, "layouts": []}))
    Traceback (most recent call last):
    ...
    companion.errors.RecordError: the header's options.start_seat must be a seat number 0-2, not 0.0
    """
    options = setup.options
    for name in sorted(cls.required_options):
        if name not in options:
            raise RecordError(f"the header's options lack {name!r}, which a {cls.game_id} game needs")
    for name, kind in cls.option_kinds.items():
        if name not in options:
            continue
        accepts, wanted = _OPTION_CHECKS[kind]
        if not accepts(options[name], len(setup.players)):
            shown = dumps({"v": options[name]})[5:-1]
            if len(shown) > _RAW_SHOWN:
                shown = shown[:_RAW_SHOWN] + "..."
            raise RecordError(
                f"the header's options.{name} must be {wanted.format(last=len(setup.players) - 1)}, not {shown}"
            )


class RecordVisitor:
    """Receives a record line by line; override what you need. Errors end the reading."""

    def begin(self, setup: Setup, line: int) -> None:
        """The header was read."""

    def action(self, data: Mapping[str, Any], line: int) -> None:
        """An action line (still JSON: decoding is the game's business)."""

    def undo(self, line: int) -> None:
        """An undo line."""

    def end(self, line: int) -> None:
        """Every line was read (``line`` the last) and none was refused."""

    def error(self, error: RecordError) -> None:
        """Reading stopped here; by default the error propagates."""
        raise error


def _illegal(data: Mapping[str, Any], err: IllegalAction, line: int) -> RecordError:
    """The refusal of an action line the rules refused, at that line (the line quoted short)."""
    return RecordError(f"illegal action {quoted(dumps(data), 80)}: {err}", line)


class GameBuilder(RecordVisitor):
    """Rebuilds the game a record describes; keeps what it adjudicated when a later line is bad.

    ``good`` counts the lines taken (header, actions, undos) before the first bad one: the device
    keeps exactly that prefix of a journal. ``find_class`` names the class of a header's game id: the
    registry's, or (in tests) one that plays a game the product does not ship.

    With ``defers``, for a record read whole, an action waits for the next line before it is applied:
    one that the next line undoes is only checked (it was legal when entered), never applied and
    taken back, so a journal in which a table corrected itself thousands of times is rebuilt at the
    cost of its kept actions. The game is then complete only once :meth:`end` (or :meth:`error`) has
    been called, as the readers here do; a reader that looks at the game after every line leaves it off.
    """

    def __init__(self, find_class: Callable[[str], type[Game[Any]]] = game_class, *, defers: bool = False) -> None:
        self.find_class = find_class
        self.defers = defers
        self.game: Game[Any] | None = None
        self.failure: RecordError | None = None
        self.good = 0
        self._waiting: tuple[Any, Mapping[str, Any], int] | None = None  # an action, its line and number

    def begin(self, setup: Setup, line: int) -> None:
        cls = self.find_class(setup.game)
        check_options(cls, setup)
        try:
            game = cls(setup)
            validate_table_facts(cls.game_id, setup.cards, setup.table_facts)
        except (TypeError, KeyError, AttributeError, IndexError, ValueError) as err:
            # The header is untrusted input: the card data's shape is checked first, but a game's
            # own options may still fail a lookup. That is a bad header, never a crash.
            if isinstance(err, CompanionError):
                raise
            raise RecordError(f"the header cannot set up a {cls.game_id} game ({type(err).__name__}: {err})") from None
        self.game = game  # only once the whole header passed: a refused one leaves no game to show or resume
        self.good = 1

    def action(self, data: Mapping[str, Any], line: int) -> None:
        self._apply_waiting()
        game = self._started(line)
        action = game.action_from_json(data)
        if self.defers:
            self._waiting = (action, data, line)
            return
        try:
            game.push(action)
        except IllegalAction as err:
            raise _illegal(data, err, line) from None
        self.good += 1

    def undo(self, line: int) -> None:
        game = self._started(line)
        if self._waiting is not None:  # undone at once: legal when entered is all that is left to know
            action, data, at = self._waiting
            self._waiting = None
            try:
                game.check(action)
            except IllegalAction as err:
                raise _illegal(data, err, at) from None
            self.good += 2
            return
        if not game.actions:
            raise RecordError("undo with nothing to undo", line)
        game.pop()
        self.good += 1

    def end(self, line: int) -> None:
        self._apply_waiting()

    def error(self, error: RecordError) -> None:
        try:
            self._apply_waiting()  # the lines before the refused one are the game
        except RecordError as earlier:  # ... unless the waiting action was itself the first bad line
            error = earlier
        self.failure = error

    def _apply_waiting(self) -> None:
        if self._waiting is None:
            return
        action, data, line = self._waiting
        self._waiting = None
        try:
            self._started(line).push(action)
        except IllegalAction as err:
            raise _illegal(data, err, line) from None
        except CompanionError as err:  # as the reader words any other refusal, at the action's own line
            raise RecordError(str(err), line) from None
        self.good += 1

    def _started(self, line: int) -> Game[Any]:
        if self.game is None:
            raise RecordError("an action before the header", line)
        return self.game


def read_bytes(data: bytes, visitor: RecordVisitor | None = None) -> Any:
    """Feed a record's bytes to ``visitor`` (a :class:`GameBuilder` by default) and return it.

    Lines are read by :func:`parse_lines`. A line that is not a JSON object, or breaks the rules,
    stops the reading with a :class:`RecordError` naming the line, handed to ``visitor.error``.
    """
    return read_lines(parse_lines(data), visitor)


def read_lines(read: RecordLines, visitor: RecordVisitor | None = None) -> Any:
    """:func:`read_bytes` for bytes already split by :func:`parse_lines` (the journal does that)."""
    unreadable = read.dropped[0] if read.dropped else None
    trailing = RecordError(unreadable.reason, unreadable.line) if unreadable is not None else None
    return _feed(read.numbered(), visitor, trailing)


def read_record(lines: Iterable[str], visitor: RecordVisitor | None = None) -> Any:
    """:func:`read_bytes` for a record as text lines (without their newlines)."""
    return read_bytes("".join(line + "\n" for line in lines).encode("utf-8", errors="surrogatepass"), visitor)


def read_objects(objects: Iterable[Mapping[str, Any]], visitor: RecordVisitor | None = None) -> Any:
    """Feed objects already decoded, numbered from line 1 (tests and tools that build records)."""
    return _feed(enumerate(objects, start=1), visitor, None)


def _feed(
    numbered: Iterable[tuple[int, Mapping[str, Any]]], visitor: RecordVisitor | None, trailing: RecordError | None
) -> Any:
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
        if trailing is not None:
            raise trailing
        if not started:
            raise RecordError("the record is empty: no header line", number or 1)
        visitor.end(number)
    except RecordError as err:
        visitor.error(err)
    return visitor
