"""Player names: a table cannot score games for another table's players, and honest tables are never flagged.

The rule itself (:mod:`companion.organiser.names`) is tested on plain data first; then tables play
through the broker in the test's process to a scoreboard whose clock the test steps, so "at the same time" and
"one round after the other" are the scoreboard's own clock, counted, not timed: a forging table
with and without a seating list, honest tables whose players move between rounds, a scoreboard
restart in the middle, and the devices' default names at every table.
"""

from __future__ import annotations

import csv
import io
import json
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.errors import ConfigError
from companion.event.wire import JournalMessage
from companion.organiser.board import Board, standings
from companion.organiser.command import reload_seating
from companion.organiser.names import (
    CATCH_UP,
    PlayedGame,
    Seating,
    default_names,
    name_flags,
    name_key,
    parse_seating,
    read_seating,
    standing_key,
)
from companion.organiser.scoreboard import Scoreboard, games_csv, render_text, standings_csv
from companion.organiser.state import BoardState
from companion.organiser.text import columns
from companion.organiser.web import ScoreboardServer
from companion.text import load_seat_names
from tests.event.conftest import (
    EVENT,
    AnyBroker,
    MockTable,
    assert_board_equals_replays,
    assert_games_equal_replays,
    has_every_line,
    replay_json,
    scored_as,
    settle,
    start_scoreboard,
    wait_for,
)
from tests.event.test_event_hostile import HOSTILE, HostileTable, SteppedClock, example_lines
from tests.event.test_event_scoreboard_life import run_scoreboard

# Names from the device's list that it never fills in by itself (it fills seat n with the n-th name).
ROUND_1 = {"1": ["Gen", "Hana", "Ken", "Mai"], "2": ["Nao", "Rin", "Sho", "Yui"]}
ROUND_2 = {"1": ["Gen", "Nao", "Ken", "Rin"], "2": ["Hana", "Mai", "Sho", "Yui"]}  # four players moved
SEATING = "# autumn cup\n1: Gen, Hana, Ken, Mai\n2: Nao, Rin, Sho, Yui\n"


# --- the rule on plain data -----------------------------------------------------------------------


def test_the_seating_list_format_is_checked_line_by_line() -> None:
    seating = parse_seating("# round 1\n1: Gen, Hana  # by the window\n\n2: Nao\n1: Nao\n", "s.txt")
    assert seating.where[name_key("Nao")] == ("2", "1") and seating.allows("1", "hana")
    bad = {
        "1 Gen, Hana": "line 1: expected 'TABLE: NAME, NAME, ...'",
        "1: Gen\n1/2: Hana": "line 2: a table id is 1-64 letters",
        "1: Gen,, Hana": "line 1: an empty name",
        "1: Gen,": "line 1: an empty name",
        "1: Gen, gen": "line 1: a name is seated twice at the same table",
        "1: Gen\x1b[2J": "line 1: a name is at most 32 printable characters",
        "1: " + "x" * 33: "line 1: a name is at most 32 printable characters",
        "# nothing\n": "no table in it",
    }
    for text, said in bad.items():
        with pytest.raises(ConfigError, match=r"^--seating s\.txt") as caught:
            parse_seating(text, "s.txt")
        assert said in str(caught.value) and "\n" not in str(caught.value), text


def test_a_bad_seating_file_ends_the_scoreboard_before_it_starts_in_one_line(tmp_path: Path) -> None:
    state = ["--state", str(tmp_path / "state")]
    (tmp_path / "binary").write_bytes(b"1: \xff\n")
    (tmp_path / "typo").write_text("1: Gen\n2; Nao\n", encoding="utf-8")
    cases = {
        str(tmp_path / "missing"): "no such file",
        str(tmp_path): "cannot read it",
        str(tmp_path / "binary"): "not UTF-8 text",
        str(tmp_path / "typo"): "line 2: expected 'TABLE: NAME, NAME, ...'",
    }
    for path, said in cases.items():
        status, err = run_scoreboard("--seating", path, *state)
        assert status == 2 and said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert read_seating(_write(tmp_path / "ok", SEATING)).allows("2", "Yui")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_default_names_are_the_ones_the_device_fills_in_and_the_seat_labels() -> None:
    pool = load_seat_names()
    assert {name_key(n) for n in ["P1", "Player 4", "aki", "Chie", "あき", "ふみ"]} <= default_names()
    assert name_key(pool["en"][6]) not in default_names()  # Gen: the device never fills in a 7th seat
    assert not {name_key(n) for n in ROUND_1["1"] + ROUND_1["2"]} & default_names()


