"""The table page (``run --web``): what it shows is ``companion replay --json`` of the journal after
every deal of whole games played by key presses, and its server only reads, with the protections
of the scoreboard's page."""

from __future__ import annotations

import contextlib
import io
import json
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main as companion
from companion.daemon import page
from companion.daemon.page import TablePageServer, TableView, running_totals
from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.registry import game_ids
from companion.sim import table_model

SETTLE = 60.0  # seconds a test waits for the page's thread (a bound, not a speed goal)


def replay_json(path: Path) -> dict[str, Any]:
    """``companion replay --json`` of one journal."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert companion(["replay", "--json", str(path)]) == 0
    return json.loads(out.getvalue())


def start(device: VirtualDevice, game_id: str) -> None:
    """From the setup form: choose the game, down to Start, OK."""
    form = device.app.top
    while form.game.value != game_id:
        device.press(KeyEvent(Key.RIGHT))
    while form.rows[form.row] is not None:
        device.press(KeyEvent(Key.DOWN))
    device.press(KeyEvent(Key.OK))


def enter_actions(device: VirtualDevice, count: int, *, seed: int) -> None:
    """``count`` actions of a simulated table, entered by the keys a person would press."""
    game, rng = device.game, random.Random(seed)
    model = table_model(game, rng, 0.4)
    for _ in range(count):
        action = model.choose(game, rng)
        device.enter(action)
        model.after(game, action)


def shown(view: TableView) -> dict[str, Any]:
    return json.loads(view.event_data()[1])


def assert_page_is_the_replay(view: TableView, journal: Path) -> dict[str, Any]:
    view.refresh()
    page, replay = shown(view), replay_json(journal)
    assert page["summary"] == replay
    assert page["sheet"] == {"deals": [deal["scores"] for deal in replay["deals"]], "totals": replay["totals"]}
    scored = [deal["scores"] for deal in replay["deals"] if deal["scores"] is not None]
    assert page["chart"] == running_totals(scored, len(replay["players"]))
    assert [len(points) for points in page["chart"]] == [len(scored)] * len(replay["players"])
    return page


@pytest.mark.parametrize("game_id", game_ids())
def test_the_sheet_and_chart_are_the_replay_after_every_deal(tmp_path, game_id):
    device = VirtualDevice(tmp_path, seed=3)
    view = TableView(tmp_path)
    journal = tmp_path / "current.jsonl"
    try:
        start(device, game_id)
        game, rng = device.game, random.Random(3)
        model = table_model(game, rng, 0.4)
        checked = 0
        while not game.is_over():
            scored = sum(1 for deal in game.summary()["deals"] if deal["scores"] is not None)
            action = model.choose(game, rng)
            device.enter(action)
            model.after(game, action)
            if sum(1 for deal in game.summary()["deals"] if deal["scores"] is not None) > scored:
                assert_page_is_the_replay(view, journal)  # a deal was just scored
                checked += 1
        page = assert_page_is_the_replay(view, journal)
        assert checked == len(page["sheet"]["deals"]) >= 1 and page["summary"]["winners"]
    finally:
        device.close()


def test_the_trick_in_progress_and_an_undo_show_and_the_language_is_the_devices(tmp_path):
    device = VirtualDevice(tmp_path, seed=5)
    language = ["en"]
    view = TableView(tmp_path, lang=lambda: language[0])
    try:
        start(device, "irohanihohedo")
        game, rng = device.game, random.Random(5)
        model = table_model(game, rng, 0.4)
        while not game.state.deals or not game.state.deals[-1].tricks or not game.state.deals[-1].tricks[-1].turns:
            action = model.choose(game, rng)
            device.enter(action)
            model.after(game, action)
        view.refresh()
        first = shown(view)["in_progress"]
        assert first == game.trick_cards(game.state.deals[-1].tricks[-1]) and len(first) == 1
        device.press(KeyEvent(Key.BACK, long=True))
        device.press(KeyEvent(Key.OK))  # undo it: the page shows the trick empty again
        view.refresh()
        assert shown(view)["in_progress"] == []
        language[0] = "ja"
        assert view.refresh()  # nothing journalled: the language alone redraws it
        page = shown(view)
        assert page["lang"] == "ja" and page["labels"]["sheet"] == "得点表"
        assert page["summary"] == replay_json_in(tmp_path / "current.jsonl", "ja")
    finally:
        device.close()


def replay_json_in(journal: Path, lang: str) -> dict[str, Any]:
    """The replay's summary in ``lang`` (``--json`` says it in English; the page in the device's language)."""
    from companion.record import GameBuilder, read_bytes
    from companion.report import rendered_summary

    return rendered_summary(read_bytes(journal.read_bytes(), GameBuilder()).game, lang)


@pytest.fixture
def served(tmp_path):
    device = VirtualDevice(tmp_path, seed=2)
    view = TableView(tmp_path).start()
    device.device.store.on_journalled.append(view.wake)
    server = TablePageServer(("127.0.0.1", 0), view).serve_in_thread()
    yield device, server
    server.stop()
    device.close()


def fetch(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=SETTLE) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


@pytest.mark.parametrize("path", ["", "game.json", "record.jsonl", "nothing-here"])
def test_every_answer_carries_the_protections(served, path):
    _, server = served
    for method in ("GET", "HEAD"):
        _, headers, _ = fetch(server.url + path, method)
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "default-src 'none'" in headers["Content-Security-Policy"]
    for method in ("POST", "PUT", "DELETE"):
        assert fetch(server.url, method)[0] == 501  # nothing can be changed through it


def test_the_record_downloads_as_export_writes_it_and_the_stream_follows_the_journal(served, tmp_path):
    device, server = served
    assert fetch(server.url + "record.jsonl")[0] == 404  # no game yet
    start(device, "tezuma")
    enter_actions(device, 12, seed=2)
    replay = replay_json(tmp_path / "current.jsonl")
    stream = urllib.request.urlopen(server.url + "events", timeout=SETTLE)
    deadline = time.monotonic() + SETTLE
    try:
        for line in stream:  # the newest snapshot, whenever it changes: until the view has read every line
            if line.startswith(b"data: ") and json.loads(line[6:]).get("summary") == replay:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the page's stream never sent the journal's game within {SETTLE:.0f} s")
    finally:
        stream.close()
    status, headers, body = fetch(server.url + "record.jsonl")
    exported = subprocess.run([sys.executable, "-m", "companion", "export", str(tmp_path / "current.jsonl")],
                              capture_output=True, check=True, timeout=SETTLE).stdout
    assert status == 200 and body == exported
    assert headers["Content-Disposition"].startswith('attachment; filename="tezuma-')


def test_the_device_loads_no_page_code_unless_asked():
    code = ("import sys, companion.daemon.run, companion.ui.screens\n"
            "print(' '.join(m for m in sys.modules if m in ('companion.daemon.page', 'companion.httpserve', 'segno')"
            " or m.startswith('http.server')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert loaded.stdout.strip() == ""


@pytest.mark.parametrize(("argv", "toml", "said"), [
    (["--web", "80800"], "", "--web: web: '80800' is not [HOST:]PORT"),
    (["--web", "host:"], "", "--web: web: 'host:' is not [HOST:]PORT"),
    ([], 'web = "8080x"\n', "web: '8080x' is not [HOST:]PORT"),
    (["--web", "0.0.0.0:8080"], "", "all is right"),
])
def test_run_check_says_what_is_wrong_with_the_pages_address(tmp_path, capsys, argv, toml, said):
    config = tmp_path / "config.toml"
    config.write_text(toml, encoding="utf-8")
    code = companion(["run", "--mock", "--check", "--config-toml", str(config), *argv])
    err = capsys.readouterr().err
    assert said in err and code == (0 if said == "all is right" else 2)


def test_a_port_already_taken_stops_the_start_in_one_line(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        script = tmp_path / "none.keys"
        script.write_text("", encoding="utf-8")
        code = companion(["run", "--mock", "--state-dir", str(tmp_path / "state"), "--web", str(port), "--keys",
                          str(script), "--exit-when-done"])
    assert code == 2 and f"--web {port}: cannot serve there" in capsys.readouterr().err


def test_a_journal_longer_than_one_read_is_followed_to_its_end(tmp_path, monkeypatch):
    monkeypatch.setattr(page, "READ_LIMIT", 4096)  # the header (its card data) and some lines a pass
    device = VirtualDevice(tmp_path, seed=6)
    try:
        start(device, "tezuma")
        enter_actions(device, 80, seed=6)
        replay = replay_json(tmp_path / "current.jsonl")
        view = TableView(tmp_path).start()  # woken once, at its start
        try:
            deadline, seen = time.monotonic() + SETTLE, -1
            while shown(view).get("summary") != replay:
                assert time.monotonic() < deadline, "the view stopped before the journal's end"
                seen = view.wait_change(seen, 1.0)
        finally:
            view.close()
    finally:
        device.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_abilities_are_named_as_the_reasons_name_them(lang):
    from companion.daemon.page import page_data
    from companion.record import GameBuilder, read_bytes
    from companion.text import Catalog

    record = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tezuma.jsonl"
    data = page_data(read_bytes(record.read_bytes(), GameBuilder()).game, lang, Catalog.load())
    reasons = " ".join(t["reason"] for deal in data["summary"]["deals"] for t in deal["tricks"])
    assert data["abilities"] and all(name != ident for ident, name in data["abilities"].items())
    assert any(name in reasons for name in data["abilities"].values())


def test_unread_streams_and_trickling_requests_do_not_keep_a_phone_out(tmp_path):
    now = [0.0]
    view = TableView(tmp_path).start()
    server = TablePageServer(("127.0.0.1", 0), view, clock=lambda: now[0]).serve_in_thread()
    host, port = server.server_address[:2]
    held = []
    try:
        for opened in range(1, page.MAX_CONNECTIONS + 5):  # streams that are never read, then requests that never end
            stream = socket.create_connection((host, port))
            stream.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            held.append(stream)
            # each stream is one before the next comes: a newcomer evicts a stream, not a request still
            # being read (which a loaded machine's threads would leave it to refuse instead)
            deadline = time.monotonic() + SETTLE
            while server.connections("stream") + server.evicted < opened:
                assert server.refused == 0 and time.monotonic() < deadline, "a stream was refused or never began"
                time.sleep(0.01)
        for _ in range(page.MAX_CONNECTIONS):
            trickle = socket.create_connection((host, port))
            trickle.sendall(b"GET / HT")
            held.append(trickle)
        deadline = time.monotonic() + SETTLE  # every connection admitted, evicting or refused, by now
        while server.connections() + server.evicted + server.refused < len(held):
            assert time.monotonic() < deadline, "the server never took the connections in"
            time.sleep(0.01)
        now[0] += 2.0  # the server's clock: the trickling requests are slow now (counted, not waited for)
        status, _, body = fetch(server.url)
        assert status == 200 and b"<svg id=\"chart\"" in body
        assert server.evicted >= page.MAX_CONNECTIONS  # the unread streams and a slow request made room
    finally:
        for conn in held:
            conn.close()
        server.stop()
