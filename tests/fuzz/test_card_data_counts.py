"""Every count in a record's card data set to 0, -1 or a huge number: ``replay`` and the device
resuming the record refuse it with a message or play it, never raise.

Card data travels in every record header, so a hostile or damaged record picks each count. The
shape check types them; the games' validation must bound them too: a Tezuma deal of 0 tricks
was closed before its first trick (a RuntimeError from replay), an Irohanihohedo deck of 0 cards
per colour left the card picker nothing to offer (a ValueError out of the device's resume).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from companion.engine.tricks import TrickGame
from companion.hw.keys import Key, KeyEvent
from companion.record import GameBuilder, read_bytes
from companion.report import rendered_summary
from companion.session import Session
from companion.ui.app import App

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
COUNTS = (0, -1, 10**18)


def count_paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Where ``node`` holds a whole number under an object's key (not list items: those are cards)."""
    if isinstance(node, dict):
        for key, child in node.items():
            if isinstance(child, int) and not isinstance(child, bool):
                yield (*prefix, key)
            else:
                yield from count_paths(child, (*prefix, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            if isinstance(child, dict):
                yield from count_paths(child, (*prefix, index))


@cache
def cases() -> list[tuple[str, tuple[Any, ...], int]]:
    found = []
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        header = json.loads(path.read_bytes().split(b"\n", 1)[0])
        found += [(path.name, where, value) for where in count_paths(header["cards"]) for value in COUNTS]
    return found


def with_count(name: str, where: tuple[Any, ...], value: int, *, whole: bool) -> bytes:
    """The record ``name`` with that count changed: ``whole``, or its header alone without the
    facts its table told (a game at its first decision, where the screens that pick cards are drawn)."""
    first, rest = (EXAMPLES / name).read_bytes().split(b"\n", 1)
    header = json.loads(first)
    node = header["cards"]
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = value
    if not whole:
        header.pop("table_facts", None)
    return json.dumps(header, ensure_ascii=False).encode() + b"\n" + (rest if whole else b"")


def test_the_cases_reach_every_game() -> None:
    assert {name for name, _, _ in cases()} == {path.name for path in EXAMPLES.glob("*.jsonl")}
    assert len(cases()) > 60


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "header"])
@pytest.mark.parametrize("name", sorted(path.name for path in EXAMPLES.glob("*.jsonl")))
def test_a_count_in_the_card_data_is_refused_or_played_never_raised(name: str, whole: bool) -> None:
    for record, where, value in cases():
        if record != name:
            continue
        builder = read_bytes(with_count(name, where, value, whole=whole), GameBuilder())
        game = builder.game
        if game is None:
            assert builder.failure is not None and builder.failure.line == 1, (where, value)
            continue
        if isinstance(game, TrickGame):
            rendered_summary(game)
        app = App(Session(game), clock=lambda: 0.0, rng=random.Random(0))
        for key in (Key.OK, Key.DOWN, Key.OK, Key.AUX, Key.BACK):
            app.handle(KeyEvent(key))
        assert app.render().size == (128, 64)
