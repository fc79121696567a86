"""Finding a game's parts by its module name, so nothing outside a game's files imports it.

A game is a module in :mod:`companion.games` (its engine, registered by id) plus, optionally, a
module of the same name in :mod:`companion.ui` (its screens) and :mod:`companion.sim` (its simulated
table), its card data ``data/cards/<id>.json`` and its text ``data/i18n/games/<module>.<lang>.json``.
Importing a part registers it; :func:`load_parts` imports every game's part of one kind.

>>> "irohanihohedo" in game_modules()
True
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import companion.games


def game_modules() -> list[str]:
    """The module names of every game, sorted."""
    return sorted(module.name for module in pkgutil.iter_modules(companion.games.__path__))


def load_parts(kind: str) -> list[str]:
    """Import ``companion.<kind>.<module>`` for every game that has one; returns those imported."""
    loaded = []
    for module in game_modules():
        name = f"companion.{kind}.{module}"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
            loaded.append(name)
    return loaded
