"""Card data: the printed tables shipped with the package, and the facts a table supplied.

Some printed facts were lost with the rulebooks' pictures (score charts, bid cards). The device asks
the table the first time it needs one; the answer is an action in the game's log *and* a fact kept
in the user's card-data file, so the next game knows it. Printed data and table facts stay apart, so
nothing a table said is ever shown as printed.

Table facts are keyed like the engine's question keys, a colon path: ``points:3:5`` is
``{"points": {"3": {"5": value}}}`` under the game's id.

>>> facts = {}
>>> set_fact(facts, "tezuma-2015", "points:3:5", 8)
>>> facts
{'tezuma-2015': {'points': {'3': {'5': 8}}}}
>>> list(iter_facts(facts))
[('tezuma-2015', 'points:3:5', 8)]
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from companion.codec import decode_json
from companion.errors import CardDataError, RecordError, StorageError, quoted
from companion.paths import package_files
from companion.registry import game_class, plugin
from companion.storage import atomic_replace, exclusive, read_text, reason, remove_stale_temps

FACTS_FILE = "card-facts.json"
FACTS_LIMIT = 1 << 20  # a facts file holds a few hundred numbers; a megabyte is not one


# --- shapes: what untrusted card data must look like before any rule reads it ----------------


class MapOf:
    """A shape: an object with any keys whose values all have the shape ``values``."""

    def __init__(self, values: object) -> None:
        self.values = values

    def __repr__(self) -> str:
        return f"MapOf({self.values!r})"


def check_shape(data: object, shape: object, where: str) -> None:
    """Raise :class:`CardDataError` naming the first place where ``data`` does not fit ``shape``.

    A shape is ``str``, ``int`` (never a bool), ``bool``, a compiled pattern (a string that
    matches it whole), ``[item shape]`` (a list), ``MapOf(value shape)`` (an object of any keys),
    or a dict of key to shape (an object with at least those keys; a key ending in ``?`` may be
    left out). Card data embedded in a record is untrusted: checking its shape first lets the
    game's own validation and rules index it without a TypeError.

    >>> check_shape({"suits": [{"code": "B"}, {"code": 7}]}, {"suits": [{"code": str}]}, "cards")
    Traceback (most recent call last):
    ...
    companion.errors.CardDataError: cards: suits[1].code must be a string, not 7
    >>> shape = {"points": MapOf(int), "label": re.compile(r"[^{}]*\\{id\\}[^{}]*")}
    >>> check_shape({"points": {"0": 3}, "label": "#{id}"}, shape, "card")
    """
    _check(data, shape, where, "")


_NAMES = {str: "a string", int: "a whole number", bool: "true or false"}


def _fail(data: object, expected: str, where: str, path: str) -> NoReturn:
    shown = quoted(data) if isinstance(data, (str, int, float, bool)) or data is None else type(data).__name__
    raise CardDataError(f"{where}: {path or 'the whole'} must be {expected}, not {shown}")


def _leaf_error(data: object, shape: object) -> str | None:
    """What a leaf value (``shape`` a type or a pattern) should have been, or None when it fits;
    None for a shape that is not a leaf's (checked by :func:`_check`)."""
    if isinstance(shape, type):
        if not isinstance(data, shape) or (shape is int and isinstance(data, bool)):
            return _NAMES[shape]
    elif isinstance(shape, re.Pattern) and (not isinstance(data, str) or not shape.fullmatch(data)):
        return f"a string like {shape.pattern!r}"
    return None


