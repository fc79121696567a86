"""Storage fault injection: every write path of the device under ENOSPC, EIO and a read-only card.

:func:`inject` makes the ``os`` calls the product uses fail for the files a predicate picks
(fd-based calls are matched through ``/proc/self/fd``), so one write path can fail while the
others work, as when a single file's blocks go bad. :func:`run_cell` drives the whole device
(:class:`~companion.daemon.virtual.VirtualDevice`) through one write path under one fault and
reports what the issue asks of it. Shared by tests/daemon/test_storage_faults.py and
bench/faults.py.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from companion import cli
from companion.daemon.virtual import VirtualDevice
from companion.engine.base import Answer
from companion.hw.keys import Key, KeyEvent
from companion.record import GameBuilder, read_bytes
from companion.sim import table_model
from companion.ui.screens import SettingsScreen

FAULTS = ("ENOSPC", "EIO on write", "EIO on fsync", "EIO on fsync, then on truncate", "read-only")
DROPS_WRITES = "drops writes"  # a lying card: every write and fsync succeeds, a read from the card finds nothing
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _fd_path(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


@contextlib.contextmanager
def inject(fault: str, hits: Callable[[str], bool]) -> Iterator[None]:
    """Within the block, storage calls on paths for which ``hits(path)`` is true fail as ``fault`` does."""
    real = {
        name: getattr(os, name)
        for name in ("write", "fsync", "ftruncate", "open", "replace", "rename", "link", "mkdir", "unlink", "preadv")
    }
    partly_written: set[int] = set()

    def fail(code: int, path: str) -> None:
        raise OSError(code, os.strerror(code), path)

    def write(fd: int, data: Any) -> int:
        path = _fd_path(fd)
        if hits(path):
            if fault == "ENOSPC":
                if fd not in partly_written and len(data) > 4:
                    partly_written.add(fd)
                    return real["write"](fd, data[:4])  # the card filled up mid-line
                fail(errno.ENOSPC, path)
            if fault == "EIO on write":
                fail(errno.EIO, path)
            if fault == "read-only":
                fail(errno.EROFS, path)
        return real["write"](fd, data)

    def fsync(fd: int) -> None:
        path = _fd_path(fd)
        if hits(path) and fault.startswith("EIO on fsync"):
            fail(errno.EIO, path)
        real["fsync"](fd)

    def ftruncate(fd: int, size: int) -> None:
        path = _fd_path(fd)
        if hits(path) and fault in ("EIO on fsync, then on truncate", "read-only"):
            fail(errno.EIO if fault.startswith("EIO") else errno.EROFS, path)
        real["ftruncate"](fd, size)

    def preadv(fd: int, buffers: Any, offset: int, *args: Any) -> int:
        count = real["preadv"](fd, buffers, offset, *args)
        if fault == DROPS_WRITES and hits(_fd_path(fd)):
            for buffer in buffers:  # the card never kept what it acknowledged: it reads back as zeros
                buffer[:] = bytes(len(buffer))
        return int(count)

    def open_(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if fault == "read-only" and flags & WRITE_FLAGS and hits(os.fspath(path)):
            fail(errno.EROFS, os.fspath(path))
        return real["open"](path, flags, *args, **kwargs)

    def path_call(name: str) -> Callable[..., Any]:
        def call(*paths: Any, **kwargs: Any) -> Any:
            if fault == "read-only" and any(hits(os.fspath(p)) for p in paths[:2] if isinstance(p, (str, os.PathLike))):
                fail(errno.EROFS, os.fspath(paths[0]))
            return real[name](*paths, **kwargs)

        return call

    patches = [
        mock.patch.object(os, "write", write),
        mock.patch.object(os, "fsync", fsync),
        mock.patch.object(os, "ftruncate", ftruncate),
        mock.patch.object(os, "open", open_),
        mock.patch.object(os, "preadv", preadv),
        *(mock.patch.object(os, name, path_call(name)) for name in ("replace", "rename", "link", "mkdir", "unlink")),
    ]
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield


@dataclass
class Cell:
    """What one write path did under one fault."""

    running: bool  # the device took a later key without raising
    consistent: bool  # the files hold exactly what the device shows (journal = game, or old file kept)
    message: str  # what the screen (or the command's stderr) said
    logged: bool | None  # an ERROR line in the log (None: a command, which prints instead)

    @property
    def ok(self) -> bool:
        return self.running and self.consistent and bool(self.message) and self.logged is not False


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def _errors_logged() -> Iterator[_Errors]:
    handler = _Errors()
    logger = logging.getLogger("companion")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def journal_actions(path: Path) -> list[Any] | None:
    """The actions a journal or finished game holds, as the device would replay them."""
    if not path.exists():
        return None
    builder = read_bytes(path.read_bytes(), GameBuilder())
    return list(builder.game.actions) if builder.game is not None else None


def _start(dev: VirtualDevice, game_id: str) -> None:
    for _ in range(len(dev.app.top.game_ids)):
        if dev.app.top.game.value == game_id:
            break
        dev.press(KeyEvent(Key.RIGHT))
    dev.press(KeyEvent(Key.UP))
    dev.press(KeyEvent(Key.OK))


class _Table:
    """A scripted table entering plausible actions through the device's keys."""

    def __init__(self, dev: VirtualDevice, seed: int = 3) -> None:
        self.dev, self.rng = dev, random.Random(seed)
        self.model = table_model(dev.game, self.rng, 0.3)

    def play(self, count: int, until: Callable[[Any], bool] = lambda game: False) -> None:
        for _ in range(count):
            if self.dev.game.is_over() or until(self.dev.game):
                return
            self.one()

    def one(self) -> None:
        """Enter the next action; the table hears of it only if the game kept it."""
        game = self.dev.game
        before = len(game.actions)
        action = self.model.choose(game, self.rng)
        self.dev.enter(action)
        if len(game.actions) > before:
            self.model.after(game, action)


