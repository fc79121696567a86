"""The broker in the test's process does what mosquitto does where the event logic relies on it:
each check here runs on both, so a difference fails here rather than hiding in the logic tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from companion.event.config import Topics
from tests.event.conftest import EVENT, AnyBroker, RawClient, wait_for
from tests.event.memory import Acl
from tests.event.test_event_security import PASSWORDS, documented_broker, event_acl

BOTH = pytest.mark.parametrize("broker", ["memory", "mosquitto"], indirect=True)
TOPICS = Topics("companion", EVENT)


@pytest.fixture
def clients(broker: AnyBroker) -> Iterator[Callable[..., RawClient]]:
    made: list[RawClient] = []

    def connect(client_id: str, **options: object) -> RawClient:
        client = RawClient(broker, client_id, **options)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield connect
    for client in made:
        client.close()


def listening(writer: RawClient, reader: RawClient, topic: str) -> None:
    """Wait until ``reader``'s subscription is in place (a broker takes one in its own time): a
    retained marker on ``topic`` reaches it once, live if it was in place, else with the grant."""
    writer.publish(topic, b"ready?", retain=True)
    wait_for(lambda: (topic, b"ready?") in reader.heard, f"{topic} heard")


@BOTH
def test_a_retained_message_reaches_each_later_subscriber_until_an_empty_one_clears_it(clients) -> None:
    writer = clients("writer")
    assert not writer.publish("t/seating", b"names", retain=True).failed
    first = clients("first")
    first.subscribe("t/#")
    wait_for(lambda: ("t/seating", b"names") in first.heard, "the retained message")
    writer.publish("t/seating", b"", retain=True)
    second = clients("second")
    second.subscribe("t/#")
    listening(writer, second, "t/after")
    assert second.heard == [("t/after", b"ready?")]


@BOTH
def test_a_persistent_session_gets_what_came_while_it_was_away_and_a_clean_one_does_not(clients) -> None:
    writer = clients("writer")
    away, clean = clients("away", persistent=True), clients("clean")
    for reader in (away, clean):
        reader.subscribe("t/#")
        listening(writer, reader, f"t/{reader.link.session.client_id}")  # type: ignore[attr-defined]
        reader.close()
    for line in (b"1", b"2", b"3"):
        writer.publish("t/line", line)
    back = clients("away", persistent=True)  # no new subscription: the session kept it, and the queue
    wait_for(lambda: [p for t, p in back.heard if t == "t/line"] == [b"1", b"2", b"3"], "the queued lines, in order")
    fresh = clients("clean")
    fresh.subscribe("t/#")
    listening(writer, fresh, "t/after")
    assert [p for t, p in fresh.heard if t == "t/line"] == []


@pytest.fixture(params=["memory", "mosquitto"])
def documented(request: pytest.FixtureRequest, tmp_path: Path) -> AnyBroker:
    """docs/mosquitto/acl with the event filled in and the accounts of PASSWORDS, on either broker."""
    if request.param == "mosquitto":
        return documented_broker(request.getfixturevalue("start_broker"), tmp_path)
    for user, password in PASSWORDS.items():
        (tmp_path / f"{user}.pw").write_text(password + "\n")
    start: Callable[..., AnyBroker] = request.getfixturevalue("start_memory_broker")
    return start(accounts=PASSWORDS, acl=Acl.read(event_acl(tmp_path)))


def test_the_documented_acl_refuses_by_reason_and_gives_an_account_only_what_it_may_read(
        documented: AnyBroker, tmp_path: Path) -> None:
    def account(user: str) -> RawClient:
        return RawClient(documented, f"raw-{user}", username=user, password_file=str(tmp_path / f"{user}.pw"))

    three, organiser = account("3"), account("scoreboard")
    try:
        assert three.publish(TOPICS.table("4", "journal"), b"{}").failed  # as another table
        assert three.publish(TOPICS.table("3", "seating"), b"{}", retain=True).failed  # its own list
        assert not three.publish(TOPICS.table("3", "journal"), b"{}").failed
        for table in ("4", "3"):
            assert not organiser.publish(TOPICS.table(table, "seating"), f"seats {table}".encode(), retain=True).failed
        three.subscribe(TOPICS.table("4", "seating"))  # retained messages come with each grant, in order
        three.subscribe(TOPICS.table("3", "seating"))
        wait_for(lambda: three.heard, "table 3's own seating")
        assert three.heard == [(TOPICS.table("3", "seating"), b"seats 3")]
    finally:
        three.close()
        organiser.close()
