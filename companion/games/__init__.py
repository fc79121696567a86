"""Every module in this package is a game; importing the package registers them all.

A new game is a new module here that defines a :class:`~companion.engine.base.Game` subclass
decorated with :func:`~companion.registry.register`, plus its card data under ``companion/data/cards``.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