def game(table: str, players: str, heard: tuple[float, float] | None, name: str = "") -> PlayedGame:
    return PlayedGame(table, name or f"{table}-{players}", tuple(players.split()), heard)


def test_with_a_seating_list_a_name_seated_elsewhere_or_nowhere_is_flagged() -> None:
    seating = parse_seating("1: Gen, Hana, Aki\n2: Nao, Rin\n3: Gen", "s")
    games = [
        game("1", "Gen Hana Aki", (0, 10)),  # all seated here (Aki too: the list makes it a person)
        game("2", "Nao Rin Ben", (0, 10)),  # Ben: a default name, a seat, never checked
        game("2", "Nao Hana", None),  # no time needed: the list decides
        game("3", "Gen Zed", (0, 10)),
        game("66", "Nao Rin", (20, 30)),
    ]
    assert name_flags(games, seating) == {
        ("2", "2-Nao Hana"): "table 2 names Hana, seated at table 1",
        ("3", "3-Gen Zed"): "table 3 names Zed, not on the seating list",
        ("66", "66-Nao Rin"): "table 66 names Nao, seated at table 2",
    }


def test_without_a_list_only_a_name_two_tables_use_at_the_same_time_is_contested() -> None:
    games = [
        game("1", "Gen Hana", (0, 10)),
        game("2", "Nao Gen", (5, 8)),  # Gen at tables 1 and 2 at once: both contested
        game("1", "Nao Rin", (10, 20)),  # Nao moved from table 2 to table 1: one after the other
        game("3", "Rin Sho", (20, 25)),  # ends and starts at the same moment: not at the same time
        game("4", "Sho Yui", None),  # heard only while catching up: proves nothing
        game("5", "Aki Ben P1", (0, 30)),
        game("6", "Aki Ben P1", (0, 30)),  # default names at every table: seats, not people
        game("7", "Yui Mai", (40, 50)),
        game("7", "Mai Yui", (50, 60), "7-again"),  # the same table twice: its own players
    ]
    why = "contested: Gen at tables 1 and 2 at once"
    assert name_flags(games, None) == {("1", "1-Gen Hana"): why, ("2", "2-Nao Gen"): why}


def test_a_default_name_is_a_seat_at_its_table_unless_the_list_seats_it() -> None:
    seating = parse_seating("1: Aki, Gen", "s")
    assert [standing_key(n, "3", None) for n in ["Aki", "P1", "Player 2", "Gen"]] == [
        ("Aki", "3"), ("P1", "3"), ("Player 2", "3"), "Gen"]
    assert standing_key("Aki", "3", seating) == "Aki"
    rows = standings([([standing_key(n, t, None) for n in ["Aki", "Gen"]], [5, 1]) for t in ("1", "2")], (3, 0))
    assert [(s.shown, s.games, s.rank_points) for s in rows] == [
        ("Aki (table 1)", 1, 3), ("Aki (table 2)", 1, 3), ("Gen", 2, 0)]


rounds = st.lists(st.permutations(["Gen", "Hana", "Ken", "Mai", "Nao", "Rin", "Sho", "Yui"]), min_size=1, max_size=5)


@given(rounds, st.lists(st.floats(0.001, 50), min_size=10, max_size=10), st.floats(0, 10))
def test_players_moving_between_rounds_are_never_flagged(seatings: list[list[str]], lengths: list[float],
                                                         pause: float) -> None:
    """Any seating of eight players at two tables, round after round, however long each game and
    however short the pause between rounds: nothing is contested."""
    games, start = [], 0.0
    for number, order in enumerate(seatings):
        ends = []
        for table, names in (("1", order[:4]), ("2", order[4:])):
            end = start + lengths[(2 * number + int(table)) % len(lengths)]
            games.append(PlayedGame(table, f"{table}-r{number}", tuple(names), (start, end)))
            ends.append(end)
        start = max(ends) + pause
    assert name_flags(games, None) == {}


