"""Every game at every player count it allows: a simulated game's record, whole or cut off halfway,
must replay (as text and as JSON), export and resume on the device as the same game.

The games come from the registry and their tables from companion/sim, so a new game is covered
without an edit here. Each case runs in a worker thread that the harness waits for at most
:data:`CASE_LIMIT` seconds: a case that hangs (a quadratic path, a loop that never ends) fails
by name instead of stalling the suite. That is a bound on the harness, not a measurement.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.daemon.virtual import VirtualDevice
from companion.hw.keys import Key, KeyEvent
from companion.record import export_lines
from companion.registry import game_class, game_ids
from companion.report import rendered_summary
from companion.sim import random_game

CASE_LIMIT = 120.0  # seconds; a case takes a second or two


def every_game_and_count() -> list[tuple[str, int]]:
    cases = []
    for game_id in game_ids():
        cls = game_class(game_id)
        cases += [(game_id, players) for players in range(cls.min_players, cls.max_players + 1)]
    return cases


def run_command(argv: list[str]) -> tuple[int, str]:
    """``companion ARGV`` in this process: its exit status and what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(argv)
    return status, out.getvalue()


def within_limit(case: Any, *args: Any, **options: Any) -> None:
    """Run ``case(*args, **options)`` on a worker thread; fail if it raises or outlasts :data:`CASE_LIMIT`."""
    failure: list[BaseException] = []

    def work() -> None:
        try:
            case(*args, **options)
        except BaseException as err:  # handed to the test's thread, which reports it
            failure.append(err)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(CASE_LIMIT)
    assert not worker.is_alive(), f"the case did not finish within {CASE_LIMIT} s"
    if failure:
        raise failure[0]


def agree(game_id: str, players: int, tmp: Path, *, whole: bool = True) -> None:
    game = random_game(game_id, players, random.Random(players))
    assert game.is_over()
    if not whole:  # a game cut off halfway, as a journal is while the table plays
        for _ in range(len(game.actions) - len(game.actions) // 2):
            game.pop()
    lines = export_lines(game)
    record = tmp / "game.jsonl"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")

    status, text = run_command(["replay", str(record)])
    assert status == 0
    assert text.startswith(f"{game_id}: ") and "Totals: " in text and ("Winner" in text) == whole

    status, data = run_command(["replay", str(record), "--json"])
    assert status == 0
    assert json.loads(data) == json.loads(json.dumps(rendered_summary(game), ensure_ascii=False))

    exported = tmp / "export.jsonl"
    assert run_command(["export", str(record), "-o", str(exported)])[0] == 0
    assert exported.read_text(encoding="utf-8").splitlines() == lines

    state = tmp / "state"
    state.mkdir()
    (state / "current.jsonl").write_text(record.read_text(encoding="utf-8"), encoding="utf-8")
    device = VirtualDevice(state)
    try:
        assert type(device.app.top).__name__ == "ResumeOffer"
        device.press(KeyEvent(Key.OK))
        assert list(device.game.actions) == list(game.actions)
        assert device.game.summary() == game.summary()
    finally:
        device.close()


@pytest.mark.parametrize(("game_id", "players"), every_game_and_count())
@pytest.mark.parametrize("whole", [True, False], ids=["whole", "halfway"])
def test_a_game_replays_exports_and_resumes_as_itself(game_id: str, players: int, whole: bool,
                                                      tmp_path: Path) -> None:
    within_limit(agree, game_id, players, tmp_path, whole=whole)
