"""Event tests: mock devices and the scoreboard share a process, on a broker in that process or a real one.

The ``broker`` fixture is the broker in the test's process (tests/event/memory.py), on a virtual
clock: event logic runs there, with nothing to wait for but the work itself. The ``mosquitto``
fixture (and ``start_broker``) is a real mosquitto on a loopback port, for the tests that are about
the real thing: the documented ACL and accounts, TLS, processes killed, the commands, the page in a
browser; a test marked ``@ON_MOSQUITTO`` gets it as its ``broker``.

Where mosquitto (or Chromium, for the page test) is not installed those tests skip and say so.
With ``COMPANION_EVENT_TESTS=required`` (set by .ci/run, which installs mosquitto: a service the tests
need is the one thing CI may install beyond the README's commands) a missing broker fails instead;
CI installs Chromium too and sets ``COMPANION_BROWSER_TESTS=required`` (tests/event/chromium.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main as companion
from companion.daemon.virtual import VirtualDevice
from companion.event.config import EventConfig, Topics, parse_broker
from companion.event.link import SYSTEM_CLOCK, Clock, Message, Reason, Session, Transport
from companion.event.mosquitto import Mosquitto, mosquitto_binary
from companion.event.mqtt import paho_link
from companion.hw.keys import Key, KeyEvent
from companion.organiser.board import Board, standings
from companion.organiser.names import standing_key
from companion.organiser.scoreboard import Scoreboard
from companion.report import rendered_summary
from companion.sim import table_model
from companion.uplink.publisher import Publisher
from tests.event.memory import RUNNING, MemoryBroker, VirtualClock, wait_until

EVENT = "cup"
SETTLE = 60.0  # seconds a test waits for the network to deliver before it fails (a bound, not a speed goal)

AnyBroker = Mosquitto | MemoryBroker


def needs_tool(name: str, found: object) -> None:
    if found:
        return
    why = f"{name} is not installed (sudo apt install {name})"
    if name == "mosquitto" and os.environ.get("COMPANION_EVENT_TESTS") == "required":
        pytest.fail(why + "; COMPANION_EVENT_TESTS=required")
    pytest.skip(why)


@pytest.fixture
def start_broker(tmp_path: Path) -> Iterator[Callable[..., Mosquitto]]:
    """``start_broker(persistence=..., password_file=..., acl_file=...)``: a started mosquitto."""
    needs_tool("mosquitto", mosquitto_binary())
    started: list[Mosquitto] = []

    def start(**options: Any) -> Mosquitto:
        broker = Mosquitto(tmp_path / f"broker-{len(started)}", **options).start()
        started.append(broker)
        return broker

    yield start
    for broker in started:
        broker.stop()


@pytest.fixture
def mosquitto(start_broker: Callable[..., Mosquitto]) -> Mosquitto:
    return start_broker()


@pytest.fixture
def start_memory_broker() -> Iterator[Callable[..., MemoryBroker]]:
    """``start_memory_broker(persistence=..., accounts=..., acl=...)``: a broker in this process, on
    a virtual clock that moves while the test waits (``settle``, ``wait_for``)."""
    started: list[MemoryBroker] = []

    def start(**options: Any) -> MemoryBroker:
        made = MemoryBroker(VirtualClock(), **options)
        started.append(made)
        RUNNING.append(made)
        return made

    yield start
    for made in started:
        RUNNING.remove(made)


@pytest.fixture
def broker(request: pytest.FixtureRequest, start_memory_broker: Callable[..., MemoryBroker]) -> AnyBroker:
    """The broker in the test's process; a real mosquitto for a test marked ``@ON_MOSQUITTO``."""
    if getattr(request, "param", None) == "mosquitto":
        made: Mosquitto = request.getfixturevalue("mosquitto")
        return made
    return start_memory_broker()


# The tests about the real thing: ``broker`` (and the scoreboard and tables on it) is a real mosquitto.
ON_MOSQUITTO = pytest.mark.parametrize("broker", ["mosquitto"], indirect=True)


def transport_of(broker: AnyBroker) -> Transport:
    return broker if isinstance(broker, MemoryBroker) else paho_link


def clock_of(broker: AnyBroker) -> Clock:
    return broker.clock if isinstance(broker, MemoryBroker) else SYSTEM_CLOCK


def start_scoreboard(broker: AnyBroker, board: Board | None = None, **options: Any) -> Scoreboard:
    """A started, connected scoreboard of event ``cup`` on ``broker`` (its clock unless one is given)."""
    options.setdefault("clock", clock_of(broker))
    options.setdefault("check_every", 0.1)
    scoreboard = Scoreboard(parse_broker(broker.url, username=options.pop("username", None),
                                         password_file=options.pop("password_file", None)),
                            Topics("companion", EVENT), board or Board(gap_grace=0.5),
                            transport=transport_of(broker), **options).start()
    listening(scoreboard)
    return scoreboard