@given(st.lists(st.tuples(st.sampled_from("123"), st.sampled_from(["Gen", "Nao", "Aki", "P1"]),
                          st.floats(0, 100), st.floats(0, 10)), max_size=12))
def test_contested_games_come_in_pairs_from_different_tables(plays: list[tuple[str, str, float, float]]) -> None:
    games = [PlayedGame(t, f"g{i}", (n,), (s, s + d)) for i, (t, n, s, d) in enumerate(plays)]
    flags = name_flags(games, None)
    for flagged in (g for g in games if g.key in flags):
        assert not is_default_name(flagged.players[0])
        assert flagged.heard is not None
        partners = [g for g in games if g.table != flagged.table and g.players == flagged.players and g.heard
                    and g.heard[0] < flagged.heard[1] and flagged.heard[0] < g.heard[1]]
        assert partners and all(p.key in flags for p in partners)


def is_default_name(name: str) -> bool:
    return name_key(name) in default_names()


# --- the rule on the board: heard live or not, kept through a restart --------------------------------


def feed(board: Board, table: str, game_id: str, lines: list[dict[str, Any]], now: float) -> None:
    for number, line in enumerate(lines, start=1):
        board.journal(table, JournalMessage(game_id, number, None, line), now)


def with_players(lines: list[dict[str, Any]], players: list[str]) -> list[dict[str, Any]]:
    return [{**lines[0], "players": players}, *lines[1:]]


def test_lines_heard_while_catching_up_prove_nothing_and_the_times_heard_survive_a_restart(tmp_path: Path) -> None:
    lines = example_lines()
    board = Board()
    board.catch_up(0.0)  # connected at 0: until CATCH_UP, every table resends and queued lines arrive
    feed(board, "1", "a", with_players(lines, ["Gen", "Hana", "Ken"])[:50], now=1.0)
    feed(board, "2", "b", with_players(lines, ["Gen", "Nao", "Rin"])[:50], now=1.0)
    assert board.tables["1"].games["a"].heard is None and board.standings() is not None
    assert all(g.name_flag is None for _, g in board.games())  # at the same instant, but only catching up
    for table, game_id in (("1", "a"), ("2", "b")):  # now live, both at once
        for number, line in enumerate(lines[50:60], start=51):
            board.journal(table, JournalMessage(game_id, number, None, line), CATCH_UP + 5.0 + number)
    board.standings()
    assert board.tables["1"].games["a"].heard == (CATCH_UP + 56.0, CATCH_UP + 65.0)
    assert board.tables["2"].games["b"].name_flag == "contested: Gen at tables 1 and 2 at once"
    saved = BoardState(tmp_path)
    saved.save(board)
    assert json.loads((tmp_path / "1" / "heard.json").read_text()) == {"a": [CATCH_UP + 56.0, CATCH_UP + 65.0]}
    restored = Board()
    saved.load(restored)
    restored.catch_up(1000.0)  # the restarted scoreboard's own catch-up: the times it had still stand
    feed(restored, "1", "a", with_players(lines, ["Gen", "Hana", "Ken"])[:70], now=1001.0)
    assert restored.tables["1"].games["a"].heard == (CATCH_UP + 56.0, CATCH_UP + 65.0)
    restored.standings()
    assert [g.name_flag for _, g in restored.games()] == [g.name_flag for _, g in board.games()]
    (tmp_path / "2" / "heard.json").write_text('{"b": "not times"')  # damaged: skipped, the game stays
    again = Board()
    assert BoardState(tmp_path).load(again).games == 2 and again.tables["2"].games["b"].heard is None


