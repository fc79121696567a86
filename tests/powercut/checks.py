"""What the power-cut bench asks of a state directory rebuilt as the disk held it at one instant.

The bench (bench/powercut.py) plays whole games on a real kernel and rebuilds the state disk at
every flush and every acknowledgement; these checks read one rebuilt directory:

- every acknowledged journal line is there: finished games byte for byte (as ``current.jsonl``
  or under ``games/``), the running game's acknowledged prefix at the start of ``current.jsonl``;
- the device started on it offers the running game and resumes exactly the actions its whole
  lines hold, which are the planned game's first ones;
- every other state file (settings, card facts, the event cursor) is whole JSON, and across the
  instants it is always some version the device wrote, never a torn one (:func:`torn_instants`).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.daemon.virtual import VirtualDevice, key_script
from companion.hw.keys import Key, KeyEvent
from companion.hw.numpad import NUMPAD_KEYS, PRINTED_KEYS
from companion.journal import CURRENT_JOURNAL, GAMES_DIR
from companion.registry import game_ids
from companion.ui.keypad import JOYSTICK_ON_KEYPAD
from companion.ui.planner import enter_by_keys
from tests.device.killing import SEED, _start

KNOWN_STATE_FILES = ("settings.json", "card-facts.json")  # and every other *.json: event cursors, seat names


@dataclass(frozen=True)
class Expected:
    """What had been acknowledged before the instant: the journals of finished games and the
    running game's acknowledged bytes; and the plans of the games played (the journal found may be
    a finished game's, before the next game's header is on the disk)."""

    finished: tuple[bytes, ...] = ()
    acknowledged: bytes = b""
    plans: tuple[tuple[Any, ...], ...] = ()


@dataclass
class Verdict:
    lost: list[str] = field(default_factory=list)  # acknowledged lines not found, said in words
    resumed: bool = False
    why_not_resumed: str = ""
    state_files: dict[str, bytes | None] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)


def journal_lines(data: bytes) -> int:
    return data.count(b"\n")


def lost_lines(state: Path, expected: Expected) -> list[str]:
    """Which acknowledged journals or lines the directory does not hold, one phrase each."""
    current = state / CURRENT_JOURNAL
    held = [current.read_bytes()] if current.is_file() else []
    games = state / GAMES_DIR
    if games.is_dir():
        held += [path.read_bytes() for path in sorted(games.iterdir()) if path.is_file()]
    lost = [f"finished game {number} ({journal_lines(data)} lines) is missing"
            for number, data in enumerate(expected.finished, start=1) if data not in held]
    if expected.acknowledged:
        found = current.read_bytes() if current.is_file() else b""
        if not found.startswith(expected.acknowledged):
            kept = sum(1 for _ in common_lines(found, expected.acknowledged))
            lost.append(f"running game: {journal_lines(expected.acknowledged)} lines acknowledged,"
                        f" the first {kept} found")
    return lost


def common_lines(found: bytes, wanted: bytes) -> Any:
    """The lines ``found`` and ``wanted`` share from their start."""
    for mine, theirs in zip(found.splitlines(keepends=True), wanted.splitlines(keepends=True), strict=False):
        if mine != theirs:
            return
        yield mine


def resumes_exactly(state: Path, expected: Expected) -> str:
    """Start the device on a copy of ``state``; "" when it offers the running game and resumes the
    planned game's first actions, as many as the journal's whole action lines, else why not."""
    current = state / CURRENT_JOURNAL
    data = current.read_bytes() if current.is_file() else b""
    complete = data[: data.rfind(b"\n") + 1]
    actions = max(journal_lines(complete) - 1, 0)
    if actions < max(journal_lines(expected.acknowledged) - 1, 0):
        return "fewer actions than acknowledged"
    with tempfile.TemporaryDirectory(prefix="powercut-") as tmp:
        copy = Path(tmp) / "state"
        shutil.copytree(state, copy, symlinks=True)
        dev = VirtualDevice(copy, seed=SEED)
        try:
            offered = type(dev.app.top).__name__ == "ResumeOffer"
            if not complete:
                return "" if not offered else "a resume offered with no game journalled"
            if not offered:
                return f"no resume offered for a journal of {actions} actions"
            dev.press(KeyEvent(Key.OK))
            if dev.game is None:
                return "OK on the offer resumed no game"
            resumed = tuple(dev.game.actions)
            if not any(resumed == plan[: len(resumed)] for plan in expected.plans):
                return f"resumed {len(resumed)} actions that stray from the plan"
            if len(resumed) != actions:
                return f"resumed {len(resumed)} actions of the journal's {actions}"
            return ""
        finally:
            dev.close()


def read_state_files(state: Path) -> tuple[dict[str, bytes | None], list[str]]:
    """Each state file's bytes (None when absent), and the names of those that are not whole JSON."""
    files: dict[str, bytes | None] = {}
    unreadable = []
    for name in sorted({*KNOWN_STATE_FILES, *(path.name for path in state.glob("*.json"))}):
        path = state / name
        files[name] = path.read_bytes() if path.is_file() else None
        if files[name] is not None:
            try:
                json.loads(files[name] or b"")
            except ValueError:
                unreadable.append(name)
    return files, unreadable


