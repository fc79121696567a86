"""The state directory: the current game's journal, finished games, card facts and settings.

Everything the device must not lose lives here, written so that a pulled plug at any moment leaves
either the old or the new content: the journal appends with an fsync per action; other files are
replaced atomically.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from companion import carddata
from companion.codec import decode_json
from companion.errors import CompanionError, ConfigError, StorageError
from companion.journal import CURRENT_JOURNAL, GAMES_DIR, Journal, JournalClosed, JournalInUse, archive_journal
from companion.registry import game_class
from companion.roster import Roster
from companion.session import Session
from companion.settings import Settings
from companion.storage import WriteUnsure, any_temp_like, atomic_replace, read_text, reason, remove_stale_temps

if TYPE_CHECKING:  # the engine loads with the first game played, not with the setup form; the record
    # codec with the first journal read or written
    from companion.engine.base import Game, Setup
    from companion.record import DroppedLine

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
LOCK_FILE = "device.lock"
"""Held locked (``flock``, exclusive) by the one device using the state directory, for its whole life;
it holds that device's process id, for the message that refuses a second one."""
SETTINGS_LIMIT = 64 * 1024  # a settings file is a few dozen bytes; anything this big is not one


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Recovered:
    """What start-up found in the state directory: a game to offer, and what to tell the table."""

    def __init__(self) -> None:
        self.game: Game[Any] | None = None
        self.messages: list[str] = []


class StateDirInUse(JournalInUse):
    """Another running device holds the state directory: two would move each other's games away."""