def test_flags_are_bounded_like_every_problem() -> None:
    board = Board(seating=parse_seating("1: Gen", "s"))
    lines = example_lines()
    for n in range(12):  # twelve different games (a copy would be flagged as a copy instead)
        feed(board, "66", f"forged-{n}", with_players(lines, ["Gen", "Hana", f"Ken{n}"]), now=float(n))
    flagged = board.flagged()
    assert len(flagged) == 6 and flagged[-1] == "table 66: 7 more games not scored for their names"
    problems = board.snapshot()["problems"]
    assert sum("not scored" in p for p in problems) == 5
    assert problems[-1] == "table 66: 7 more problems not shown"
    assert "table 66 names Gen, seated at table 1: not scored (game forged-0)" in problems
    assert board.standings() == []
    assert games_csv(board).count("seated at table 1: not scored") == 12


# --- tables through the broker --------------------------------------------------------------------


class Event:
    """A broker, a scoreboard on a stepped clock (with a seating list or not), mock tables and table 66."""

    def __init__(self, root: Path, broker: AnyBroker, seating: Seating | None = None,
                 state: BoardState | None = None) -> None:
        self.root = root
        self.broker = broker
        self.seating = seating
        self.state = state
        self.clock = SteppedClock()
        self.scoreboard = self.start_scoreboard()
        self.tables: dict[str, MockTable] = {}
        self.hostile: HostileTable | None = None

    @property
    def board(self) -> Board:
        return self.scoreboard.board

    def start_scoreboard(self, client_id: str = "names-scoreboard") -> Scoreboard:
        board = Board(seating=self.seating, gap_grace=0.5)
        if self.state is not None:
            self.state.load(board)
        return start_scoreboard(self.broker, board, client_id=client_id, clock=self.clock, check_every=0.05,
                                state=self.state)

    def past_catch_up(self) -> None:
        self.clock.advance(CATCH_UP + 1)

    def table(self, table: str) -> MockTable:
        if table not in self.tables:
            self.tables[table] = MockTable(self.root, table, self.broker, seed=int(table))
        return self.tables[table]

    def start_round(self, seating: dict[str, list[str] | None]) -> None:
        for table, names in seating.items():
            self.table(table).new_game("tezuma", names)

    def play(self, slices: int | None = None, live: bool = True) -> None:
        """Every table with a game going plays five actions in turn, ``slices`` times (to the end if
        None); while ``live``, the scoreboard hears each slice a second after the one before."""
        playing = [t for t in self.tables.values() if t.device.game is not None]
        done = 0
        while any(not t.device.game.is_over() for t in playing) and (slices is None or done < slices):
            for table in playing:
                table.play(5)
            if live:
                settle(self.board, has_every_line(self.board, playing), "every line of the slice")
                self.clock.advance(1.0)
            done += 1

    def forge(self, players: list[str], game_id: str = "66-forged") -> None:
        """Table 66 sends a whole finished game naming ``players``, heard now."""
        if self.hostile is None:
            self.hostile = HostileTable(self.broker)
        self.hostile.game(game_id, with_players(example_lines(), players))
        hostile = self.hostile
        wait_for(lambda: self.scoreboard.received[HOSTILE] >= hostile.sent, "every line of table 66")

    def flags(self) -> dict[tuple[str, str], str]:
        self.board.standings()
        return {(t, g.id): g.name_flag for t, g in self.board.games() if g.name_flag is not None}

    def honest(self) -> list[MockTable]:
        return list(self.tables.values())

    def close(self) -> None:
        if self.hostile is not None:
            self.hostile.close()
        for table in self.tables.values():
            table.close()
        self.scoreboard.close()


@pytest.fixture
def event(tmp_path: Path, broker: AnyBroker) -> Iterator[Event]:
    made = Event(tmp_path, broker)
    yield made
    made.close()


@pytest.fixture
def seated_event(tmp_path: Path, broker: AnyBroker) -> Iterator[Event]:
    made = Event(tmp_path, broker, seating=parse_seating(SEATING, "seating.txt"))
    yield made
    made.close()


def the_game(event: Event, table: str) -> str:
    (game_id,) = event.board.tables[table].games
    return game_id


