"""Pull the plug at random moments: ``kill -9`` a mock device mid-game, restart it, carry on.

Each round runs ``companion run --mock`` in a child process with a key script that enters the
rest of a planned game, kills it with SIGKILL after a random delay, then checks the journal:

- it reads back (a torn last line at most, dropped);
- its actions are a prefix of the planned game's (nothing reordered, nothing invented);
- it holds at least every action the child reported as accepted (logged after the fsync).

The next round's script is planned on a :class:`VirtualDevice` resumed from a copy of the same
state, so it presses exactly what a person would after the restart. The last round runs to the
end, and the final journal must replay to the planned game.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.daemon.virtual import VirtualDevice, key_script
from companion.hw.keys import Key, KeyEvent
from companion.journal import read_journal
from companion.record import GameBuilder, read_objects
from companion.sim import table_model

ACCEPTED = re.compile(r"accepted (\d+)")
SEED = 4


@dataclass
class KillReport:
    kills: int = 0
    torn_lines: int = 0
    before_first_action: int = 0  # kills that came before the child accepted any action
    actions_at_kill: list[int] = field(default_factory=list)
    final_actions: int = 0


def plan_game(game_id: str, seed: int) -> list[Any]:
    """The whole game to enter, planned on a virtual device with the device's own seed."""
    with tempfile.TemporaryDirectory() as tmp:
        dev = VirtualDevice(Path(tmp), seed=SEED)
        try:
            _start(dev, game_id)
            rng = random.Random(seed)
            game = dev.game
            table = table_model(game, rng, 0.4)
            while not game.is_over():
                action = table.choose(game, rng)
                game.push(action)  # planning only: the engine alone is enough here
                table.after(game, action)
            return list(game.actions)
        finally:
            dev.close()


def _start(dev: VirtualDevice, game_id: str) -> None:
    while dev.app.top.game.value != game_id:
        dev.press(KeyEvent(Key.RIGHT))
    dev.press(KeyEvent(Key.UP))
    dev.press(KeyEvent(Key.OK))


def script_for_rest(state: Path, game_id: str, planned: list[Any]) -> tuple[str, int]:
    """Keys that take the device at ``state`` (or a fresh one) to the end of ``planned``."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "state"
        if state.exists():
            shutil.copytree(state, copy)
        dev = VirtualDevice(copy, seed=SEED)
        try:
            if dev.game is None and type(dev.app.top).__name__ == "ResumeOffer":
                dev.press(KeyEvent(Key.OK))
            if dev.game is None:
                _start(dev, game_id)
            done = len(dev.game.actions)
            assert dev.game.actions == planned[:done], "the journal strayed from the plan"
            for action in planned[done:]:
                dev.enter(action)
            if dev.game.actions != planned:
                raise AssertionError("the resumed device did not reach the planned end")
            return key_script(dev.pressed), done
        finally:
            dev.close()


def journal_actions(state: Path) -> tuple[list[Any], int]:
    """The journalled actions and dropped lines; none when the kill came before the game began
    (a slow start on a busy machine)."""
    if not (state / "current.jsonl").exists():
        return [], 0
    read = read_journal(state / "current.jsonl")
    builder = read_objects(read.objects, GameBuilder())
    if builder.failure is not None:
        raise AssertionError(f"journal does not replay: {builder.failure}")
    return list(builder.game.actions), len(read.dropped)


def run_child(state: Path, script: str, kill_after: float | None, *,
              from_first_action: bool = False) -> tuple[int, int]:
    """Run the device on ``script``; kill -9 after ``kill_after`` s (None: let it finish),
    counted from the start, or with ``from_first_action`` from the first action the child
    accepted (so the kill lands in play, not in Python's start-up).

    Returns (the highest action count the child reported accepted, exit code).
    """
    script_path = state.parent / "rest.keys"
    script_path.write_text(script, encoding="utf-8")
    cmd = [sys.executable, "-m", "companion.cli", "run", "--mock", "--state-dir", str(state),
           "--keys", str(script_path), "--exit-when-done", "--seed", str(SEED), "--verbose"]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    accepted = [0]
    first_action = threading.Event()

    def read_stderr() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            match = ACCEPTED.search(line)
            if match:
                accepted[0] = max(accepted[0], int(match.group(1)))
                first_action.set()
        first_action.set()  # the child ended without one: nothing to wait for

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    if kill_after is None:
        code = child.wait(timeout=600)
    else:
        if from_first_action:
            first_action.wait(timeout=600)
        try:
            child.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
        code = child.wait(timeout=30)
    reader.join(timeout=10)
    return accepted[0], code


def kill_test(kills: int, *, game_id: str = "tezuma", seed: int = 1, workdir: Path,
              max_delay: float = 4.0, finish_in_child: bool = False, from_first_action: bool = False,
              log=print) -> KillReport:
    """``kills`` rounds of run-and-kill; each restart is checked to reach the planned end (on a
    virtual device resumed from the same journal), and with ``finish_in_child`` the last child
    process plays the game to its end in real time. ``from_first_action``: each kill's delay is
    counted from the child's first accepted action (see :func:`run_child`)."""
    rng = random.Random(seed)
    planned = plan_game(game_id, seed)
    state = workdir / "state"
    report = KillReport()
    while report.kills < kills:
        script, done = script_for_rest(state, game_id, planned)
        if done == len(planned):
            break  # the game finished before all the kills: start a new one
        before = len(journal_actions(state)[0])
        accepted, _ = run_child(state, script, rng.uniform(0.5, max_delay), from_first_action=from_first_action)
        report.kills += 1
        actions, dropped = journal_actions(state)
        report.torn_lines += dropped
        assert actions == planned[: len(actions)], "journal is not a prefix of the planned game"
        assert len(actions) >= accepted, f"accepted {accepted} but the journal holds {len(actions)}"
        report.actions_at_kill.append(len(actions))
        report.before_first_action += len(actions) == before
        log(f"kill {report.kills}: {len(actions)}/{len(planned)} actions journalled, {accepted} reported accepted")
        if len(actions) == len(planned):
            shutil.rmtree(state)  # finished: play the planned game again from a fresh state
    script, _ = script_for_rest(state, game_id, planned)
    if finish_in_child:
        _, code = run_child(state, script, None)
        final, _ = journal_actions(state)
        if code != 0 or final != planned:
            raise AssertionError(f"the child ended with {code} and {len(final)}/{len(planned)} planned actions")
    report.final_actions = len(planned)
    return report
