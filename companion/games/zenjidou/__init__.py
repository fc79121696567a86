"""Zenjidou Torite (全自動トリテ, deztec 2023): tricks decided by the effects printed on the cards.

The parts are named, not imported: the registry imports them when the game is played.
"""

from companion.registry import Plugin

PLUGIN = Plugin(
    package=__name__,
    rules={"zenjidou": "rules:Zenjidou"},
    titles={"zenjidou": "Zenjidou Torite"},
    players={"zenjidou": (2, 6)},
    screens="screens:ZenjidouUI",
    table="table:ZenjidouTable",
    cards={"zenjidou": "cards.json"},
    text="text.<lang>.json",
)
