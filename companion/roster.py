"""The players' own names: a roster kept in the state directory, offered first by the setup form.

The device's built-in seat names (Aki, Ben, ...) are a seat, not a person; a club's players and an
event's standings want people. The roster is ``players.json`` in the state directory, written
whole and atomically under a lock file (``companion players`` and the device may both write it),
ordered most recently used first: the device records the names of every game it starts.

A name may be in any script. It is refused, in one line, when it is empty, wider than the setup
form shows whole (:data:`MAX_NAME_CELLS` half-width cells: 12 Latin letters or 6 kana/kanji), holds
a control or invisible character, or is already in the roster once compared by
:func:`companion.names.name_key`, the one comparison of names (so full-width "AKI" is "Aki", a
zero-width space hides nothing, and "Aki" with a Cyrillic A is "Aki").

>>> check_name("  Hanako "), check_name("山田花子")
('Hanako', '山田花子')
>>> check_name("Bartholomew Z")  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
companion.errors.ConfigError: 'Bartholomew Z' is too long: a name is at most 12 half-width or 6 full-width
characters (what the setup form shows whole)
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from companion.errors import ConfigError, StorageError
from companion.names import name_key, visible
from companion.storage import atomic_replace, exclusive, read_text, reason, remove_stale_temps
from companion.text import cells

ROSTER_FILE = "players.json"
ROSTER_LIMIT = 256 * 1024  # a club's few hundred names are a few KiB
MAX_NAME_CELLS = 12  # the setup form's value column (72 px) holds "< " + 12 half-width cells + " >"
MAX_PLAYERS = 500  # names in one roster: more is not a table's roster

# Refused in a name: controls, format characters, unassigned and private code points, line breaks.
_NOT_SHOWN = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"})

Result = TypeVar("Result")


def check_name(name: str, limit: int = MAX_NAME_CELLS) -> str:
    """``name`` without its outer spaces, or a ConfigError saying in one line why it cannot be one."""
    name = name.strip()
    if not visible(name):
        raise ConfigError("a name cannot be empty (nor only spaces or invisible characters)")
    bad = next((c for c in name if unicodedata.category(c) in _NOT_SHOWN), None)
    if bad is not None:
        raise ConfigError(f"{_shown(name)} holds a control or invisible character (U+{ord(bad):04X}): type the name"
                          " as it should show")
    if cells(name) > limit:
        raise ConfigError(f"{_shown(name)} is too long: a name is at most {limit} half-width or {limit // 2}"
                          " full-width characters (what the setup form shows whole)")
    return name


def _shown(name: str) -> str:
    """A refused name as a message quotes it: controls escaped, cut to 40 characters."""
    return repr(name[:40] + ("..." if len(name) > 40 else ""))


class Roster:
    """The roster file of one state directory: read with :meth:`names`, changed with :meth:`add`,
    :meth:`remove` and :meth:`used`, each a locked read-modify-write that leaves the old or the new file."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / ROSTER_FILE
        self._lock = state_dir / f".{ROSTER_FILE}.lock"

    def names(self) -> list[str]:
        """Every name, most recently used first, then the names never used in the order added."""
        return [entry["name"] for entry in _ordered(self._load())]

    def add(self, name: str) -> str:
        """Add ``name`` (checked); the name stored, or a ConfigError naming the one it duplicates."""
        name = check_name(name)

        def add(entries: list[dict[str, Any]]) -> None:
            same = next((e["name"] for e in entries if name_key(e["name"]) == name_key(name)), None)
            if same is not None:
                why = "already in the roster" if same == name else f"the same name as {same!r} once normalised"
                raise ConfigError(f"{_shown(name)} is {why}")
            if len(entries) >= MAX_PLAYERS:
                raise ConfigError(f"the roster already holds {MAX_PLAYERS} names: remove one first")
            entries.append({"name": name, "used": 0})

        self._update(add)
        return name

    def remove(self, name: str) -> str:
        """Remove the name that matches ``name`` once normalised; the name removed."""

        def remove(entries: list[dict[str, Any]]) -> str:
            for entry in entries:
                if name_key(entry["name"]) == name_key(name):
                    entries.remove(entry)
                    return str(entry["name"])
            raise ConfigError(f"{_shown(name.strip())} is not in the roster ('companion players list' shows it)")

        return self._update(remove)

    def used(self, players: Sequence[str]) -> None:
        """A game started with ``players``: those in the roster move to the front, seat 1 first."""

        def use(entries: list[dict[str, Any]]) -> None:
            # the setup form offers the roster's names as written, so a player is found by the name itself
            last = max((entry["used"] for entry in entries), default=0)
            for entry in entries:
                if entry["name"] in players:
                    entry["used"] = last + len(players) - list(players).index(entry["name"])

        if players:
            self._update(use)

    def _load(self) -> list[dict[str, Any]]:
        try:
            text = read_text(self.path, ROSTER_LIMIT)
        except FileNotFoundError:
            return []
        return parse_roster(text, str(self.path))

    def _update(self, change: Callable[[list[dict[str, Any]]], Result]) -> Result:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StorageError(f"could not write {self.path}: {reason(err)}") from err
        with exclusive(self._lock):
            remove_stale_temps(self.path.parent, ROSTER_FILE)
            entries = self._load()
            result = change(entries)
            data = {"players": _ordered(entries)}
            atomic_replace(self.path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
        return result


def _ordered(entries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Most recently used first; names never used keep their order, after them."""
    return sorted(entries, key=lambda entry: -entry["used"])


def parse_roster(text: str, source: str) -> list[dict[str, Any]]:
    """The entries of a roster file, checked whole: a damaged file is an error, never replaced.

    >>> parse_roster('{"players": [{"name": "Aki", "used": 0}, {"name": "AKI", "used": 1}]}', "p.json")
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: p.json: not a roster: 'AKI' is listed twice
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise ConfigError(f"{source}: not a roster: not valid JSON") from None
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, list) or len(players) > MAX_PLAYERS:
        raise ConfigError(f"{source}: not a roster: expected {{\"players\": [...]}} of at most {MAX_PLAYERS} names")
    seen: set[str] = set()
    for entry in players:
        if (not isinstance(entry, dict) or set(entry) != {"name", "used"} or not isinstance(entry["name"], str)
                or type(entry["used"]) is not int or entry["used"] < 0):
            raise ConfigError(f"{source}: not a roster: each player is {{\"name\": TEXT, \"used\": N}}")
        try:
            check_name(entry["name"])
        except ConfigError as err:
            raise ConfigError(f"{source}: not a roster: {err}") from None
        key = name_key(entry["name"])
        if key in seen:
            raise ConfigError(f"{source}: not a roster: {entry['name']!r} is listed twice")
        seen.add(key)
    return players