def shown_everywhere(event: Event, text: str) -> None:
    """``text`` is on the terminal (in 80 columns), in board.json's problems and in standings.csv."""
    snapshot = event.board.snapshot()
    terminal = render_text(snapshot)
    assert text in terminal.replace("\n       ", " ") and all(columns(line) <= 80 for line in terminal.splitlines())
    assert any(text in problem for problem in json.loads(json.dumps(snapshot))["problems"])
    rows = list(csv.reader(io.StringIO(standings_csv(event.board))))
    assert any(row[0] == "not scored" and text in row[1] for row in rows), rows


def test_a_table_forging_a_seated_player_is_flagged_and_not_scored(seated_event: Event) -> None:
    event = seated_event
    event.past_catch_up()
    event.start_round(ROUND_1)
    event.play(10)
    event.forge(["Gen", "Aki", "Ben"])  # Gen plays at table 1 right now
    event.play()
    assert event.flags() == {(HOSTILE, "66-forged"): "table 66 names Gen, seated at table 1"}
    assert_board_equals_replays(event.board, event.honest())  # the standings are the honest tables' alone
    shown_everywhere(event, "table 66 names Gen, seated at table 1: not scored")
    assert "NOT SCORED: table 66 names Gen" in render_text(event.board.snapshot())


def test_a_table_forging_a_player_without_a_list_is_contested_and_scored_nowhere(event: Event) -> None:
    event.past_catch_up()
    event.start_round(ROUND_1)
    event.play(10)
    event.forge(["Gen", "Aki", "Ben"])  # while Gen plays at table 1
    event.play()
    why = "contested: Gen at tables 1 and 66 at once"
    assert event.flags() == {("1", the_game(event, "1")): why, (HOSTILE, "66-forged"): why}
    finished = assert_games_equal_replays(event.board, event.honest())  # table 1's game is still its replay
    table_2 = [(p, t) for p, t in finished if "Nao" in p]
    assert event.board.standings() == standings(table_2, event.board.rank_points)  # table 1 waits for the organiser
    shown_everywhere(event, f"{why}: not scored")
    # the organiser settles it with the seating list: table 1's game counts, table 66's does not
    settled = Board(seating=parse_seating(SEATING, "seating.txt"))
    for table, tracked in event.board.games():
        for number, line in enumerate(tracked.stream.lines, start=1):
            settled.journal(table, JournalMessage(tracked.id, number, None, line), 0.0)
    assert settled.flagged() == ["table 66 names Gen, seated at table 1: not scored (game 66-forged)"]
    assert_board_equals_replays(settled, event.honest())


def test_honest_tables_whose_players_move_between_rounds_are_never_flagged(event: Event) -> None:
    event.past_catch_up()
    for seating in (ROUND_1, ROUND_2, ROUND_1):
        event.start_round(seating)
        event.play()
        event.clock.advance(1.0)  # the players change tables: a moment, not a minute
    assert event.flags() == {}
    assert_board_equals_replays(event.board, event.honest())
    gen = next(s for s in event.board.standings() if s.player == "Gen")
    assert gen.games == 3 and gen.table is None  # one person across rounds, at both tables


def test_a_scoreboard_restart_in_the_middle_flags_nothing_new_and_keeps_the_standings(
        tmp_path: Path, broker: AnyBroker) -> None:
    event = Event(tmp_path, broker, state=BoardState(tmp_path / "scoreboard-state"))
    try:
        event.past_catch_up()
        event.start_round(ROUND_1)
        event.play(10)
        heard = {t: g.heard for t, g in event.board.games()}
        event.scoreboard.close()  # saves its games and when it heard them
        event.play(5, live=False)  # the tables go on; the broker queues their lines
        event.clock.advance(100.0)
        event.scoreboard = event.start_scoreboard()  # same session: every queued line arrives at once
        settle(event.board, has_every_line(event.board, event.honest()), "the lines played while it was away")
        assert {t: g.heard for t, g in event.board.games()} == heard  # the burst is not when they were played
        event.past_catch_up()
        event.play()
        event.start_round(ROUND_2)
        event.play()
        assert event.flags() == {}
        assert_board_equals_replays(event.board, event.honest())
    finally:
        event.close()


