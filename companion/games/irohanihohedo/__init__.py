"""Irohanihohedo (色映に生へど, nononon factory 2019): a trump that moves to whoever cannot follow.

The parts are named, not imported: the registry imports them when the game is played.
"""

from companion.registry import Plugin

PLUGIN = Plugin(
    package=__name__,
    rules={"irohanihohedo": "rules:Irohanihohedo"},
    titles={"irohanihohedo": "Irohanihohedo"},
    screens="screens:IrohanihohedoUI",
    table="table:IrohanihohedoTable",
    cards={"irohanihohedo": "cards.json"},
    text="text.<lang>.json",
)
