"""The scoreboard's web page in a real browser (Debian's headless Chromium) and its other endpoints."""

from __future__ import annotations

import json
import urllib.request

import pytest

from companion.organiser.web import ScoreboardServer
from tests.event.chromium import Chromium, needs_chromium
from tests.event.conftest import ON_MOSQUITTO, has_every_line, settle

ROWS = (
    "JSON.stringify([...document.querySelectorAll('#tables tbody tr')].map(r => [...r.cells].map(c => c.textContent)))"
)


@pytest.fixture
def page_server(scoreboard):
    server = ScoreboardServer(("127.0.0.1", 0), scoreboard.board).serve_in_thread()
    yield server
    server.stop()


def get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


@ON_MOSQUITTO  # end to end as at an event: devices, a real broker, the scoreboard, its page in a browser
def test_the_page_loads_shows_the_tables_and_updates_when_a_table_plays(tables, scoreboard, page_server, tmp_path):
    needs_chromium()
    board = scoreboard.board
    first, second = tables(2)
    for table in (first, second):
        table.new_game("tezuma")
        table.play(8)
    settle(board, has_every_line(board, [first, second]), "the first lines")
    browser = Chromium(tmp_path / "profile")
    try:
        browser.navigate(page_server.url)
        rows = json.loads(
            browser.wait_for(f"document.querySelectorAll('#tables tbody tr').length == 2 && {ROWS}", "both tables")
        )
        assert [row[0] for row in rows] == ["1", "2"]
        assert rows[0][1] == "tezuma" and "online" in rows[0][5]
        assert browser.evaluate("document.getElementById('state').textContent") == "live"
        shown = rows[0][4]
        first.play()  # table 1 plays to the end: its totals and its state change on the page
        settle(board, has_every_line(board, [first]), "table 1's game")
        expected = ", ".join(
            f"{p} {t}" for p, t in zip(first.device.game.setup.players, first.device.game.totals(), strict=True)
        )
        updated = json.loads(
            browser.wait_for(f"(r => JSON.parse(r)[0][5].includes('finished') && r)({ROWS})", "table 1 finished")
        )
        assert updated[0][4] == expected != shown
        standings = browser.wait_for("document.querySelectorAll('#standings tbody tr').length", "the standings")
        assert standings == 4
    finally:
        browser.close()


def test_the_server_only_reads_and_exports_csv(tables, scoreboard, page_server):
    board = scoreboard.board
    (table,) = tables(1)
    table.new_game("tezuma-2015")
    table.play()
    settle(board, has_every_line(board, [table]), "the game")
    kind, body = get(page_server.url + "standings.csv")
    assert kind.startswith("text/csv")
    lines = body.decode().splitlines()
    assert lines[0] == "place,player,games,rank_points,score,wins" and len(lines) == 5
    kind, body = get(page_server.url + "games.csv")
    assert body.decode().splitlines()[1].startswith(f"1,{board.tables['1'].current},tezuma-2015,")
    snapshot = json.loads(get(page_server.url + "board.json")[1])
    assert snapshot["tables"][0]["game"]["totals"] == table.device.game.totals()
    request = urllib.request.Request(page_server.url, data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 501
