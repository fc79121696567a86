"""Short ways to reach a position: new games, drafts and tricks in the game's own notation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.carddata import printed_cards
from companion.engine.base import Game
from companion.registry import game_class
from companion.text import Catalog, Formatter

CATALOG = Catalog.load()


def new_game(game_id: str, players: int = 4, table_facts: Mapping[str, Any] | None = None, **options: Any) -> Game[Any]:
    cls = game_class(game_id)
    names = ["Aki", "Ben", "Chie", "Dai"][:players]
    return cls(cls.new_setup(names, options=options, seed=7, cards=printed_cards(game_id), table_facts=table_facts))


def draft(game: Game[Any], picks: Sequence[Mapping[str, str]]) -> None:
    """Draft ``picks[seat]`` (kind -> card) in the order the game asks, kinds in the dict's order."""
    while game.decision is not None and game.decision.kind == "draft":
        seat = game.decision.seat
        taken = game.state.deal.picks[seat]
        kind = next(k for k in picks[seat] if k not in taken)
        game.push_text(f"{kind} {picks[seat][kind]}")


def trick(game: Game[Any], *plays: str) -> Any:
    """Push each play in the order the game asks; return the finished trick's result."""
    tricks = game.state.deal.tricks
    index = len(tricks) - 1
    deal = game.state.deal
    for text in plays:
        game.push_text(text)
    return deal.tricks[index].result


FILLER = ["sword-walking", "paper-egg", "water-trick", "baby-chicks", "pail-dance", "horse-swallowing",
          "butterfly-dance", "linking-rings", "cup-and-ball", "fire-breathing", "many-umbrellas", "five-color-sand"]


def game_with(*abilities: str, game_id: str = "tezuma-2015", players: int = 4) -> Game[Any]:
    """A game past its draft in which seat i holds ``abilities[i]`` (penalty suits B, U, W, R/M)."""
    per_edition = {"tezuma-2015": 6, "tezuma": 5 if players == 4 else 4}[game_id]
    laid_out = list(abilities) + [a for a in FILLER if a not in abilities]
    game = new_game(game_id, players, abilities=laid_out[:per_edition])
    suits = list(game.suits)
    scoring = game.state.deal.layout["scoring"]
    draft(game, [{"ability": a, "penalty": suits[i], "scoring": scoring[i]} for i, a in enumerate(abilities)])
    return game


def english(game: Game[Any], result: Any) -> str:
    """A trick result's reason as the English screens and ``companion replay`` say it."""
    return Formatter.for_game(CATALOG, "en", game).reason(result.reason)
