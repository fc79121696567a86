"""Tourney (トウルネイ, A.I.Lab. 遊): predict the place of your own card in every trick.

The parts are named, not imported: the registry imports them when the game is played.
"""

from companion.registry import Plugin, SetupRow

PLUGIN = Plugin(
    package=__name__,
    rules={"tourney": "rules:Tourney"},
    titles={"tourney": "Tourney"},
    players={"tourney": (3, 4)},
    setup={"tourney": (SetupRow("dealer", "tourney.setup.dealer", "seat"),)},
    screens="screens:TourneyUI",
    table="table:TourneyTable",
    cards={"tourney": "cards.json"},
    text="text.<lang>.json",
)
