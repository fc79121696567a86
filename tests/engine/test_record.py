"""The record format: header, actions, undo lines; malformed and illegal lines name themselves."""

import json
import random

import pytest

from companion.errors import RecordError
from companion.record import FORMAT, GameBuilder, RecordVisitor, dumps, export_lines, read_record
from companion.sim import random_game
from tests.engine.helpers import game_with, trick


@pytest.fixture
def lines():
    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    trick(game, "B9", "B1", "B2", "B3")
    return export_lines(game)


def test_header_is_self_contained(lines):
    header = json.loads(lines[0])
    assert header["format"] == FORMAT and header["version"] == 1
    assert header["game"] == "tezuma-2015" and header["players"] == ["Aki", "Ben", "Chie", "Dai"]
    assert {a["id"] for a in header["cards"]["abilities"]} >= {"paper-egg", "five-color-sand"}
    assert header["options"]["layouts"][0]["abilities"][:4] == [
        "paper-egg",
        "water-trick",
        "sword-walking",
        "baby-chicks",
    ]


def test_undo_lines_fold_away(lines):
    journal = [*lines[:-1], dumps({"type": "play", "seat": 3, "cards": ["B4"]}), dumps({"type": "undo"}), lines[-1]]
    game = read_record(journal).game
    assert export_lines(game) == lines


def test_meta_keys_are_ignored(lines):
    stamped = [lines[0]] + [line[:-1] + ',"at":"2026-11-25T20:00:00+09:00"}' for line in lines[1:]]
    assert export_lines(read_record(stamped).game) == lines


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ('{"type":"play","seat":0,"cards":["B9"]}', "B9 was already played"),
        ('{"type":"play","seat":0', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"type":"castle"}', "unknown action type 'castle'"),
        ('{"type":"play","seat":"one","cards":[]}', "integer 'seat'"),
        ('{"type":"play","seat":0,"cards":["Q7"]}', "suits are"),
        ('{"type":"play","seat":0,"cards":["B' + "9" * 5000 + '"]}', "is not a card"),  # int() reads 4,300
        ('{"type":"undo"}', None),
    ],
)
def test_bad_line_names_its_number_and_keeps_what_came_before(lines, bad, reason):
    record = [*lines, bad]
    builder = read_record(record, GameBuilder())
    if reason is None:  # an undo is fine
        assert builder.failure is None and len(builder.game.actions) == len(lines) - 2
        return
    assert builder.failure is not None and builder.failure.line == len(record)
    assert reason in str(builder.failure) and str(builder.failure).startswith(f"line {len(record)}:")
    assert len(builder.game.actions) == len(lines) - 1  # everything before the bad line was adjudicated


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({"format": "pgn"}, "not a game record"),
        ({"format": FORMAT, "version": 9}, "version 9 is not supported"),
        ({"format": FORMAT, "version": 1, "game": "chess", "players": ["a", "b"]}, "unknown game 'chess'"),
        ({"format": FORMAT, "version": 1, "game": "tezuma", "players": "abc"}, "'players' must list"),
    ],
)
def test_bad_headers(header, reason):
    failure = read_record([json.dumps(header)]).failure
    assert reason in str(failure) and failure.line == 1


def test_a_header_with_bad_table_facts_leaves_no_game(lines):
    """The game was built before its table facts were checked, and kept: replay showed, and the
    device resumed, a game from a header it had refused."""
    header = json.loads(lines[0])
    header["table_facts"] = {"points": {"3": {"5": {}}}}
    builder = read_record([json.dumps(header), *lines[1:]])
    assert builder.failure is not None and builder.failure.line == 1 and "table facts" in str(builder.failure)
    assert builder.game is None and builder.good == 0


def test_a_plain_visitor_raises_and_an_empty_record_is_an_error():
    with pytest.raises(RecordError, match="empty"):
        read_record(["", "  "], RecordVisitor())


def test_a_visitor_sees_every_line_in_order(lines):
    seen = []

    class Counter(RecordVisitor):
        def begin(self, setup, line):
            seen.append(("begin", line))

        def action(self, data, line):
            seen.append((data["type"], line))

    read_record(lines, Counter())
    assert seen == [("begin", 1)] + [(json.loads(line)["type"], i) for i, line in enumerate(lines[1:], start=2)]


def test_a_whole_game_round_trips():
    game = random_game("tezuma", 4, random.Random(11), ability_rate=0.5)
    again = read_record(export_lines(game)).game
    assert again.is_over() and again.summary() == game.summary()


def test_a_session_rolls_back_what_its_journal_could_not_store():
    from companion.errors import StorageError
    from companion.session import Session

    game = game_with("paper-egg", "water-trick", "sword-walking", "baby-chicks")
    session = Session(game)
    full = [False]

    def journal(change, data):
        if full[0]:
            raise OSError(28, "No space left on device")

    session.listeners.append(journal)
    session.push_text("B9")
    full[0] = True
    before = repr(game.state), list(game.actions)
    with pytest.raises(StorageError, match="No space left"):
        session.push_text("B1")
    with pytest.raises(StorageError, match="could not save the undo"):
        session.undo()
    assert (repr(game.state), list(game.actions)) == before


def test_a_summary_kept_does_not_change_as_the_game_goes_on() -> None:
    from companion.carddata import printed_cards
    from companion.games.tezuma.rules import Tezuma2015

    game = Tezuma2015(Tezuma2015.new_setup("ABCD", cards=printed_cards("tezuma-2015")))
    game.push_text("penalty R")
    kept = game.summary()
    game.push_text("penalty B")
    assert kept["deals"][0]["picks"] == [{"penalty": "R"}, {}, {}, {}]
