"""Tourney's key presses per card on the device (games/s and push latency: bench/engine.py, every game).

Run: python bench/tourney.py [--seed S] [--scripted K]. Prints figures; asserts nothing.

- key presses per card over K scripted whole games entered through the key planner (what a person
  presses), in the book's order (every prediction before the plays), with predictions entered in
  random order and round from the lead, split by what was entered: the NPC's row, lead and playing
  cards, predictions (AUX presses that switch to another seat's prediction count with the card they
  enter), and the share of a 1024-byte frame the page-diff writer sends per press.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

from presses import PageCounter  # bench/ is on sys.path when run as a script

from companion.carddata import printed_cards
from companion.games.tourney.rules import NpcRow, Play, Predict, Tourney
from companion.games.tourney.table import TourneyTable
from companion.session import Session
from companion.sim import table_model
from companion.ui import App
from companion.ui.planner import enter_by_keys

FULL_FRAME = 1024


def random_actions(players: int, seed: int, in_turn: bool = False) -> tuple[Any, list[Any]]:
    """One whole game from the simulated table, every prediction before the plays (the only order the
    device prompts): its setup and actions."""
    rng = random.Random(seed)
    names = ["Aki", "Ben", "Chie", "Dai"][:players]
    options = {"dealer": seed % players}
    game = Tourney(Tourney.new_setup(names, seed=seed, cards=printed_cards("tourney"), options=options))
    table = table_model(game, rng, 0.0 if in_turn else 1.0)
    assert isinstance(table, TourneyTable)
    while not game.is_over():
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
    return game.setup, list(game.actions)


def key_figures(players: int, scripted: int, seed: int, in_turn: bool) -> None:
    presses: Counter[str] = Counter()
    cards: Counter[str] = Counter()
    pages = total_presses = 0
    for i in range(scripted):
        setup, actions = random_actions(players, seed + 500 + i, in_turn=in_turn)
        app = App(Session(Tourney(setup)), clock=lambda: 0.0, rng=random.Random(i))
        counter = PageCounter(app)
        for action in actions:
            kind = "npc row" if isinstance(action, NpcRow) else "prediction" if isinstance(action, Predict) else "card"
            entered = enter_by_keys(app, action, on_press=counter)
            presses[kind] += entered
            cards[kind] += len(action.cards) if isinstance(action, NpcRow) else 1
            total_presses += entered
            assert isinstance(action, (NpcRow, Play, Predict))
        pages += counter.pages
    split = ", ".join(f"{kind} {presses[kind] / cards[kind]:.2f}" for kind in sorted(cards))
    order = "round from the lead" if in_turn else "in random order"
    print(f"tourney {players}p, predictions {order}: {sum(presses.values()) / sum(cards.values()):.2f} presses per card"
          f" over {scripted} scripted games ({split}); display bytes per press"
          f" {pages * 128 / total_presses / FULL_FRAME:.1%} of a frame")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scripted", type=int, default=4)
    args = parser.parse_args()
    for players in (3, 4):
        for in_turn in (False, True):
            key_figures(players, args.scripted, args.seed, in_turn)


if __name__ == "__main__":
    main()
