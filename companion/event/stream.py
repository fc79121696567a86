"""One game's journal lines as they arrive over the network: in order, once each, through the engine.

A :class:`LineStream` takes ``(line number, object)`` pairs in any order and any number of times,
keeps each number once, holds back lines that arrive before a gap is filled, and feeds the lines
that are next in order to a :class:`~companion.record.GameBuilder`, exactly as
``companion replay`` reads a journal. A line the rules refuse stops this stream only, naming the line.

>>> from companion.carddata import printed_cards
>>> from companion.record import header_json
>>> from companion.games.tezuma.rules import Tezuma2015
>>> setup = Tezuma2015.new_setup("ABC", cards=printed_cards("tezuma-2015"))
>>> stream = LineStream()
>>> stream.offer(2, {"type": "draft", "seat": 0, "kind": "penalty", "card": "R"})  # early: waits
0
>>> stream.missing()
[1]
>>> stream.offer(1, header_json(setup)), stream.offer(1, header_json(setup))  # the repeat is dropped
(2, 0)
>>> stream.applied, stream.duplicates, len(stream.game.actions)
(2, 1, 1)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from companion.engine.base import Game
from companion.errors import CompanionError, RecordError
from companion.record import META_KEYS, UNDO, GameBuilder, dumps, setup_from_header

log = logging.getLogger(__name__)

MAX_LINES = 100_000  # far beyond any game; a forged huge number must not make a huge gap to wait for
MAX_AHEAD = 1_000  # lines kept waiting beyond a gap; further ones are dropped and asked for again later


class LineStream:
    """The lines of one game, applied in line order exactly once each."""

    def __init__(self) -> None:
        self.builder = GameBuilder()
        self.lines: list[dict[str, Any]] = []  # applied lines, line n at index n-1
        self.waiting: dict[int, dict[str, Any]] = {}  # arrived ahead of a gap
        self.duplicates = 0
        self.conflicts: list[int] = []  # line numbers that came again with other content
        self.failure: RecordError | None = None

    @property
    def game(self) -> Game[Any] | None:
        return self.builder.game

    @property
    def applied(self) -> int:
        """How many lines (header included) are in the game."""
        return len(self.lines)

    def offer(self, number: int, data: Mapping[str, Any]) -> int:
        """Take line ``number``; returns how many lines this made the game apply (0 if it waits)."""
        if not 1 <= number <= MAX_LINES:
            raise RecordError(f"a line number must be 1-{MAX_LINES}", number)
        data = dict(data)
        known = self.lines[number - 1] if number <= len(self.lines) else self.waiting.get(number)
        if known is not None:
            self.duplicates += 1
            if known != data and number not in self.conflicts:
                self.conflicts.append(number)
            return 0
        if number > len(self.lines) + MAX_AHEAD:
            return 0  # dropped: the resend after the gap brings it again; holding it would cost memory
        self.waiting[number] = data
        applied = 0
        while self.failure is None and len(self.lines) + 1 in self.waiting:
            line = self.waiting.pop(len(self.lines) + 1)
            self.lines.append(line)
            self._apply(len(self.lines), line)
            applied += 1
        return applied

    def missing(self, known_total: int = 0, limit: int = 5) -> list[int]:
        """The first ``limit`` line numbers not yet here, below the highest line seen (or ``known_total``).

        Bounded work whatever ``known_total`` a message claimed: it stops after ``limit`` numbers,
        having skipped at most the (bounded) lines that wait.
        """
        top = max([min(known_total, MAX_LINES), len(self.lines), *self.waiting])
        found: list[int] = []
        number = len(self.lines) + 1
        while number <= top and len(found) < limit:
            if number not in self.waiting:
                found.append(number)
            number += 1
        return found

    def _apply(self, number: int, data: dict[str, Any]) -> None:
        """Feed one line to the builder the way ``read_record`` does, keeping the first refusal."""
        try:
            if number == 1:
                self.builder.begin(setup_from_header(data), number)
            elif data.get("type") == UNDO:
                self.builder.undo(number)
            else:
                self.builder.action({k: v for k, v in data.items() if k not in META_KEYS}, number)
        except RecordError as err:
            self.failure = err if err.line is not None else RecordError(str(err), number)
        except CompanionError as err:
            self.failure = RecordError(f"{err} in {dumps(data)[:200]}", number)
        except Exception as err:  # a rules bug a crafted line reaches: this game stops, nothing else does
            log.exception("line %d stopped the engine", number)
            self.failure = RecordError(f"the engine failed on this line ({type(err).__name__}: {err})", number)
