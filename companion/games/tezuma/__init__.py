"""Tezuma Trick, both editions: the 2015 first edition (``tezuma-2015``) and the later one (``tezuma``).

The parts are named, not imported: the registry imports them when the game is played.
"""

from companion.registry import Plugin, SetupRow

PLUGIN = Plugin(
    package=__name__,
    rules={"tezuma": "rules:TezumaTrick", "tezuma-2015": "rules:Tezuma2015"},
    titles={"tezuma": "Tezuma Trick", "tezuma-2015": "Tezuma (2015)"},
    players={"tezuma": (3, 4), "tezuma-2015": (3, 4)},
    # the variants each edition's book has (the beginner variant is the 2015 book's), then the cards
    setup={"tezuma": (SetupRow("redraw_each_deal", "tezuma.setup.redraw", "yes_no"),
                      SetupRow("cards", "setup.cards", "cards")),
           "tezuma-2015": (SetupRow("beginner", "setup.beginner", "yes_no"),
                           SetupRow("cards", "setup.cards", "cards"))},
    screens="screens:TezumaUI",
    table="table:TezumaTable",
    cards={"tezuma": "cards.tezuma.json", "tezuma-2015": "cards.tezuma-2015.json"},
    text="text.<lang>.json",
)
