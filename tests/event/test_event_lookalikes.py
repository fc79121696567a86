"""Look-alike names are one name everywhere: the seating list, contested names and the standings.

Cyrillic ``G\\u0435n``, ``Gen`` with a zero-width space and full-width ``\\uff27en`` read as ``Gen``: played at
the same time as ``Gen`` at another table they are contested; played one after the other they are
one row of the standings; and each is shown flagged, since nobody can see the difference.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from companion.event.wire import JournalMessage
from companion.names import FLAG, is_flagged, name_key, shown_name
from companion.organiser.board import Board, standings
from companion.organiser.names import PlayedGame, name_flags, parse_seating, read_seating, standing_key
from companion.organiser.scoreboard import games_csv, render_text
from tests.event.test_event_hostile import example_lines

CYRILLIC = "G\u0435n"  # CYRILLIC SMALL LETTER IE in the middle
ZERO_WIDTH = "Ge\u200bn"
FULL_WIDTH = "\uff27en"
LOOK_ALIKES = [CYRILLIC, ZERO_WIDTH, FULL_WIDTH]


def test_look_alikes_played_at_the_same_time_as_gen_are_contested() -> None:
    games = [PlayedGame(str(n), f"g{n}", (name, "Hana" if n == 1 else f"P{n}"), (0.0, 10.0))
             for n, name in enumerate(["Gen", *LOOK_ALIKES], start=1)]
    flags = name_flags(games, None)
    assert set(flags) == {g.key for g in games}  # every one of them: none is scored
    assert flags[("1", "g1")] == f"contested: Gen and {CYRILLIC}{FLAG} at tables 1 and 2 at once"
    assert flags[("4", "g4")].startswith("contested: Gen and ")


def test_look_alikes_one_after_another_are_one_row_shown_flagged() -> None:
    results = [([standing_key(name, str(n), None), "Hana"], [10, 0])
               for n, name in enumerate(["Gen", *LOOK_ALIKES], start=1)]
    rows = standings(results, (3, 0))
    assert [(r.player, r.games, r.rank_points) for r in rows] == [("Gen", 4, 12), ("Hana", 4, 0)]
    assert rows[0].shown == "Gen" + FLAG and rows[1].shown == "Hana"
    assert sorted(rows[0].also) == sorted(LOOK_ALIKES)
    plain = standings([(["Gen", "Hana"], [10, 0])] * 2, (3, 0))
    assert [r.shown for r in plain] == ["Gen", "Hana"]  # a plain name is never flagged


def test_the_seating_list_compares_by_the_same_key() -> None:
    seating = parse_seating("1: Gen, Hana\n2: Nao", "s")
    games = [PlayedGame("1", "a", (ZERO_WIDTH, "hana"), None), PlayedGame("2", "b", ("Nao", CYRILLIC), None)]
    assert name_flags(games, seating) == {("2", "b"): f"table 2 names {CYRILLIC}{FLAG}, seated at table 1"}
    assert "seated twice" in _refusal(lambda: parse_seating(f"1: Gen, {CYRILLIC}", "s"))


def _refusal(call) -> str:
    try:
        call()
    except Exception as err:  # the ConfigError's one line
        return str(err)
    return ""


def test_the_board_shows_look_alike_players_flagged() -> None:
    """The table view (terminal and page) flags a look-alike name where it shows the players."""
    board = Board()
    lines = example_lines()
    lines[0] = {**lines[0], "players": ["Gen", CYRILLIC, "Hana"]}
    for number, line in enumerate(lines, start=1):
        board.journal("7", JournalMessage("7-a", number, None, line), now=0.0)
    players = board.snapshot(now=0.0)["tables"][0]["game"]["players"]
    assert players == ["Gen", CYRILLIC + FLAG, "Hana"]
    assert CYRILLIC + FLAG in render_text(board.snapshot(now=0.0), now=0.0)
    assert f"Gen / {CYRILLIC}{FLAG} / Hana" in games_csv(board)


def test_a_seating_list_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "seating.txt"
    path.write_bytes(b"\xef\xbb\xbf1: Gen, Hana\n2: Nao\n")
    seating = read_seating(path)
    assert seating.where[name_key("Gen")] == ("1",) and seating.allows("2", "nao")


names = st.text(st.characters(min_codepoint=ord("a"), max_codepoint=ord("z")), min_size=1, max_size=12)


@given(names, st.integers(0, 12), st.booleans())
def test_invisible_case_and_width_never_make_another_name(name: str, where: int, upper: bool) -> None:
    hidden = name[:where] + "\u200b" + name[where:]
    wide = "".join(chr(ord(c) + 0xFEE0) for c in name)  # the full-width forms
    cased = name.upper() if upper else name.title()
    assert name_key(hidden) == name_key(wide) == name_key(cased) == name_key(name)
    assert is_flagged(hidden) and is_flagged(wide) and not is_flagged(cased)
    assert shown_name(hidden).endswith(FLAG)
