"""Every package here is a game: its rules, screens, simulated table, card data and text.

A package's ``__init__`` holds one :class:`~companion.registry.Plugin` record naming those parts; the
registry (:mod:`companion.registry`) finds the records and imports a part on first use, so a new
game is a new package here, not an edit anywhere else.
"""
