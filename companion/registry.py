"""Games by id: each game module registers its class, and the rest of the program finds it here.

The registry sits beside the engine rather than in it: the engine core (:mod:`companion.engine.base`)
knows what a game is, not which games exist. Importing :mod:`companion.games` registers every game
module in that package, so a new game is a new module there, not an edit here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.errors import RecordError, quoted

if TYPE_CHECKING:
    from companion.engine.base import Game

_REGISTRY: dict[str, type[Game[Any]]] = {}


def register(cls: type[Game[Any]]) -> type[Game[Any]]:
    """Class decorator: make ``cls`` playable under its ``game_id``."""
    if cls.game_id in _REGISTRY and _REGISTRY[cls.game_id] is not cls:
        raise ValueError(f"game id {cls.game_id!r} registered twice")
    _REGISTRY[cls.game_id] = cls
    return cls


def game_class(game_id: str) -> type[Game[Any]]:
    """The class registered for ``game_id``; a clear error names the ids that exist.

    >>> game_class("tezuma-2015").title
    'Tezuma (2015)'
    """
    import companion.games  # noqa: F401  (registers every game module)

    try:
        return _REGISTRY[game_id]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise RecordError(f"unknown game {quoted(game_id)} (playable: {known})") from None


def game_ids() -> list[str]:
    """Every playable game id, sorted."""
    import companion.games  # noqa: F401

    return sorted(_REGISTRY)
