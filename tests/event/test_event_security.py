"""The documented broker ACL (docs/mosquitto/acl) with passwords: each table writes only its own topics."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from companion.daemon.store import Store
from companion.event.board import Board
from companion.event.config import EventConfig, Topics, parse_broker
from companion.event.mosquitto import write_password_file
from companion.event.publisher import Publisher
from companion.event.scoreboard import Scoreboard
from companion.event.wire import journal_message
from companion.sim import new_random_game
from tests.event.conftest import EVENT, SETTLE, settle
from tests.event.test_event_broker import wait_for

ACL = Path(__file__).resolve().parents[2] / "docs" / "mosquitto" / "acl"
PASSWORDS = {"scoreboard": "organiser secret", "3": "three's secret", "4": "four's secret"}


@pytest.fixture
def secured(start_broker, tmp_path):
    passwords = tmp_path / "passwd"
    write_password_file(passwords, PASSWORDS)
    for user, password in PASSWORDS.items():
        (tmp_path / f"{user}.pw").write_text(password + "\n")
    broker = start_broker(password_file=passwords, acl_file=ACL)
    account = parse_broker(broker.url, username="scoreboard", password_file=str(tmp_path / "scoreboard.pw"))
    scoreboard = Scoreboard(account, Topics("companion", EVENT), Board(), check_every=0.1).start()
    assert scoreboard.connected.wait(SETTLE)
    yield broker, scoreboard
    scoreboard.close()


def raw_client(url: str, user: str, password: str) -> mqtt.Client:
    broker = parse_broker(url)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{user}")
    client.username_pw_set(user, password)
    connected = threading.Event()
    client.on_connect = lambda *_: connected.set()
    client.connect(broker.host, broker.port)
    client.loop_start()
    assert connected.wait(SETTLE)
    return client


def test_table_3_cannot_publish_as_table_4(secured, tmp_path):
    broker, scoreboard = secured
    topics = scoreboard.topics
    header = {"format": "not-checked-before-the-acl"}
    client = raw_client(broker.url, "3", PASSWORDS["3"])
    try:
        # In MQTT 3.1.1 the broker acknowledges a denied publish and drops it, so the proof is the
        # order: table 3's own message, sent after the forged one, arrives; the forged one never does.
        client.publish(topics.table("4", "journal"), journal_message("forged", 1, header, sent=0.0), qos=1).wait_for_publish(SETTLE)
        client.publish(topics.table("4", "status"), b'{"online": true, "games": {"forged": 99}}', qos=1).wait_for_publish(SETTLE)
        client.publish(topics.table("3", "journal"), journal_message("own", 1, header, sent=0.0), qos=1).wait_for_publish(SETTLE)
        board = scoreboard.board
        settle(board, lambda: "3" in board.tables, "table 3's own line")
        assert "4" not in board.tables
        assert list(board.tables["3"].games) == ["own"]
    finally:
        client.loop_stop()
        client.disconnect()


def test_a_table_with_its_own_account_plays_through_and_a_wrong_password_is_a_mark_not_an_error(secured, tmp_path):
    broker, scoreboard = secured
    states = {user: tmp_path / f"state-{user}" for user in ("3", "4")}
    (tmp_path / "wrong.pw").write_text("not the password\n")
    good = parse_broker(broker.url, username="3", password_file=str(tmp_path / "3.pw"))
    bad = parse_broker(broker.url, username="4", password_file=str(tmp_path / "wrong.pw"))
    publishers = [Publisher(EventConfig(good, EVENT, "3"), states["3"]), Publisher(EventConfig(bad, EVENT, "4"), states["4"])]
    stores = [Store(states["3"]), Store(states["4"])]
    try:
        for store, publisher in zip(stores, publishers, strict=True):
            store.on_journalled.append(publisher.wake)
            publisher.start()
            session = store.start(new_random_game("tezuma", 4, random.Random(3)).setup)
            session.push(next(iter(session.game.legal_actions)))
        refused = publishers[1]
        wait_for(lambda: refused.status.state == "refused" and refused.status.backlog == 2, "the refusal")
        assert refused.status.mark == "x"  # and both lines wait in the journal for a right password
        board = scoreboard.board
        settle(board, lambda: "3" in board.tables and board.applied == 2, "table 3's lines")
        assert "4" not in board.tables
    finally:
        for publisher in publishers:
            publisher.close()
        for store in stores:
            store.close()