def listening(scoreboard: Scoreboard) -> None:
    """Wait until the broker has the scoreboard's subscriptions, not only its connection: a broker
    takes a subscription in its own time, and a table's message before it would never arrive. The
    count of clients (``$SYS``, retained) comes in the same grant as the tables' topics."""
    wait_for(lambda: scoreboard.connected.is_set() and scoreboard.broker_clients is not None,
             "the scoreboard subscribed")


class RawClient:
    """A bare MQTT client through the devices' own seam: what it hears, what the broker acknowledged."""

    def __init__(self, broker: AnyBroker, client_id: str, *, username: str | None = None,
                 password_file: str | None = None, persistent: bool = False) -> None:
        self.heard: list[tuple[str, bytes]] = []
        self.acked: dict[int, Reason] = {}
        self._connected = threading.Event()
        address = parse_broker(broker.url, username=username, password_file=password_file)
        self.link = transport_of(broker)(address, Session(client_id, persistent=persistent), self)
        self.link.start()
        wait_for(self._connected.is_set, f"{client_id} connected")

    def link_connected(self, reason: Reason, session_present: bool) -> None:
        if not reason.failed:
            self._connected.set()

    def link_lost(self, detail: str) -> None:
        pass

    def link_acked(self, mid: int, reason: Reason) -> None:
        self.acked[mid] = reason

    def link_message(self, topic: str, payload: bytes) -> None:
        self.heard.append((topic, payload))

    def topics(self) -> list[str]:
        return [topic for topic, _ in list(self.heard)]

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> Reason:
        """Publish (QoS 1) and wait for the broker's answer."""
        mid = self.link.publish(Message(topic, payload, retain=retain))
        assert mid is not None, "not connected"
        wait_for(lambda: mid in self.acked, f"the broker's answer to message {mid}")
        return self.acked[mid]

    def subscribe(self, *topics: str) -> None:
        self.link.subscribe([(topic, 1) for topic in topics])

    def close(self) -> None:
        self.link.stop()


@pytest.fixture
def scoreboard(broker: AnyBroker) -> Iterator[Scoreboard]:
    board = start_scoreboard(broker)
    yield board
    board.close()


class MockTable:
    """A mock device (the production Device on fake buses, virtual time) publishing to the broker.

    It is wired as ``companion run`` wires it: the publisher's link mark goes to the device's loop
    (``Device.link_changed``), which draws it when the test lets the loop run.
    """

    def __init__(self, root: Path, table: str, broker: AnyBroker, *, seed: int = 0,
                 publisher_options: dict[str, Any] | None = None, **account: str) -> None:
        self.table = table
        self.publisher_options = {"transport": transport_of(broker), "clock": clock_of(broker),
                                  **(publisher_options or {})}
        self.state = root / f"table-{table}"
        self.config = EventConfig(parse_broker(broker.url, **account), EVENT, table)
        self.device = VirtualDevice(self.state, seed=seed)
        self.rng = random.Random(seed)
        self.model: Any = None
        self.publisher: Publisher | None = None
        self.connect()

    def connect(self) -> None:
        self.publisher = Publisher(self.config, self.state, client_id=f"table-{self.table}",
                                   on_status=self.device.device.link_changed,
                                   on_seating=self.device.device.seating_changed, **self.publisher_options).start()
        self.device.device.store.on_journalled.append(self.publisher.wake)

    def disconnect(self) -> None:
        """The device goes offline (its network is gone); play carries on."""
        assert self.publisher is not None
        self.device.device.store.on_journalled.remove(self.publisher.wake)
        self.publisher.close()
        self.publisher = None

    def new_game(self, game_id: str = "tezuma", names: list[str] | None = None) -> None:
        """From the new-game form: choose the game (and, if given, a seat's name after another from
        the device's list, with RIGHT), jump to Start, OK (as tests/device do)."""
        app = self.device.app
        if self.device.game is not None:  # after a finished game: past its tables, then OK on the ranking
            while len(app.screens) > 1:
                self.device.press(KeyEvent(app.top.leave_key))
            self.device.press(KeyEvent(Key.OK))
        for _ in range(len(app.top.game_ids)):
            if app.top.game.value == game_id:
                break
            self.device.press(KeyEvent(Key.RIGHT))
        if names:
            self.device.press(KeyEvent(Key.DOWN))  # the players row (its count is the game's most)
        for seat, name in enumerate(names or []):
            self.device.press(KeyEvent(Key.DOWN))  # each seat's name in turn
            choice = app.top.names[seat]
            assert app.top.rows[app.top.row] is choice
            for _ in choice.options:
                if choice.value == name:
                    break
                self.device.press(KeyEvent(Key.RIGHT))
            assert choice.value == name, f"{name} is not on the device's list"
        if not names:
            self.device.press(KeyEvent(Key.UP))  # from the first row up to Start
        while app.top.rows[app.top.row] is not None:
            self.device.press(KeyEvent(Key.DOWN))
        self.device.press(KeyEvent(Key.OK))
        self.model = table_model(self.device.game, self.rng, 0.4)

    def play(self, actions: int | None = None) -> int:
        """Enter up to ``actions`` actions with key presses (all to the end when None)."""
        game, done = self.device.game, 0
        while not game.is_over() and (actions is None or done < actions):
            action = self.model.choose(game, self.rng)
            self.device.enter(action)
            self.model.after(game, action)
            done += 1
        return done

    def journals(self) -> list[Path]:
        found = sorted((self.state / "games").glob("*.jsonl")) if (self.state / "games").is_dir() else []
        current = self.state / "current.jsonl"
        return found + ([current] if current.exists() else [])

    def close(self) -> None:
        if self.publisher is not None:
            self.disconnect()
        self.device.close()


