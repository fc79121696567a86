"""The state directory: the current game's journal, finished games, card facts and settings.

Everything the device must not lose lives here, written so that a pulled plug at any moment leaves
either the old or the new content: the journal appends with an fsync per action; other files are
replaced atomically.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from companion import carddata
from companion.daemon.journal import CURRENT_JOURNAL, GAMES_DIR, Journal, archive_journal, atomic_replace
from companion.engine.base import Game, Setup
from companion.engine.record import GameBuilder, header_json, read_objects
from companion.errors import CompanionError, ConfigError, RecordError
from companion.registry import game_class
from companion.session import Session
from companion.settings import Settings

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Recovered:
    """What start-up found in the state directory: a game to offer, and what to tell the table."""

    game: Game[Any] | None = None
    messages: list[str] = field(default_factory=list)


class Store:
    """Owns the state directory; hands the UI sessions whose every change is journalled."""

    def __init__(self, root: Path, *, wall: Callable[[], str] = utc_now) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self.journal_path = root / CURRENT_JOURNAL
        self.games_dir = root / GAMES_DIR
        self.facts_path = root / carddata.FACTS_FILE
        self.settings_path = root / SETTINGS_FILE
        self._wall = wall
        self._journal: Journal | None = None
        self.accepted = 0  # actions in the journalled game, once their line is on disk

    # --- games ---------------------------------------------------------------------------

    def recover(self) -> Recovered:
        """Open the current journal, if any, and rebuild its game up to the last whole action.

        A torn last line is dropped with a message. A journal that cannot be read or replayed is
        moved aside (never deleted) so the device can start, and the table is told where it went.
        """
        found = Recovered()
        if not self.journal_path.exists():
            return found
        try:
            journal = Journal.open(self.journal_path)
        except RecordError as err:
            found.messages.append(self._set_aside(f"journal damaged ({err})"))
            return found
        found.messages += [f"dropped a torn last line: {d}" for d in journal.recovered.dropped]
        builder = read_objects(journal.recovered.objects, GameBuilder())
        if builder.failure is not None or builder.game is None:
            journal.close()
            found.messages.append(self._set_aside(f"journal unreadable ({builder.failure})"))
            return found
        self._journal = journal
        found.game = builder.game
        return found

    def _set_aside(self, why: str) -> str:
        moved = self._archive("damaged")
        log.error("%s: moved to %s", why, moved)
        return f"{why}; kept as {moved.name}"

    def _archive(self, kind: str) -> Path:
        """Move the current journal into ``games/`` under a name no other game has."""
        stem = f"{kind}-{_stamp(self._wall())}"
        taken = {p.name for p in self.games_dir.glob(f"{stem}*")} if self.games_dir.exists() else set()
        name = next(n for n in (f"{stem}{'-' + str(i) if i else ''}.jsonl" for i in range(len(taken) + 1)) if n not in taken)
        return archive_journal(self.journal_path, self.games_dir, name)

    def start(self, setup: Setup) -> Session:
        """A new game: the previous journal (finished or abandoned) goes to ``games/`` first."""
        self.close()
        if self.journal_path.exists():
            self._archive("game")
        self._journal = Journal.create(self.journal_path, header_json(setup))
        self.accepted = 0
        return self._session(game_class(setup.game)(setup))

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
        if self._journal is None:
            raise CompanionError("no journal is open")
        line = data if change == "action" else {"type": "undo"}
        self._journal.append({**line, "at": self._wall()})
        self.accepted += 1 if change == "action" else -1
        log.debug("accepted %d", self.accepted)

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # --- card facts and settings ---------------------------------------------------------

    def facts(self) -> dict[str, Any]:
        return carddata.load_facts(self.facts_path)

    def table_facts(self, game_id: str) -> dict[str, Any]:
        return carddata.facts_for(self.facts(), game_id)

    def remember_fact(self, game_id: str, key: str, value: int) -> None:
        facts = self.facts()
        carddata.set_fact(facts, game_id, key, value)
        carddata.save_facts(self.facts_path, facts)

    def load_settings(self) -> Settings:
        try:
            data = json.loads(self.settings_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return Settings()
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            log.error("%s is damaged (%s): using defaults", self.settings_path, err)
            return Settings()
        try:
            return Settings.from_json(data)
        except ConfigError as err:
            log.error("%s: %s: using defaults", self.settings_path, err)
            return Settings()

    def save_settings(self, settings: Settings) -> None:
        atomic_replace(self.settings_path, (json.dumps(settings.to_json(), indent=1) + "\n").encode("utf-8"))


def _stamp(iso: str) -> str:
    """A file-name-safe form of an ISO timestamp."""
    return "".join(ch if ch.isalnum() else "-" for ch in iso)
