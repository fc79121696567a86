"""The organiser's seating list reaches the devices (retained, one message per table, behind the
documented ACL) and their setup forms offer exactly those names first; the standings add them up.

Through the broker in the test's process, with docs/mosquitto/acl and an account per table (the
same ACL on a real mosquitto: tests/event/test_event_security.py)."""

from __future__ import annotations

import re

import pytest

from companion.errors import RecordError
from companion.event.config import Topics
from companion.event.wire import decode_seating, seating_message
from companion.organiser.board import Board
from companion.organiser.names import parse_seating
from companion.organiser.scoreboard import Scoreboard
from tests.event.conftest import EVENT, MockTable, RawClient, has_every_line, settle, start_scoreboard, wait_for
from tests.event.memory import Acl
from tests.event.test_event_security import PASSWORDS, event_acl

SEATING = "3: Alice, Bob, 山田花子, Dan\n4: Eve, Fay, Gus, Hal\n"
SEATED = {"3": ["Alice", "Bob", "山田花子", "Dan"], "4": ["Eve", "Fay", "Gus", "Hal"]}


@pytest.fixture
def event(start_memory_broker, tmp_path):
    """A broker with the documented ACL and the accounts of PASSWORDS (each password also in
    ``tmp_path/<user>.pw``); ``start(seating)`` starts the scoreboard, ``client(user)`` a raw client."""
    for user, password in PASSWORDS.items():
        (tmp_path / f"{user}.pw").write_text(password + "\n")
    broker = start_memory_broker(accounts=PASSWORDS, acl=Acl.read(event_acl(tmp_path)))
    started: list[object] = []

    def start(seating: str | None) -> Scoreboard:
        board = Board(seating=parse_seating(seating, "seats.txt") if seating else None)
        scoreboard = start_scoreboard(broker, board, username="scoreboard",
                                      password_file=str(tmp_path / "scoreboard.pw"))
        started.append(scoreboard)
        return scoreboard

    def table(number: str) -> MockTable:
        made = MockTable(tmp_path, number, broker, seed=int(number), username=number,
                         password_file=str(tmp_path / f"{number}.pw"))
        started.append(made)
        return made

    def client(user: str) -> RawClient:
        made = RawClient(broker, f"raw-{user}", username=user, password_file=str(tmp_path / f"{user}.pw"))
        started.append(made)
        return made

    yield start, table, client
    for each in reversed(started):
        each.close()  # type: ignore[attr-defined]


def offered(table: MockTable, count: int) -> list[str]:
    """The first ``count`` names the table's setup form offers, once its loop took what arrived."""
    table.device.device.loop.run_until_idle()
    return list(table.device.app.top.names[0].options[:count])


def online(table: MockTable) -> bool:
    return table.publisher is not None and table.publisher.status.state == "online"


def test_each_device_offers_its_tables_seated_names_first_and_the_standings_add_them_up(event):
    start, table, client = event
    forger = client("3")
    for target in ("3", "4"):  # table 3 may neither seat people at table 4 nor change its own list
        reason = forger.publish(Topics("companion", EVENT).table(target, "seating"), seating_message(["Mallory"]),
                                retain=True)
        assert reason.failed  # the broker drops both
    forger.close()
    scoreboard = start(SEATING)
    three, four = table("3"), table("4")
    for device in (three, four):
        wait_for(lambda device=device: offered(device, 4) == SEATED[device.table], f"table {device.table}'s names")
        form = device.device.app.top
        assert [choice.value for choice in form.names[:4]] == SEATED[device.table]
        assert "Mallory" not in form.names[0].options
        assert form.names[0].options[4:6] == ["Aki", "Ben"]  # the built-in names stay, after them
    for device in (three, four):
        device.new_game("tezuma")
        assert device.device.game.setup.players == tuple(SEATED[device.table])
        device.play()
    board = scoreboard.board
    settle(board, has_every_line(board, [three, four]), "both games")
    assert sorted(row.shown for row in board.standings()) == sorted(SEATED["3"] + SEATED["4"])


def test_a_table_reads_its_own_seating_and_not_another_tables(event):
    start, _, client = event
    start(SEATING)
    topics = Topics("companion", EVENT)
    four = client("4")
    # retained messages come with each subscription's grant, in order: table 3's first, were it allowed
    four.subscribe(topics.table("3", "seating"))
    four.subscribe(topics.table("4", "seating"))
    wait_for(lambda: topics.table("4", "seating") in four.topics(), "table 4's own seating")
    assert four.topics() == [topics.table("4", "seating")]


def test_a_table_the_list_no_longer_seats_is_told_and_falls_back_to_the_built_in_names(event):
    start, table, _ = event
    scoreboard = start(SEATING)
    three = table("3")
    wait_for(lambda: offered(three, 4) == SEATED["3"], "table 3's names")
    scoreboard.board.set_seating(parse_seating("4: Eve, Fay, Gus, Hal", "seats.txt"))
    scoreboard.publish_seating()
    wait_for(lambda: offered(three, 4) == ["Aki", "Ben", "Chie", "Dai"], "table 3's names taken back")


def test_a_device_that_never_received_a_list_offers_the_built_in_names(event):
    start, table, client = event
    start(None)
    three = table("3")
    wait_for(lambda: online(three), "table 3 online")
    auditor = client("auditor")  # the broker holds no seating message for it: nothing arrived
    auditor.subscribe(Topics("companion", EVENT).every_table("seating"))
    auditor.subscribe(Topics("companion", EVENT).table("3", "status"))
    wait_for(lambda: any(topic.endswith("/status") for topic in auditor.topics()), "table 3's retained status")
    assert not any(topic.endswith("/seating") for topic in auditor.topics())
    assert offered(three, 4) == ["Aki", "Ben", "Chie", "Dai"]
    three.new_game("tezuma")
    assert three.device.game.setup.players == ("Aki", "Ben", "Chie", "Dai")


@pytest.mark.parametrize(("names", "why"), [
    ([], "1-64 names"),
    (["x" * 33], "at most 32 characters"),
    (["A\u202eB"], "control or invisible character (U+202E)"),
    (["Ann"] * 65, "1-64 names"),
])
def test_a_seating_message_the_device_cannot_show_is_refused(names, why):
    with pytest.raises(RecordError, match=re.escape(why)):
        decode_seating(seating_message(names))