def _game_file_matches(state: Path, actions: list[Any]) -> bool:
    """The device's game is in current.jsonl, or (after a failed new game) the newest file in games/."""
    candidates = [
        state / "current.jsonl",
        *sorted((state / "games").glob("*.jsonl"), key=os.path.getmtime, reverse=True),
    ]
    for path in candidates:
        held = journal_actions(path)
        if held is not None:
            return held == actions
    return False


def _in_state(state: Path, *names: str) -> Callable[[str], bool]:
    root = str(state.resolve())
    return lambda path: path.startswith(root) and (not names or any(name in os.path.basename(path) for name in names))


def cell_play(state: Path, fault: str, *, undo: bool = False) -> Cell:
    dev = VirtualDevice(state)
    try:
        _start(dev, "tezuma")
        table = _Table(dev)
        table.play(6)
        game = dev.game
        with _errors_logged() as log, inject(fault, _in_state(state, "current.jsonl")):
            if undo:
                dev.press(KeyEvent(Key.BACK, long=True))
                dev.press(KeyEvent(Key.OK))
            else:
                table.one()
            message = dev.app.message or ""
        consistent = journal_actions(state / "current.jsonl") == list(game.actions)
        before = list(game.actions)
        if undo:
            table = _Table(dev, seed=4)  # the table's own record went back with the undo
        table.one()  # storage works again: saved, or refused because the journal was closed
        later = journal_actions(state / "current.jsonl") == list(game.actions)
        refused = game.actions == before and bool(dev.app.message)
        return Cell(
            True, consistent and later and (len(game.actions) > len(before) or refused), message, bool(log.lines)
        )
    finally:
        dev.close()


def cell_new_game(state: Path, fault: str) -> Cell:
    dev = VirtualDevice(state)
    try:
        _start(dev, "tezuma")
        _Table(dev).play(4)
        old = dev.game
        with _errors_logged() as log, inject(fault, _in_state(state)):
            dev.app.new_game_form()
            dev.press(KeyEvent(Key.UP))
            dev.press(KeyEvent(Key.OK))
            message = dev.app.message or ""
        consistent = dev.game is old and _game_file_matches(state, list(old.actions))
        dev.press(KeyEvent(Key.OK))  # the device still answers
        return Cell(True, consistent, message, bool(log.lines))
    finally:
        dev.close()


