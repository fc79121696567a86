"""What a table publishes is untrusted: headers, counts, names and ids are checked where they are read.

These run without a broker (the Board and the record reader directly); tests/event/test_event_hostile.py
sends the same through a real mosquitto.
"""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path
from typing import Any

import pytest

from companion.carddata import printed_cards
from companion.cli import main as companion
from companion.record import dumps, header_json
from companion.registry import game_class, game_ids
from companion.sim import new_random_game

WRONG = {
    "seat": [0.0, "0", True, -1, 99, None],
    "bool": ["yes", 1, None],
    "list": [{}, "x", 3],
    "text": [1, None, ["clockwise"]],
}


def _headers_with_a_wrong_option() -> list[tuple[str, str, Any]]:
    cases = []
    for game_id in game_ids():
        for name, kind in game_class(game_id).option_kinds.items():
            cases += [(game_id, name, value) for value in WRONG[kind]]
    return cases


@pytest.mark.parametrize(("game_id", "option", "value"), _headers_with_a_wrong_option())
def test_a_wrongly_typed_header_option_is_refused_by_name(
    tmp_path: Path, game_id: str, option: str, value: Any
) -> None:
    cls = game_class(game_id)
    setup = cls.new_setup(["A", "B", "C"], cards=printed_cards(game_id))
    header = header_json(setup)
    header["options"] = {**header["options"], option: value}
    record = tmp_path / "bad.jsonl"
    record.write_text(dumps(header) + "\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert companion(["replay", str(record)]) == 1
    assert f"options.{option} must be" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_every_game_declares_the_options_it_resolves() -> None:
    """A game that writes an option into its headers says what kind it is, so readers can check it."""
    for game_id in game_ids():
        cls = game_class(game_id)
        setup = cls.new_setup(["A", "B", "C"], cards=printed_cards(game_id))
        undeclared = set(setup.options) - set(cls.option_kinds)
        assert not undeclared, f"{game_id} resolves options it does not declare: {undeclared}"


def test_a_missing_required_option_is_named(tmp_path: Path) -> None:
    game = new_random_game("tezuma-2015", 3, random.Random(1))
    header = header_json(game.setup)
    del header["options"]["start_seat"]
    record = tmp_path / "bad.jsonl"
    record.write_text(dumps(header) + "\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert companion(["replay", str(record)]) == 1
    assert "lack 'start_seat'" in err.getvalue()


def test_the_terminal_view_fits_80_columns_with_wide_names_and_long_ids() -> None:
    """Japanese names take two columns each; a long table id or name is cut, never wraps a line."""
    from companion.event.wire import JournalMessage
    from companion.organiser.board import Board
    from companion.organiser.scoreboard import render_text
    from companion.organiser.text import columns
    from companion.record import decode_line

    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    board = Board()
    for table, name in (("1", "tezuma-2015"), ("table-with-a-long-id", "tezuma")):
        lines = [decode_line(raw) for raw in (examples / f"{name}.jsonl").read_bytes().splitlines()]
        lines[0]["players"] = [p * 12 if n == 0 else p for n, p in enumerate(lines[0]["players"])]
        for number, line in enumerate(lines, start=1):
            board.journal(table, JournalMessage("g", number, None, line), now=0.0)
    text = render_text(board.snapshot(now=5.0), now=5.0)
    assert "あき" in text
    assert max(columns(line) for line in text.splitlines()) <= 80
    header, first = text.splitlines()[:2]
    assert columns(first[: first.index("offline")]) == columns(header[: header.index("state")])


def test_lines_far_past_a_gap_are_not_held() -> None:
    from companion.event.stream import MAX_AHEAD, LineStream

    stream = LineStream()
    for number in range(2, MAX_AHEAD + 50):
        stream.offer(number, {"type": "x"})
    assert sorted(stream.waiting) == list(range(2, MAX_AHEAD + 1)) and stream.missing() == [1]
