"""The messages on the broker, as JSON: journal lines, table status and resend requests.

``<prefix>/<event>/tables/<table>/journal`` (QoS 1, the device writes)::

    {"game": "<game id>", "line": 12, "sent": 1764125000.25, "data": {...the journal line...}}

``.../status`` (QoS 1, retained, the device writes; its last will is the offline form)::

    {"online": true, "game": "<id>", "kind": "tezuma", "players": [...], "deal": 2, "trick": 5,
     "totals": [...], "over": false, "games": {"<id>": <lines in that journal>, ...}, "sent": ...}

``.../resend`` (QoS 1, the scoreboard writes, the device reads)::

    {"game": "<game id>", "after": 11}

``.../seating`` (QoS 1, retained, the scoreboard writes from its ``--seating`` list, the device reads)::

    {"names": ["Alice", "Bob", ...]}

The scoreboard trusts only journal lines: status is for "online" and for noticing missing lines.

>>> journal_message("g1", 1, {"format": "x"}, sent=5.0)
b'{"game":"g1","line":1,"sent":5.0,"data":{"format":"x"}}'
>>> decode_journal(journal_message("g1", 1, {"format": "x"}, sent=5.0))
JournalMessage(game='g1', line=1, sent=5.0, data={'format': 'x'})
>>> decode_journal(b'{"game":"g1","line":0,"data":{}}')  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
companion.errors.RecordError: a journal message needs a game id (at most 128 characters),
a line number >= 1 and an object
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.codec import decode_json
from companion.errors import ConfigError, RecordError
from companion.roster import check_name

# The largest message a table may send: the largest real journal line is a header with its card
# data (about 3 kB; docs/event.md), so 64 KiB leaves twenty times that. The broker's
# message_size_limit (docs/mosquitto/companion-event.conf) is the same number.
MAX_MESSAGE = 65_536
MAX_GAME_ID = 128  # a device's ids are "<table>-<12 hex digits>", at most 77 characters


def _json(value: Mapping[str, Any]) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _object(payload: bytes, what: str) -> dict[str, Any]:
    """A message's JSON object, read like every record line (nesting, NaN and huge integers refused)."""
    try:
        value = decode_json(payload.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise RecordError(f"a {what} message is not UTF-8: {err}") from None
    except RecordError as err:
        raise RecordError(f"a {what} message: {err}") from None
    if not isinstance(value, dict):
        raise RecordError(f"a {what} message must be a JSON object")
    return value


@dataclass(frozen=True)
class JournalMessage:
    game: str
    line: int
    sent: float | None
    data: dict[str, Any]


def journal_message(game: str, line: int, data: Mapping[str, Any], *, sent: float) -> bytes:
    return _json({"game": game, "line": line, "sent": sent, "data": data})


def decode_journal(payload: bytes) -> JournalMessage:
    value = _object(payload, "journal")
    game, line, data, sent = value.get("game"), value.get("line"), value.get("data"), value.get("sent")
    if (
        not isinstance(game, str) or not game or len(game) > MAX_GAME_ID
        or not isinstance(line, int) or isinstance(line, bool) or line < 1
        or not isinstance(data, dict)
    ):
        raise RecordError(f"a journal message needs a game id (at most {MAX_GAME_ID} characters), a line number >= 1"
                          " and an object")
    return JournalMessage(game, line, float(sent) if isinstance(sent, (int, float)) else None, data)


def status_message(status: Mapping[str, Any]) -> bytes:
    return _json(status)


def decode_status(payload: bytes) -> dict[str, Any]:
    value = _object(payload, "status")
    games = value.get("games", {})
    if not isinstance(games, dict) or not all(type(n) is int and len(g) <= MAX_GAME_ID for g, n in games.items()):
        raise RecordError("a status message's 'games' must map game ids to line counts")
    return value


def resend_message(game: str, after: int) -> bytes:
    return _json({"game": game, "after": after})


def decode_resend(payload: bytes) -> tuple[str, int]:
    value = _object(payload, "resend")
    game, after = value.get("game"), value.get("after")
    if not isinstance(game, str) or not isinstance(after, int) or isinstance(after, bool) or after < 0:
        raise RecordError("a resend request needs a game id and 'after' >= 0")
    return game, after


MAX_SEATED = 64  # names one table may be given: a seat per player of every round
MAX_SEATED_NAME = 32  # characters, as a seating list's (names.MAX_SEAT_NAME)


def seating_message(names: Sequence[str]) -> bytes:
    return _json({"names": list(names)})


def decode_seating(payload: bytes) -> list[str]:
    """The names seated at a table, each checked as a name the device can show.

    >>> decode_seating(seating_message(["Alice", "山田"]))
    ['Alice', '山田']
    >>> decode_seating(b'{"names": []}')
    Traceback (most recent call last):
    ...
    companion.errors.RecordError: a seating message needs 'names': 1-64 names of at most 32 characters
    """
    names = _object(payload, "seating").get("names")
    if (not isinstance(names, list) or not 0 < len(names) <= MAX_SEATED
            or not all(isinstance(n, str) and len(n) <= MAX_SEATED_NAME for n in names)):
        raise RecordError(f"a seating message needs 'names': 1-{MAX_SEATED} names of at most {MAX_SEATED_NAME}"
                          " characters")
    try:
        return [check_name(name, 2 * MAX_SEATED_NAME) for name in names]
    except ConfigError as err:
        raise RecordError(f"a seating message: {err}") from None