def cell_settings(state: Path, fault: str) -> Cell:
    (state / "settings.json").write_text('{"language": "en", "contrast": 207}\n', encoding="utf-8")
    before = (state / "settings.json").read_bytes()
    dev = VirtualDevice(state)
    try:
        dev.app.open(SettingsScreen(dev.app))
        with _errors_logged() as log, inject(fault, _in_state(state, "settings.json")):
            dev.press(KeyEvent(Key.LEFT))
            message = dev.app.message or ""
        applied = dev.display.bus.panel.contrast == dev.app.settings.contrast != 207  # in use, though not saved
        consistent = applied and (state / "settings.json").read_bytes() == before and _no_temp_files(state)
        dev.press(KeyEvent(Key.RIGHT))  # storage works again: saved now
        saved = json.loads((state / "settings.json").read_text(encoding="utf-8")) == dev.app.settings.to_json()
        return Cell(True, consistent and saved, message, bool(log.lines))
    finally:
        dev.close()


def cell_card_fact(state: Path, fault: str) -> Cell:
    (state / "card-facts.json").write_text('{"tezuma-2015": {"points": {"2": {"0": 0}}}}\n', encoding="utf-8")
    before = (state / "card-facts.json").read_bytes()
    dev = VirtualDevice(state)
    try:
        _start(dev, "tezuma-2015")
        _Table(dev, seed=5).play(
            400, until=lambda game: game.decision is not None and game.decision.question is not None
        )
        game = dev.game
        if game.decision is None or game.decision.question is None:
            raise AssertionError("the scripted game never asked for a card fact")
        question = game.decision.question
        with _errors_logged() as log, inject(fault, _in_state(state, "card-facts.json")):
            dev.enter(Answer(question.key, question.suggestion))  # the game keeps it, the file cannot
            message = dev.app.message or ""
        answered = game.actions[-1].type == "answer"
        consistent = (answered and (state / "card-facts.json").read_bytes() == before and _no_temp_files(state)
                      and journal_actions(state / "current.jsonl") == list(game.actions))
        return Cell(True, consistent, message, bool(log.lines))
    finally:
        dev.close()


def cell_startup_repair(state: Path, fault: str) -> Cell:
    dev = VirtualDevice(state)
    _start(dev, "tezuma")
    _Table(dev).play(5)
    dev.close()
    journal = state / "current.jsonl"
    with journal.open("ab") as stream:
        stream.write(b'{"type":"play","seat":9,"cards":["B1"]}\n{"type":"pl')  # refused, then torn
    damaged = journal.read_bytes()
    with _errors_logged() as log, inject(fault, _in_state(state, "current.jsonl")):
        dev = VirtualDevice(state)
    try:
        message = "; ".join(dev.device.startup_messages)
        resumed = dev.app.top.__class__.__name__ == "ResumeOffer"
        unchanged = journal.read_bytes() == damaged
        repaired = journal_actions(journal) is not None and not unchanged
        dev.press(KeyEvent(Key.OK))
        consistent = (resumed and repaired and journal_actions(journal) == list(dev.game.actions)) or (
            not resumed and unchanged)
        return Cell(True, consistent, message, bool(log.lines))
    finally:
        dev.close()


def cell_cards_set(state: Path, fault: str) -> Cell:
    facts = state / "card-facts.json"
    facts.write_text("{}\n", encoding="utf-8")
    err = io.StringIO()
    with (
        contextlib.redirect_stderr(err),
        contextlib.redirect_stdout(io.StringIO()),
        inject(fault, _in_state(state, "card-facts.json")),
    ):
        code = cli.main(["cards", "--facts", str(facts), "set", "tezuma-2015", "points:2:5", "7"])
    consistent = code == 2 and facts.read_text(encoding="utf-8") == "{}\n" and _no_temp_files(state)
    return Cell(True, consistent, err.getvalue().strip(), None)


def _no_temp_files(state: Path) -> bool:
    return not any(path.name.endswith(".tmp") for path in state.rglob("*"))


WRITE_PATHS: dict[str, Callable[[Path, str], Cell]] = {
    "play": cell_play,
    "undo": lambda state, fault: cell_play(state, fault, undo=True),
    "new game": cell_new_game,
    "settings": cell_settings,
    "card fact": cell_card_fact,
    "start-up repair": cell_startup_repair,
    "cards set (CLI)": cell_cards_set,
}


def run_cell(path: str, fault: str, state: Path) -> Cell:
    state.mkdir(parents=True, exist_ok=True)
    return WRITE_PATHS[path](state, fault)
