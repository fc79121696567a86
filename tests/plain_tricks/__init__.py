"""Plain Tricks, the tests' own game: a package of the same shape as a product game's.

Its rules (written against the trick-game contract alone) and its simulated table; it has no card
data (its deck is fixed), no text and no screens. The tests register it with
:func:`companion.registry.extra_package` (tests/games.py), so it runs through every cross-game test.
"""

from companion.registry import Plugin

PLUGIN = Plugin(package=__name__, rules={"plain-tricks": "rules:PlainTricks"}, titles={"plain-tricks": "Plain Tricks"},
                players={"plain-tricks": (2, 3)}, table="table:PlainTable")