def test_default_names_at_every_table_are_seats_never_merged_nor_contested(event: Event) -> None:
    event.past_catch_up()
    event.start_round({"1": None, "2": None, "3": None})  # nobody named: Aki, Ben, Chie, Dai everywhere
    event.play(10)
    event.forge(["Aki", "Ben", "Chie"])  # table 66 gives them too, at the same time
    event.play()
    assert event.flags() == {}
    finished = assert_games_equal_replays(event.board, event.honest())
    own = replay_json(Path(__file__).resolve().parents[2] / "docs" / "examples" / "tezuma.jsonl")
    finished.append((scored_as(["Aki", "Ben", "Chie"], HOSTILE, event.board), own["totals"]))
    assert event.board.standings() == standings(finished, event.board.rank_points)
    shown = [row["player"] for row in event.board.snapshot()["standings"]]
    assert len(shown) == 3 * 4 + 3 and "Aki (table 1)" in shown and "Aki (table 66)" in shown
    assert all(s.table is not None for s in event.board.standings())
    assert "Aki (table 2)" in render_text(event.board.snapshot())
    assert "Chie (table 66)" in standings_csv(event.board)
    server = ScoreboardServer(("127.0.0.1", 0), event.board).serve_in_thread()
    try:
        with urllib.request.urlopen(server.url, timeout=10) as response:
            page = response.read().decode("utf-8")
        with urllib.request.urlopen(server.url + "board.json", timeout=10) as response:
            board_json = json.load(response)
    finally:
        server.stop()
    assert 'shown as "Aki (table 3)" and never added up across tables' in " ".join(page.split())
    assert any(row["player"] == "Aki (table 66)" and row["table"] == HOSTILE for row in board_json["standings"])


def test_the_seating_list_in_the_event_docs_is_one_the_scoreboard_reads() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "event.md").read_text(encoding="utf-8")
    example = docs.split("   # autumn cup", 1)[1].split("```", 1)[0]
    seating = parse_seating("# autumn cup" + example, "docs/event.md")
    assert seating.where[name_key("Nao")] == ("2", "1") and seating.allows("1", "Gen")


def test_the_seating_list_is_read_again_on_request_and_a_bad_one_leaves_the_old(tmp_path: Path) -> None:
    board = Board(seating=parse_seating(SEATING, "seating.txt"))
    feed(board, "1", "r2", with_players(example_lines(), ["Gen", "Nao", "Rin"]), now=0.0)
    assert board.flagged() == ["table 1 names Nao, seated at table 2: not scored (game r2)"]
    path = _write(tmp_path / "seating.txt", SEATING + "1: Nao, Rin  # round 2\n")
    assert reload_seating(board, path) == f"seating list reloaded from {path}"
    assert board.flagged() == [] and len(board.standings()) == 3
    _write(path, "1; Gen\n")
    said = reload_seating(board, path)
    assert said.startswith("seating list not reloaded, the one in force stays: --seating") and "line 1" in said
    assert board.seating is not None and board.seating.allows("1", "Nao")


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this system")
def test_sighup_makes_the_scoreboard_command_read_its_seating_list_again(tmp_path: Path) -> None:
    path = _write(tmp_path / "seating.txt", SEATING)
    command = [sys.executable, "-m", "companion.cli", "scoreboard", "--broker", "mqtt://127.0.0.1:1", "--event", EVENT,
               "--http", "off", "--quiet", "--seating", str(path), "--state", str(tmp_path / "state")]
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        assert child.stderr is not None
        said = []

        def wait_for_line(start: str) -> None:
            for line in child.stderr:  # the child's lines as they come; ends if it exits
                said.append(line)
                if line.startswith(start):
                    return
            pytest.fail(f"the scoreboard never said {start!r}: {''.join(said)}")

        wait_for_line("scoreboard state:")  # its signal handlers are in place
        _write(path, SEATING + "1: Nao\n")
        child.send_signal(signal.SIGHUP)
        wait_for_line("seating list reloaded from")
        _write(path, "oops\n")
        child.send_signal(signal.SIGHUP)
        wait_for_line("seating list not reloaded, the one in force stays")
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate(timeout=10)
