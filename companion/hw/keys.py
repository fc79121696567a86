"""The key vocabulary as the hardware drivers see it: :mod:`companion.keys`, re-imported here for
the drivers and their configuration (the screens import :mod:`companion.keys` itself)."""

from companion.keys import ARROWS, Key, KeyEvent

__all__ = ["ARROWS", "Key", "KeyEvent"]