def check_state(state: Path, expected: Expected) -> Verdict:
    verdict = Verdict(lost=lost_lines(state, expected))
    verdict.why_not_resumed = resumes_exactly(state, expected)
    verdict.resumed = not verdict.why_not_resumed
    verdict.state_files, verdict.unreadable = read_state_files(state)
    return verdict


def numbered_lines(data: bytes) -> int:
    """How many numbered lines (``00000000``, ``00000001``, ...: the bench's plain writer's) ``data``
    holds in order from the first; a line dropped by the disk ends the count there.

    >>> numbered_lines(b"00000000\\n00000001\\n00000002\\n")
    3
    >>> numbered_lines(b"00000000\\n\\0\\0\\0\\0\\0\\0\\0\\0\\n00000002\\n")
    1
    """
    count = 0
    for line in data.splitlines():
        if line != b"%08d" % count:
            break
        count += 1
    return count


def torn_instants(history: Sequence[bytes | None]) -> list[int]:
    """The instants at which a file is gone after having existed, or shows again a version it had
    already left (a newer version, once on the disk, lost). Whole-or-not is :func:`read_state_files`'
    check; this one is about versions: a file replaced atomically only ever steps forward.

    >>> torn_instants([None, b"a", b"a", b"b", b"c"])
    []
    >>> torn_instants([b"a", b"b", b"a"])
    [2]
    >>> torn_instants([b"a", None, b"a"])
    [1]
    """
    torn = []
    left: set[bytes] = set()
    for index, content in enumerate(history):
        previous = history[index - 1] if index else None
        if (content is None and previous is not None) or content in left:
            torn.append(index)
        if previous is not None and content is not None and content != previous:
            left.add(previous)
    return torn


MENU_FROM = ("TrickScreen", "CardScreen", "FactsScreen")  # game screens where BACK opens the menu
UNDONE_BY_BACK = ("Predict",)  # actions whose entry BACK steps back through (Tourney's predictions)


def touch_settings(dev: VirtualDevice, turn: Key, upcoming: Any = None) -> bool:
    """Turn the contrast one step (``turn``: LEFT or RIGHT) through the menu (BACK, Settings, the
    arrow, BACK, BACK), so that ``settings.json`` is rewritten between two actions; False where the
    screen's BACK does something else (a result screen's leaves it: nothing is pressed there; a
    half-made choice is undone, which the next action's keys plan from). A game turns one way only,
    so that a version of the file, once left, never comes back (:func:`torn_instants` would take it
    for one lost); at the end of the range nothing more is written."""
    before, actions = type(dev.app.top), len(dev.game.actions)
    if before.__name__ not in MENU_FROM or type(upcoming).__name__ in UNDONE_BY_BACK:
        return False
    dev.press(KeyEvent(Key.BACK))
    menu = dev.app.top
    if type(menu).__name__ != "Menu":  # BACK stepped back inside the screen (a choice half made)
        if len(dev.game.actions) != actions:
            raise ValueError(f"BACK on {before.__name__} changed the game instead of opening the menu")
        return False
    for _ in range(menu.items.index(dev.app.t("menu.settings"))):
        dev.press(KeyEvent(Key.DOWN))
    for key in (Key.OK, turn, Key.BACK, Key.BACK):
        dev.press(KeyEvent(key))
    if type(dev.app.top) is not before:
        raise ValueError(f"the menu left the device on {type(dev.app.top).__name__}, not {before.__name__}")
    return True


