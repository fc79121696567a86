"""Tourney's key presses per card on the device (games/s and push latency: bench/engine.py, every game).

Run: python bench/tourney.py [--seed S] [--scripted K]. Prints figures; asserts nothing.

- key presses per card over K scripted whole games of the simulated table entered through the key
  planner (what a person presses), as the device asks: the lead's card, the word that the
  predictions are down where the NPC's turn comes straight after a player's lead, the playing cards
  in turn, then each prediction at the reveal. Per input (the joystick and the card keypad), split by
  what was entered: the NPC's row (per card), the lead's cards, the followers' cards, the `down`
  press and the predictions; and the share of a 1024-byte frame the page-diff writer sends per press.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from typing import Any

from presses import PageCounter  # bench/ is on sys.path when run as a script

from companion.carddata import printed_cards
from companion.games.tourney.rules import NpcRow, Play, Predict, PredictionsDown, Tourney
from companion.games.tourney.table import TourneyTable
from companion.session import Session
from companion.sim import table_model
from companion.ui import App
from companion.ui.planner import LAYOUTS, enter_by_keys

FULL_FRAME = 1024


def random_actions(players: int, seed: int) -> tuple[Any, list[Any]]:
    """One whole game from the simulated table, as the device asks it: its setup and actions."""
    rng = random.Random(seed)
    names = ["Aki", "Ben", "Chie", "Dai"][:players]
    options = {"dealer": seed % players}
    game = Tourney(Tourney.new_setup(names, seed=seed, cards=printed_cards("tourney"), options=options))
    table = table_model(game, rng, 0.0)
    assert isinstance(table, TourneyTable)
    while not game.is_over():
        action = table.choose(game, rng)
        game.push(action)
        table.after(game, action)
    return game.setup, list(game.actions)


def kind_of(game: Tourney, action: Any) -> str:
    """What ``action`` enters, as the figures split it."""
    if isinstance(action, NpcRow):
        return "npc row"
    if isinstance(action, Predict):
        return "prediction"
    if isinstance(action, PredictionsDown):
        return "down"
    assert isinstance(action, Play)
    return "follower" if game.trick.turns else "lead"


def key_figures(players: int, layout: str, scripted: int, seed: int) -> None:
    presses: Counter[str] = Counter()
    cards: Counter[str] = Counter()
    pages = total_presses = 0
    for i in range(scripted):
        setup, actions = random_actions(players, seed + 500 + i)
        app = App(Session(Tourney(setup)), clock=lambda: 0.0, rng=random.Random(i))
        counter = PageCounter(app)
        game = app.session.game if app.session is not None else None
        assert isinstance(game, Tourney)
        for action in actions:
            kind = kind_of(game, action)
            entered = enter_by_keys(app, action, layout, on_press=counter)
            presses[kind] += entered
            cards[kind] += len(action.cards) if isinstance(action, NpcRow) else 1
            total_presses += entered
        pages += counter.pages
    split = ", ".join(f"{kind} {presses[kind] / cards[kind]:.2f}" for kind in sorted(cards))
    print(f"tourney {players}p {layout}: {sum(presses.values()) / sum(cards.values()):.2f} presses per card"
          f" over {scripted} scripted games ({split}); display bytes per press"
          f" {pages * 128 / total_presses / FULL_FRAME:.1%} of a frame")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scripted", type=int, default=4)
    args = parser.parse_args()
    for players in (3, 4):
        for layout in LAYOUTS:
            key_figures(players, layout, args.scripted, args.seed)


if __name__ == "__main__":
    main()