def _at(path: str, key: str | int) -> str:
    """The path of an item: ``path[3]`` in a list, ``path.key`` in an object."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _check_item(data: object, shape: object, where: str, path: str, key: str | int) -> None:
    """Check one item of a container: a leaf at once, writing its path only if it fails (most items
    are leaves, and writing every path took most of the time); anything else through :func:`_check`."""
    if isinstance(shape, (type, re.Pattern)):
        expected = _leaf_error(data, shape)
        if expected is not None:
            _fail(data, expected, where, _at(path, key))
    else:
        _check(data, shape, where, _at(path, key))


def _check(data: object, shape: object, where: str, path: str) -> None:
    if isinstance(shape, (type, re.Pattern)):
        expected = _leaf_error(data, shape)
        if expected is not None:
            _fail(data, expected, where, path)
    elif isinstance(shape, list):
        if not isinstance(data, list):
            _fail(data, "a list", where, path)
        for index, item in enumerate(data):
            _check_item(item, shape[0], where, path, index)
    elif isinstance(shape, MapOf):
        if not isinstance(data, dict):
            _fail(data, "an object", where, path)
        for key, value in data.items():
            _check_item(value, shape.values, where, path, key if isinstance(key, str) else str(key))
    elif isinstance(shape, dict):
        _check_object(data, shape, where, path)
    else:
        raise TypeError(f"not a shape: {shape!r}")


def _check_object(data: object, shape: Mapping[str, object], where: str, path: str) -> None:
    """An object with at least the keys of ``shape`` (a key ending in ``?`` may be left out)."""
    if not isinstance(data, dict):
        _fail(data, "an object", where, path)
    for key, inner in shape.items():
        name = key.removesuffix("?")
        if name in data:
            _check_item(data[name], inner, where, path, name)
        elif not key.endswith("?"):
            raise CardDataError(f"{where}: {_at(path, name)} is missing")


LETTER = re.compile(r"[A-Z]")  # a suit or colour typed as one upper-case letter before a number, like ``B7``


def named(code: object = LETTER) -> dict[str, object]:
    """The shape of a named suit or colour: its ``code`` and its name in each language."""
    return {"code": code, "en": str, "ja": str}


class CardCheck:
    """A game's card-data validation: whose data it is and its shape first, then the game's own ``need``s.

    >>> check = CardCheck("demo", {"game": str, "suits": [named()], "numbers": [int]},
    ...                   {"game": "demo", "suits": [{"code": "B", "en": "bird", "ja": "鳥"}], "numbers": [1, 1]})
    >>> check.named_codes("suits", 1, "suit")
    >>> check.numbers()
    Traceback (most recent call last):
    ...
    companion.errors.CardDataError: demo card data: 'numbers' must list distinct numbers 1-99
    """

    def __init__(self, game_id: str, shape: Mapping[str, object], cards: object) -> None:
        self.where = f"{game_id} card data"
        if not isinstance(cards, Mapping) or cards.get("game") != game_id:
            raise CardDataError(f"{self.where}: 'game' must be {game_id!r}")
        check_shape(cards, shape, self.where)
        self.cards = cards

    def need(self, ok: bool, what: str) -> None:
        if not ok:
            raise CardDataError(f"{self.where}: {what}")

    def named_codes(self, key: str, count: int, noun: str, order: str = "") -> None:
        """``key`` lists ``count`` named entries (``order`` says what their order means) with distinct codes."""
        codes = [entry["code"] for entry in self.cards[key]]
        self.need(len(codes) == count, f"{key!r} must list {count} {noun}s{order}")
        self.need(len(set(codes)) == count, f"{noun} codes must differ")

    def numbers(self, key: str = "numbers") -> None:
        """``key`` lists the card numbers: at least one, each 1-99 (two digits to type), no repeats."""
        numbers = self.cards[key]
        self.need(bool(numbers) and all(0 < n < 100 for n in numbers) and len(set(numbers)) == len(numbers),
                  f"{key!r} must list distinct numbers 1-99")


def _load_json(text: str, where: str) -> Any:
    try:
        return decode_json(text)
    except RecordError as err:
        raise CardDataError(f"{where}: {err}; fix or move it away") from None


def printed_cards(game_id: str) -> dict[str, Any]:
    """The printed card data for ``game_id``, validated by the game's own rules; a game whose
    plugin record names no card data (a fixed deck) gets an empty object, for its rules to judge."""
    cls = game_class(game_id)
    game = plugin(game_id)
    name = game.cards.get(game_id)
    if name is None:
        cls.validate_cards({})
        return {}
    try:
        text = (package_files(game.package) / name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CardDataError(f"no card data shipped for {game_id}") from None
    where = f"games/{game.module}/{name}"
    data: dict[str, Any] = _load_json(text, where)  # validate_cards refuses a non-object
    cls.validate_cards(data)
    return data


def printed_gaps(game_id: str) -> list[str]:
    """What the printed data of ``game_id`` lacks, one line each."""
    return game_class(game_id).card_gaps(printed_cards(game_id))


def fact_notes(game_id: str, facts: Mapping[str, Any]) -> list[str]:
    """What the table's facts for ``game_id`` leave unusable as they are (a partial set), one line each."""
    return game_class(game_id).fact_notes(printed_cards(game_id), facts_for(facts, game_id))