class Store:
    """Owns the state directory; hands the UI sessions whose every change is journalled.

    No storage failure escapes as a crash. Writes that fail raise :class:`StorageError` (the UI
    shows it; the action is not kept); reads that fail fall back to defaults and leave a line in
    :attr:`notices` for the screen. Every failure is logged.
    """

    def __init__(self, root: Path, *, wall: Callable[[], str] = utc_now) -> None:
        self.root = root
        self.journal_path = root / CURRENT_JOURNAL
        self.games_dir = root / GAMES_DIR
        self.facts_path = root / carddata.FACTS_FILE
        self.settings_path = root / SETTINGS_FILE
        self.roster = Roster(root)
        self._roster_problem = ""  # said once until it changes, not at every form
        self._wall = wall
        self._journal: Journal | None = None
        self.accepted = 0  # actions in the journalled game, once their line is on disk
        self.on_journalled: list[Callable[[], None]] = []  # told after each line is on disk (event mode)
        self.notices: list[str] = []  # problems the screen should show; the device takes them
        self._lock: TextIO | None = None  # the open lock file while this device holds the state directory
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            self._notice(f"state directory {root} unusable ({reason(err)}): games cannot be saved")
        self._hold_state_dir()
        self._remove_leftovers()

    def _hold_state_dir(self) -> None:
        """Lock the state directory for this device's whole life, before anything in it is touched.

        The current journal's own lock guarded only while a game was current: two devices started
        with none both ran, and the second's new game moved the first's journal into ``games/``
        under it. A second device now stops here (:class:`StateDirInUse`, one line); a directory
        where the lock cannot even be made is the unusable directory the notices already name.
        """
        path = self.root / LOCK_FILE
        try:
            lock = open(path, "a+", encoding="utf-8")  # noqa: SIM115  (held open for the device's life; closed by close())
        except OSError as err:
            log.error("cannot lock the state directory %s: %s", self.root, reason(err))
            return
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read(32).strip()
            lock.close()
            raise StateDirInUse(f"state directory {self.root} is in use by another running device"
                                f"{f' (process {holder})' if holder.isdigit() else ''}: stop that one first,"
                                " or give this one its own --state-dir") from None
        except OSError as err:  # a file system without locks: run unguarded, as before
            log.warning("cannot lock the state directory %s: %s", self.root, reason(err))
        try:
            lock.truncate(0)
            lock.write(f"{os.getpid()}\n")
            lock.flush()
        except OSError as err:  # only the message naming the holder needs it
            log.warning("cannot write the process id into %s: %s", path, reason(err))
        self._lock = lock

    def _remove_leftovers(self) -> None:
        """Temp files of writes a kill cut short (the files they were for are intact): the settings
        and a new journal's header are written only by the device, which is starting; the card
        facts under their lock."""
        removed = sum(remove_stale_temps(self.root, name) for name in (SETTINGS_FILE, CURRENT_JOURNAL))
        if any_temp_like(self.root, carddata.FACTS_FILE):
            try:  # `companion cards` writes the facts file too: cleaned under its lock
                removed += carddata.remove_stale_fact_temps(self.facts_path)
            except CompanionError as err:
                log.warning("leftover card-facts temp files stay: %s", err)
        if removed:
            log.info("removed %d temporary file(s) left by writes a stop cut short", removed)

    def take_notices(self) -> list[str]:
        """The problems noticed since the last call, oldest first."""
        notices, self.notices = self.notices, []
        return notices

    def _notice(self, message: str) -> None:
        log.error("%s", message)
        self.notices.append(message)

    # --- games ---------------------------------------------------------------------------

    def recover(self) -> Recovered:
        """Open the current journal, if any, and rebuild its game up to the last good line.

        Nothing found in the state directory stops the device from starting: lines that cannot
        be read or that the rules refuse are cut off with everything after them (their bytes
        kept in ``current.jsonl.dropped``) and the good prefix is offered; a journal whose
        header is unusable is moved aside into ``games/`` whole. The table is told either way.
        """
        found = Recovered()
        try:
            self._recover(found)
        except JournalInUse:
            raise
        except Exception as err:  # a start-up that raises would crash-loop the device
            log.exception("recovering %s failed", self.journal_path)
            self._close_journal()
            found.game = None
            found.messages.append(self._set_aside(f"could not resume the game ({type(err).__name__}: {err})"))
        return found

    def _recover(self, found: Recovered) -> None:
        try:
            journal = Journal.open(self.journal_path)
        except JournalInUse:
            raise
        except FileNotFoundError:
            return  # no game was running
        except OSError as err:
            found.messages.append(self._logged(
                logging.ERROR,
                f"cannot open the journal {self.journal_path} ({reason(err)}): it is left as it is;"
                " a new game will move it into games/",
            ))
            return
        from companion.record import GameBuilder, read_lines

        header_dropped: DroppedLine | None = None
        for dropped in journal.recovered.dropped:
            if dropped.line == 1:  # the header itself: the journal is set aside below, said once there
                header_dropped = dropped
                continue
            torn = dropped.last <= dropped.line  # what a pulled plug leaves: no cause for alarm
            what = "a torn last line" if torn else "a damaged journal, from the first bad line on"
            found.messages.append(self._logged(
                logging.WARNING if torn else logging.ERROR,
                f"dropped {what}: {dropped}; kept in {self.journal_path.name}.dropped",
            ))
        builder = read_lines(journal.recovered, GameBuilder(defers=True))
        if builder.game is None:  # a header is written whole (temp file, then linked): never torn
            journal.close()
            kept = "" if header_dropped is None else (
                f"; {'it is' if header_dropped.last <= 1 else f'lines 1-{header_dropped.last} are'}"
                f" in {self.journal_path.name}.dropped")
            found.messages.append(self._set_aside(
                f"the journal's header (the game's setup) is refused ({builder.failure}){kept}"))
            return
        objects = len(journal.recovered.objects)
        if builder.good < objects:
            try:
                tail = journal.keep_prefix(builder.good)
            except OSError as err:
                journal.close()
                found.messages.append(self._logged(
                    logging.ERROR,
                    f"journal {builder.failure}; cutting it there failed ({reason(err)}), so the game"
                    " cannot be resumed; a new game will move it into games/",
                ))
                return
            found.messages.append(self._logged(
                logging.ERROR,
                f"journal {builder.failure}; the game before that line is kept, and the"
                f" {objects - builder.good} line(s) from there on ({len(tail)} bytes) are in"
                f" {self.journal_path.name}.dropped",
            ))
        self._journal = journal
        found.game = builder.game

    @staticmethod
    def _logged(level: int, message: str) -> str:
        log.log(level, "%s", message)
        return message

    def _set_aside(self, why: str) -> str:
        try:
            moved = self._archive("damaged")
        except OSError as err:
            log.error("%s: could not move it aside (%s)", why, reason(err))
            return f"{why}; could not move it aside ({reason(err)}): it stays as {self.journal_path.name}"
        log.error("%s: moved to %s", why, moved)
        return f"{why}; kept as {GAMES_DIR}/{moved.name}"

    def _archive(self, kind: str) -> Path:
        """Move the current journal into ``games/`` under a name no other game has."""
        stem = f"{kind}-{_stamp(self._wall())}"
        taken = {p.name for p in self.games_dir.glob(f"{stem}*")} if self.games_dir.is_dir() else set()
        name = next(
            n for n in (f"{stem}{'-' + str(i) if i else ''}.jsonl" for i in range(len(taken) + 1)) if n not in taken
        )
        return archive_journal(self.journal_path, self.games_dir, name)

    def start(self, setup: Setup) -> Session:
        """A new game: the previous journal (finished or abandoned) goes to ``games/`` first.

        On a storage failure nothing is lost and :class:`StorageError` says what happened: if
        the previous game could not be moved it stays current (and open); if the new journal
        could not be created, the previous game is in ``games/`` and no game is journalled.
        """
        from companion.record import header_json

        game = game_class(setup.game)(setup)
        header = header_json(setup)
        had_game = False
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            had_game = self.journal_path.exists() or self.journal_path.is_symlink()
            if had_game:
                self._archive("game")
        except OSError as err:
            if not had_game:
                self._fail("could not start the new game", err)
            if self.journal_path.exists():  # not moved: the last game stays current, still open
                self._fail("could not put the last game away to start a new one", err)
            log.error("the last game was moved into %s, but syncing that failed: %s", GAMES_DIR, reason(err))
        self._close_journal()
        try:
            self._journal = Journal.create(self.journal_path, header)
        except OSError as err:
            self._fail("could not start the new game", err)
        self.accepted = 0
        self._journalled()
        try:  # the roster's order only: a failure costs no game
            self.roster.used(setup.players)
        except (CompanionError, OSError) as err:
            self._notice(f"the players' names could not be put first next time: {err}")
        return self._session(game)

    def roster_names(self) -> list[str]:
        """The roster's names, most recently used first; none (said once) when it cannot be read."""
        try:
            names = self.roster.names()
        except (CompanionError, OSError) as err:
            if str(err) != self._roster_problem:
                self._roster_problem = str(err)
                self._notice(f"the players' names could not be read: {err}")
            return []
        self._roster_problem = ""
        return names

    def _fail(self, what: str, err: OSError) -> None:
        message = f"{what}: {err if isinstance(err, StorageError) else reason(err)}"
        log.error("%s (%s)", message, self.root)
        raise StorageError(message) from err

    def resume(self, game: Game[Any]) -> Session:
        """Carry on the recovered game, appending to the journal it came from."""
        if self._journal is None:
            raise CompanionError("no journal is open to resume")
        self.accepted = len(game.actions)
        return self._session(game)

    def _session(self, game: Game[Any]) -> Session:
        session = Session(game)
        session.listeners.append(self._append)
        return session

    def _append(self, change: str, data: dict[str, Any]) -> None:
        """Journal one change. A failure raises (the session then takes the change back), except
        when the line stayed in the file unflushed (:class:`WriteUnsure`): the change is kept, as
        the file holds it, and the screen is told the card may lose it."""
        line = data if change == "action" else {"type": "undo"}
        try:
            if self._journal is None:
                raise JournalClosed("no journal is open: start a new game once the storage works")
            self._journal.append({**line, "at": self._wall()})
        except WriteUnsure as err:
            self._notice(f"kept, but the card may lose it: {err}")
        except OSError as err:
            log.error("journalling %s %s failed: %s", change, line, err)
            raise
        self.accepted += 1 if change == "action" else -1
        log.debug("accepted %d", self.accepted)
        self._journalled()

    def journal_size(self) -> int:
        """Bytes in the open journal (0 when none is open): grows by one line per journalled change."""
        return self._journal.size if self._journal is not None else 0

    def _journalled(self) -> None:
        for listener in self.on_journalled:
            listener()

    def close(self) -> None:
        """Close the journal and let the state directory go (another device may use it now)."""
        self._close_journal()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _close_journal(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # --- card facts and settings ---------------------------------------------------------

    def facts(self) -> dict[str, Any]:
        return carddata.load_facts(self.facts_path)

    def table_facts(self, game_id: str) -> dict[str, Any]:
        """What tables told about ``game_id``; an unreadable facts file counts as none (and says so)."""
        try:
            return carddata.facts_for(self.facts(), game_id)
        except CompanionError as err:
            self._notice(f"card facts not used: {err}")
            return {}

    def remember_fact(self, game_id: str, key: str, value: int) -> None:
        """Keep a fact for later games; on failure the game still has it (it is in its log)."""
        try:  # under the facts file's lock: a `companion cards set` meanwhile is not lost
            carddata.update_facts(self.facts_path, lambda facts: carddata.set_fact(facts, game_id, key, value))
        except CompanionError as err:
            log.error("remembering %s %s = %s failed: %s", game_id, key, value, err)
            raise StorageError(f"this game has the answer, but later games will ask again: {err}") from err

    def load_settings(self) -> Settings:
        """The saved settings; a missing file is the defaults, a bad one the defaults and a notice."""
        try:
            data = decode_json(read_text(self.settings_path, SETTINGS_LIMIT))
            if not isinstance(data, dict):
                raise ConfigError("settings: not a JSON object")
            return Settings.from_json(data)
        except FileNotFoundError:
            return Settings()
        except CompanionError as err:
            self._notice(f"{self.settings_path} unusable ({err}): using the default settings")
            return Settings()

    def save_settings(self, settings: Settings) -> None:
        """Write the settings whole; on failure they still apply until the device restarts."""
        data = (json.dumps(settings.to_json(), indent=1) + "\n").encode("utf-8")
        try:
            atomic_replace(self.settings_path, data)
        except StorageError as err:
            log.error("%s", err)
            raise StorageError(f"settings apply now but were not saved: {err}") from err


def _stamp(iso: str) -> str:
    """A file-name-safe form of an ISO timestamp."""
    return "".join(ch if ch.isalnum() else "-" for ch in iso)