@pytest.fixture
def tables(tmp_path: Path, broker: AnyBroker) -> Iterator[Callable[[int], list[MockTable]]]:
    made: list[MockTable] = []

    def make(count: int) -> list[MockTable]:
        new = [MockTable(tmp_path, str(len(made) + i + 1), broker, seed=len(made) + i) for i in range(count)]
        made.extend(new)
        return new

    yield make
    for table in made:
        table.close()


def replay_json(path: Path) -> dict[str, Any]:
    """``companion replay --json`` of one journal, as the organiser would run it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert companion(["replay", "--json", str(path)]) == 0
    return json.loads(out.getvalue())


def journal_lines(path: Path) -> int:
    return len(path.read_bytes().splitlines())


def wait_for(ready: Callable[[], bool], what: str, timeout: float = SETTLE,
             pause: Callable[[], bool] | None = None) -> None:
    """Wait until ``ready()``, failing after ``timeout`` real seconds; the in-process brokers' clocks
    move on whenever they have nothing left to deliver (a resend, a status, a retry come when due)."""
    if RUNNING:
        if not wait_until(ready, RUNNING, timeout=timeout, pause=pause):
            pytest.fail(f"never saw {what} within {timeout:.0f} s")
        return
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"never saw {what} within {timeout:.0f} s")
        time.sleep(0.02)


def settle(board: Board, ready: Callable[[], bool], what: str, timeout: float = SETTLE) -> None:
    """Wait (woken by every board change) until ``ready()``; fail naming ``what`` after ``timeout``."""
    if RUNNING:
        seen = [board.version]

        def changed() -> bool:
            version = board.wait_change(seen[0], 0.01)
            moved, seen[0] = version != seen[0], version
            return moved

        wait_for(ready, f"the scoreboard getting {what}", timeout, pause=changed)
        return
    deadline = time.monotonic() + timeout
    seen = -1
    while not ready():
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"the scoreboard never got {what} within {timeout:.0f} s")
        seen = board.wait_change(seen, min(left, 0.5))


def has_every_line(board: Board, tables: list[MockTable]) -> Callable[[], bool]:
    """True once the board applied exactly the lines of every journal of every table."""

    def ready() -> bool:
        for table in tables:
            expected = sorted(journal_lines(p) for p in table.journals())
            known = board.tables.get(table.table)
            have = sorted(g.stream.applied for g in known.games.values()) if known else []
            if have != expected:
                return False
        return True

    return ready


def assert_board_equals_replays(board: Board, tables: list[MockTable]) -> None:
    """Every game on the board is the replay of a journal, table by table, and so are the standings."""
    finished = assert_games_equal_replays(board, tables)
    assert board.standings() == standings(finished, board.rank_points)


def assert_games_equal_replays(board: Board, tables: list[MockTable]) -> list[tuple[list[Any], list[int]]]:
    """Every game on the board is the replay of a journal, table by table; returns the finished
    ones as the standings take them, ``(players, totals)``."""
    finished = []
    for table in tables:
        replays = sorted(json.dumps(replay_json(p), sort_keys=True) for p in table.journals())
        games = board.tables[table.table].games.values()
        assert all(g.stream.failure is None for g in games)
        rebuilt = sorted(json.dumps(rendered_summary(g.stream.game), sort_keys=True) for g in games)
        assert rebuilt == replays, f"table {table.table}"
        finished += [(scored_as(s["players"], table.table, board), s["totals"])
                     for s in map(json.loads, replays) if s["pending"] is None]
    return finished


def scored_as(players: list[str], table: str, board: Board) -> list[str | tuple[str, str]]:
    """Who the standings credit: a name, or a default name's seat at its table ("Aki (table 3)")."""
    return [standing_key(name, table, board.seating) for name in players]