def check_fact(game_id: str, key: str, value: int) -> None:
    """Refuse a fact the game could never ask for (a typo in ``companion cards set``), or a value
    its question would not take (a colour index past the last colour would block a game)."""
    check_fact_in(game_id, printed_cards(game_id), key, value)


def check_fact_in(game_id: str, cards: Mapping[str, Any], key: str, value: int) -> None:
    """:func:`check_fact` against the card data ``cards`` (a record's own)."""
    cls = game_class(game_id)
    cls.check_fact_key(cards, key)
    allowed = cls.fact_range(cards, key)
    if value not in allowed:
        raise CardDataError(f"{game_id} {key} is {allowed.start}-{allowed.stop - 1}, not {value}")


def load_facts(path: Path, *, missing_ok: bool = True) -> dict[str, Any]:
    """The table facts file, or an empty one if there is none (and ``missing_ok``); a damaged
    file is an error, never silently replaced.

    Errors are :class:`~companion.errors.CompanionError`: StorageError when the file cannot be
    read (a directory, no permission, not UTF-8, too big), CardDataError when it is not facts.
    """
    try:
        text = read_text(path, FACTS_LIMIT)
    except FileNotFoundError:
        if not missing_ok:
            raise CardDataError(f"{path}: no such file") from None
        return {}
    facts: dict[str, Any] = _load_json(text, str(path))  # validate_facts refuses a non-object
    validate_facts(facts, str(path))
    return facts


