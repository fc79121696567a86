"""The table page in a real browser (Debian's headless Chromium): it loads from the device's server
under its own Content-Security-Policy, draws one chart point per seat per deal, and shows a key press."""

from __future__ import annotations

import json
import random

import pytest

from companion.daemon.page import TablePageServer, TableView
from companion.daemon.virtual import VirtualDevice
from tests.device.test_table_page import start
from tests.event.chromium import Chromium, needs_chromium

CELLS = "JSON.stringify([...document.querySelectorAll('#sheet tr')].map(r => [...r.cells].map(c => c.textContent)))"
POINTS = ("JSON.stringify([...document.querySelectorAll('#chart circle')]"
          ".map(c => [+c.dataset.seat, +c.dataset.deal, +c.dataset.total]))")


@pytest.fixture
def device_and_page(tmp_path):
    device = VirtualDevice(tmp_path / "state", seed=4)
    view = TableView(tmp_path / "state").start()
    device.device.store.on_journalled.append(view.wake)
    server = TablePageServer(("127.0.0.1", 0), view).serve_in_thread()
    yield device, view, server  # the view too: a test may read what the page was sent
    server.stop()
    device.close()


def play_until(device, game, model, rng, done) -> None:
    while not done():
        action = model.choose(game, rng)
        device.enter(action)
        model.after(game, action)


def test_the_page_draws_the_sheet_and_a_point_per_seat_per_deal_and_follows_the_keys(device_and_page, tmp_path):
    needs_chromium()
    from companion.sim import table_model

    device, _, server = device_and_page
    start(device, "irohanihohedo")
    game, rng = device.game, random.Random(4)
    model = table_model(game, rng, 0.4)
    scored = lambda: [deal["scores"] for deal in game.summary()["deals"] if deal["scores"] is not None]  # noqa: E731
    play_until(device, game, model, rng, lambda: len(scored()) >= 2)
    browser = Chromium(tmp_path / "profile")
    try:
        browser.navigate(server.url)
        seats, deals = len(game.setup.players), len(scored())
        points = json.loads(browser.wait_for(
            f"document.querySelectorAll('#chart circle').length == {seats * deals} && {POINTS}", "the chart"))
        totals = [[sum(deal[seat] for deal in scored()[:n]) for n in range(1, deals + 1)] for seat in range(seats)]
        assert sorted(points) == sorted([seat, n + 1, totals[seat][n]] for seat in range(seats) for n in range(deals))
        rows = json.loads(browser.evaluate(CELLS))
        assert rows[-1][1:] == [str(t) for t in game.totals()] and len(rows) == 1 + len(game.summary()["deals"]) + 1
        assert browser.evaluate("document.getElementById('state').textContent") == "live"
        drawn = browser.evaluate("+document.body.dataset.drawn")
        before = len(game.actions)
        play_until(device, game, model, rng, lambda: len(game.actions) > before)  # the next card, by keys
        trick = game.state.deals[-1].tricks[-1] if game.state.deals[-1].tricks else None
        expected = game.trick_cards(trick) if trick is not None and trick.result is None else []
        shown = ", ".join(f"P{c['seat'] + 1} {game.setup.players[c['seat']]}: {c['card'] or '-'}" for c in expected)
        browser.wait_for(f"+document.body.dataset.drawn > {drawn} && "
                         f"document.getElementById('trick').textContent == {json.dumps(shown or '-')}", "the key press")
    finally:
        browser.close()
