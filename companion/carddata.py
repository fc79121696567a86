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
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from companion.registry import game_class
from companion.errors import CardDataError

FACTS_FILE = "card-facts.json"


def printed_cards(game_id: str) -> dict[str, Any]:
    """The printed card data for ``game_id``, validated by the game's own rules."""
    cls = game_class(game_id)
    resource = resources.files("companion.data") / "cards" / f"{game_id}.json"
    try:
        data = json.loads(resource.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CardDataError(f"no card data shipped for {game_id}") from None
    except json.JSONDecodeError as err:
        raise CardDataError(f"cards/{game_id}.json: {err}") from None
    cls.validate_cards(data)
    return data


def printed_gaps(game_id: str) -> list[str]:
    """What the printed data of ``game_id`` lacks, one line each."""
    return game_class(game_id).card_gaps(printed_cards(game_id))


def check_fact_key(game_id: str, key: str) -> None:
    """Refuse a fact the game could never ask for (a typo in ``companion cards set``)."""
    game_class(game_id).check_fact_key(printed_cards(game_id), key)


def load_facts(path: Path) -> dict[str, Any]:
    """The table facts file, or an empty one; a damaged file is an error, never silently replaced."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    try:
        facts = json.loads(text)
    except json.JSONDecodeError as err:
        raise CardDataError(f"{path}: not valid JSON ({err}); fix or move it away") from None
    validate_facts(facts, str(path))
    return facts


def save_facts(path: Path, facts: Mapping[str, Any]) -> None:
    """Write the facts file whole and atomically: a pulled plug leaves the old or the new file."""
    from companion.daemon.journal import atomic_replace

    validate_facts(dict(facts), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, (json.dumps(facts, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def validate_facts(facts: object, where: str = "card facts") -> None:
    """Facts are nested objects of string keys ending in non-negative integers."""
    if not isinstance(facts, dict):
        raise CardDataError(f"{where}: expected an object of games")
    for game, key, value in _walk(facts, where):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CardDataError(f"{where}: {game} {key} must be a whole number >= 0, not {value!r}")


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
    node = facts.setdefault(game, {})
    *parents, leaf = key.split(":")
    for part in parents:
        node = node.setdefault(part, {})
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
    for parent, part in zip(reversed([facts, *trail[:-1]]), reversed([game, *parts[:-1]])):
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
    return json.loads(json.dumps(facts.get(game, {})))
