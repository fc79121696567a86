"""Zenjidou games with card facts a test supplies (the printed table is unknown, so tests invent it).

``plain_facts`` gives every card no effect, no score and colour ``n % 5``; a test overrides the few
cards it is about. These facts exist only in tests, never in the shipped card data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.carddata import printed_cards
from companion.games.zenjidou.rules import RESOLUTION_RULES, Play, Zenjidou, card_facts

BLUE, RED = 0, 1  # colour indexes in the shipped data
MARK = {0: 0, 1: 1, 2: 2, 3: 3, -1: 4, -2: 5}  # a score mark's points -> its fact index
EFFECT = {"none": 0, "low_strong": 1, "low_cancel": 2, "trump_void": 3}


def trump(colour: int) -> int:
    """The effect index of "colour ``colour`` is trump"."""
    return 4 + colour


def plain_facts(overrides: Mapping[int, Mapping[str, int]] | None = None, rule: str = "larger_first") -> dict[str, Any]:
    """Facts for all 32 cards: colour n % 5, no score, no effect, resolution ``rule``; then ``overrides``."""
    table = {str(n): card_facts(n % 5, 0, 0, RESOLUTION_RULES.index(rule)) for n in range(1, 33)}
    for number, changes in (overrides or {}).items():
        table[str(number)] = {**table[str(number)], **changes}
    return {"card": table}


def new_game(players: int = 3, facts: Mapping[str, Any] | None = None, seed: int = 7) -> Zenjidou:
    names = ["Aki", "Ben", "Chie", "Dai", "Emi", "Fumi"][:players]
    setup = Zenjidou.new_setup(names, seed=seed, cards=printed_cards("zenjidou"), table_facts=facts)
    return Zenjidou(setup)


def push(game: Zenjidou, *texts: str) -> None:
    for text in texts:
        game.push_text(text)


def start_round(game: Zenjidou, rest: int, rule: str, bottoms: Sequence[int] | None = None) -> None:
    """Enter the rest's top card, round 1's bottoms (hand order) and the rule."""
    game.push_text(f"rest {rest}")
    if game.state.deal.index == 0:
        for card in bottoms or []:
            game.push_text(f"bottom {card}")
    game.push_text(f"rule {rule}")


def topmost_follower(game: Zenjidou, held: Sequence[int], lead: int | None) -> int:
    """D: the topmost card of the lead's colour in ``held``, else the top card."""
    colour = game.facts(lead).colour if lead is not None else None
    return next((card for card in held if game.facts(card).colour == colour), held[0])


def play_round(game: Zenjidou, hands: Sequence[Sequence[int]],
               pick: Callable[[Zenjidou, Sequence[int], int | None], int] = topmost_follower) -> None:
    """Put down the rest of the round from ``hands`` (as held, the first to play first), each card
    chosen by ``pick`` (D's by default) and entered as the table would; the device's own plays are
    taken out of the hands."""
    held = [list(hand) for hand in hands]
    index = game.state.deal.index
    while game.state.deal.index == index and not game.is_over():
        for hand in held:
            hand[:] = [card for card in hand if card not in set(game.state.deal.shown_cards())]
        decision = game.decision
        assert decision is not None and decision.kind == "play", decision
        trick = game.state.deal.tricks[-1]
        lead = trick.turns[0].cards[0] if trick.turns else None
        game.push(Play(decision.seat, pick(game, held[decision.seat], lead)))


def played(game: Zenjidou, deal: int = 0) -> list[list[tuple[int, int]]]:
    """Per trick of ``deal``: (hand, card) in play order."""
    return [[(turn.seat, turn.cards[0]) for turn in trick.turns] for trick in game.state.deals[deal].tricks]
