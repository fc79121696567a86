"""Irohanihohedo's deck question on the device: key presses to tell a player count's numbers.

Run: python bench/irohanihohedo.py [--decks N] [--seed S]. Prints figures; asserts nothing.

For 3, 4 and 5 players, N random decks (2 x players numbers of the twelve) entered through the key
planner on a fresh question screen (what a person presses: tick each number, then Done), and the
presses to skip the question. It is asked once per player count: the answer is kept in the card facts.
"""

from __future__ import annotations

import argparse
import random

from companion.carddata import printed_cards
from companion.engine.base import Answer
from companion.games.irohanihohedo.rules import Irohanihohedo, deck_mask
from companion.session import Session
from companion.ui import App
from companion.ui.planner import presses_for

NAMES = ("Aki", "Ben", "Chie", "Dai", "Emi")


def presses(players: int, numbers: list[int]) -> int:
    cards = printed_cards("irohanihohedo")
    game = Irohanihohedo(Irohanihohedo.new_setup(NAMES[:players], cards=cards))
    app = App(Session(game), clock=lambda: 0.0, rng=random.Random(0))
    return len(presses_for(app, Answer(f"numbers:{players}", deck_mask(cards, numbers))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for players in (3, 4, 5):
        counts = [presses(players, rng.sample(range(1, 13), 2 * players)) for _ in range(args.decks)]
        print(f"irohanihohedo deck question, {players} players ({2 * players} numbers): mean"
              f" {sum(counts) / len(counts):.1f} presses (min {min(counts)}, max {max(counts)}) over {args.decks}"
              f" random decks; skip {presses(players, [])} presses")


if __name__ == "__main__":
    main()