def plan_script(state: Path, game_id: str, planned: Sequence[Any], *, resume: bool, pace: float = 0.0,
                settings_every: int = 0) -> str:
    """Keys taking the device at ``state`` to the end of ``planned``: resuming its game, or (not
    ``resume``) declining any offer and starting ``game_id`` afresh. ``pace`` seconds between presses
    spread the game out, so a pulled plug can land anywhere in it; ``settings_every`` N actions (0:
    never) the menu turns the contrast a step (:func:`touch_settings`), so the settings file is
    rewritten in mid-game too, not only as each game starts."""
    with tempfile.TemporaryDirectory(prefix="powercut-") as tmp:
        copy = Path(tmp) / "state"
        if state.exists():
            shutil.copytree(state, copy, symlinks=True)
        dev = VirtualDevice(copy, seed=SEED)
        try:
            if type(dev.app.top).__name__ == "ResumeOffer":
                dev.press(KeyEvent(Key.OK if resume else Key.BACK))
            if dev.game is None:
                _start(dev, game_id)
            done = len(dev.game.actions)
            if list(dev.game.actions) != list(planned[:done]):
                raise ValueError(f"the device at {state} holds a game that strays from the plan")
            # each game its own way (down, up, down, ...: the file also names the game, so no
            # version comes back), the same after a resume
            turn = Key.LEFT if game_ids().index(game_id) % 2 == 0 else Key.RIGHT
            due = False
            for number, action in enumerate(planned[done:], start=done):
                due = due or bool(settings_every and number and number % settings_every == 0)
                if due and touch_settings(dev, turn, action):
                    due = False
                dev.enter(action)
            script = key_script(dev.pressed)
        finally:
            dev.close()
    if pace:
        script = "".join(f"{line}\nwait {pace:g}\n" for line in script.splitlines())
    return script



NUMPAD_CODES = {NUMPAD_KEYS[code]: code for code in PRINTED_KEYS.values()}
"""Each card-keypad key as the numeric keypad's key (NumLock on) that types it."""


def numpad_script(game_id: str, planned: Sequence[Any]) -> str:
    """The numeric keypad's presses that start ``game_id`` on a fresh device and enter ``planned``,
    one ``CODE HELD`` line each (a Linux key code; 1 when held past the hold time): the setup form
    by the keypad keys that stand for the joystick's, each action by the keypad's own planner, as
    checked on a virtual device while planning. bench/powercut/typist.py types it on a uinput
    keypad."""
    with tempfile.TemporaryDirectory(prefix="powercut-") as tmp:
        dev = VirtualDevice(Path(tmp) / "state", seed=SEED)
        typed: list[KeyEvent] = []

        def press(event: KeyEvent) -> None:
            dev.device.post(event)
            dev.device.loop.run_until_idle()
            typed.append(event)

        try:
            while dev.app.top.game.value != game_id:
                press(JOYSTICK_ON_KEYPAD[KeyEvent(Key.RIGHT)])
            press(JOYSTICK_ON_KEYPAD[KeyEvent(Key.UP)])
            press(JOYSTICK_ON_KEYPAD[KeyEvent(Key.OK)])
            for action in planned:
                enter_by_keys(dev.app, action, "keypad", press=press)
        finally:
            dev.close()
    return "".join(f"{NUMPAD_CODES[event.key]} {int(event.long)}\n" for event in typed)
