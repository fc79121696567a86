"""Games by id: every game is one package holding one plugin record, and the rest of the program
finds the game's parts here, so nothing outside a game's package imports it.

A game package ``companion/games/<module>/`` holds its rules, its screens, its simulated table, its
card data and its text, and in its ``__init__`` a :class:`Plugin` naming them. The record names
its parts by dotted name and they are imported on first use: listing the games reads the records
alone, and starting the device imports only the game it plays. The registry sits beside the engine
rather than in it: the engine core (:mod:`companion.engine.base`) knows what a game is, not which
games exist.

>>> "irohanihohedo" in game_ids() and plugin("tezuma-2015") is plugin("tezuma")
True
>>> plugin("tezuma-2015").cards["tezuma-2015"]
'cards.tezuma-2015.json'
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from companion.errors import RecordError, quoted

if TYPE_CHECKING:
    from companion.engine.base import Game

GAMES_PACKAGE = "companion.games"
LANGUAGE_PLACEHOLDER = "<lang>"
SETUP_KINDS = ("seat", "yes_no", "cards")


class SetupRow(NamedTuple):
    """One of a game's own rows on the setup form, as data, so the form is drawn without importing
    the game. ``label`` is its text key; ``kind`` says what it offers: ``"seat"`` one of the players
    (the first dealer), ``"yes_no"`` a variant, ``"cards"`` how the table's cards are chosen (the
    book's recommended set where the game's card data has one, at random, or one by one).
    """

    key: str
    label: str
    kind: str


class Plugin(NamedTuple):
    """One game package's parts, named as ``"module:attribute"`` relative to ``package``.

    ``rules`` maps each game id the package plays to its engine class (Tezuma's two editions are two
    ids of one package) and ``titles`` each id to its title, which the engine class takes from here
    (so the list of games shows titles without importing any rules); ``players`` each id to the
    fewest and most players, and ``setup`` each id to its own rows of the setup form, so the form
    a device starts on imports no game (the engine class's counts are checked against these when
    it loads); ``screens`` is its
    :class:`~companion.ui.screens.GameUI` class and ``table`` its simulated table (called with the
    game, a random source and an ability rate), each None where the game has none; ``cards`` maps a
    game id to its card data file and ``text`` names its text files, ``<lang>`` standing for each
    language.
    """

    package: str
    rules: Mapping[str, str]
    titles: Mapping[str, str]
    players: Mapping[str, tuple[int, int]]
    setup: Mapping[str, tuple[SetupRow, ...]] = MappingProxyType({})
    screens: str | None = None
    table: str | None = None
    cards: Mapping[str, str] = MappingProxyType({})
    text: str | None = None

    @property
    def module(self) -> str:
        """The package's last name (``tezuma``): the prefix of its text keys."""
        return self.package.rpartition(".")[2]

    def load(self, dotted: str) -> Any:
        """The attribute ``dotted`` (``"rules:Tezuma"``) names, importing its module now."""
        module, _, attribute = dotted.partition(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), attribute)

    def text_file(self, lang: str) -> str | None:
        """The file name of this game's text in ``lang``, or None when it brings no text."""
        return None if self.text is None else self.text.replace(LANGUAGE_PLACEHOLDER, lang)


_EXTRA_PACKAGES: list[str] = []  # packages outside companion.games: the tests' own game


@cache
def _product_plugins() -> tuple[Plugin, ...]:
    import companion.games

    # a game is a folder with an __init__.py; os.scandir, where pkgutil would cost the start a module
    names = sorted(entry.name for folder in companion.games.__path__ for entry in os.scandir(folder)
                   if entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py")))
    return tuple(_record(f"{GAMES_PACKAGE}.{name}") for name in names)


def _record(package: str) -> Plugin:
    record = getattr(importlib.import_module(package), "PLUGIN", None)
    if not isinstance(record, Plugin) or record.package != package:
        raise TypeError(f"{package} must define PLUGIN = Plugin(package=__name__, ...)")
    if set(record.titles) != set(record.rules) or set(record.players) != set(record.rules):
        raise TypeError(f"{package}'s PLUGIN must title and count the players of every game id it plays,"
                        " and only those")
    if not set(record.setup) <= set(record.rules) or any(
            row.kind not in SETUP_KINDS for rows in record.setup.values() for row in rows):
        raise TypeError(f"{package}'s PLUGIN has setup rows for a game it does not play or of an unknown kind"
                        f" (kinds: {', '.join(SETUP_KINDS)})")
    return record


def plugins() -> list[Plugin]:
    """Every game package's record: the product's, then any the tests added."""
    return [*_product_plugins(), *(_record(package) for package in _EXTRA_PACKAGES)]


@contextmanager
def extra_package(package: str) -> Iterator[Plugin]:
    """Make the game package ``package`` playable inside the ``with`` block (the tests' own game)."""
    _EXTRA_PACKAGES.append(package)
    try:
        yield _record(package)
    finally:
        _EXTRA_PACKAGES.remove(package)


def _by_id() -> dict[str, Plugin]:
    by_id: dict[str, Plugin] = {}
    for record in plugins():
        for game_id in record.rules:
            if game_id in by_id:
                raise ValueError(f"game id {game_id!r} is played by {by_id[game_id].package} and {record.package}")
            by_id[game_id] = record
    return by_id


def game_ids() -> list[str]:
    """Every playable game id, sorted."""
    return sorted(_by_id())


def plugin(game_id: str) -> Plugin:
    """The record of the package that plays ``game_id``; a clear error names the ids that exist."""
    by_id = _by_id()
    try:
        return by_id[game_id]
    except KeyError:
        known = ", ".join(sorted(by_id))
        raise RecordError(f"unknown game {quoted(game_id)} (playable: {known})") from None


def game_title(game_id: str) -> str:
    """The title of ``game_id``, from its record alone.

    >>> game_title("tezuma-2015")
    'Tezuma (2015)'
    """
    return plugin(game_id).titles[game_id]


def game_class(game_id: str) -> type[Game[Any]]:
    """The engine class that plays ``game_id``.

    >>> game_class("tezuma-2015").title
    'Tezuma (2015)'
    """
    record = plugin(game_id)
    cls: type[Game[Any]] = record.load(record.rules[game_id])
    if (cls.min_players, cls.max_players) != record.players[game_id]:
        raise TypeError(f"{cls.__name__} plays {cls.min_players}-{cls.max_players} players; its PLUGIN says"
                        f" {'-'.join(map(str, record.players[game_id]))}")
    return cls


def player_counts(game_id: str) -> range:
    """How many may play ``game_id``, from its record alone.

    >>> list(player_counts("tourney"))
    [3, 4]
    """
    fewest, most = plugin(game_id).players[game_id]
    return range(fewest, most + 1)


def setup_rows(game_id: str) -> tuple[SetupRow, ...]:
    """The game's own rows of the setup form, from its record alone."""
    return plugin(game_id).setup.get(game_id, ())
