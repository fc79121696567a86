"""Random legal games, for property tests, benchmarks and demos.

The engine never sees hands, so "legal" for it means "not provably illegal". A simulated table
deals real hands and plays only what a player holding them may play, so random games here are games
a real table could have had. Each game's table model is the ``table`` of its plugin record
(:mod:`companion.registry`), imported when a game of it is played.

A table model chooses among what a hand allows with its random source's ``choice``. That source
says what kind of table it is (:data:`TABLE_KINDS`): a plain :class:`random.Random` plays any of
its legal cards alike (``random``); :class:`PeopleRandom` plays its highest or lowest card half
the time, as people do (``people``). Following suit whenever it can is every table model's rule
already. One source serves every game, so no game's table has a second copy of its choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from companion.carddata import printed_cards
from companion.engine.base import Decision, Game
from companion.engine.tricks import EXTREME_RATE
from companion.registry import game_class, game_ids, plugin

if TYPE_CHECKING:
    from _typeshed import SupportsLenAndGetItem


class TableModel(Protocol):
    """A physical table: knows every hand and picks a play a player holding it could make."""

    def choose(self, game: Game[Any], rng: random.Random) -> Any: ...

    def after(self, game: Game[Any], action: Any) -> None: ...


class DealingTable:
    """A table that deals fresh hands whenever the engine has opened a new deal.

    A subclass says how its game deals in :meth:`deal`, and calls :meth:`deal_if_new` before it chooses.
    """

    dealt_for = -1  # the index of the deal whose hands are on the table

    def deal(self, game: Any, rng: random.Random) -> None:
        raise NotImplementedError

    def deal_if_new(self, game: Any, rng: random.Random) -> None:
        index = game.state.deal.index
        if self.dealt_for != index:
            self.deal(game, rng)
            self.dealt_for = index

    def next_decision(self, game: Any, rng: random.Random) -> Decision:
        """What the engine waits for, with this deal's hands on the table; a finished game has nothing."""
        self.deal_if_new(game, rng)
        decision: Decision | None = game.decision
        if decision is None:
            raise ValueError("the game is over")
        return decision


CardT = TypeVar("CardT")
TABLE_KINDS = ("random", "people")


def rank_of(option: Any) -> int | None:
    """The number on the card an option puts down (the highest of several), or None when it puts
    down no numbered card: a play (``.card`` or ``.cards``), a card itself (``.rank``)."""
    cards = getattr(option, "cards", None)
    if cards is None:
        card = getattr(option, "card", option)
        cards = (card,)
    ranks = [getattr(card, "rank", None) for card in cards]
    # The ignore below: all() above checked every rank is an int
    return max(ranks) if ranks and all(isinstance(rank, int) for rank in ranks) else None  # type: ignore[type-var]


class PeopleRandom(random.Random):
    """A random source for a table of people: among cards, half the time the highest or the lowest.

    People rarely pick a card at random: they win with their highest or duck with their lowest
    (the engine's ``EXTREME_RATE``, the belief the screens' ``card_odds`` weigh cards by too).
    Choices among things that are not cards (a rule, a draft kind, a side) stay uniform.

    >>> rng = PeopleRandom(3)
    >>> sorted({rng.choice([1, 5, 9, 4, 7]) for _ in range(200)}) == [1, 4, 5, 7, 9]
    True
    >>> from companion.engine.tricks import SuitedCard
    >>> cards = [SuitedCard("W", n) for n in (3, 9, 6, 12, 1)]
    >>> picks = [rng.choice(cards).rank for _ in range(1000)]
    >>> 0.30 < picks.count(12) / 1000 < 0.40 and 0.30 < picks.count(1) / 1000 < 0.40
    True
    """

    def choice(self, seq: SupportsLenAndGetItem[CardT]) -> CardT:
        ranks = [rank_of(seq[index]) for index in range(len(seq))]
        if len(seq) > 1 and all(rank is not None for rank in ranks) and self.random() < EXTREME_RATE:
            pick = max if self.random() < 0.5 else min
            # The ignore below: every rank is known (checked above)
            return seq[pick(range(len(seq)), key=lambda i: ranks[i])]  # type: ignore[arg-type, return-value]
        return super().choice(seq)


def table_random(kind: str, seed: int) -> random.Random:
    """The random source of a simulated table of ``kind`` (one of :data:`TABLE_KINDS`)."""
    if kind not in TABLE_KINDS:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {', '.join(TABLE_KINDS)}")
    return PeopleRandom(seed) if kind == "people" else random.Random(seed)


def cut(deck: Sequence[CardT], size: int, count: int) -> list[list[CardT]]:
    """``count`` packets of ``size`` cards from the top of ``deck``, as a dealer hands them out.

    >>> cut("abcdefg", 3, 2)
    [['a', 'b', 'c'], ['d', 'e', 'f']]
    """
    return [list(deck[i * size : (i + 1) * size]) for i in range(count)]


def new_random_game(
    game_id: str,
    players: int,
    rng: random.Random,
    *,
    options: Mapping[str, Any] | None = None,
    table_facts: Mapping[str, Any] | None = None,
) -> Game[Any]:
    """A new game; ``table_facts`` are what earlier games taught the device (as App.table_facts gives them)."""
    cls = game_class(game_id)
    names = [f"Player {i + 1}" for i in range(players)]
    setup = cls.new_setup(names, options=options, seed=rng.randrange(2**32), cards=printed_cards(game_id),
                          table_facts=table_facts)
    return cls(setup)


def random_game(
    game_id: str,
    players: int,
    rng: random.Random,
    *,
    ability_rate: float = 0.3,
    options: Mapping[str, Any] | None = None,
    table_facts: Mapping[str, Any] | None = None,
    max_actions: int = 10_000,
    on_action: Callable[[Game[Any], Any], None] | None = None,
) -> Game[Any]:
    """Play a whole random game; ``on_action`` sees every push (for measuring or recording)."""
    game = new_random_game(game_id, players, rng, options=options, table_facts=table_facts)
    play_out(game, rng, ability_rate=ability_rate, max_actions=max_actions, on_action=on_action)
    return game


def play_out(
    game: Game[Any],
    rng: random.Random,
    *,
    ability_rate: float = 0.3,
    max_actions: int = 10_000,
    on_action: Callable[[Game[Any], Any], None] | None = None,
    table: TableModel | None = None,
) -> TableModel:
    """Continue ``game`` to its end (or ``max_actions``) with a simulated table."""
    table = table or table_model(game, rng, ability_rate)
    for _ in range(max_actions):
        if game.is_over():
            break
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
        if on_action is not None:
            on_action(game, action)
    return table


def table_model(game: Game[Any], rng: random.Random, ability_rate: float = 0.3) -> TableModel:
    """A simulated table for ``game``, from its plugin record."""
    table = plugin(game.game_id).table
    if table is None:
        raise ValueError(f"{game.game_id} has no simulated table")
    model: TableModel = plugin(game.game_id).load(table)(game, rng, ability_rate)
    return model


def simulated_game_ids() -> list[str]:
    """The game ids that have a simulated table, sorted."""
    return [game_id for game_id in game_ids() if plugin(game_id).table is not None]
