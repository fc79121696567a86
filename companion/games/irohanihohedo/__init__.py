"""Irohanihohedo (色映に生へど, nononon factory 2019): a trump that moves to whoever cannot follow.

The parts are named, not imported: the registry imports them when the game is played.
"""

from companion.registry import Plugin, SetupRow

PLUGIN = Plugin(
    package=__name__,
    rules={"irohanihohedo": "rules:Irohanihohedo"},
    titles={"irohanihohedo": "Irohanihohedo"},
    players={"irohanihohedo": (3, 6)},
    setup={"irohanihohedo": (SetupRow("dealer", "irohanihohedo.setup.dealer", "seat"),
                             SetupRow("strategic", "irohanihohedo.setup.strategic", "yes_no"))},
    screens="screens:IrohanihohedoUI",
    table="table:IrohanihohedoTable",
    cards={"irohanihohedo": "cards.json"},
    text="text.<lang>.json",
)