def save_facts(path: Path, facts: Mapping[str, Any]) -> None:
    """Write the facts file whole and atomically: a pulled plug leaves the old or the new file.

    Raises :class:`~companion.errors.StorageError` when it cannot be written (the old file stays).
    """
    validate_facts(dict(facts), str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # the state directory of a fresh install
    except OSError as err:
        raise StorageError(f"could not write {path}: {reason(err)}") from err
    atomic_replace(path, (json.dumps(facts, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


Result = TypeVar("Result")


def update_facts(path: Path, change: Callable[[dict[str, Any]], Result]) -> Result:
    """Read the facts file, ``change`` it and write it back as one step no other writer (the device
    or another ``companion cards``) can interleave with, so every acknowledged change lasts.

    The lock is the hidden ``.card-facts.json.lock`` beside the file; holding it, the temp files
    of writers killed mid-write are removed. If ``change`` raises, nothing is written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # the state directory of a fresh install
    except OSError as err:
        raise StorageError(f"could not write {path}: {reason(err)}") from err
    with _facts_lock(path):
        _remove_stale_temps(path)
        facts = load_facts(path)
        result = change(facts)
        save_facts(path, facts)
    return result


def remove_stale_fact_temps(path: Path) -> int:
    """Remove the temp files of facts writers killed mid-write, holding the lock so that no
    running writer's temp file is taken; returns how many."""
    with _facts_lock(path):
        return _remove_stale_temps(path)


def _facts_lock(path: Path) -> AbstractContextManager[None]:
    """The lock beside the file itself, so writers through a symbolic link and through its target
    take the same one (the file is replaced there too, see :func:`~companion.storage.atomic_replace`)."""
    target = Path(os.path.realpath(path))
    return exclusive(target.with_name(f".{target.name}.lock"))


def _remove_stale_temps(path: Path) -> int:
    target = Path(os.path.realpath(path))
    return remove_stale_temps(target.parent, target.name)


def validate_table_facts(game_id: str, cards: Mapping[str, Any], table_facts: object) -> None:
    """Facts a record's header embeds must be facts ``game_id`` could ask for, about ``cards``."""
    validate_facts({game_id: table_facts}, f"{game_id} table facts")
    for game, key, value in iter_facts({game_id: table_facts}):
        check_fact_in(game, cards, key, value)


def validate_facts(facts: object, where: str = "card facts") -> None:
    """Facts are nested objects of string keys ending in non-negative integers."""
    if not isinstance(facts, dict):
        raise CardDataError(f"{where}: expected an object of games")
    for game, key, value in _walk(facts, where):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CardDataError(f"{where}: {game} {key} must be a whole number >= 0, not {quoted(value)}")


def _walk(node: Any, where: str, path: tuple[str, ...] = ()) -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, dict) and (len(path) < 2 or node):
        for key, child in node.items():
            yield from _walk(child, where, (*path, str(key)))
    elif len(path) < 2:
        raise CardDataError(f"{where}: {'/'.join(path) or 'top level'} must be an object")
    else:
        yield path[0], ":".join(path[1:]), node


def iter_facts(facts: Mapping[str, Any]) -> Iterator[tuple[str, str, int]]:
    """(game, key, value) for every fact, in file order."""
    yield from _walk(dict(facts), "card facts")


def set_fact(facts: dict[str, Any], game: str, key: str, value: int) -> None:
    """Set one fact; a key that would go through or replace another fact is refused."""
    node = facts.setdefault(game, {})
    *parents, leaf = key.split(":")
    for part in parents:
        node = node.setdefault(part, {}) if isinstance(node, dict) else None
    if not isinstance(node, dict) or isinstance(node.get(leaf), dict):
        raise CardDataError(
            f"{game} {key}: clashes with another fact in the file (a value where a group is, or the reverse)"
        )
    node[leaf] = value


def delete_fact(facts: dict[str, Any], game: str, key: str) -> bool:
    """Remove one fact; True if it was there. Empty parents are pruned."""
    trail = [facts.get(game)]
    parts = key.split(":")
    for part in parts[:-1]:
        node = trail[-1]
        trail.append(node.get(part) if isinstance(node, dict) else None)
    node = trail[-1]
    if not isinstance(node, dict) or parts[-1] not in node:
        return False
    del node[parts[-1]]
    for parent, part in zip(reversed([facts, *trail[:-1]]), reversed([game, *parts[:-1]]), strict=False):
        if isinstance(parent, dict) and parent.get(part) == {}:
            del parent[part]
    return True


def merge_facts(into: dict[str, Any], other: Mapping[str, Any]) -> list[str]:
    """Import ``other`` into ``into``; returns the facts that changed a different value (conflicts)."""
    validate_facts(other, "imported card facts")
    changed = []
    for game, key, value in iter_facts(other):
        old = get_fact(into, game, key)
        if old is not None and old != value:
            changed.append(f"{game} {key}: {old} -> {value}")
        set_fact(into, game, key, value)
    return changed


def get_fact(facts: Mapping[str, Any], game: str, key: str) -> int | None:
    node: Any = facts.get(game)
    for part in key.split(":"):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node if isinstance(node, int) else None


def facts_for(facts: Mapping[str, Any], game: str) -> dict[str, Any]:
    """The part of the facts file a new game's header embeds."""
    copied: dict[str, Any] = json.loads(json.dumps(facts.get(game, {})))
    return copied
